/// A string compared and hashed as its exact sequence of code points (its UTF-8 bytes).
///
/// Swift's `String.==` treats canonically equivalent strings as equal, so a precomposed "é"
/// equals "e" followed by a combining acute accent. Waterfall ids and section names are
/// distinct whenever their code points differ; use this wrapper as a dictionary key or set
/// element to get that behaviour.
public struct ExactString: Hashable, Sendable, CustomStringConvertible {
    /// The wrapped string.
    public var string: String

    /// Wraps `string`.
    public init(_ string: String) {
        self.string = string
    }

    /// Whether both strings have the same UTF-8 bytes.
    public static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    /// Hashes the UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(string.utf8.count)
    }

    /// The wrapped string.
    public var description: String { string }
}
