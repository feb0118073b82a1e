import Foundation
import GRDB
import TilawaS3
import TilawaStore

/// Which failures of a job pass with the fault that caused them — the artifact store or the
/// database away, the disk full — and so must not use the job's attempts: the recording is
/// fine, and the student must not be told to record it again because a server was down.
/// Anything else (the audio cannot be decoded, a row is missing) is the job's own.
enum JobFailure {
    /// Whether `error` is a passing fault; `diskLow` says the node's disk is short of room now,
    /// which makes any failure a passing one (the encoder's own write errors name no errno).
    static func isTransient(_ error: any Error, diskLow: Bool = false) -> Bool {
        if diskLow { return true }
        switch error {
        case let error as S3Error:
            // A missing bucket is the store's state (restarting, or being set up), never the recording's.
            return S3ArtifactStorage.isTransient(error) || error.code == "NoSuchBucket"
        case let error as StoreError:
            switch error {
            case .unavailable, .busy, .storageFull: return true
            case .io, .internalInconsistency, .unsupported: return false
            }
        case let error as DatabaseError:
            // SQLite's writers waited out their timeout, or its disk is full.
            return [.SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_FULL].contains(error.resultCode)
        case let error as POSIXError:
            // The store's own file writes say ENOSPC and EDQUOT as `StoreError.storageFull`.
            return error.code == .ENOSPC || error.code == .EDQUOT
        default:
            return false
        }
    }
}
