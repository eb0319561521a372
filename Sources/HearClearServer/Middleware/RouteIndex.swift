import HTTPTypes
import Hummingbird
import Synchronization

/// The routes the router knows, to tell a wrong method (405 with `Allow`) from an unknown
/// path (404), and whether a route takes a request's method before its body is read
/// (`BodyLimitMiddleware`, on every POST and PUT). Filled once after the routes are added; a
/// path that is a route's own (no parameters, e.g. `/api/v2/checkins`) is answered from a
/// table made then, the others by matching every route.
final class RouteIndex: Sendable {
    private struct Routes {
        var patterns: [(segments: [Substring], method: HTTPRequest.Method)] = []
        /// Every route's literal path with the methods of all routes that match it.
        var literal: [String: [HTTPRequest.Method]] = [:]
    }

    private let routes = Mutex(Routes())

    func load(_ descriptions: [(path: String, method: HTTPRequest.Method)]) {
        var loaded = Routes()
        loaded.patterns = descriptions.map { ($0.path.split(separator: "/"), $0.method) }
        for description in descriptions where !description.path.contains(where: { "{:*".contains($0) }) {
            let segments = description.path.split(separator: "/")
            loaded.literal[description.path] = loaded.patterns.filter { Self.matches($0.segments, segments) }
                .map(\.method)
        }
        routes.withLock { $0 = loaded }
    }

    /// Methods allowed on `path`, empty when no route matches it.
    func allowedMethods(for path: String) -> [HTTPRequest.Method] {
        routes.withLock { routes in
            if let methods = routes.literal[path] { return methods }
            let segments = path.split(separator: "/")
            return routes.patterns.filter { Self.matches($0.segments, segments) }.map(\.method)
        }
    }

    static func matches(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        if pattern.last == "**" {
            return path.count >= pattern.count - 1 && zip(pattern, path).allSatisfy(segmentMatches)
        }
        return pattern.count == path.count && zip(pattern, path).allSatisfy(segmentMatches)
    }

    private static func segmentMatches(_ pattern: Substring, _ segment: Substring) -> Bool {
        pattern == segment || pattern.hasPrefix("{") || pattern.hasPrefix(":") || pattern == "*" || pattern == "**"
    }
}
