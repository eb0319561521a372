import Hummingbird
import NIOCore

/// The request context of every HearClear route.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's address (nil in router tests).
    public let remoteAddress: SocketAddress?
    /// The client's address as the rate limits and the admin's login backoff see it (the peer, or
    /// behind trusted proxies the last untrusted `X-Forwarded-For` hop), set by
    /// `RateLimitMiddleware` on every request; nil in router tests.
    public var clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// Bodies are collected by `BodyLimitMiddleware`, which applies the real limits.
    public var maxUploadSize: Int { BodyLimits.meterBytes }
}
