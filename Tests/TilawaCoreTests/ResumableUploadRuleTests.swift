import Testing
import TilawaCore

@Suite("The append rule of resumable uploads")
struct ResumableUploadRuleTests {
    typealias Rule = ResumableUploadRule

    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var progress: UploadProgress
        var append: Rule.Append
        var expected: Result<Rule.Plan, Rule.Refusal>
    }

    static let cases: [Case] = [
        .init(testDescription: "tus: a part inside the declared length", progress: .init(offset: 100, length: 1_000),
              append: .init(offset: 100, contentLength: 400),
              expected: .success(.init(startOffset: 100, maxBytes: 900, length: 1_000, completes: false))),
        .init(testDescription: "tus: the wrong offset, with the real one", progress: .init(offset: 100, length: 1_000),
              append: .init(offset: 0, contentLength: 400), expected: .failure(.offsetMismatch(current: 100))),
        .init(testDescription: "tus: a part past the length", progress: .init(offset: 900, length: 1_000),
              append: .init(offset: 900, contentLength: 101), expected: .failure(.lengthMismatch(known: 1_000))),
        .init(testDescription: "a complete upload takes nothing more", progress: .init(offset: 1_000, length: 1_000),
              append: .init(offset: 1_000, contentLength: 1), expected: .failure(.alreadyComplete)),
        .init(testDescription: "draft: a completing part fixes the length", progress: .init(offset: 100, length: nil),
              append: .init(offset: 100, contentLength: 50, completes: true),
              expected: .success(.init(startOffset: 100, maxBytes: 50, length: 150, completes: true))),
        .init(testDescription: "draft: a completing part that contradicts the declared length", progress: .init(offset: 100, length: 200),
              append: .init(offset: 100, contentLength: 50, completes: true), expected: .failure(.lengthMismatch(known: 200))),
        .init(testDescription: "draft: Upload-Length that differs from the known one", progress: .init(offset: 0, length: 200),
              append: .init(offset: 0, declaredLength: 300), expected: .failure(.lengthMismatch(known: 200))),
        .init(testDescription: "draft: a declared length over the limit", progress: .init(offset: 0, length: nil),
              append: .init(offset: 0, declaredLength: 10_001), expected: .failure(.tooLarge(limit: 10_000))),
        .init(testDescription: "draft: an unknown length may grow to the limit", progress: .init(offset: 4_000, length: nil),
              append: .init(offset: 4_000, completes: false),
              expected: .success(.init(startOffset: 4_000, maxBytes: 6_000, length: nil, completes: false))),
        .init(testDescription: "draft: a body over the room left with no length known", progress: .init(offset: 4_000, length: nil),
              append: .init(offset: 4_000, contentLength: 6_001), expected: .failure(.tooLarge(limit: 10_000))),
    ]

    @Test("plans", arguments: cases)
    func plans(_ entry: Case) {
        #expect(Rule.plan(entry.append, progress: entry.progress, maxUploadBytes: 10_000) == entry.expected)
    }

    @Test("after the body: a cut body keeps its bytes and completes nothing; a completing body ends the upload; a short one is a mismatch")
    func progress() throws {
        let open = Rule.Plan(startOffset: 100, maxBytes: 900, length: 1_000, completes: false)
        #expect(Rule.progress(after: open, received: 900, bodyEnded: true) == .success(.init(offset: 1_000, length: 1_000)))
        #expect(try Rule.progress(after: open, received: 900, bodyEnded: true).get().isComplete)
        #expect(Rule.progress(after: open, received: 10, bodyEnded: false) == .success(.init(offset: 110, length: 1_000)))
        let completing = Rule.Plan(startOffset: 100, maxBytes: 10_000, length: nil, completes: true)
        #expect(Rule.progress(after: completing, received: 20, bodyEnded: true) == .success(.init(offset: 120, length: 120)))
        #expect(Rule.progress(after: completing, received: 20, bodyEnded: false) == .success(.init(offset: 120, length: nil)))
        let declared = Rule.Plan(startOffset: 100, maxBytes: 100, length: 200, completes: true)
        #expect(Rule.progress(after: declared, received: 50, bodyEnded: true) == .failure(.lengthMismatch(known: 200)))
    }
}
