import Foundation
import TilawaStore

/// A moment of a recording a coach marked: the `Annotation` schema of openapi.yaml.
public struct AnnotationResource: Encodable, Sendable, Equatable {
    public var id: String
    public var submissionId: String
    public var studentId: String
    public var coachId: String
    public var atSeconds: Double
    public var surah: Int?
    public var ayah: Int?
    public var kind: String
    public var text: String
    public var createdAt: Date
    /// The spoken correction, or null for a written note only (the comment clip's shape).
    public var audio: CommentResource.Clip?

    public init(_ record: AnnotationRecord) {
        id = record.id
        submissionId = record.submissionId
        studentId = record.studentId
        coachId = record.coachId
        atSeconds = (record.atSeconds * 1_000).rounded() / 1_000
        surah = record.surah
        ayah = record.ayah
        kind = record.kind.rawValue
        text = record.text
        createdAt = record.createdAt
        audio = record.clip.map {
            CommentResource.Clip(durationSeconds: ($0.durationSeconds * 1_000).rounded() / 1_000, outputGainDB: $0.outputGainDB,
                                 links: ["audio": "/v1/annotations/\(record.id)/audio?clip=\(Self.clipKey($0.audioPath))",
                                         "waveform": "/v1/annotations/\(record.id)/waveform?clip=\(Self.clipKey($0.audioPath))"])
        }
    }

    /// What tells one spoken correction of an annotation from the next (its file's own id):
    /// its links carry it, so a correction recorded again has new addresses and a player or
    /// cache that holds the old one never plays it for the new.
    static func clipKey(_ audioPath: String) -> String {
        let name = audioPath.split(separator: "/").last.map(String.init) ?? audioPath
        return name.hasSuffix(".opus") ? String(name.dropLast(5)) : name
    }

    enum CodingKeys: String, CodingKey {
        case id, surah, ayah, kind, text, audio
        case submissionId, studentId, coachId, atSeconds, createdAt
    }

    /// Encodes every member, an absent ayah or correction as null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(submissionId, forKey: .submissionId)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(coachId, forKey: .coachId)
        try container.encode(atSeconds, forKey: .atSeconds)
        try container.encode(surah, forKey: .surah)
        try container.encode(ayah, forKey: .ayah)
        try container.encode(kind, forKey: .kind)
        try container.encode(text, forKey: .text)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(audio, forKey: .audio)
    }
}

/// The answer of `GET /v1/students/{id}/annotations`: the history, newest first.
struct AnnotationHistoryResource: Encodable, Sendable {
    var studentId: String
    var annotations: [AnnotationResource]
}
