import ArgumentParser
import Waterfall

/// The help and completions of configuration flags, made from the configurations' field tables
/// (``LayoutParameter``, ``ConfigurationField``): a flag's declaration only names its field.
extension ArgumentHelp {
    /// The help of the layout flag of `key`: its sentence, then range, default (or required)
    /// and the kind it belongs to when only one has it.
    static func layoutField(_ key: String) -> ArgumentHelp {
        guard let parameter = LayoutParameter.all.first(where: { $0.key == key }) else {
            preconditionFailure("no layout configuration field \(key)")
        }
        var notes: [String] = []
        if let form = parameter.shape.textForm { notes.append(form) }
        if let range = parameter.range { notes.append(range.summary) }
        if let value = parameter.defaultValue { notes.append("default \(value.parameterText)") }
        notes += parameter.kindNotes()
        return ArgumentHelp(parameter.help.withNotes(notes), valueName: parameter.valueName)
    }

    /// The help of the flag of `field`.
    static func field<Root>(_ field: ConfigurationField<Root>) -> ArgumentHelp {
        var notes: [String] = []
        if let form = field.shape.textForm { notes.append(form) }
        if let range = field.range { notes.append(range.summary) }
        notes.append(field.defaultValue.map { "default \($0.parameterText)" } ?? "required")
        return ArgumentHelp(field.help.withNotes(notes), valueName: field.valueName)
    }
}

extension CompletionKind {
    /// The words a layout flag of `key` takes, when it is a choice.
    static func layoutField(_ key: String) -> CompletionKind? {
        guard case .choice(let words)? = LayoutParameter.all.first(where: { $0.key == key })?.shape else { return nil }
        return .list(words)
    }
}

extension ArgumentHelp {
    /// The help of the flag of one of the queries' own parameters (``QueryParameter``).
    static func query(_ parameter: QueryParameter, valueName: String? = nil) -> ArgumentHelp {
        var notes: [String] = []
        if let value = parameter.defaultValue, parameter.type != .boolean { notes.append("default \(value)") }
        return ArgumentHelp(parameter.help.withNotes(notes), valueName: valueName)
    }
}
