/// DESIGN's `shortest` choice on `Double` column bottoms: the index of the smallest bottom,
/// the lowest index on ties, and that bottom.
///
/// The fixed-count versions compare in a tournament whose matches prefer their left side,
/// which keeps the lowest index on ties and compiles to `minsd` and conditional moves.
protocol ShortestColumn {
    static func find(_ bottoms: UnsafePointer<Double>, _ columns: Int) -> (column: Int, top: Double)
}

/// Two columns.
enum ShortestOfTwo: ShortestColumn {
    @inline(__always)
    static func find(_ bottoms: UnsafePointer<Double>, _ columns: Int) -> (column: Int, top: Double) {
        let b0 = bottoms[0]
        let b1 = bottoms[1]
        let right = b1 < b0
        return (right ? 1 : 0, right ? b1 : b0)
    }
}

/// Three columns.
enum ShortestOfThree: ShortestColumn {
    @inline(__always)
    static func find(_ bottoms: UnsafePointer<Double>, _ columns: Int) -> (column: Int, top: Double) {
        let b0 = bottoms[0]
        let b1 = bottoms[1]
        let b2 = bottoms[2]
        let use1 = b1 < b0
        let top01 = use1 ? b1 : b0
        let use2 = b2 < top01
        return (use2 ? 2 : (use1 ? 1 : 0), use2 ? b2 : top01)
    }
}

/// Four columns.
enum ShortestOfFour: ShortestColumn {
    @inline(__always)
    static func find(_ bottoms: UnsafePointer<Double>, _ columns: Int) -> (column: Int, top: Double) {
        let b0 = bottoms[0]
        let b1 = bottoms[1]
        let b2 = bottoms[2]
        let b3 = bottoms[3]
        let use1 = b1 < b0
        let top01 = use1 ? b1 : b0
        let use3 = b3 < b2
        let top23 = use3 ? b3 : b2
        let right = top23 < top01
        return (right ? (use3 ? 3 : 2) : (use1 ? 1 : 0), right ? top23 : top01)
    }
}

/// Any number of columns: a scan.
enum ShortestOfAny: ShortestColumn {
    @inline(__always)
    static func find(_ bottoms: UnsafePointer<Double>, _ columns: Int) -> (column: Int, top: Double) {
        var column = 0
        var top = bottoms[0]
        for other in 1..<columns where bottoms[other] < top {
            column = other
            top = bottoms[other]
        }
        return (column, top)
    }
}
