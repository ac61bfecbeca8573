import ArgumentParser

/// The fast lane: `page` and `viewport`, the commands a client runs once per scroll, and
/// `move`, the one it runs once per drag and drop, parsed without ArgumentParser.
///
/// ArgumentParser discovers a command's options by reflection and builds its property wrappers,
/// which costs a fresh process about 4 ms: more than the query itself (issue 5 measures whole
/// processes). The fast lane takes only a plain, well-formed command line: `[--db PATH]
/// page|viewport|move` followed by long options, each given once, as `--name value` or
/// `--name=value`, and the command's positional arguments (none starting with a dash), into the
/// same plain request the ArgumentParser command builds (``PageRequest``, ``ViewportRequest``,
/// ``MoveRequest``). Anything else (help, a typo, a repeated or missing value, a
/// value ArgumentParser would not take, a value that fails validation) returns `nil`, and
/// ArgumentParser parses the line and says what is wrong: users see one set of messages.
/// `FastLaneTests` checks on generated command lines that both parsers give the same request.
enum FastLane {
    /// The commands that take the fast lane, by name.
    static let commands: [String: any FastLaneRequest.Type] = [
        "page": PageRequest.self,
        "viewport": ViewportRequest.self,
        "move": MoveRequest.self,
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

/// Fields the fast lane can set by long option name: a command's request, or the flags of one
/// of its option groups. Plain `switch`es, no tables or key paths: in a fresh process every
/// generic type and key path the Swift runtime instantiates costs tens of microseconds.
protocol FastLaneFields {
    /// How the option `name` takes its value, or `nil` when these fields have no such option.
    static func kind(of name: Substring) -> FastLaneOptionKind?
    /// Stores the option's value (`nil` for a flag); `false` when the value does not parse as
    /// ArgumentParser would parse it.
    mutating func set(_ name: Substring, _ value: String?) -> Bool
}

/// A command's values in plain fields, which the fast lane can fill.
protocol FastLaneRequest: FastLaneFields, Equatable, Sendable {
    /// No option given.
    init()
    /// Options without a default, which the command line must give.
    static var requiredOptions: [Substring] { get }
    /// Stores the next positional argument; `false` when the command takes no more of them.
    mutating func setArgument(_ value: String) -> Bool
    /// The checks ArgumentParser runs after parsing (the option groups' and the command's).
    func validate() throws
    func run() async throws
}

extension FastLaneRequest {
    static var requiredOptions: [Substring] { [] }

    mutating func setArgument(_ value: String) -> Bool { false }

    /// The request `arguments` give, or `nil` when the fast lane leaves them to ArgumentParser.
    static func parse(fastLane arguments: [String]) -> Self? {
        var request = Self()
        var given: [Substring] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if !argument.hasPrefix("-") {
                guard request.setArgument(argument) else { return nil }
                continue
            }
            guard argument.hasPrefix("--") else { return nil }
            var name = argument.dropFirst(2)
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = name[..<equals]
            }
            guard let kind = kind(of: name), !given.contains(name) else { return nil }
            given.append(name)
            switch kind {
            case .flag:
                guard value == nil else { return nil }
            case .value(let unconditional):
                if value == nil, index < arguments.endIndex {
                    value = arguments[index]
                    index += 1
                }
                // ArgumentParser reads a value that looks like an option as a missing value,
                // except for the options that take their value unconditionally (numbers), and
                // `--name=` as no value at all.
                guard let text = value, unconditional || !text.hasPrefix("-"),
                    !(text.isEmpty && argument.hasSuffix("="))
                else {
                    return nil
                }
            }
            guard request.set(name, value) else { return nil }
        }
        guard requiredOptions.allSatisfy(given.contains) else { return nil }
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
    case value(unconditional: Bool)
}

/// Parses `text` as ArgumentParser parses a `T` option into `field`; `false` if it does not parse.
func assign<T: ExpressibleByArgument>(_ text: String?, to field: inout T?) -> Bool {
    guard let value = text.flatMap(T.init(argument:)) else { return false }
    field = value
    return true
}

/// The same for an option without a default.
func assign<T: ExpressibleByArgument>(_ text: String?, to field: inout T) -> Bool {
    guard let value = text.flatMap(T.init(argument:)) else { return false }
    field = value
    return true
}

/// Sets a flag that was given; `true`, as a flag has no value to refuse.
func raise(_ flag: inout Bool) -> Bool {
    flag = true
    return true
}
