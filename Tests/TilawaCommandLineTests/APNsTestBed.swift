import AsyncHTTPClient
import Crypto
import Foundation
import GRDB
import NIOCore
import TilawaStore
import TilawaTestSupport

/// What the suites of pushes to iPhones share: a state with the sample programme, the APNs
/// stand-in (`Tests/push/apns_server.py`) checking the provider token with the public half of
/// a fresh key (`AuthKey.p8` in the scratch folder), and the daemons, tokens and requests a test
/// needs around it.
struct APNsTestBed: Sendable {
    static let keyId = "ABC123DEFG", teamId = "TEAM456789", topic = "org.example.tilawa"
    /// Sunday 22 November 2026 15:00 UTC, 10:00 in New York: week 12 of fall 2026 open.
    static let sunday = "2026-11-22T15:00:00Z"

    /// An APNs device token (64 hex digits) numbered `n`.
    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// `TILAWA_TEST_CLOCK` for a daemon whose programme time starts at `instant` (RFC 3339)
    /// and runs at the real clock's pace.
    static func clock(at instant: String = APNsTestBed.sunday) -> String {
        "\(Int(ISO8601DateFormatter().date(from: instant)!.timeIntervalSince1970)),1"
    }

    let state: CommandLineStateFixture
    let server: PushTestServer

    /// A new state (on `engine`) and the stand-in for it.
    static func start(engine: TestEngine = .current) async throws -> APNsTestBed {
        let state = try await CommandLineStateFixture(engine: engine)
        do {
            let key = P256.Signing.PrivateKey()
            try key.pemRepresentation.write(toFile: state.scratch.path("AuthKey.p8"), atomically: true, encoding: .utf8)
            try key.publicKey.pemRepresentation.write(toFile: state.scratch.path("apns-public.pem"), atomically: true, encoding: .utf8)
            let server = try await PushTestServer(script: "apns_server.py", folder: state.scratch.path("apns"), arguments: [
                "--public-key", state.scratch.path("apns-public.pem"), "--key-id", keyId, "--team-id", teamId, "--topic", topic,
            ])
            return APNsTestBed(state: state, server: server)
        } catch {
            state.remove()
            throw error
        }
    }

    /// Stops the stand-in and removes the state.
    func stop() {
        server.stop()
        state.remove()
    }

    /// What a daemon (and a command issuing its tokens) needs: the key `key` in the scratch
    /// folder, the stand-in as the endpoint, no quiet hours, programme time from `clock`.
    func environment(key: String = "AuthKey.p8", clock: String = APNsTestBed.clock()) -> [String: String] {
        ["TILAWA_PUSH_APNS_KEY_FILE": state.scratch.path(key), "TILAWA_PUSH_APNS_KEY_ID": Self.keyId,
         "TILAWA_PUSH_APNS_TEAM_ID": Self.teamId, "TILAWA_PUSH_APNS_TOPIC": Self.topic,
         "TILAWA_PUSH_APNS_ENDPOINT": "https://127.0.0.1:\(server.port)", "TILAWA_PUSH_APNS_CA_FILE": server.folder + "/ca.pem",
         "TILAWA_NOTIFICATIONS_QUIET_HOURS": "none", "TILAWA_TEST_CLOCK": clock]
    }

    /// `tilawa serve` on the state, pushing to the stand-in (not waited for: `waitUntilReady`).
    func serve(key: String = "AuthKey.p8", clock: String = APNsTestBed.clock()) throws -> ServeProcess {
        try ServeProcess(state: state, port: try unusedPort(), environment: environment(key: key, clock: clock))
    }

