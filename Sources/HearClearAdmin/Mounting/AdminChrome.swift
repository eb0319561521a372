import HearClearModel

/// The parts of the layout every signed-in page shares: the logout form's CSRF token, the user,
/// and which section is current.
struct AdminChrome {
    enum Section {
        case dashboard, venues, reports, devices, models, bands, changes, campaigns
    }

    let csrf: String
    let user: String
    let dashboard: Bool
    let venues: Bool
    let reports: Bool
    let devices: Bool
    let models: Bool
    let bands: Bool
    let changes: Bool
    let campaigns: Bool

    init(_ session: AdminSession, section: Section) {
        csrf = session.csrfToken
        user = session.username
        dashboard = section == .dashboard
        venues = section == .venues
        reports = section == .reports
        devices = section == .devices
        models = section == .models
        bands = section == .bands
        changes = section == .changes
        campaigns = section == .campaigns
    }
}
