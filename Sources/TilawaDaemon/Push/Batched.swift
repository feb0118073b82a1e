/// Runs `body` for requests many tasks make at once, as few times as it can without answering
/// any request from work begun before it was made (a group commit).
///
/// A request made while `body` is idle starts a run for it alone; the requests made while a
/// run is under way wait together for the next run, which starts the moment the last ends. So
/// every answer comes from a run that started after its request: a device re-read before a
/// push sees every sign-out committed before the push asked, and a recorded outcome is stored
/// when `run` returns, as if each had had its own transaction — at the cost of one query or
/// one transaction for all the sends that finished meanwhile instead of one each.
actor Batched<Input: Sendable, Output: Sendable> {
    /// Answers `inputs`, one output each, in their order.
    typealias Body = @Sendable (_ inputs: [Input]) async -> [Output]

    private let body: Body
    private var queue: [(input: Input, answer: CheckedContinuation<Output, Never>)] = []
    private var running = false

    /// The requests waiting for the next run (for the tests).
    var waiting: Int { queue.count }

    init(_ body: @escaping Body) {
        self.body = body
    }

    /// The output for `input`, from a run of `body` started after this call.
    func run(_ input: Input) async -> Output {
        await withCheckedContinuation { answer in
            queue.append((input, answer))
            guard !running else { return }
            running = true
            Task { await drain() }
        }
    }

    private func drain() async {
        while !queue.isEmpty {
            let batch = queue
            queue = []
            let outputs = await body(batch.map(\.input))
            precondition(outputs.count == batch.count, "a batch's body answers each input once")
            for (entry, output) in zip(batch, outputs) { entry.answer.resume(returning: output) }
        }
        running = false
    }
}
