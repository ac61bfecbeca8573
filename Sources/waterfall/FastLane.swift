import ArgumentParser

/// The fast lane: `page` and `viewport`, the commands a client runs once per scroll, parsed
/// without ArgumentParser.
///
/// ArgumentParser discovers a command's options by reflection and builds its property wrappers,
/// which costs a fresh process about 4 ms: more than the query itself (issue 5 measures whole
/// processes). The fast lane takes only a plain, well-formed command line: `[--db PATH]
/// page|viewport` followed by long options, each given once, as `--name value` or
/// `--name=value`, into the same plain request (``PageRequest``, ``ViewportRequest``) the
/// ArgumentParser command builds. Anything else (help, a typo, a repeated or missing value, a
/// value ArgumentParser would not take, a value that fails validation) returns `nil`, and
/// ArgumentParser parses the line and says what is wrong: users see one set of messages.
/// `FastLaneTests` checks on generated command lines that both parsers give the same request.
enum FastLane {
    /// The commands that take the fast lane, by name.
    static let commands: [String: any FastLaneRequest.Type] = [
        "page": PageRequest.self,
        "viewport": ViewportRequest.self,
    ]

    /// The request `arguments` (without the program name) make, or `nil` to let
    /// ArgumentParser parse them.
    static func request(for arguments: [String]) -> (any FastLaneRequest)? {
        // `--db PATH` may come before the command name, as ArgumentParser allows.
        var index = arguments.startIndex
        while index < arguments.endIndex, arguments[index] == "--db" || arguments[index].hasPrefix("--db=") {
            index += arguments[index] == "--db" ? 2 : 1
        }
        guard index < arguments.endIndex, let type = commands[arguments[index]] else { return nil }
        return type.parse(fastLane: Array(arguments[..<index] + arguments[(index + 1)...]))
    }
}

/// A command's values in plain fields, which the fast lane can fill.
protocol FastLaneRequest: Equatable, Sendable {
    /// No option given.
    init()
    /// Its options by long name (without the dashes).
    static var fastLaneOptions: [String: FastLaneOption<Self>] { get }
    /// The checks ArgumentParser runs after parsing (the option groups' and the command's).
    func validate() throws
    func run() throws
}

extension FastLaneRequest {
    /// The request `arguments` give, or `nil` when the fast lane leaves them to ArgumentParser.
    static func parse(fastLane arguments: [String]) -> Self? {
        let options = fastLaneOptions
        var request = Self()
        var given = Set<Substring>()
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else { return nil }
            var name = argument.dropFirst(2)
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = name[..<equals]
            }
            guard let option = options[String(name)], given.insert(name).inserted else { return nil }
            switch option.kind {
            case .flag:
                guard value == nil else { return nil }
            case .value(let unconditional, _):
                if value == nil, index < arguments.endIndex {
                    value = arguments[index]
                    index += 1
                }
                // ArgumentParser reads a value that looks like an option as a missing value,
                // except for the options that take their value unconditionally (numbers), and
                // `--name=` as no value at all.
                guard let text = value, unconditional || !text.hasPrefix("-"), !(text.isEmpty && argument.hasSuffix("=")) else {
                    return nil
                }
            }
            guard option.apply(&request, value ?? "") else { return nil }
        }
        for (name, option) in options where option.isRequired && !given.contains(Substring(name)) {
            return nil
        }
        do {
            try request.validate()
        } catch {
            return nil
        }
        return request
    }
}

/// Whether an option is a flag or takes a value, and how.
enum FastLaneOptionKind {
    case flag
    /// `unconditional`: the next argument is the value even if it starts with a dash.
    case value(unconditional: Bool, required: Bool)
}

/// One long option of a fast-lane request: how it takes its value and where it stores it.
struct FastLaneOption<Request> {
    let kind: FastLaneOptionKind
    /// Stores the value (ignored for flags); `false` when it does not parse.
    let apply: (inout Request, String) -> Bool

    var isRequired: Bool {
        if case .value(_, true) = kind { return true }
        return false
    }

    /// An `@Option var name: T?`, parsed as ArgumentParser parses `T`.
    static func optional<T: ExpressibleByArgument>(
        _ path: WritableKeyPath<Request, T?>, unconditional: Bool = false
    ) -> Self {
        Self(kind: .value(unconditional: unconditional, required: false)) { request, text in
            guard let value = T(argument: text) else { return false }
            request[keyPath: path] = value
            return true
        }
    }

    /// An `@Option var name: T` without a default: the command line must give it.
    static func required<T: ExpressibleByArgument>(
        _ path: WritableKeyPath<Request, T>, unconditional: Bool = false
    ) -> Self {
        Self(kind: .value(unconditional: unconditional, required: true)) { request, text in
            guard let value = T(argument: text) else { return false }
            request[keyPath: path] = value
            return true
        }
    }

    /// A `@Flag var name = false`.
    static func flag(_ path: WritableKeyPath<Request, Bool>) -> Self {
        Self(kind: .flag) { request, _ in
            request[keyPath: path] = true
            return true
        }
    }

    /// The same option, reached through a field of `Outer` (the flags of an option group).
    func within<Outer>(_ group: WritableKeyPath<Outer, Request>) -> FastLaneOption<Outer> {
        let apply = self.apply
        return FastLaneOption<Outer>(kind: kind) { outer, text in apply(&outer[keyPath: group], text) }
    }

    /// Several tables of options as one.
    static func table(_ parts: [String: Self]...) -> [String: Self] {
        parts.reduce(into: [:]) { table, part in
            table.merge(part) { _, _ in preconditionFailure("two tables declare the same option") }
        }
    }
}
