import HearClearModel

/// The context of `venues.mustache`.
struct VenueListPage {
    struct Row {
        let name: String
        let externalID: String
        let link: String
        let category: String?
        let activity: String
        let checkins: String
    }

    let title = "Venues"
    let chrome: AdminChrome
    let search: String
    let searching: Bool
    let page: Int
    let rows: [Row]
    let hasRows: Bool
    let previous: String?
    let next: String?

    init(
        chrome: AdminChrome, search: String?, page: Int, rows: [AdminVenueRow], previous: String?, next: String?
    ) {
        self.chrome = chrome
        self.search = search ?? ""
        searching = search != nil
        self.page = page
        self.rows = rows.map {
            Row(
                name: $0.name, externalID: $0.externalID, link: "/farmer/venues/\($0.externalID)",
                category: $0.category, activity: AdminFormat.minute($0.activityAt),
                checkins: AdminFormat.count($0.checkins)
            )
        }
        hasRows = !rows.isEmpty
        self.previous = previous
        self.next = next
    }
}
