import ArgumentParser
import Foundation
import Waterfall

/// The configuration flags of DESIGN sections 6 and 8, for every kind of layout.
///
/// Each property is named like the configuration's JSON key it sets, and takes its value as
/// text: the kinds' field tables (``LayoutParameter``) say which fields a kind has, which are
/// required, what they default to, how they parse (through ``FieldDecoder``, exactly as for the
/// HTTP API's query parameters) and each flag's help and value name. ArgumentParser finds
/// options by reflection on stored properties, so each flag still needs its property line here;
/// nothing else about a field is written in this file. Every
/// flag takes the next argument as its value even if it starts with a dash (`--width -1` is a
/// width, refused with a sentence, not a missing value).
struct ConfigurationOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Kind of layout: waterfall (columns) or justified (rows) (default waterfall).", valueName: "kind"),
        completion: .list(LayoutKind.allCases.map(\.rawValue)))
    var kind: String?

    @Option(parsing: .unconditional, help: .layoutField("columns"))
    var columns: String?

    @Option(parsing: .unconditional, help: .layoutField("width"))
    var width: String?

    @Option(parsing: .unconditional, help: .layoutField("rowHeight"))
    var rowHeight: String?

    @Option(parsing: .unconditional, help: .layoutField("rowHeightTolerance"))
    var rowHeightTolerance: String?

    @Option(parsing: .unconditional, help: .layoutField("lastRow"), completion: .layoutField("lastRow"))
    var lastRow: String?

    @Option(parsing: .unconditional, help: .layoutField("columnSpacing"))
    var columnSpacing: String?

    @Option(parsing: .unconditional, help: .layoutField("rowSpacing"))
    var rowSpacing: String?

    @Option(name: .customLong("inset"), parsing: .unconditional, help: .layoutField("sectionInset"))
    var sectionInset: String?

    @Option(parsing: .unconditional, help: .layoutField("headerHeight"))
    var headerHeight: String?

    @Option(parsing: .unconditional, help: .layoutField("footerHeight"))
    var footerHeight: String?

    @Option(parsing: .unconditional, help: .layoutField("headerInset"))
    var headerInset: String?

    @Option(parsing: .unconditional, help: .layoutField("footerInset"))
    var footerInset: String?

    @Option(parsing: .unconditional, help: .layoutField("captionHeight"))
    var captionHeight: String?

    @Option(
        name: .customLong("min-content-height"), parsing: .unconditional, help: .layoutField("minimumContentHeight"))
    var minimumContentHeight: String?

    @Option(parsing: .unconditional, help: .layoutField("order"), completion: .layoutField("order"))
    var order: String?

    @Option(parsing: .unconditional, help: .layoutField("scale"))
    var scale: String?

    @Option(
        name: .customLong("section"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "One section's own settings: its id, a colon, then settings as KEY=VALUE separated by commas (keys are the flags above without dashes); may be repeated. E.g. --section 2024-05:columns=1 --section 2024-06:kind=justified,row-height=150.",
            valueName: "id:key=value,…"))
    var sections: [String] = []

    /// The flags' values by JSON key.
    var flags: ConfigurationFlags {
        ConfigurationFlags(values: flagValues(of: self), sections: sections)
    }

    /// The configuration the flags describe, validated.
    func configuration() throws -> AnyLayoutConfiguration {
        try flags.configuration()
    }
}

/// The values given to the text options of `options`, by property name (read through
/// reflection: each such property is a flag named after the configuration key it sets).
func flagValues(of options: some ParsableArguments) -> [String: String] {
    var values: [String: String] = [:]
    for child in Mirror(reflecting: options).children {
        guard let label = child.label, let option = child.value as? Option<String?>, let value = option.wrappedValue
        else { continue }
        values[label.hasPrefix("_") ? String(label.dropFirst()) : label] = value
    }
    return values
}

/// The values of the configuration flags, by the configuration's JSON keys, and what they mean.
struct ConfigurationFlags: Equatable {
    var values: [String: String] = [:]
    /// The arguments of `--section`, in order (``SectionFlag``).
    var sections: [String] = []

    /// Whether any configuration flag was given.
    var isGiven: Bool {
        !values.isEmpty || !sections.isEmpty
    }

