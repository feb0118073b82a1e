import HTTPTypes
import Hummingbird
import Synchronization

/// The routes the router serves, as patterns (`/v1/submissions/{id}`), for what Hummingbird's
/// router does not tell: which methods a known path allows (`405` with `Allow`) and which
/// route a request took (the access log).
///
/// `Sendable` on its own: the table lives in a `Mutex`, filled once the routes are registered.
final class RouteTable: Sendable {
    private struct Route {
        let method: HTTPRequest.Method
        let pattern: String
        let segments: [Substring]
    }

    private let routes = Mutex<[Route]>([])

    init() {}

    /// Replaces the table with the router's routes.
    func load<Context>(_ router: Router<Context>) {
        let loaded = router.routes.map { route -> Route in
            let text = "\(route.path)"
            let pattern = text.hasPrefix("/") ? text : "/" + text
            return Route(method: route.method, pattern: pattern, segments: pattern.split(separator: "/"))
        }
        routes.withLock { $0 = loaded }
    }

    /// The pattern `path` falls under and the methods it is served with, or nil for an
    /// unknown path. Of several patterns the one with the most literal segments wins.
    func match(_ path: String) -> (pattern: String, methods: [HTTPRequest.Method])? {
        let segments = path.split(separator: "/")
        let matching = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { pattern, actual in pattern.hasPrefix("{") || pattern == actual }
            }
        }
        let literal = { (route: Route) in route.segments.filter { !$0.hasPrefix("{") }.count }
        guard let best = matching.max(by: { literal($0) < literal($1) }) else { return nil }
        var methods = matching.filter { $0.pattern == best.pattern }.map(\.method)
        if methods.contains(.get), !methods.contains(.head) { methods.append(.head) }
        // Alphabetical: the router's own order is not guaranteed.
        return (best.pattern, methods.sorted { $0.rawValue < $1.rawValue })
    }
}
