/// How a justified layout snaps lengths to the pixel grid, DESIGN's
/// `grid(v) = floor(v * scale) / scale`. Every conformance gives exactly the same `Double` as
/// ``JustifiedConfiguration/grid(_:)``; they differ only in speed.
protocol JustifiedGrid {
    /// `floor(value * scale) / scale`.
    func grid(_ value: Double) -> Double
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
}

/// The bulk path's grid, specialised per scale: `ScaleOne` and `ScaleTwo` make the scaling
/// free (`v * 1`, `v * 2` and `p * 0.5` are exactly `v * scale` and `p / scale` there), so a
/// frame costs no division by the scale; `GeneralScale` divides like ``ExactGrid``.
struct FastGrid<Scale: PixelGrid>: JustifiedGrid {
    let scale: Scale

    @inline(__always)
    func grid(_ value: Double) -> Double {
        scale.toPoints(justifiedFloor(scale.toPixels(value)))
    }
}
