import CFileShims
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One failed system call on a drop-folder entry.
struct FileSystemFailure: Error, CustomStringConvertible {
    let errno: Int32
    let operation: String
    let name: String

    var description: String { "cannot \(operation) \(name): \(String(cString: strerror(errno)))" }
}
