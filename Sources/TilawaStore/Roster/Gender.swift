/// The genders `same_gender_coaching` compares (`gender` of a coach in `program.yaml`, of a
/// student in `students.csv`): `female` or `male`, case-insensitive in the files.
enum Gender {
    static let values = ["female", "male"]

    /// The normalised value, nil for anything else.
    static func normalised(_ text: String) -> String? {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        return values.contains(lowered) ? lowered : nil
    }

    /// Whether a student and a coach may be paired under same-gender coaching: yes unless
    /// both genders are known and differ.
    static func compatible(student: String?, coach: String?) -> Bool {
        guard let student, let coach else { return true }
        return student == coach
    }
}
