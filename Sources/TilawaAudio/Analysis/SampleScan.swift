/// Whole-block scans of decoded samples, written so that the compiler vectorises them.
///
/// The chain touches every decoded sample several times (validity, sample peak, clipping,
/// waveform peaks). A loop over `Swift.min`/`max` of `Float` stays scalar (its NaN ordering
/// forbids reassociating the reduction), and Swift's generic `SIMD` reductions compile to
/// lane-by-lane code, so these work on the samples' bit patterns as integers, whose min, max
/// and count reductions LLVM turns into packed instructions. The decoder never hands on a
/// non-finite sample (it checks with `containsNonFinite` and rejects the file), and for
/// every other float the mapping `ordered` keeps the order of the values.
enum SampleScan {
    /// Minimum and maximum of `samples`; `(0, 0)` for an empty run.
    static func extrema(_ samples: UnsafeBufferPointer<Float>) -> (minimum: Float, maximum: Float) {
        guard !samples.isEmpty else { return (0, 0) }
        return samples.withMemoryRebound(to: UInt32.self) { bits in
            var low = Int32.max, high = Int32.min
            for pattern in bits {
                let key = ordered(pattern)
                low = min(low, key)
                high = max(high, key)
            }
            return (value(ofOrdered: low), value(ofOrdered: high))
        }
    }

    /// How many of `samples` have a magnitude of at least `level` (> 0).
    static func count(_ samples: UnsafeBufferPointer<Float>, atLeast level: Float) -> Int {
        let threshold = level.magnitude.bitPattern
        return samples.withMemoryRebound(to: UInt32.self) { bits in
            var total: UInt32 = 0
            // Magnitudes of non-negative floats order as their bit patterns do.
            for pattern in bits { total &+= (pattern & 0x7fff_ffff) >= threshold ? 1 : 0 }
            return Int(total)
        }
    }

    /// Whether any of `samples` is NaN or infinite (exponent bits all set, IEEE 754 §3.4).
    static func containsNonFinite(_ samples: UnsafeBufferPointer<Float>) -> Bool {
        let exponent: UInt32 = 0x7f80_0000
        return samples.withMemoryRebound(to: UInt32.self) { bits in
            var highest: UInt32 = 0
            for pattern in bits { highest = max(highest, pattern & exponent) }
            return highest == exponent
        }
    }

    /// A signed integer that orders as the float `pattern` does: positive floats keep their
    /// bits, negative ones have their magnitude bits flipped, so −0 sits just below +0.
    @inline(__always)
    private static func ordered(_ pattern: UInt32) -> Int32 {
        let signed = Int32(bitPattern: pattern)
        return signed ^ ((signed >> 31) & 0x7fff_ffff)
    }

    private static func value(ofOrdered key: Int32) -> Float {
        Float(bitPattern: UInt32(bitPattern: key ^ ((key >> 31) & 0x7fff_ffff)))
    }
}
