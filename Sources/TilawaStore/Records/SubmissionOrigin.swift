import Foundation
import GRDB
import TilawaCore

/// Where a recording came from.
public enum SubmissionOrigin: String, Codable, Sendable, Equatable {
    case http, cli, capture, dropbox
}
