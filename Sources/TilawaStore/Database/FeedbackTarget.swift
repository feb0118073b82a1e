import Foundation
import GRDB
import TilawaCore

/// Which submission a reply is for.
public enum FeedbackTarget: Sendable, Equatable {
    /// By id (the API).
    case submission(String)
    /// By student and slot: the newest accepted submission (the drop folder, the CLI).
    case slot(student: String, slot: Slot)
}
