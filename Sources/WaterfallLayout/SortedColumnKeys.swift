/// The column bottoms of the key path: keys `pixels << 6 | column`, kept sorted ascending.
protocol SortedColumnKeys {
    /// Loads `columns` sorted keys.
    init(_ keys: UnsafePointer<Int64>, columns: Int)
    /// Writes the keys, sorted, to `keys`.
    func store(_ keys: UnsafeMutablePointer<Int64>)
    /// The smallest key: the shortest column, the lowest index on ties.
    var smallest: Int64 { get }
    /// The largest key: the lowest column.
    var largest: Int64 { get }
    /// Replaces the smallest key with `key`, which is larger than it, keeping the order.
    mutating func replaceSmallest(with key: Int64)
    /// Sets every column's bottom to `pixels` (after a full-span image).
    mutating func setAll(_ pixels: Int64)
}

/// One column: nothing to choose.
struct KeysOfOne: SortedColumnKeys {
    var k0: Int64
    init(_ keys: UnsafePointer<Int64>, columns: Int) { k0 = keys[0] }
    func store(_ keys: UnsafeMutablePointer<Int64>) { keys[0] = k0 }
    var smallest: Int64 { @inline(__always) get { k0 } }
    var largest: Int64 { @inline(__always) get { k0 } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) { k0 = key }
    @inline(__always) mutating func setAll(_ pixels: Int64) { k0 = pixels << 6 }
}

/// Two columns in registers.
struct KeysOfTwo: SortedColumnKeys {
    var k0: Int64, k1: Int64
    init(_ keys: UnsafePointer<Int64>, columns: Int) { (k0, k1) = (keys[0], keys[1]) }
    func store(_ keys: UnsafeMutablePointer<Int64>) { (keys[0], keys[1]) = (k0, k1) }
    var smallest: Int64 { @inline(__always) get { k0 } }
    var largest: Int64 { @inline(__always) get { k1 } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) {
        k0 = min(key, k1)
        k1 = max(key, k1)
    }
    @inline(__always) mutating func setAll(_ pixels: Int64) {
        k0 = pixels << 6
        k1 = pixels << 6 | 1
    }
}

/// Three columns in registers.
struct KeysOfThree: SortedColumnKeys {
    var k0: Int64, k1: Int64, k2: Int64
    init(_ keys: UnsafePointer<Int64>, columns: Int) { (k0, k1, k2) = (keys[0], keys[1], keys[2]) }
    func store(_ keys: UnsafeMutablePointer<Int64>) { (keys[0], keys[1], keys[2]) = (k0, k1, k2) }
    var smallest: Int64 { @inline(__always) get { k0 } }
    var largest: Int64 { @inline(__always) get { k2 } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) {
        k0 = min(key, k1)
        let middle = max(key, k1)
        k1 = min(middle, k2)
        k2 = max(middle, k2)
    }
    @inline(__always) mutating func setAll(_ pixels: Int64) {
        k0 = pixels << 6
        k1 = pixels << 6 | 1
        k2 = pixels << 6 | 2
    }
}

/// Four columns in registers.
struct KeysOfFour: SortedColumnKeys {
    var k0: Int64, k1: Int64, k2: Int64, k3: Int64
    init(_ keys: UnsafePointer<Int64>, columns: Int) { (k0, k1, k2, k3) = (keys[0], keys[1], keys[2], keys[3]) }
    func store(_ keys: UnsafeMutablePointer<Int64>) { (keys[0], keys[1], keys[2], keys[3]) = (k0, k1, k2, k3) }
    var smallest: Int64 { @inline(__always) get { k0 } }
    var largest: Int64 { @inline(__always) get { k3 } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) {
        k0 = min(key, k1)
        let m1 = max(key, k1)
        k1 = min(m1, k2)
        let m2 = max(m1, k2)
        k2 = min(m2, k3)
        k3 = max(m2, k3)
    }
    @inline(__always) mutating func setAll(_ pixels: Int64) {
        k0 = pixels << 6
        k1 = pixels << 6 | 1
        k2 = pixels << 6 | 2
        k3 = pixels << 6 | 3
    }
}

/// Five columns in registers.
struct KeysOfFive: SortedColumnKeys {
    var k0: Int64, k1: Int64, k2: Int64, k3: Int64, k4: Int64
    init(_ keys: UnsafePointer<Int64>, columns: Int) {
        (k0, k1, k2, k3, k4) = (keys[0], keys[1], keys[2], keys[3], keys[4])
    }
    func store(_ keys: UnsafeMutablePointer<Int64>) {
        (keys[0], keys[1], keys[2], keys[3], keys[4]) = (k0, k1, k2, k3, k4)
    }
    var smallest: Int64 { @inline(__always) get { k0 } }
    var largest: Int64 { @inline(__always) get { k4 } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) {
        var carry = key
        k0 = min(carry, k1)
        carry = max(carry, k1)
        k1 = min(carry, k2)
        carry = max(carry, k2)
        k2 = min(carry, k3)
        carry = max(carry, k3)
        k3 = min(carry, k4)
        carry = max(carry, k4)
        k4 = carry
    }
    @inline(__always) mutating func setAll(_ pixels: Int64) {
        let key = pixels << 6
        (k0, k1, k2, k3, k4) = (key, key | 1, key | 2, key | 3, key | 4)
    }
}

