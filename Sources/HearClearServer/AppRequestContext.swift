import Hummingbird

/// The request context of every HearClear route.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// Bodies are collected by `BodyLimitMiddleware`, which applies the real limits.
    public var maxUploadSize: Int { BodyLimits.meterBytes }
}
