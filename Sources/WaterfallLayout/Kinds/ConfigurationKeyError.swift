/// A configuration names a setting of another kind of layout (`rowHeight` for a waterfall,
/// `columns` for justified rows): refused, never ignored. Thrown while decoding; each front end
/// phrases it with its own names for the keys (``sentence(naming:)``).
public struct ConfigurationKeyError: Error, Hashable, Sendable {
    /// The JSON key given.
    public var key: String
    /// The kind of the configuration being decoded.
    public var kind: LayoutKind
    /// The kind the key belongs to.
    public var owner: LayoutKind

    public init(key: String, kind: LayoutKind, owner: LayoutKind) {
        self.key = key
        self.kind = kind
        self.owner = owner
    }

    /// One sentence, with `name` turning a JSON key into the front end's name for it (the
    /// key itself, a query parameter, `--row-height`).
    public func sentence(naming name: (String) -> String) -> String {
        "\(name(key)) does not apply to a \(kind.rawValue) layout: remove it, or give \(name("kind")) \(owner.rawValue)."
    }
}
