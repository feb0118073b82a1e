import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// The secret every webhook test signs and verifies with.
let webhookSecret = Array("whsec-tilawa-test".utf8)

extension HTTPField.Name {
    static let tilawaSignature = Self("Tilawa-Signature")!
    static let tilawaEventId = Self("Tilawa-Event-Id")!
    static let tilawaEventType = Self("Tilawa-Event-Type")!
}

/// A request context that keeps the connection, so the receiver can drop it mid-request.
struct ReceiverContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// What the receiver does with one of its first calls instead of taking the event.
enum ReceiverFault: Sendable, CustomStringConvertible {
    /// Answers with this status.
    case status(HTTPResponse.Status)
    /// Answers with this status and a `Retry-After` header.
    case statusRetryAfter(HTTPResponse.Status, String)
    /// Closes the connection without answering.
    case closeConnection
    /// Takes the event (it counts as received) but answers only after this long — later than
    /// the notifier waits, so the notifier sends it again: the at-least-once case.
    case takeThenAnswerLate(Duration)

    var description: String {
        switch self {
        case let .status(status): "status \(status.code)"
        case let .statusRetryAfter(status, value): "status \(status.code), Retry-After \(value)"
        case .closeConnection: "closed connection"
        case let .takeThenAnswerLate(delay): "late answer after \(delay)"
        }
    }
}

/// One POST the receiver saw.
struct ReceivedCall: Sendable {
    var eventId: String?
    var eventType: String?
    var contentType: String?
    var userAgent: String?
    var body: Data
    /// The Standard Webhooks headers as received (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
    var standardHeaders: [String: String] = [:]
    /// Nil when the signature verified.
    var signatureError: WebhookSignatureError?
    /// The fault it got, nil when the receiver took the event normally.
    var fault: ReceiverFault?
    /// The `student_id` of the JSON body.
    var studentId: String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["student_id"] as? String
    }

    /// True when the receiver acted on the event (de-duplicating by id is then its job).
    var wasTaken: Bool {
        switch fault {
        case nil, .takeThenAnswerLate: true
        case .status, .statusRetryAfter, .closeConnection: false
        }
    }
}

/// A tiny real webhook receiver (Hummingbird on a loopback port): it answers its first
/// calls with `faults`, then takes every event (answering 204, optionally after `hold`),
/// verifies every signature with `webhookSecret`, and records every call.
final class WebhookReceiver: Sendable {
    private struct State {
        var faults: [ReceiverFault]
        var hold: Duration?
        var calls: [ReceivedCall] = []
        /// Ids of the events answered 2xx, in order.
        var answered: [String] = []
        var inFlight = 0
        var maxInFlight = 0
        var inFlightByStudent: [String: Int] = [:]
        var maxInFlightPerStudent = 0
        /// Taken calls after this many wait at the gate until `stopHolding()`.
        var gateAfter: Int?
        var taken = 0
        var waitingAtGate: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - faults: What the first calls get, in order.
    ///   - hold: How long each taken event waits before its 204.
    ///   - gateAfter: Taken calls after this many are held, however long it takes, until
    ///     `stopHolding()`: a POST that is certainly still in flight, whatever the machine's load.
    ///   - now: The receiver's clock for the signature's timestamp check.
    init(faults: [ReceiverFault] = [], hold: Duration? = nil, gateAfter: Int? = nil,
         now: @escaping @Sendable () -> Date = { Date() }) {
        state = Mutex(State(faults: faults, hold: hold, gateAfter: gateAfter))
        self.now = now
    }

