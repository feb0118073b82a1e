/// The result a coach gives an end-of-course assessment with the reply (DESIGN §1).
///
/// Raw values are the stable codes stored, sent in JSON and spelt in drop-folder names
/// (`S1001_eoc_pass.m4a`).
public enum EOCResult: String, Sendable, Hashable, Codable, CaseIterable {
    /// The level is graduated.
    case pass
    /// One more end-of-course recording is allowed while the semester is open.
    case retake
}
