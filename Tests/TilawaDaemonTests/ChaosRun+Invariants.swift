import Foundation
import GRDB
import Testing
@testable import TilawaStore
import TilawaTestSupport

extension ChaosRun {
    /// What must hold after every phase of the chaos soak: each node serves again by itself
    /// (the same process, `/readyz` 200 and `ok` — no longer `degraded` — a recording taken);
    /// every answer was one a phone can act on;
    /// every 201 has its recording, encoded by one job, its objects in the store, and no
    /// recording was admitted without its 201; the attempt rule exact; every reply stored once;
    /// every event delivered once in effect.
    func expectInvariants(after phase: String) async throws {
        log.begin(phase: phase + ": recovery")
        for (index, node) in nodes.enumerated() {
            #expect(node.process.process.isRunning, "\(phase): node \(node.name) is gone (seed \(seed))\n\(node.logTail())")
            let isReady = await node.process.waitUntilReady()
            #expect(isReady, "\(phase): node \(node.name) is not ready again by itself\n\(node.logTail())")
            // 200 also answers a node serving degraded (the S3 store away): it must be whole again.
            let readyz = await readinessOnceOK(of: node)
            #expect(readyz == "200 ok", "\(phase): node \(node.name)'s /readyz is \(readyz) after the fault\n\(node.logTail())")
            let student = phones.lanes[index % phones.lanes.count][0]
            let recording = ChaosRequest(kind: .upload, sender: student, target: "assessment", key: "recovery-\(UUID().uuidString)",
                                         token: tokens[student] ?? "")
            let answer = await sender.send(recording, to: node)
            #expect(answer.status == 201, "\(phase): node \(node.name) took no recording afterwards: \(answer.summary)\n\(node.logTail())")
        }
        let settled = try await SoakInvariants.waitUntilSettled(state)
        #expect(settled, "\(phase): jobs or events left (seed \(seed))")
        expectActionableAnswers(in: phase)

        // Nothing accepted lost, nothing admitted twice: every 201 has its row, every row its 201.
        let rows = try SoakInvariants.submissions(in: state)
        let ids = Set(rows.map { $0["id"] as String })
        let accepted = log.accepted(.upload)
        let acceptedIds = Set(accepted.compactMap(\.id))
        #expect(acceptedIds.isSubset(of: ids), "\(phase): 201 without a row: \(acceptedIds.subtracting(ids).sorted())")
        #expect(ids.isSubset(of: acceptedIds),
                "\(phase): recordings admitted that no 201 named (admitted twice, or the phone never told): \(ids.subtracting(acceptedIds).sorted())")
        let twoWays = Dictionary(grouping: accepted, by: \.request.key).filter { Set($0.value.compactMap(\.id)).count > 1 }.keys.sorted()
        #expect(twoWays.isEmpty, "\(phase): one key, two recordings: \(twoWays)")

        // The attempt rule, exactly (all of it within 7 days): each student's counted recordings
        // are the week recordings answered 201, two at most, and two for a student refused for it.
        let counted = try SoakInvariants.countedPerStudent(in: state)
        let weeks = Dictionary(grouping: accepted.filter(\.request.isCounted), by: \.request.sender).mapValues { Set($0.compactMap(\.id)).count }
        let limited = Set(log.answers.filter { $0.code == "attempt_limit" }.map(\.request.sender))
        #expect(counted.values.allSatisfy { $0 <= 2 }, "\(phase): more than 2 in 7 days: \(counted)")
        #expect(counted == weeks, "\(phase): counted recordings \(counted), week recordings answered 201 \(weeks)")
        #expect(limited.allSatisfy { counted[$0] == 2 }, "\(phase): refused for the limit below it: \(limited.filter { counted[$0] != 2 }.sorted())")

        // Every recording encoded by one job, done, its objects in the store; every reply too.
        try SoakInvariants.expectEncodedOnce(rows, in: state)
        let objects = try await SoakInvariants.storedObjects(store, bucket: bucket, prefix: prefix)
        SoakInvariants.expectStored(rows, in: objects)
        let replies = try SoakInvariants.replies(in: state)
        let replied = Set(log.accepted(.reply).compactMap(\.id))
        #expect(Set(replies.map { $0["id"] as String }) == replied, "\(phase): \(replies.count) replies stored, \(replied.count) answered 201")
        SoakInvariants.expectRepliesEncodedOnce(replies)
        SoakInvariants.expectStored(replies, in: objects, label: "reply ")

        // Every event delivered once in effect: one coach notice per recording, one student notice per reply.
        let events = try await SoakInvariants.expectEventsDelivered(in: state, to: receiver)
        let reviews = SoakInvariants.subjects(of: events, type: "submission_ready_for_review", member: "submission_id")
        let ready = SoakInvariants.subjects(of: events, type: "feedback_ready", member: "feedback_id")
        #expect(Set(reviews.keys).isSubset(of: ids) && reviews.values.allSatisfy { $0 == 1 },
                "\(phase): a recording announced twice: \(reviews.filter { $0.value > 1 })")
        #expect(ready.count == replies.count && ready.values.allSatisfy { $0 == 1 }, "\(phase): \(ready.count) feedback_ready for \(replies.count) replies")
    }

    /// `node`'s `/readyz` once it answers `200 ok`, asked every 250 ms within the hang limit;
    /// the last answer when it never did.
    func readinessOnceOK(of node: SoakNode) async -> String {
        var answer = "not asked"
        let deadline = ContinuousClock.now + TestTime.hangLimit
        repeat {
            answer = await readiness(of: node)
            if answer == "200 ok" { break }
            try? await Task.sleep(for: .milliseconds(250))
        } while ContinuousClock.now < deadline && node.process.process.isRunning
        return answer
    }

    /// Every answer of `phase` (and of the checks after it) one a phone can act on
    /// (`ChaosAnswer.isAllowed`); anything else — a 500, a dropped connection, a 401, a 409 for a
    /// key whose request is gone — an issue per node, with what it answered and its log's tail.
    func expectActionableAnswers(in phase: String) {
        let others = log.answers.filter { $0.phase.hasPrefix(phase) && !$0.isAllowed }
        for (name, answers) in Dictionary(grouping: others, by: \.node).sorted(by: { $0.key < $1.key }) {
            let counts = answers.reduce(into: [String: Int]()) { $0[$1.summary, default: 0] += 1 }.map { "\($0.key) ×\($0.value)" }.sorted()
            let first = answers[0]
            let tail = nodes.first { $0.name == name }?.logTail() ?? ""
            Issue.record("""
                \(phase): node \(name) answered what a phone cannot act on: \(counts.joined(separator: ", ")); \
                the first to \(first.request.kind.rawValue) \(first.request.path)\(first.duringFault ? " during the fault" : "")\
                \(first.failure.map { ": " + $0 } ?? "")
                \(tail)
                """)
        }
    }
}
