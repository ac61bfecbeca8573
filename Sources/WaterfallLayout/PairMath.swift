#if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
internal import _Builtin_intrinsics.intel
#endif

/// Operations on two `Double`s at once for the bulk paths, each lane exactly the scalar
/// operation. On x86-64 they are SSE2 instructions (in the baseline, so in every build); they
/// also keep LLVM from splitting the division that feeds them into two `divsd`, which it
/// does when the lanes of a `SIMD2` quotient are only used apart.
enum PairMath {
    /// `truncatedInRange` of both lanes, for lanes in `0..<2^31`: `cvttpd2dq` truncates to
    /// 32-bit integers. The justified grid's values are at most 6,000,000 pixels (lengths are
    /// at most 1,000,000 points, a row's height 2T, the scale 3; see ``FastGrid``), and so is
    /// a lane the bulk path computes past a row's end (a width of at most the row's `W`).
    @inline(__always)
    static func truncatedInRange(_ values: SIMD2<Double>) -> SIMD2<Double> {
        #if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
        _mm_cvtepi32_pd(_mm_cvttpd_epi32(values))
        #else
        SIMD2(Double(Int64(values[0])), Double(Int64(values[1])))
        #endif
    }

    /// `min(max(values[i], lows[i]), highs[i])` in each lane, as Swift's `min` and `max` give
    /// it for values that are not NaN.
    @inline(__always)
    static func clamped(_ values: SIMD2<Double>, _ lows: SIMD2<Double>, _ highs: SIMD2<Double>) -> SIMD2<Double> {
        #if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
        _mm_min_pd(_mm_max_pd(values, lows), highs)
        #else
        SIMD2(min(max(values[0], lows[0]), highs[0]), min(max(values[1], lows[1]), highs[1]))
        #endif
    }

    /// `WaterfallLayout.floorOfSmallNonNegative` of both lanes (`floor` for lanes in
    /// `0..<2^52`): adding and removing 2^52 rounds to the nearest, and 1 is taken off the
    /// lanes that rounded up. On x86-64 the correction is a mask (`cmpltpd`, `andpd`), not
    /// the select that LLVM would turn into one unpredictable branch a lane.
    @inline(__always)
    static func floorOfSmallNonNegative(_ values: SIMD2<Double>) -> SIMD2<Double> {
        let magic = SIMD2<Double>(repeating: 4_503_599_627_370_496)
        let rounded = (values + magic) - magic
        #if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
        return rounded - _mm_and_pd(_mm_cmplt_pd(values, rounded), SIMD2(repeating: 1))
        #else
        return SIMD2(
            rounded[0] > values[0] ? rounded[0] - 1 : rounded[0], rounded[1] > values[1] ? rounded[1] - 1 : rounded[1])
        #endif
    }
}
