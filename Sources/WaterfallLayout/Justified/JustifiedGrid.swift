#if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
internal import _Builtin_intrinsics.intel
#endif

/// How a justified layout snaps lengths to the pixel grid, DESIGN's
/// `grid(v) = floor(v * scale) / scale`. Every conformance gives exactly the same `Double` as
/// ``JustifiedConfiguration/grid(_:)``; they differ only in speed.
protocol JustifiedGrid {
    /// `floor(value * scale) / scale`.
    func grid(_ value: Double) -> Double
    /// ``grid(_:)`` of both lanes.
    func grid(_ values: SIMD2<Double>) -> SIMD2<Double>
}

extension JustifiedGrid {
    /// ``grid(_:)`` of each lane in turn.
    @inline(__always)
    func grid(_ values: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2(grid(values[0]), grid(values[1]))
    }
}

/// `floor(value)` for the usual values without a libm call: for 0 ≤ v < 2^63, truncating to
/// `Int64` is `floor`; anything else (negative, NaN, huge) takes `rounded(.down)`.
@inline(__always)
func justifiedFloor(_ value: Double) -> Double {
    value >= 0 && value < 9.2e18 ? Double(Int64(value)) : value.rounded(.down)
}

/// The literal grid: multiplies by the scale, floors, divides by the scale. The streaming
/// path uses it for every scale.
struct ExactGrid: JustifiedGrid {
    let scale: Double

    @inline(__always)
    func grid(_ value: Double) -> Double {
        justifiedFloor(value * scale) / scale
    }
}

/// Scale 3 (any scale): pixels are `points * scale`, points `pixels / scale`.
struct GeneralScale: PixelGrid {
    let scale: Double
    @inline(__always) func toPixels(_ points: Double) -> Double { points * scale }
    @inline(__always) func toPoints(_ pixels: Double) -> Double { pixels / scale }
    @inline(__always) func toPixels(_ points: SIMD2<Double>) -> SIMD2<Double> { points * scale }
    @inline(__always) func toPoints(_ pixels: SIMD2<Double>) -> SIMD2<Double> { pixels / scale }
}

/// The bulk path's grid, specialised per scale, for the values a justified layout snaps.
///
/// Two things make it faster than ``ExactGrid`` and give the same `Double`s:
/// - `ScaleOne` and `ScaleTwo` make the scaling free (`v * 1`, `v * 2` and `p * 0.5` are
///   exactly `v * scale` and `p / scale` there), so a frame costs no division by the scale;
///   `GeneralScale` divides like ``ExactGrid``.
/// - The floor is the truncation alone, without ``justifiedFloor(_:)``'s test for negative or
///   huge values: every value the rules snap is at least 0 and under 3,000,000 pixels (a row's
///   height is clamped to `[0.5T, 2T]`; an image's width is at most the row's available width;
///   a last row's image is narrower than `W`, because its row's aspect ratios sum to less than
///   `minAR = W / T × (1 - tol)` and its height is at most `T`; `W` and `T` are at most
///   1,000,000 and the scale at most 3), where truncating is flooring. That test was two of
///   the width loop's branches, and 10–13% of the bulk path's time. Debug builds check the
///   bound. The bulk path gives the literal grid, not this one, to any block with a size
///   below 1 (aspect ratios of 0, NaN or infinity), which no catalog holds.
struct FastGrid<Scale: PixelGrid>: JustifiedGrid {
    let scale: Scale

    @inline(__always)
    func grid(_ value: Double) -> Double {
        let pixels = scale.toPixels(value)
        // +0 up to 2^51: the sign bit clear and the pattern below 2^51's.
        assert(pixels.bitPattern < (0x1p51 as Double).bitPattern, "justified grid value \(pixels) outside 0..<2^51")
        return scale.toPoints(truncatedInRange(pixels))
    }

    /// ``grid(_:)`` of both lanes at once (on x86-64 one `cvttpd2dq`, which also keeps the
    /// division that makes `values` one `divpd`).
    @inline(__always)
    func grid(_ values: SIMD2<Double>) -> SIMD2<Double> {
        scale.toPoints(PairMath.truncatedInRange(scale.toPixels(values)))
    }
}

/// `Double(Int64(value))` for a `value` already known to be in `0..<2^51`, without the range
/// checks of Swift's trapping conversion (two compares and a NaN test, three branches a frame
/// in the width loop): on x86-64 the bare `cvttsd2si`, which for such values truncates exactly
/// as `Int64(value)` does. Elsewhere the checked conversion.
@inline(__always)
func truncatedInRange(_ value: Double) -> Double {
    #if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
    Double(_mm_cvttsd_si64(_mm_set_sd(value)))
    #else
    Double(Int64(value))
    #endif
}
