import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Upserts the programme files in one transaction: all of it or nothing.
    ///
    /// Students may refer to coaches, levels and semesters from this import or from an
    /// earlier one; the check runs inside the transaction, against what the database will
    /// hold. Importing the same files twice changes nothing. Nothing is ever deleted: a
    /// student missing from a later file keeps their history.
    public func importRoster(program: ProgramFile?, students: [StudentRow], studentsSource: String) throws -> RosterImportSummary {
        try immediateWrite { db in
            var summary = RosterImportSummary()
            if let program {
                for semester in program.semesters {
                    try SemesterRecord(
                        id: semester.id.rawValue, name: semester.name, startDate: semester.start.description,
                        timeZone: program.timeZone.identifier, weekCount: ProgramFile.weekCount,
                        catchUpGraceDays: program.catchUpGraceDays
                    ).upsert(db)
                    summary.semesters += 1
                }
                for coach in program.coaches {
                    try CoachRecord(id: coach.id.rawValue, name: coach.name, email: coach.email).upsert(db)
                    summary.coaches += 1
                }
                for level in program.levels {
                    try LevelRecord(id: level.id, name: level.name).upsert(db)
                    summary.levels += 1
                    for week in level.weeks {
                        try CurriculumWeekRecord(levelId: level.id, week: week.week, title: week.title, passage: week.passage).upsert(db)
                        summary.curriculumWeeks += 1
                    }
                }
            }
            if !students.isEmpty {
                try RosterValidator.validate(
                    students: students,
                    coaches: Set(try String.fetchAll(db, sql: "SELECT id FROM coach")),
                    levels: Set(try String.fetchAll(db, sql: "SELECT id FROM level")),
                    semesters: Set(try String.fetchAll(db, sql: "SELECT id FROM semester")),
                    source: studentsSource)
                for row in students {
                    try StudentRecord(
                        id: row.id.rawValue, name: row.name, levelId: row.level, coachId: row.coachID.rawValue,
                        semesterId: row.semesterID.rawValue
                    ).upsert(db)
                    summary.students += 1
                }
            }
            return summary
        }
    }
}
