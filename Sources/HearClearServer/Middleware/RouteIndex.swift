import HTTPTypes
import Hummingbird
import Synchronization

/// The routes the router knows, to tell a wrong method (405 with `Allow`) from an unknown
/// path (404). Filled once after the routes are added.
final class RouteIndex: Sendable {
    private let routes = Mutex<[(segments: [Substring], method: HTTPRequest.Method)]>([])

    func load(_ descriptions: [(path: String, method: HTTPRequest.Method)]) {
        routes.withLock { routes in
            routes = descriptions.map { ($0.path.split(separator: "/"), $0.method) }
        }
    }

    /// Methods allowed on `path`, empty when no route matches it.
    func allowedMethods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        return routes.withLock { routes in
            routes.filter { Self.matches($0.segments, segments) }.map(\.method)
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
