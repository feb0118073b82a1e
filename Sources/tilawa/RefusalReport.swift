import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `--json` output of a refused `ingest` or `capture`.
struct RefusalReport: Encodable {
    var code: String
    var message: String
    var reasons: [String]
    var analysis: AudioAnalysis?
    var nextAttemptAt: Date?
}
