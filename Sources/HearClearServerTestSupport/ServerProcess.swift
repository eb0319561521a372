#if os(Linux)
    import Foundation
    import HearClearTestSupport
    import Synchronization
    import Glibc

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// `hearclear serve` run as a separate process, as a user runs it: in a scratch working
    /// directory (no `.env` of the repository), with the repository as its resources, the test's
    /// environment less anything that would point it elsewhere, its output in a log file.
    public final class ServerProcess: @unchecked Sendable {
        public let process: Process
        public let port: Int
        public let logFile: URL

        public var base: String { "http://127.0.0.1:\(port)" }
        public var pid: pid_t { process.processIdentifier }
        public var isRunning: Bool { process.isRunning }

        /// Kills it if the test run is ended from outside (``TestWatchdog``).
        private let cleanup: UInt64

        private init(process: Process, port: Int, logFile: URL) {
            self.process = process
            self.port = port
            self.logFile = logFile
            let pid = process.processIdentifier
            cleanup = TestWatchdog.register { ProcessTree.killAndWait(root: pid, seconds: 5) }
        }

        /// Starts `hearclear serve --port <free port> arguments…` and waits until `/ready` answers
        /// 200; a port taken meanwhile by someone else is tried again with another.
        public static func start(_ arguments: [String], scratch: URL, readyWithin limit: Duration = TestPatience.start)
            async throws -> ServerProcess
        {
            var lastFailure = ""
            for _ in 0..<3 {
                let server = try launch(arguments, port: try freePort(), scratch: scratch)
                if try await server.waitUntilReady(within: limit) { return server }
                lastFailure = server.logTail()
                let exited = !server.isRunning
                await server.stop()
                // Only a server that gave up (a port taken after we looked, say) is tried again.
                guard exited else { break }
            }
            throw ServerProcessError("hearclear serve did not become ready:\n\(lastFailure)")
        }

        private static func launch(_ arguments: [String], port: Int, scratch: URL) throws -> ServerProcess {
            let logFile = scratch.appendingPathComponent("serve-\(port)-\(UUID().uuidString.prefix(8)).log")
            guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
                throw ServerProcessError("cannot create \(logFile.path)")
            }
            let log = try FileHandle(forWritingTo: logFile)
            defer { try? log.close() }
            let process = Process()
            process.executableURL = HearClearCommand.executable()
            process.arguments =
                ["serve", "--port", "\(port)", "--resources", TestCluster.repositoryRoot, "--log-level", "notice"]
                + arguments
            process.currentDirectoryURL = scratch
            process.environment = ProcessInfo.processInfo.environment.filter { name, _ in
                !name.hasPrefix("HEARCLEAR_") && !name.hasPrefix("DATABASE_")
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = log
            process.standardError = log
            try process.run()
            return ServerProcess(process: process, port: port, logFile: logFile)
        }

        /// Polls `/ready` until it answers 200 (true) or the process ends or `limit` has passed (false).
        public func waitUntilReady(within limit: Duration) async throws -> Bool {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                guard isRunning else { return false }
                if (try? await HTTP.get(base + "/ready"))?.status == 200 { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// The last lines the server wrote, less the access log's line per request (a 503 is
        /// logged as an error, and under load they would hide everything else).
        public func logTail(_ lines: Int = 30) -> String {
            let requests = /\] (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \/\S* \d{3}$/
            return allLogLines.filter { (try? requests.firstMatch(in: $0)) == nil }.suffix(lines).joined(separator: "\n")
        }

        /// The first `limit` lines the server wrote that contain `text` (a "request failed" error
        /// says why a request was answered 500).
        public func logLines(containing text: String, limit: Int = 10) -> String {
            allLogLines.filter { $0.contains(text) }.prefix(limit).joined(separator: "\n")
        }

        /// Every line the server has written so far.
        private var allLogLines: [Substring] {
            ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").split(separator: "\n")
        }

        /// SIGTERM (the server stops its embedded PostgreSQL), then SIGKILL of everything it
        /// started if it has not ended within `seconds`. True when it ended by itself with status 0.
        @discardableResult
        public func stop(seconds: Double = 30) async -> Bool {
            defer { TestWatchdog.unregister(cleanup) }
            guard isRunning else { return false }
            kill(pid, SIGTERM)
            let deadline = ContinuousClock.now + .seconds(seconds)
            while isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
            let ended = !isRunning
            let (pid, process) = (self.pid, self.process)
            _ = try? await offThePool {
                if !ended { ProcessTree.killAndWait(root: pid) }
                process.waitUntilExit()
            }
            return ended && process.terminationReason == .exit && process.terminationStatus == 0
        }

        /// SIGKILL of the server and every process below it (its PostgreSQL, the backends, the
        /// watchdog), as close together as signals go; returns once all are gone. Blocks: call it
        /// through ``offThePool(_:)`` (or from a `defer`, where nothing else waits).
        public func crash() {
            defer { TestWatchdog.unregister(cleanup) }
            guard isRunning else { return }
            ProcessTree.killAndWait(root: pid)
            process.waitUntilExit()
        }
    }

    public struct ServerProcessError: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// A TCP port nobody listens on now: the kernel's pick for a socket bound to port 0.
    public func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServerProcessError("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw ServerProcessError("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Processes by `/proc` (Linux): a process's descendants, killing them, waiting for them to go.
    public enum ProcessTree {
        /// Every process below `root`, read from `/proc/<pid>/stat`.
        public static func descendants(of root: pid_t) -> [pid_t] {
            var children: [pid_t: [pid_t]] = [:]
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = pid_t(entry), let (_, parent) = status(pid) else { continue }
                children[parent, default: []].append(pid)
            }
            var found: [pid_t] = []
            var queue = [root]
            while let next = queue.popLast() {
                for child in children[next] ?? [] {
                    found.append(child)
                    queue.append(child)
                }
            }
            return found
        }

        /// The state letter and parent of `pid`, nil when it does not exist.
        public static func status(_ pid: pid_t) -> (state: Character, parent: pid_t)? {
            let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return nil }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            // "pid (comm) S ppid …": comm may hold spaces and parentheses, the last ")" ends it.
            guard let end = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: end)...].split(separator: " ")
            guard fields.count > 1, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
            return (state, parent)
        }

        /// Whether `pid` has ended (a zombie waiting for its parent counts as ended).
        public static func isGone(_ pid: pid_t) -> Bool {
            guard kill(pid, 0) == 0 || errno == EPERM else { return true }
            guard let (state, _) = status(pid) else { return true }
            return state == "Z" || state == "X"
        }

        /// SIGKILL of `root` and everything below it (listed first, so that none is missed when
        /// the killed parent's children move to init), then waits up to `seconds` for all to end.
        @discardableResult
        public static func killAndWait(root: pid_t, seconds: Double = 30) -> Bool {
            killAndWait([root] + descendants(of: root), seconds: seconds)
        }

        @discardableResult
        public static func killAndWait(_ pids: [pid_t], seconds: Double = 30) -> Bool {
            for pid in pids { kill(pid, SIGKILL) }
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if pids.allSatisfy(isGone) { return true }
                usleep(20_000)
            }
            return false
        }
    }

    /// The postmaster's pid, the first line of `<cluster>/postmaster.pid`.
    public func postmasterPID(cluster: String) throws -> pid_t {
        let contents = try String(contentsOfFile: cluster + "/postmaster.pid", encoding: .utf8)
        guard let pid = contents.split(separator: "\n").first.flatMap({ pid_t($0) }), pid > 0 else {
            throw ServerProcessError("no pid in \(cluster)/postmaster.pid")
        }
        return pid
    }

    /// Plain HTTP/1.1 through URLSession (what the test target links); no cache, no cookies.
    public enum HTTP {
        public struct Answer: Sendable {
            public var status: Int
            public var headers: [String: String]
            public var body: Data

            public func header(_ name: String) -> String? {
                headers.first { $0.key.lowercased() == name.lowercased() }?.value
            }

            public var json: [String: Any] {
                (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
            }
        }

        public static let session: URLSession = {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 16
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpCookieStorage = nil
            return URLSession(configuration: configuration)
        }()

        /// A request's timeout bounds a hang, like ``TestPatience``: a slow answer is still an answer.
        public static let timeout = 120.0

        public static func get(_ url: String, timeout: Double = timeout) async throws -> Answer {
            var request = URLRequest(url: URL(string: url)!)
            request.timeoutInterval = timeout
            return try await send(request)
        }

        public static func post(_ url: String, json: Data, timeout: Double = timeout) async throws -> Answer {
            var request = URLRequest(url: URL(string: url)!)
            request.httpMethod = "POST"
            request.httpBody = json
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.timeoutInterval = timeout
            return try await send(request)
        }

        private static func send(_ request: URLRequest) async throws -> Answer {
            let (data, response) = try await session.data(for: request)
            guard let response = response as? HTTPURLResponse else {
                throw ServerProcessError("not an HTTP answer from \(request.url?.absoluteString ?? "")")
            }
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name] = value }
            }
            return Answer(status: response.statusCode, headers: headers, body: data)
        }
    }

    /// v2 check-ins posted by concurrent clients until stopped, and what became of each: its
    /// body (to send it again), whether it was acknowledged, and every answer with its time.
    public final class CheckinLoad: Sendable {
        public struct Answer: Sendable {
            /// nil: no answer (the connection failed or the request timed out).
            public var status: Int?
            public var at: ContinuousClock.Instant
            public var retryAfter: String?
            public var contentType: String?
            public var failure: String?
        }

        private struct State {
            public var base: String
            public var bodies: [UUID: Data] = [:]
            public var acknowledged: Set<UUID> = []
            public var answers: [Answer] = []
        }

        private let state: Mutex<State>
        private let stopped = Atomic(false)
        /// One check-in per venue, 30 seconds ending a minute before the load began; each
        /// check-in is one of these with its own id and device.
        private let templates: [Data]
        public static let venues = 4

        public init(base: String) {
            state = Mutex(State(base: base))
            let start = Date().addingTimeInterval(-90).rounded()
            templates = (0..<Self.venues).map { venue in
                let object = Fixture.checkin(venue: "crash-venue-\(venue)", count: 30, start: start)
                return try! JSONSerialization.data(withJSONObject: object)
            }
        }

        /// Where later requests go (a restarted server has another port).
        public func retarget(_ base: String) { state.withLock { $0.base = base } }

        /// Posts from `clients` clients until ``stop()``; the task ends when every client has
        /// its last answer.
        public func start(clients: Int) -> Task<Void, Never> {
            Task {
                await withTaskGroup(of: Void.self) { group in
                    for client in 0..<clients {
                        group.addTask { await self.client(client) }
                    }
                }
            }
        }

        public func stop() { stopped.store(true, ordering: .relaxed) }

        private func client(_ client: Int) async {
            var sent = 0
            while !stopped.load(ordering: .relaxed) {
                // Eight devices a client, each always at the same venue.
                let device = sent % 8
                let id = UUID()
                let body = Self.body(
                    template: templates[device % Self.venues], id: id, device: "crash-device-\(client)-\(device)")
                let base = state.withLock { state in
                    state.bodies[id] = body
                    return state.base
                }
                sent += 1
                let answer: Answer
                do {
                    let reply = try await HTTP.post(base + "/api/v2/checkins", json: body)
                    answer = Answer(
                        status: reply.status, at: .now, retryAfter: reply.header("Retry-After"),
                        contentType: reply.header("Content-Type"))
                } catch {
                    answer = Answer(status: nil, at: .now, failure: "\(error)")
                }
                let accepted = answer.status == 200 || answer.status == 201
                state.withLock { state in
                    state.answers.append(answer)
                    if accepted { state.acknowledged.insert(id) }
                }
                // A failed client waits a little (as a phone would) instead of spinning.
                if !accepted { try? await Task.sleep(for: .milliseconds(50)) }
            }
        }

        /// `template` with `id` and the device `device`.
        public static func body(template: Data, id: UUID, device: String) -> Data {
            var object = (try? JSONSerialization.jsonObject(with: template)) as? [String: Any] ?? [:]
            object["id"] = id.uuidString.lowercased()
            object["device"] = ["id": device, "model": "iPhone15,2"]
            return try! JSONSerialization.data(withJSONObject: object)
        }

        public var acknowledged: Set<UUID> { state.withLock { $0.acknowledged } }
        public var answers: [Answer] { state.withLock { $0.answers } }
        /// Ids sent without an acknowledgement: in flight when it failed, or refused.
        public var unacknowledged: [UUID: Data] {
            state.withLock { state in state.bodies.filter { !state.acknowledged.contains($0.key) } }
        }
        /// The instant of the first acknowledgement at or after `instant`.
        public func firstAcknowledgement(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
            state.withLock { state in
                state.answers.filter { ($0.status == 200 || $0.status == 201) && $0.at >= instant }.map(\.at).min()
            }
        }
    }

    /// What became of ids checked or sent again, by many requests at once.
    public enum Concurrently {
        /// `work` for every element, `width` at a time; the results in no particular order.
        public static func map<Element: Sendable, Result: Sendable>(
            _ elements: [Element], width: Int = 8, _ work: @escaping @Sendable (Element) async -> Result
        ) async -> [Result] {
            await withTaskGroup(of: Result.self) { group in
                var results: [Result] = []
                var next = 0
                while next < min(width, elements.count) {
                    let element = elements[next]
                    group.addTask { await work(element) }
                    next += 1
                }
                while let result = await group.next() {
                    results.append(result)
                    if next < elements.count {
                        let element = elements[next]
                        group.addTask { await work(element) }
                        next += 1
                    }
                }
                return results
            }
        }
    }
#endif
