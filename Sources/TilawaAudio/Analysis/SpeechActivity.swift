import Foundation

/// Where speech was found.
struct SpeechActivity: Equatable {
    var speechSeconds: Double
    var leadingSilenceSeconds: Double
    var trailingSilenceSeconds: Double
}