    /// A bearer token (`tilawa token issue --ops|--student|--coach ID`) dated by `clock`, so a
    /// daemon living at that programme time takes it.
    func issue(_ flag: String, _ id: String, clock: String = APNsTestBed.clock()) async throws -> String {
        try await state.run(["token", "issue", flag, id], environment: environment(clock: clock)).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    enum Owner: String { case students, coaches }

    /// `PUT /v1/{students|coaches}/{id}/devices/{device}` by the person themselves: an iPhone
    /// (sandbox, Arabic) with `token`. Returns the status.
    func register(_ owner: Owner, _ id: String, device: String = "phone", token: String, on daemon: ServeProcess,
                  clock: String = APNsTestBed.clock()) async throws -> Int {
        let bearer = try await issue(owner == .students ? "--student" : "--coach", id, clock: clock)
        return try await sendJSON("PUT", daemon.port, "/v1/\(owner.rawValue)/\(id)/devices/\(device)", token: bearer,
                                  json: Self.device(token)).0
    }

    /// A device registration's body: an iPhone (sandbox, Arabic) with `token`.
    static func device(_ token: String) -> String {
        #"{"platform": "ios", "token": "\#(token)", "environment": "sandbox", "locale": "ar"}"#
    }

    /// `POST /v1/announcements` to everyone, titled `title`; its status.
    func announce(_ title: String, on daemon: ServeProcess, clock: String = APNsTestBed.clock()) async throws -> Int {
        try await sendJSON("POST", daemon.port, "/v1/announcements", token: try await issue("--ops", "ops", clock: clock),
                           json: #"{"title": "\#(title)", "body": "A word from the programme.", "audience": {"all": true}}"#).0
    }

    /// The stand-in's requests to `token`, in the order it took them.
    func requests(to token: String) -> [[String: Any]] {
        server.requests.filter { $0.apnsToken == token }
    }

    /// Waits (bounded by the hang limit) until every event written so far is fanned out and
    /// every delivery is sent or dropped, but those of the `parked` owners (held or retrying far
    /// ahead on purpose). The stand-in logs a request before it answers and the daemon records
    /// a delivery after its answer, so the stand-in's log is then whole for what was due.
    /// `stateDirectory`: a SQLite state other than the bed's (one restored from a backup).
    func settle(except parked: [String] = [], stateDirectory: String? = nil) async -> Bool {
        let others = parked.isEmpty ? "" : " AND ownerId NOT IN (" + parked.map { _ in "?" }.joined(separator: ", ") + ")"
        let check: (SQLSession) throws -> Bool = { db in
            let cursor = Int64(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'push_cursor'") ?? "") ?? 0
            let newest = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM event") ?? 0
            let open = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushDelivery WHERE state = 'pending'" + others,
                                        arguments: SQLArguments(parked)) ?? -1
            return cursor >= newest && open == 0
        }
        return await eventually {
            guard let stateDirectory else { return try state.read(check) }
            let queue = try DatabaseQueue(path: stateDirectory + "/tilawa.sqlite")
            defer { try? queue.close() }
            return try queue.read { db in try check(SQLSession(db)) }
        }
    }

    /// A week's recording (`POST /v1/students/{id}/weeks/{week}/submissions`) or a coach's
    /// reply (`POST /v1/submissions/{id}/feedback`): the WAV fixture to `path` with `bearer`;
    /// the status.
    static func uploadAudio(_ path: String, bearer: String, on daemon: ServeProcess) async throws -> Int {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(daemon.port)\(path)")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(bearer)")
        request.headers.add(name: "Content-Type", value: "audio/wav")
        request.body = .bytes(ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech_mono_s16_48k.wav")))))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(180))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }
}

/// One request as the APNs stand-in logged it (`requests.jsonl`).
extension Dictionary where Key == String, Value == Any {
    var apnsToken: String? { self["token"] as? String }
    var apnsStatus: Int? { self["status"] as? Int }
    var apnsPayload: [String: Any]? { self["payload"] as? [String: Any] }
    /// The event's type (`feedback_ready`, …), from the payload's custom data.
    var apnsType: String? { apnsPayload?["type"] as? String }
    /// The event's deep link (`quranflow://weeks/12/feedback/<id>`).
    var apnsLink: String? { apnsPayload?["link"] as? String }
    /// An announcement's title (its `params`).
    var announcementTitle: String? { (apnsPayload?["params"] as? [String: Any])?["title"] as? String }
    func apnsHeader(_ name: String) -> String? { (self["headers"] as? [String: String])?[name] }
    /// The stand-in's number for the request, in order of arrival.
    var apnsNumber: Int { self["n"] as? Int ?? 0 }
}
