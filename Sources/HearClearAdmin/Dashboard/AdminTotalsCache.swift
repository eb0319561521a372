import Foundation
import HearClearModel

/// The dashboard's totals need one pass over every check-in (about a quarter of a second at a
/// million), so each server keeps the last answer for a few seconds.
actor AdminTotalsCache {
    private var cached: (totals: AdminOverview.Totals, readAt: Date)?
    let lifetimeSeconds: Double

    init(lifetimeSeconds: Double = 15) {
        self.lifetimeSeconds = lifetimeSeconds
    }

    func totals(_ load: @Sendable () async throws -> AdminOverview.Totals) async throws
        -> (totals: AdminOverview.Totals, readAt: Date)
    {
        if let cached, Date().timeIntervalSince(cached.readAt) < lifetimeSeconds { return cached }
        let fresh = (try await load(), Date())
        cached = fresh
        return fresh
    }
}
