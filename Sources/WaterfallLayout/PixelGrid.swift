/// Conversion between points and pixels for one scale, exact for scales 1 and 2.
protocol PixelGrid {
    /// `points * scale`, as ``LayoutConfiguration/grid(_:)`` computes it.
    func toPixels(_ points: Double) -> Double
    /// `pixels / scale`, as ``LayoutConfiguration/grid(_:)`` computes it.
    func toPoints(_ pixels: Double) -> Double
    /// ``toPixels(_:)`` of both lanes (the same IEEE operation in each).
    func toPixels(_ points: SIMD2<Double>) -> SIMD2<Double>
    /// ``toPoints(_:)`` of both lanes (the same IEEE operation in each).
    func toPoints(_ pixels: SIMD2<Double>) -> SIMD2<Double>
}

/// Scale 1: pixels are points.
struct ScaleOne: PixelGrid {
    @inline(__always) func toPixels(_ points: Double) -> Double { points }
    @inline(__always) func toPoints(_ pixels: Double) -> Double { pixels }
    @inline(__always) func toPixels(_ points: SIMD2<Double>) -> SIMD2<Double> { points }
    @inline(__always) func toPoints(_ pixels: SIMD2<Double>) -> SIMD2<Double> { pixels }
}

/// Scale 2: multiplying by 2 and by 0.5 is exact, so `* 0.5` equals `/ 2`.
struct ScaleTwo: PixelGrid {
    @inline(__always) func toPixels(_ points: Double) -> Double { points * 2 }
    @inline(__always) func toPoints(_ pixels: Double) -> Double { pixels * 0.5 }
    @inline(__always) func toPixels(_ points: SIMD2<Double>) -> SIMD2<Double> { points * 2 }
    @inline(__always) func toPoints(_ pixels: SIMD2<Double>) -> SIMD2<Double> { pixels * 0.5 }
}
