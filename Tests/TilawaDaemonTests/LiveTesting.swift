import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import TilawaTestSupport

/// The one way the tests run a live daemon and talk to it: `app.live { client in … }`.
///
/// HummingbirdTesting's `.live` framework fails any request that waits 20 s for a byte, a
/// limit fixed in the framework: on a loaded 2-core box a recording being judged, or a request
/// queued behind other test daemons, exceeds it (52 `.readTimeout`s in one run), so how busy the
/// machine was decided the verdict. Here a request's only bound is `LiveClient.hangLimit`, a
/// hang detector; how long an answer takes is never part of a test's verdict. Each live daemon
/// holds a slot of `TestSlots` while it runs, so the suite bounds its own load.
///
/// `HygieneTests` fails on any test that uses the framework's `.live` client directly.
extension ApplicationProtocol {
    func live<Value>(_ test: (LiveClient) async throws -> Value) async throws -> Value {
        try await TestSlots.withSlot {
            let app = PortReportingApplication(base: self)
            let serviceGroup = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        try await serviceGroup.run()
                        app.port.fail(LiveServerError.endedBeforeListening)
                    } catch {
                        app.port.fail(error)
                        throw error
                    }
                }
                let client: LiveClient
                do {
                    client = LiveClient(port: try await app.port.value(), http: HTTPClient(eventLoopGroupProvider: .singleton,
                                                                                          configuration: LiveClient.configuration))
                } catch {
                    await serviceGroup.triggerGracefulShutdown()
                    throw error
                }
                // Every exit path (an answer, a thrown error, a cancelled test) closes the client and stops the daemon.
                let value: Value
                do {
                    value = try await test(client)
                } catch {
                    try? await client.http.shutdown()
                    await serviceGroup.triggerGracefulShutdown()
                    throw error
                }
                try await client.http.shutdown()
                await serviceGroup.triggerGracefulShutdown()
                return value
            }
        }
    }
}

/// A client of one live daemon on 127.0.0.1: each request on a pooled connection of its own
/// client (so requests may run concurrently), redirects not followed, the `Host` the framework's
/// client sent (`localhost`) unless a test names one.
struct LiveClient: Sendable {
    /// The only limit on a request: a hang detector, far beyond any answer a loaded box gives.
    static let hangLimit: TimeAmount = .minutes(5)

    static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .minutes(1), read: nil)
        return configuration
    }

    let port: Int
    let http: HTTPClient

    /// Sends one request and reads the whole answer (1 GiB at most).
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> LiveAnswer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(uri.hasPrefix("/") ? "" : "/")\(uri)")
        request.method = .init(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if !request.headers.contains(name: "host") { request.headers.add(name: "host", value: "localhost") }
        if let body { request.body = .bytes(body) }
        let response = try await http.execute(request, timeout: Self.hangLimit)
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let collected = method == .head ? ByteBuffer() : try await response.body.collect(upTo: 1 << 30)
        return LiveAnswer(status: .init(code: Int(response.status.code)), headers: fields, body: collected)
    }
}

/// Why a live daemon could not be reached.
enum LiveServerError: Error {
    /// The server's service ended without ever listening.
    case endedBeforeListening
}

/// The application under test on 127.0.0.1, port 0, reporting the port the kernel gave it.
private struct PortReportingApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    typealias Responder = Base.Responder

    let base: Base
    let port = PortPromise()

    var responder: Responder { get async throws { try await base.responder } }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration.with(address: .hostname("127.0.0.1", port: 0)) }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        if let number = channel.localAddress?.port { port.fulfil(number) } else { port.fail(LiveServerError.endedBeforeListening) }
    }
}

/// The port, once the server listens, or why it never will; the first outcome stands.
private final class PortPromise: Sendable {
    private struct State {
        var outcome: Result<Int, any Error>?
        var waiting: [CheckedContinuation<Int, any Error>] = []
    }

    private let state = Mutex(State())

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let known = state.withLock { state -> Result<Int, any Error>? in
                if state.outcome == nil { state.waiting.append(continuation) }
                return state.outcome
            }
            if let known { continuation.resume(with: known) }
        }
    }

    func fulfil(_ port: Int) { settle(.success(port)) }
    func fail(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ outcome: Result<Int, any Error>) {
        let waiting = state.withLock { state -> [CheckedContinuation<Int, any Error>] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(with: outcome) }
    }
}
