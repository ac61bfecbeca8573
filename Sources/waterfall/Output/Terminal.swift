import Foundation

/// Where the command line writes: results on standard output, errors and progress on
/// standard error. The only module that prints.
enum Terminal {
    /// Writes `text` and a newline to standard output.
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` (no newline added) to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Prints `message` as one line on standard error and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        // One line, whatever the message quotes (a path or an id with a line break in it).
        let line = String(message.unicodeScalars.map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }.joined())
        error("waterfall: error: \(line)\n")
        exit(status)
    }

    /// Whether standard error is a terminal (progress lines are shown only then).
    static var standardErrorIsTerminal: Bool {
        isatty(STDERR_FILENO) != 0
    }

    /// Encodes `value` as the stable machine format: compact JSON, keys in a fixed order, one
    /// document per line.
    static func printJSON(_ value: some Encodable) {
        do {
            print(try OrderedJSONEncoder().encode(value))
        } catch {
            fail("cannot encode the output as JSON: \(error).", status: 1)
        }
    }
}