    var calls: [ReceivedCall] { state.withLock { $0.calls } }
    /// Ids of the events answered 2xx, in order.
    var answered: [String] { state.withLock { $0.answered } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    var maxInFlightPerStudent: Int { state.withLock { $0.maxInFlightPerStudent } }
    var inFlight: Int { state.withLock { $0.inFlight } }
    /// Calls held at the gate now.
    var waitingAtGate: Int { state.withLock { $0.waitingAtGate.count } }

    /// The ids of the events taken, de-duplicated by `Tilawa-Event-Id`, in first-seen order.
    var takenOnce: [String] {
        var seen = Set<String>()
        return calls.filter(\.wasTaken).compactMap(\.eventId).filter { seen.insert($0).inserted }
    }

    /// Stops holding calls from now on and lets the ones at the gate go on.
    func stopHolding() {
        let waiting = state.withLock { state in
            state.hold = nil
            state.gateAfter = nil
            defer { state.waitingAtGate = [] }
            return state.waitingAtGate
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Counts a taken call and, past `gateAfter`, waits until `stopHolding()`.
    private func passGate() async {
        await withCheckedContinuation { continuation in
            let passes = state.withLock { state in
                state.taken += 1
                guard let gateAfter = state.gateAfter, state.taken > gateAfter else { return true }
                state.waitingAtGate.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
    }

    private func handle(_ request: Request, context: ReceiverContext) async throws -> Response {
        let body = Data(buffer: try await request.body.collect(upTo: 1 << 20))
        var call = ReceivedCall(
            eventId: request.headers[.tilawaEventId], eventType: request.headers[.tilawaEventType],
            contentType: request.headers[.contentType], userAgent: request.headers[.userAgent], body: body)
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            if let field = HTTPField.Name(name), let value = request.headers[field] { call.standardHeaders[name] = value }
        }
        do {
            try WebhookSignature.verify(header: request.headers[.tilawaSignature] ?? "", body: body, secret: webhookSecret, now: now())
        } catch {
            call.signatureError = error
        }
        let student = call.studentId ?? "?"
        let (fault, hold) = state.withLock { state -> (ReceiverFault?, Duration?) in
            let fault = state.faults.isEmpty ? nil : state.faults.removeFirst()
            call.fault = fault
            state.calls.append(call)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            state.inFlightByStudent[student, default: 0] += 1
            state.maxInFlightPerStudent = max(state.maxInFlightPerStudent, state.inFlightByStudent[student, default: 0])
            return (fault, state.hold)
        }
        defer {
            state.withLock { state in
                state.inFlight -= 1
                state.inFlightByStudent[student, default: 1] -= 1
            }
        }
        switch fault {
        case let .status(status):
            return Response(status: status, headers: [.location: "http://127.0.0.1:1/elsewhere"],
                            body: .init(byteBuffer: ByteBuffer(string: "receiver says no")))
        case let .statusRetryAfter(status, retryAfter):
            return Response(status: status, headers: [.retryAfter: retryAfter], body: .init(byteBuffer: ByteBuffer(string: "later")))
        case .closeConnection:
            try? await context.channel.close()
            return Response(status: .ok)
        case let .takeThenAnswerLate(delay):
            try? await Task.sleep(for: delay)
            return Response(status: .noContent)
        case nil:
            await passGate()
            if let hold { try? await Task.sleep(for: hold) }
            state.withLock { $0.answered.append(call.eventId ?? "") }
            return Response(status: .noContent)
        }
    }

    /// Runs the receiver on a loopback port while `body` runs with its URL.
    func serve<T>(_ body: (URL) async throws -> T) async throws -> T {
        let router = Router(context: ReceiverContext.self)
        router.post("hook") { request, context in try await self.handle(request, context: context) }
        return try await serveOnLoopback(router, path: "hook", body)
    }
}

/// Runs `router` on a loopback port while `body` runs with the URL of `path` on it: the small
/// real servers the tests stand up for the outside world (a webhook receiver, a JWKS endpoint).
func serveOnLoopback<T>(_ router: Router<ReceiverContext>, path: String, _ body: (URL) async throws -> T) async throws -> T {
    let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            portSink.yield(channel.localAddress?.port ?? 0)
            portSink.finish()
        },
        logger: quietLogger)
    let group = ServiceGroup(configuration: .init(services: [app], logger: quietLogger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let result = try await body(try #require(URL(string: "http://127.0.0.1:\(port)/\(path)")))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
    }
}

/// A logger that prints nothing.
let quietLogger: Logger = {
    var logger = Logger(label: "webhook-test")
    logger.logLevel = .critical
    return logger
}()

/// Collects log events, to count what the notifier logged.
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let entries = Mutex<[Entry]>([])

    var all: [Entry] { entries.withLock { $0 } }

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    /// A logger writing into this recorder.
    var logger: Logger {
        Logger(label: "webhook-test") { _ in RecordingLogHandler(recorder: self) }
    }
}

struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        recorder.append(.init(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}

/// A scratch database holding outbox events, written as the daemon writes them.
struct OutboxFixture {
    let scratch: ScratchDirectory
    let path: String
    let database: AppDatabase

    init() throws {
        scratch = try ScratchDirectory()
        path = scratch.path("tilawa.sqlite")
        database = try AppDatabase.open(path: path)
    }

    /// Inserts one `submission_received` event for `student` about `week`; returns the row.
    @discardableResult
    func addEvent(student: String, week: Int, at occurredAt: Date = Date()) throws -> EventRecord {
        let id = IdentifierGenerator.make("evt", now: occurredAt)
        let payload = EventPayload(
            id: id, type: "submission_received", studentId: student, occurredAt: occurredAt,
            week: .init(number: week, kind: "week", title: "Title \(week)", passage: "Passage \(week)"),
            submissionId: "sub_\(student)_\(week)", feedbackId: nil, coachName: "Ustadha Maryam",
            message: "We received your recording for week \(week).", link: "quranflow://weeks/\(week)")
        var event = EventRecord(id: id, studentId: student, type: payload.type, payload: try payload.jsonData(), occurredAt: occurredAt)
        try database.engine.write { db in try event.insert(db) }
        return event
    }

    /// Every event, in `seq` order.
    func events() throws -> [EventRecord] {
        try database.engine.read { db in try EventRecord.fetchAll(db, orderBy: "seq") }
    }

    func remove() { scratch.remove() }
}

/// Options that make a test fast: tiny backoff cap, short poll, short timeout.
func fastOptions(timeout: TimeInterval = 5, pollInterval: Duration = .milliseconds(50)) -> WebhookNotifierService.Options {
    var options = WebhookNotifierService.Options()
    options.timeout = timeout
    options.maxBackoff = 0.05
    options.pollInterval = pollInterval
    return options
}

/// A running service group, stopped gracefully by `stop()` or at once by `kill()`.
struct RunningServices {
    let group: ServiceGroup
    let task: Task<Void, any Error>

    init(_ services: [any Service]) {
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) }, logger: quietLogger))
        self.group = group
        task = Task { try await group.run() }
    }

    /// Graceful shutdown; returns when every service has ended.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Cancels the group (a hard stop) and waits for it to end.
    func kill() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// The value of an unlabelled metric in the Prometheus text.
func metricValue(_ name: String, in metrics: TilawaMetrics) -> Double? {
    metrics.render().split(separator: "\n")
        .first { $0.hasPrefix(name + " ") }
        .flatMap { Double($0.dropFirst(name.count + 1)) }
}

/// Whether each student's calls come in outbox order: once a later event of a student has
/// been sent, no earlier one of theirs is sent again.
func callsAreInOrderPerRecipient(_ calls: [ReceivedCall], events: [EventRecord]) -> Bool {
    let position = Dictionary(uniqueKeysWithValues: events.enumerated().map { ($0.element.id, ($0.offset, $0.element.queue)) })
    var last: [String: Int] = [:]
    for call in calls {
        guard let id = call.eventId, let (index, queue) = position[id] else { return false }
        if let previous = last[queue], index < previous { return false }
        last[queue] = index
    }
    return true
}
