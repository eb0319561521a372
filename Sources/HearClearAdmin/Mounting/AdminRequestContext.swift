import HearClearHTTP
import HearClearModel
import Hummingbird
import NIOCore

/// The context of `/farmer` routes: the app's, plus the signed-in session and the parsed form
/// of a POST (and, for an upload, its parts), all set by ``AdminSessionMiddleware``.
struct AdminRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    var session: AdminSession?
    var form = FormFields()
    /// A `multipart/form-data` POST's parts, files included; its text fields are also in `form`.
    var multipart: MultipartForm?

    /// The client's address as the app's context found it (behind trusted proxies, from
    /// `X-Forwarded-For`), else the peer's.
    let forwardedClientAddress: String?

    init(context: AppRequestContext) throws {
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
        forwardedClientAddress = context.clientAddress
    }

    /// Bodies are collected and limited by `BodyLimitMiddleware` before this context exists.
    var maxUploadSize: Int { BodyLimits.meterBytes }

    /// The session; routes behind ``AdminSessionMiddleware`` always have one.
    func requireSession() throws -> AdminSession {
        guard let session else { throw HTTPError(.unauthorized) }
        return session
    }

    /// The address the login backoff keys on and the audit log and session record: the client,
    /// not a trusted proxy in front of it (else one guesser behind the proxy would hold back every
    /// admin behind it).
    var clientAddress: String {
        forwardedClientAddress ?? remoteAddress?.ipAddress ?? "unknown"
    }
}
