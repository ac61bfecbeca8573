import ArgumentParser
import Foundation
import Logging

/// How `serve` writes its log lines (`--log-format`).
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    /// `2026-11-25T12:00:00.123Z notice GET /v1/feeds/{feed} 404 request_id=… method=GET …`
    case text
    /// One JSON object a line: `{"time", "level", "message", then the metadata}`.
    case json
}

// swift-format-ignore: AvoidRetroactiveConformances
// `--log-level` takes swift-log's own levels by their names; neither package declares this.
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// A swift-log handler that writes each entry as one line on standard error, as text or JSON.
/// Entries are whole lines written at once, so lines from different requests never mix.
struct LogLineHandler: LogHandler {
    let label: String
    let format: LogFormat
    var logLevel: Logger.Level = .notice
    var metadata: Logger.Metadata = [:]

    /// The metadata written first, in this order, when present; the rest follow by name.
    static let leading = ["request_id", "method", "route", "status", "bytes", "duration_ms", "key"]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let more = event.metadata { fields.merge(more) { $1 } }
        let names =
            Self.leading.filter { fields[$0] != nil } + fields.keys.filter { !Self.leading.contains($0) }.sorted()
        let time = Self.timestamp()
        var line: String
        switch format {
        case .text:
            line = "\(time) \(event.level) \(Self.oneLine(event.message.description))"
            for name in names { line += " \(name)=\(Self.textValue(fields[name]!.description))" }
        case .json:
            line =
                "{\"time\":\(Self.jsonString(time)),\"level\":\(Self.jsonString(event.level.rawValue)),\"message\":\(Self.jsonString(event.message.description))"
            for name in names { line += ",\(Self.jsonString(name)):\(Self.jsonValue(fields[name]!))" }
            line += "}"
        }
        Terminal.error(line + "\n")
    }

    /// Now, as ISO 8601 in UTC to the millisecond.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(now.tv_nsec) / 1_000_000
        let fraction = String(repeating: "0", count: 3 - String(milliseconds).count) + String(milliseconds)
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    /// A value as text: bare when it is one word of visible characters, else quoted with its
    /// quotes, backslashes and control characters escaped (one line, whatever a key's name holds).
    static func textValue(_ text: String) -> String {
        let bare =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "\\" && $0 != "="
            }
        return bare ? text : jsonString(text)
    }

    /// `text` with its control characters escaped, so that it stays on its line.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        return String(jsonString(text).dropFirst().dropLast())
    }

    /// A JSON string literal of `text`.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A metadata value as JSON: numbers as numbers, lists and dictionaries as such, the rest as strings.
    static func jsonValue(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return jsonString(text)
        case .stringConvertible(let convertible):
            if let number = convertible as? Int { return String(number) }
            if let number = convertible as? Double, number.isFinite { return String(number) }
            return jsonString(convertible.description)
        case .array(let values): return "[" + values.map(jsonValue).joined(separator: ",") + "]"
        case .dictionary(let fields):
            return "{"
                + fields.sorted { $0.key < $1.key }.map { "\(jsonString($0.key)):\(jsonValue($0.value))" }.joined(
                    separator: ",") + "}"
        }
    }
}
