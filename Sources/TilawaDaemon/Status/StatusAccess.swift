import Foundation

/// Whether a directory or file the report needs could be read.
enum StatusAccess: Sendable, Equatable {
    /// Read.
    case read
    /// Does not exist yet: an installation where nothing has run.
    case absent
    /// Exists but could not be read (permissions, corruption); the text says why.
    case failed(String)
}
