import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOFileSystem
import Synchronization
import TilawaStore

/// A request body written to `staging/`, with its size and SHA-256. `file` owns it: it is
/// placed into the artifact store or deleted, never both, never neither.
struct StagedUpload: Sendable {
    let file: StagedFile
    var bytes: Int
    var sha256: String

    var path: String { file.path }
}
