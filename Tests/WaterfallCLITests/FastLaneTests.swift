import ArgumentParser
import Foundation
import Testing
import Waterfall
import WaterfallTestSupport

@testable import waterfall

/// The fast lane (`FastLane.swift`) parses `page`, `viewport` and `move` without ArgumentParser. It may
/// decline any command line, but what it accepts it must parse exactly as ArgumentParser does:
/// into the same request.
@Suite(.onOwnThreads(lane: .processes)) struct FastLaneTests {
    /// Values worth trying: valid and invalid numbers, dashes, empty text, unicode.
    static let values = [
        "0", "1", "3", "64", "65", "100", "990000", "-1", "-5", "2.5", "1e3", "nan", "inf", "-inf", "0x10",
        "", "abc", "phone", "-x", "--json", "ünï 📷", "10,5,10,5", "10,5", "shortest", "left-to-right", "sideways",
    ]

    /// `arguments` with a few random tokens inserted: options of the command's table and a few
    /// it does not know, sometimes repeated, sometimes as `--name=value`, sometimes bare values.
    static func mutated(_ arguments: [String], options: [String], using random: inout SeededGenerator) -> [String] {
        var arguments = arguments
        let names = options + ["help", "verbose", "db", "page", "y"]
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let name = names.randomElement(using: &random)!
            let value = values.randomElement(using: &random)!
            let tokens: [String] =
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1: ["--\(name)=\(value)"]
                case 2: ["--\(name)"]
                case 3: [value]
                case 4: ["-h"]
                default: ["--\(name)", value]
                }
            // After the command name (or anywhere, now and then).
            let first =
                Int.random(in: 0..<8, using: &random) == 0
                ? 0 : arguments.firstIndex(of: arguments.first { !$0.hasPrefix("--db") } ?? "")! + 1
            arguments.insert(contentsOf: tokens, at: Int.random(in: first...arguments.count, using: &random))
        }
        return arguments
    }

    /// The command line's best chance of being accepted: a known, valid option set.
    static func validCommandLine(_ command: String, using random: inout SeededGenerator) -> [String] {
        var arguments = [command]
        if command == "move" {
            arguments += [["img-1", "ünï 📷", "42"].randomElement(using: &random)!]
            arguments += [
                ["--before", "img-2"], ["--after=img-3"], ["--to", ["0", "7"].randomElement(using: &random)!],
            ].randomElement(using: &random)!
            if Bool.random(using: &random) { arguments += ["--feed", "photos"] }
            if Bool.random(using: &random) { arguments += ["--dry-run"] }
            if Bool.random(using: &random) { arguments.swapAt(1, arguments.count - 1) }
            if Bool.random(using: &random) { arguments += ["--json"] }
            if Bool.random(using: &random) { arguments = ["--db=a b.sqlite"] + arguments }
            return arguments
        }
        if Bool.random(using: &random) {
            arguments += ["--layout", "phone"]
        } else {
            arguments += ["--columns", ["1", "3", "64"].randomElement(using: &random)!, "--width=800"]
            if Bool.random(using: &random) { arguments += ["--inset", "10,5,10,5", "--order", "right-to-left"] }
        }
        if command == "page" {
            arguments += Bool.random(using: &random) ? ["--offset", "990000", "--limit=100"] : ["--page", "3"]
        } else {
            arguments += ["--y", "-50", "--height", "800"]
            if Bool.random(using: &random) { arguments += ["--pin-headers", "--pin-offset", "44"] }
        }
        if Bool.random(using: &random) { arguments += ["--json"] }
        if Bool.random(using: &random) { arguments = ["--db=a b.sqlite"] + arguments }
        return arguments
    }

    /// Parses `arguments` with the fast lane and, when it accepts them, with ArgumentParser;
    /// returns whether the fast lane accepted them.
    static func expectSameParse(_ arguments: [String]) -> Bool {
        guard let fast = FastLane.request(for: arguments) else { return false }
        let parsed: any ParsableCommand
        do {
            parsed = try WaterfallCommand.parseAsRoot(arguments)
        } catch {
            Issue.record(
                "the fast lane accepted \(arguments), which ArgumentParser refuses: \(WaterfallCommand.message(for: error))"
            )
            return true
        }
        switch parsed {
        case let page as WaterfallCommand.Page: #expect(fast as? PageRequest == page.request, "\(arguments)")
        case let viewport as WaterfallCommand.Viewport:
            #expect(fast as? ViewportRequest == viewport.request, "\(arguments)")
        case let move as WaterfallCommand.Move: #expect(fast as? MoveRequest == move.request, "\(arguments)")
        default: Issue.record("\(arguments) took the fast lane, but ArgumentParser parses them as \(type(of: parsed))")
        }
        return true
    }

    @Test(arguments: ["page", "viewport", "move"])
    func everyOptionWithAwkwardValuesParsesAsArgumentParserParsesIt(command: String) throws {
        let options = optionNames(of: command)
        let base =
            switch command {
            case "page": ["--db", "a.sqlite", command, "--layout", "phone"]
            case "viewport": ["--db", "a.sqlite", command, "--layout", "phone", "--y", "0", "--height", "100"]
            default: ["--db", "a.sqlite", command, "img-1"]
            }
        var accepted = 0
        for name in options {
            for value in ["-5", "-x", "--json", "-", "", "2.5", "ünï", "10,5,10,5", "left-to-right"] {
                for tokens in [["--\(name)", value], ["--\(name)=\(value)"]] {
                    if Self.expectSameParse(base + tokens) { accepted += 1 }
                }
            }
        }
        #expect(accepted >= 8, "only \(accepted) command lines took the fast lane")
    }

    @Test(arguments: ["page", "viewport", "move"])
    func whatTheFastLaneAcceptsArgumentParserParsesTheSameWay(command: String) throws {
        let options = optionNames(of: command)
        var random = SeededGenerator(seed: 5)
        var accepted = 0
        for _ in 0..<250 {
            let arguments = Self.mutated(
                Self.validCommandLine(command, using: &random), options: options, using: &random)
            if Self.expectSameParse(arguments) { accepted += 1 }
        }
        // Not vacuous: the plain command lines, at least, take the fast lane.
        #expect(accepted >= 60, "only \(accepted) command lines took the fast lane")
    }

    @Test(arguments: ["page", "viewport", "move"])
    func theFastLaneKnowsEveryOptionOfTheCommand(command: String) throws {
        let type = try #require(FastLane.commands[command])
        let options = optionNames(of: command)
        #expect(options.count >= (command == "move" ? 7 : 20))
        for name in options {
            #expect(type.kind(of: Substring(name)) != nil, "--\(name)")
        }
    }

    @Test func helpErrorsAndOtherCommandsAreLeftToArgumentParser() {
        for arguments in [
            ["page", "--help"], ["page", "-h"], ["help", "page"], ["page", "--offset"],
            ["page", "--layout", "a", "--layout", "b"],
            ["page", "--layout", "--json"], ["page", "--layout", "a", "--page", "1", "--offset", "1"],
            ["page", "--layout", "a", "--limit", "0", "--offset", "1"],
            ["page", "--layout", "a", "extra"], ["page", "--layout", "a", "--json=yes"],
            ["page", "--layout", "a", "--"],
            ["viewport", "--layout", "a", "--y", "0"], ["viewport", "--layout", "a", "--y", "0", "--height", "0"],
            ["move"], ["move", "a"], ["move", "--to", "1"], ["move", "a", "b", "--to", "1"],
            ["move", "-a", "--to", "1"],
            ["move", "a", "--to", "1", "--after", "b"], ["move", "a", "--after", "a"], ["move", "a", "--to", "-1"],
            ["move", "a", "--to", "1", "--", "b"], ["move", "a", "--before", "-b"], ["move", "--help"],
            ["feeds"], ["--db"], ["--db", "x"], ["--version"], [],
        ] {
            #expect(FastLane.request(for: arguments) == nil, "\(arguments)")
        }
    }
}

