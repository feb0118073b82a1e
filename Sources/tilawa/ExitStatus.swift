import ArgumentParser
import Foundation
import GRDB
import TilawaDaemon
import TilawaStore

/// Exit codes of the `tilawa` command (sysexits.h, as DESIGN §3 lists them).
enum ExitStatus {
    static let usage: Int32 = 64
    static let dataRejected: Int32 = 65
    static let refusedByRule: Int32 = 77
    static let attemptLimit: Int32 = 75
    static let deviceError: Int32 = 74
    static let cannotCreate: Int32 = 73
    static let software: Int32 = 70
    static let configuration: Int32 = 78
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
}
