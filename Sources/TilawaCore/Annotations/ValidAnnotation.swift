/// An annotation whose every field passed `AnnotationDraft.validated`.
public struct ValidAnnotation: Sendable, Equatable {
    public var atSeconds: Double
    public var surah: Int?
    public var ayah: Int?
    public var kind: AnnotationKind
    public var text: String
}
