extension String {
    /// The string in double quotes for messages, shortened past 60 characters and with control
    /// characters escaped, so that hostile ids cannot garble a terminal. Every front end quotes
    /// what it echoes back this way.
    public var quoted: String {
        var text = String(
            unicodeScalars.prefix(60).map { scalar -> String in
                scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
            }.joined())
        if unicodeScalars.count > 60 { text += "…" }
        return "\"\(text)\""
    }
}

extension String? {
    /// A section name for messages: quoted, or "the unnamed section".
    var sectionDescription: String {
        map { "section \($0.quoted)" } ?? "the unnamed section"
    }
}

extension String {
    /// Whether the two strings have the same code points. Swift's `==` treats canonically
    /// equivalent strings ("é" and "e\u{301}") as equal; SQLite, and so the catalog, does not.
    func isExactly(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}

extension String? {
    /// Whether both are `nil`, or both hold the same code points.
    func isExactly(_ other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let left?, let right?): left.isExactly(right)
        default: false
        }
    }
}
