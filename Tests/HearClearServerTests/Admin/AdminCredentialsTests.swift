import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HummingbirdBcrypt
import Logging
import Testing

@testable import HearClearAdmin
@testable import HearClearEngine

@Suite("Admin credentials from the configuration")
struct AdminCredentialsTests {
    private func temporaryDataDirectory() -> String {
        NSTemporaryDirectory() + "hearclear-admin-\(UUID().uuidString)"
    }

    @Test("with nothing configured, a password is generated, printed once, and only its hash kept")
    func generated() throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        var notices: [String] = []

        let first = try AdminCredentials.resolve(configuration.admin, logger: testLogger) { notices.append($0) }
        let second = try AdminCredentials.resolve(configuration.admin, logger: testLogger) { notices.append($0) }

        #expect(notices.count == 1, "printed on the first start only")
        let line = try #require(notices.first?.split(separator: "\n").first { $0.contains("password:") })
        let password = String(try #require(line.split(separator: " ").last))
        #expect(password.count == 23)
        #expect(Bcrypt.verify(password, hash: first.passwordHash))
        #expect(second.passwordHash == first.passwordHash, "the next start reuses the stored hash")
        let path = configuration.dataDirectory + "/admin-password.bcrypt"
        let stored = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!stored.contains(password))
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test("a configured password is hashed at start; a configured hash is used as it is")
    func configured() throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = temporaryDataDirectory()
        configuration.adminUser = "farmer"
        configuration.adminPassword = "open sesame"
        let hashed = try AdminCredentials.resolve(configuration.admin, logger: testLogger) { _ in
            Issue.record("no notice")
        }
        configuration.adminPasswordHash = AdminTestCredentials.passwordHash
        let given = try AdminCredentials.resolve(configuration.admin, logger: testLogger) { _ in
            Issue.record("no notice")
        }

        #expect(hashed.username == "farmer")
        #expect(Bcrypt.verify("open sesame", hash: hashed.passwordHash))
        #expect(given.passwordHash == AdminTestCredentials.passwordHash, "the hash wins over the password")
        #expect(!FileManager.default.fileExists(atPath: configuration.dataDirectory), "nothing written")
    }

    @Test("a hash that is not bcrypt stops the start with a clear message")
    func badHash() {
        var configuration = ServerConfiguration()
        configuration.adminPasswordHash = "secret"
        #expect(throws: ConfigurationError.self) {
            try AdminCredentials.resolve(configuration.admin, logger: testLogger)
        }
    }
}