/// The long names of a command's options, as ArgumentParser's help lists them.
func optionNames(of command: String) -> [String] {
    let subcommand: any ParsableCommand.Type =
        switch command {
        case "page": WaterfallCommand.Page.self
        case "viewport": WaterfallCommand.Viewport.self
        default: WaterfallCommand.Move.self
        }
    let help = WaterfallCommand.helpMessage(for: subcommand, columns: 10_000)
    let names = help.split(whereSeparator: { !$0.isLetter && $0 != "-" }).filter { $0.hasPrefix("--") }.map {
        String($0.dropFirst(2))
    }
    return Array(Set(names).subtracting(["help", "version"])).sorted()
}

/// The configuration flags are the configurations' own keys: one description (the types'
/// `Codable`) says what each kind has, the command line only names and explains the flags.
@Suite(.onOwnThreads(lane: .processes)) struct ConfigurationFlagTests {
    /// The text options of `options`, by property name.
    static func declared(_ options: some ParsableArguments) -> Set<String> {
        Set(
            Mirror(reflecting: options).children.compactMap { child in
                child.value is Option<String?> ? child.label.map { String($0.dropFirst()) } : nil
            })
    }

    @Test func everyLayoutKeyIsAFlagAndEveryFlagAKey() throws {
        // `sections` is the repeatable `--section ID:KEY=VALUE,…` (``SectionFlag``), not a text flag.
        var keys = LayoutKind.allCases.reduce(into: Set<String>()) { $0.formUnion(AnyLayoutConfiguration.keys(of: $1)) }
        #expect(keys.remove("sections") != nil)
        #expect(Self.declared(try ConfigurationOptions.parse([])) == keys)
        #expect(
            try ConfigurationOptions.parse(["--section", "a:columns=1", "--section", "b:row-height=2"]).sections == [
                "a:columns=1", "b:row-height=2",
            ])
        // …and the fast lane knows each flag by the same name.
        for key in keys {
            let flag = ConfigurationFlags.flag(for: key)
            #expect(ConfigurationFlags.keysByFlag[Substring(flag.dropFirst(2))] == key, "\(flag)")
        }
    }

    @Test func everyCoverFlowKeyIsAFlag() throws {
        let json = try JSONEncoder().encode(CoverFlowConfiguration(itemHeight: 1))
        let keys = Set(try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any]).keys)
        #expect(Self.declared(try CoverFlowOptions.parse([])) == keys)
    }
}
