import Foundation
import TilawaCore

/// Where a submission's ayahs are in its recording, as the encode job found them (DESIGN §9),
/// stored on the submission row (`ayahMarkers`, JSON).
///
/// It names the ranges it was aligned against: a passage re-imported with other ayahs makes
/// the markers stale, and the submission then says so instead of showing wrong times.
public struct AyahMarkers: Sendable, Codable, Equatable {
    /// One unit found in the recording: an ayah, or (`ayah` 0) an isti'adha or basmala
    /// recited before a surah.
    public struct Marker: Sendable, Codable, Equatable {
        public var surah: Int
        /// The ayah; 0 for what is recited before the surah's ayahs.
        public var ayah: Int
        /// For `ayah` 0: `istiadha` or `basmala`; nil for an ayah.
        public var preface: Preface?
        public var startSeconds: Double
        public var endSeconds: Double

        /// A marker.
        public init(surah: Int, ayah: Int, preface: Preface? = nil, startSeconds: Double, endSeconds: Double) {
            self.surah = surah
            self.ayah = ayah
            self.preface = preface
            self.startSeconds = startSeconds
            self.endSeconds = endSeconds
        }
    }

    /// What is recited before a surah's first ayah and is not an ayah of the passage.
    public enum Preface: String, Sendable, Codable, Equatable {
        case istiadha
        case basmala
    }

    /// The ranges aligned against, normalised as stored on the week (`1:1-7; 114:1-6`).
    public var ayahs: String
    /// The units found, in recording order; empty when `unavailableReason` is set.
    public var markers: [Marker]
    /// Why no ayah has times (an `AlignmentRefusal` code); nil when `markers` holds them.
    public var unavailableReason: String?
    /// Ayahs recited but not given a time of their own (one run into the ayah before it,
    /// whose marker covers both); empty when refused. Absent in markers stored before it.
    public var notFound: [AyahReference]

    /// An ayah of the passage by its numbers.
    public struct AyahReference: Sendable, Codable, Equatable {
        public var surah: Int
        public var ayah: Int

        public init(surah: Int, ayah: Int) {
            self.surah = surah
            self.ayah = ayah
        }
    }

    /// Markers from their parts.
    public init(ayahs: String, markers: [Marker], notFound: [AyahReference] = [], unavailableReason: String? = nil) {
        self.ayahs = ayahs
        self.markers = markers
        self.notFound = notFound
        self.unavailableReason = unavailableReason
    }

    private enum CodingKeys: String, CodingKey {
        case ayahs, markers, unavailableReason, notFound
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ayahs = try container.decode(String.self, forKey: .ayahs)
        markers = try container.decode([Marker].self, forKey: .markers)
        unavailableReason = try container.decodeIfPresent(String.self, forKey: .unavailableReason)
        notFound = try container.decodeIfPresent([AyahReference].self, forKey: .notFound) ?? []
    }
}
