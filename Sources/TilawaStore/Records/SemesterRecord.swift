import Foundation
import GRDB
import TilawaCore

/// A semester: its start (a local Saturday) and the calendar rules derived from it.
public struct SemesterRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "semester"
    public var id: String
    public var name: String
    /// `YYYY-MM-DD`, a Saturday in `timeZone`.
    public var startDate: String
    /// IANA zone identifier of the programme.
    public var timeZone: String
    public var weekCount: Int
    public var catchUpGraceDays: Int

    /// Creates a record.
    public init(id: String, name: String, startDate: String, timeZone: String, weekCount: Int, catchUpGraceDays: Int) {
        self.id = id
        self.name = name
        self.startDate = startDate
        self.timeZone = timeZone
        self.weekCount = weekCount
        self.catchUpGraceDays = catchUpGraceDays
    }

    /// The week calendar; throws when the stored values no longer make a valid calendar.
    public func calendar() throws -> SemesterCalendar {
        guard let start = LocalDate(startDate) else {
            throw StoreError.internalInconsistency("semester \(id) has an invalid start date \(startDate)")
        }
        return try SemesterCalendar(
            start: start, timeZoneIdentifier: timeZone, weekCount: weekCount, catchUpGraceDays: catchUpGraceDays)
    }
}
