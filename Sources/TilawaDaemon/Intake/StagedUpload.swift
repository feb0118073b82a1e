import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOFileSystem
import Synchronization
import TilawaStore

/// A request body written to `staging/`, with its size and SHA-256.
struct StagedUpload: Sendable {
    var path: String
    var bytes: Int
    var sha256: String
}
