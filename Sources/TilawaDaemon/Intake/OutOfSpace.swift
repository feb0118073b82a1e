import Foundation
import NIOFileSystem
import TilawaStore

/// Whether a failed write ran out of room — ENOSPC, or EDQUOT (the filesystem's quota) — as
/// swift-nio's file system reports it (a `FileSystemError` whose cause is the system call's
/// errno) or as the store's own writes do (`StoreError.storageFull`): the disk's fault, not
/// the upload's, answered 507 `storage_full` with `Retry-After`.
enum OutOfSpace {
    static func caused(_ error: any Error) -> Bool {
        switch error {
        case let error as FileSystemError:
            return error.cause.map(caused) ?? false
        case let error as FileSystemError.SystemCallError:
            return isOutOfSpace(error.errno.rawValue)
        case let error as Errno:
            return isOutOfSpace(error.rawValue)
        case let error as POSIXError:
            return isOutOfSpace(error.code.rawValue)
        case let error as StoreError:
            if case .storageFull = error { return true }
            return false
        default:
            return false
        }
    }

    private static func isOutOfSpace(_ code: Int32) -> Bool {
        code == ENOSPC || code == EDQUOT
    }
}
