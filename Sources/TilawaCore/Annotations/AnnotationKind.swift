/// What kind of mistake a coach marks in a recording (DESIGN §9); the raw value is the
/// `kind` member.
public enum AnnotationKind: String, Sendable, Codable, CaseIterable {
    case wrongWord = "wrong_word"
    case harakah
    case tajweed
    case stopStart = "stop_start"
    case fluency
    case other
}
