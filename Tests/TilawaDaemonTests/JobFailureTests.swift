import Foundation
import GRDB
import Testing
import TilawaAudio
@testable import TilawaDaemon
import TilawaS3
import TilawaStore

/// Which encode failures pass with their fault (no attempt used, tried again while it lasts)
/// and which are the job's own (an attempt used; the last fails the recording).
@Suite("JobFailure: a store or a disk away passes; a recording's own failure does not")
struct JobFailureTests {
    @Test("passing: the artifact store unreachable or 5xx, the database unavailable or busy, the disk full")
    func transient() {
        let failures: [any Error] = [
            S3Error(code: "unreachable", message: "connection refused"),
            S3Error(code: "SlowDown", message: "slow down", status: 503),
            S3Error(code: "InternalError", message: "oops", status: 500),
            S3Error(code: "NoSuchBucket", message: "a store restarting answers so for a while", status: 404),
            StoreError.unavailable("PostgreSQL is down"), StoreError.busy("40001"), StoreError.storageFull("ENOSPC"),
            DatabaseError(resultCode: .SQLITE_BUSY), DatabaseError(resultCode: .SQLITE_FULL),
            POSIXError(.ENOSPC), POSIXError(.EDQUOT),
        ]
        for failure in failures {
            #expect(JobFailure.isTransient(failure), "\(failure)")
        }
    }

    @Test("the job's own: a refusal of the store, a missing row or file, an encoder failure, a corrupt database")
    func permanent() {
        let failures: [any Error] = [
            S3Error(code: "AccessDenied", message: "no", status: 403), S3Error(code: "NoSuchKey", message: "gone", status: 404),
            StoreError.internalInconsistency("no submission"), StoreError.io("EIO"),
            OpusEncoderError.encoder("encoding failed"), DatabaseError(resultCode: .SQLITE_CORRUPT), POSIXError(.EIO),
        ]
        for failure in failures {
            #expect(!JobFailure.isTransient(failure), "\(failure)")
        }
    }

    @Test("any failure while the disk is short of room passes: the encoder's write errors name no errno")
    func diskLow() {
        #expect(JobFailure.isTransient(OpusEncoderError.encoder("encoding failed"), diskLow: true))
    }
}
