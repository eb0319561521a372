import HearClearEngine
import Hummingbird
import LoudnessCore

/// The read endpoints' way to answer: from the ``ReadCache`` when it holds the answer, else read
/// and encoded once, kept, and sent, with `Cache-Control` for phones and CDNs.
struct CachedReads: Sendable {
    let cache: ReadCache
    /// Where the bands are read on a miss.
    let loudness: LoudnessReads
    /// Where misses are read (the replica's horizon decides what may be kept).
    let database: ReadDatabase
    /// `public, max-age=…, stale-while-revalidate=…`.
    let cacheControl: String

    init(
        cache: ReadCache, loudness: LoudnessReads, database: ReadDatabase, maxAgeSeconds: Int,
        staleWhileRevalidateSeconds: Int
    ) {
        self.cache = cache
        self.loudness = loudness
        self.database = database
        cacheControl = "public, max-age=\(maxAgeSeconds), stale-while-revalidate=\(staleWhileRevalidateSeconds)"
    }

    /// The bands in force: from memory while no band change has been heard, else read (and kept).
    func currentBands() async throws -> Bands {
        if let bands = cache.bands { return bands }
        let ticket = cache.ticket(replicaHorizon: database.horizon)
        let bands = try await loudness.currentBands()
        cache.keep(bands, since: ticket)
        return bands
    }

    /// The answer for `key`; `read` runs on a miss and throws for answers not to keep (404s).
    func respond(_ key: ReadCache.Key, to request: Request, read: () async throws -> EncodedAnswer) async throws
        -> Response
    {
        if let answer = cache.answer(key) { return answer.response(to: request, cacheControl: cacheControl) }
        let ticket = cache.ticket(replicaHorizon: database.horizon)
        let answer = try await read()
        cache.fill(key, answer, since: ticket)
        return answer.response(to: request, cacheControl: cacheControl)
    }
}

extension CachedReads {
    /// The engine's reads, with the configuration's `Cache-Control` times.
    init(_ configuration: ServerConfiguration, _ cache: ReadCache, engine: Engine) {
        self.init(
            cache: cache, loudness: engine.loudness, database: engine.reads,
            maxAgeSeconds: configuration.httpMaxAgeSeconds,
            staleWhileRevalidateSeconds: configuration.httpStaleWhileRevalidateSeconds)
    }
}
