import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore

/// `tilawa encode --json`: the analysis report plus what was written.
struct EncodeReport: Encodable {
    var analysis: AnalysisReport
    var output: String
    var bytes: Int
    var bitrate: Double
    var outputGainDB: Double

    init(analysis: AnalysisReport, encoded: EncodedAudio) {
        self.analysis = analysis
        output = encoded.path
        bytes = encoded.bytes
        bitrate = encoded.bitrate
        outputGainDB = encoded.outputGainDB
    }

    enum CodingKeys: String, CodingKey {
        case analysis, output, bytes, bitrate
        case outputGainDB = "output_gain_db"
    }
}
