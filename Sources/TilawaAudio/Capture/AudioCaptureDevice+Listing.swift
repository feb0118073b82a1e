import CALSA
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension AudioCaptureDevice {
    /// The PCMs that can record, as `arecord -L` lists them: `name — first line of its
    /// description`, or the bare name when it has none.
    ///
    /// From `snd_device_name_hint(-1, "pcm", …)` (every card plus the configuration's own
    /// PCMs), leaving out those whose hint says they are output-only. Empty when ALSA
    /// cannot list anything.
    public static func availableDevices() -> [String] {
        silenceLibraryMessages()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [String] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            guard let name = takeHint(hint, "NAME") else { continue }
            // IOID is absent for PCMs that do both directions.
            if takeHint(hint, "IOID") == "Output" { continue }
            let summary = takeHint(hint, "DESC")?
                .split(separator: "\n", omittingEmptySubsequences: true).first
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if let summary, !summary.isEmpty {
                devices.append("\(name) — \(summary)")
            } else {
                devices.append(name)
            }
        }
        return devices
    }

    /// One field of a hint; alsa-lib returns a copy the caller frees.
    private static func takeHint(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
