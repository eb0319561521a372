import HearClearPages
import Hummingbird
import LoudnessCore

/// The pages' cache: the API's ``ReadCache`` (pages are kept, tagged and gzip'd as its answers
/// are, dropped by the same notifications) and its bands.
struct ServerPageCache: PageCache {
    let reads: CachedReads

    func currentBands() async throws -> Bands {
        try await reads.currentBands()
    }

    func respond(
        _ key: PageKey, cacheControl: String, to request: Request, make: () async throws -> MadePage
    ) async throws -> Response {
        if let answer = reads.cache.answer(.page(key)) {
            return answer.response(to: request, cacheControl: cacheControl)
        }
        let ticket = reads.cache.ticket(replicaHorizon: reads.database.horizon)
        switch try await make() {
        case .send(let response):
            return response
        case .keep(let body, let contentType, let headers, let keepFor):
            let answer = try EncodedAnswer(body: body, contentType: contentType, headers: headers)
            reads.cache.fill(.page(key), answer, since: ticket, keepFor: keepFor)
            return answer.response(to: request, cacheControl: cacheControl)
        }
    }
}
