import Foundation

/// Quantities as operations read them.
public enum Quantity {
    /// `512 B`, `4.1 GiB`, `37 MiB`.
    public static func bytes(_ value: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var amount = Double(max(0, value))
        var unit = 0
        while amount >= 1024, unit < units.count - 1 {
            amount /= 1024
            unit += 1
        }
        return unit == 0 ? "\(Int(amount)) B" : String(format: amount < 10 ? "%.1f %@" : "%.0f %@", amount, units[unit])
    }

    /// `31 %`, or `0.4 %` below 1.
    public static func percent(_ value: Double) -> String {
        String(format: value < 1 ? "%.1f %%" : "%.0f %%", value)
    }
}