/// Six columns in registers.
struct KeysOfSix: SortedColumnKeys {
    var k0: Int64, k1: Int64, k2: Int64, k3: Int64, k4: Int64, k5: Int64
    init(_ keys: UnsafePointer<Int64>, columns: Int) {
        (k0, k1, k2, k3, k4, k5) = (keys[0], keys[1], keys[2], keys[3], keys[4], keys[5])
    }
    func store(_ keys: UnsafeMutablePointer<Int64>) {
        (keys[0], keys[1], keys[2], keys[3], keys[4], keys[5]) = (k0, k1, k2, k3, k4, k5)
    }
    var smallest: Int64 { @inline(__always) get { k0 } }
    var largest: Int64 { @inline(__always) get { k5 } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) {
        var carry = key
        k0 = min(carry, k1)
        carry = max(carry, k1)
        k1 = min(carry, k2)
        carry = max(carry, k2)
        k2 = min(carry, k3)
        carry = max(carry, k3)
        k3 = min(carry, k4)
        carry = max(carry, k4)
        k4 = min(carry, k5)
        carry = max(carry, k5)
        k5 = carry
    }
    @inline(__always) mutating func setAll(_ pixels: Int64) {
        let key = pixels << 6
        (k0, k1, k2, k3, k4, k5) = (key, key | 1, key | 2, key | 3, key | 4, key | 5)
    }
}

/// Seven columns in registers.
struct KeysOfSeven: SortedColumnKeys {
    var k0: Int64, k1: Int64, k2: Int64, k3: Int64, k4: Int64, k5: Int64, k6: Int64
    init(_ keys: UnsafePointer<Int64>, columns: Int) {
        (k0, k1, k2, k3, k4, k5, k6) = (keys[0], keys[1], keys[2], keys[3], keys[4], keys[5], keys[6])
    }
    func store(_ keys: UnsafeMutablePointer<Int64>) {
        (keys[0], keys[1], keys[2], keys[3], keys[4], keys[5], keys[6]) = (k0, k1, k2, k3, k4, k5, k6)
    }
    var smallest: Int64 { @inline(__always) get { k0 } }
    var largest: Int64 { @inline(__always) get { k6 } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) {
        var carry = key
        k0 = min(carry, k1)
        carry = max(carry, k1)
        k1 = min(carry, k2)
        carry = max(carry, k2)
        k2 = min(carry, k3)
        carry = max(carry, k3)
        k3 = min(carry, k4)
        carry = max(carry, k4)
        k4 = min(carry, k5)
        carry = max(carry, k5)
        k5 = min(carry, k6)
        carry = max(carry, k6)
        k6 = carry
    }
    @inline(__always) mutating func setAll(_ pixels: Int64) {
        let key = pixels << 6
        (k0, k1, k2, k3, k4, k5, k6) = (key, key | 1, key | 2, key | 3, key | 4, key | 5, key | 6)
    }
}

/// Eight columns in registers.
struct KeysOfEight: SortedColumnKeys {
    var k0: Int64, k1: Int64, k2: Int64, k3: Int64, k4: Int64, k5: Int64, k6: Int64, k7: Int64
    init(_ keys: UnsafePointer<Int64>, columns: Int) {
        (k0, k1, k2, k3, k4, k5, k6, k7) = (keys[0], keys[1], keys[2], keys[3], keys[4], keys[5], keys[6], keys[7])
    }
    func store(_ keys: UnsafeMutablePointer<Int64>) {
        (keys[0], keys[1], keys[2], keys[3], keys[4], keys[5], keys[6], keys[7]) = (k0, k1, k2, k3, k4, k5, k6, k7)
    }
    var smallest: Int64 { @inline(__always) get { k0 } }
    var largest: Int64 { @inline(__always) get { k7 } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) {
        var carry = key
        k0 = min(carry, k1)
        carry = max(carry, k1)
        k1 = min(carry, k2)
        carry = max(carry, k2)
        k2 = min(carry, k3)
        carry = max(carry, k3)
        k3 = min(carry, k4)
        carry = max(carry, k4)
        k4 = min(carry, k5)
        carry = max(carry, k5)
        k5 = min(carry, k6)
        carry = max(carry, k6)
        k6 = min(carry, k7)
        carry = max(carry, k7)
        k7 = carry
    }
    @inline(__always) mutating func setAll(_ pixels: Int64) {
        let key = pixels << 6
        (k0, k1, k2, k3, k4, k5, k6, k7) = (key, key | 1, key | 2, key | 3, key | 4, key | 5, key | 6, key | 7)
    }
}

/// Any number of columns, in the caller's buffer.
struct KeysOfAny: SortedColumnKeys {
    let keys: UnsafeMutablePointer<Int64>
    let count: Int
    init(_ keys: UnsafePointer<Int64>, columns: Int) {
        self.keys = UnsafeMutablePointer(mutating: keys)
        count = columns
    }
    func store(_ target: UnsafeMutablePointer<Int64>) {
        if target != keys { target.update(from: keys, count: count) }
    }
    var smallest: Int64 { @inline(__always) get { keys[0] } }
    var largest: Int64 { @inline(__always) get { keys[count - 1] } }
    @inline(__always) mutating func replaceSmallest(with key: Int64) {
        // Branch-free insertion: slot j takes the j-th smallest of keys[1...] and `key`.
        var carry = key
        for index in 1..<count {
            let next = keys[index]
            keys[index - 1] = min(carry, next)
            carry = max(carry, next)
        }
        keys[count - 1] = carry
    }
    @inline(__always) mutating func setAll(_ pixels: Int64) {
        for index in 0..<count {
            keys[index] = pixels << 6 | Int64(index)
        }
    }
}