    /// The flag of a configuration key: the key in kebab case (`rowHeight` → `--row-height`),
    /// but `--inset` and `--min-content-height` (DESIGN section 6's names).
    static func flag(for key: String) -> String {
        switch key {
        case "sectionInset": return "--inset"
        case "minimumContentHeight": return "--min-content-height"
        default:
            var flag = "--"
            for character in key {
                if character.isUppercase { flag += "-" + character.lowercased() } else { flag.append(character) }
            }
            return flag
        }
    }

    /// The configuration key of every flag (without its dashes), for every kind.
    static let keysByFlag: [Substring: String] = {
        var keys: [Substring: String] = [:]
        for kind in LayoutKind.allCases {
            for key in AnyLayoutConfiguration.keys(of: kind) where key != "sections" {
                keys[Substring(flag(for: key).dropFirst(2))] = key
            }
        }
        return keys
    }()

    /// The configuration the flags describe, validated: a waterfall unless `--kind` says
    /// otherwise, with the `--section` overrides. A flag of another kind is refused with a
    /// sentence, never ignored.
    func configuration() throws -> AnyLayoutConfiguration {
        var configuration: AnyLayoutConfiguration
        do {
            configuration = try FieldDecoder(values, naming: Self.flag(for:)).decode(AnyLayoutConfiguration.self)
        } catch {
            if let missing = error.missingField {
                let kind = values["kind"].map { "a \($0) layout" } ?? "a layout"
                throw ValidationError("\(kind) needs \(Self.flag(for: missing)) (or --layout NAME for a saved one).")
            }
            throw ValidationError(error.message)
        }
        if !sections.isEmpty {
            let entries = try sections.map(SectionFlag.entry)
            do throws(LayoutConfigurationError) {
                configuration = .sectioned(try SectionedConfiguration(base: configuration, entries: entries))
            } catch {
                throw ValidationError(SectionFlag.sentence(error, arguments: sections))
            }
        }
        do throws(LayoutConfigurationError) {
            try configuration.validate()
        } catch {
            throw ValidationError(SectionFlag.sentence(error, arguments: sections))
        }
        return configuration
    }
}

extension ConfigurationFlags: FastLaneFields {
    static func kind(of name: Substring) -> FastLaneOptionKind? {
        keysByFlag[name] == nil && name != "section" ? nil : .value(unconditional: true)
    }

    mutating func set(_ name: Substring, _ value: String?) -> Bool {
        if name == "section", let value {
            sections.append(value)
            return true
        }
        guard let key = Self.keysByFlag[name], let value else { return false }
        values[key] = value
        return true
    }
}

/// `--layout NAME` or the configuration flags: which layout a query uses.
struct LayoutOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A layout saved with `layout add`.", valueName: "name"))
    var layout: String?

    @OptionGroup(title: "Layout configuration")
    var configuration: ConfigurationOptions

    mutating func validate() throws {
        _ = try source()
    }

    /// The flags' values.
    var flags: LayoutFlags {
        LayoutFlags(layout: layout, configuration: configuration.flags)
    }

    /// The layout source the flags describe.
    func source() throws -> LayoutSource {
        try flags.source()
    }
}

/// The values of `--layout NAME` and the configuration flags, and which layout they mean.
struct LayoutFlags: Equatable {
    var layout: String?
    var configuration = ConfigurationFlags()

    /// The layout source the flags describe.
    func source() throws -> LayoutSource {
        if let layout {
            if configuration.isGiven {
                throw ValidationError(
                    "give either --layout NAME or configuration flags (--columns, --width, …), not both.")
            }
            return .named(layout)
        }
        if !configuration.isGiven {
            throw ValidationError(
                "a layout is needed: give --layout NAME, or --columns N --width W and other configuration flags.")
        }
        return .inline(try configuration.configuration())
    }
}

extension LayoutFlags: FastLaneFields {
    static func kind(of name: Substring) -> FastLaneOptionKind? {
        name == "layout" ? .value(unconditional: false) : ConfigurationFlags.kind(of: name)
    }

    mutating func set(_ name: Substring, _ value: String?) -> Bool {
        name == "layout" ? assign(value, to: &layout) : configuration.set(name, value)
    }
}
