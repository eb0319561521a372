import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// `admin_audit_log`: who did what, newest first.
public struct AdminAuditLog: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func record(username: String, action: String, subject: String? = nil, detail: String? = nil)
        async throws
    {
        try await client.query(
            """
            INSERT INTO admin_audit_log (username, action, subject, detail)
            VALUES (\(username), \(action), \(subject), \(detail))
            """,
            logger: logger
        )
    }

    public func recent(limit: Int) async throws -> [AdminAuditEntry] {
        let rows = try await client.query(Self.recentQuery(limit: limit), logger: logger)
        var entries: [AdminAuditEntry] = []
        for try await row in rows.decode((Date, String, String, String?, String?).self) {
            entries.append(AdminAuditEntry(at: row.0, username: row.1, action: row.2, subject: row.3, detail: row.4))
        }
        return entries
    }

    static func recentQuery(limit: Int) -> PostgresQuery {
        """
        SELECT at, username, action, subject, detail FROM admin_audit_log
        ORDER BY at DESC, id DESC LIMIT \(limit)
        """
    }
}
