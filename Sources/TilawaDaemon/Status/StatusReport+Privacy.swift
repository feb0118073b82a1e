import Foundation

extension StatusReport {
    /// `erasure_requests`: students' requests to be erased that are pending — neither cancelled
    /// nor carried out — with the earliest due instant, and how many fell due more than a day
    /// ago (`late`): the daemon carries each out once due, so a late one means that is failing.
    public struct ErasureRequests: Encodable, Sendable, Equatable {
        public var pending: Int
        public var earliestDueAt: Date?
        public var late: Int

        public init(pending: Int, earliestDueAt: Date?, late: Int) {
            self.pending = pending
            self.earliestDueAt = earliestDueAt
            self.late = late
        }

        enum CodingKeys: String, CodingKey { case pending, earliestDueAt, late }

        /// Every member, no due instant as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(pending, forKey: .pending)
            try container.encode(earliestDueAt, forKey: .earliestDueAt)
            try container.encode(late, forKey: .late)
        }
    }
}
