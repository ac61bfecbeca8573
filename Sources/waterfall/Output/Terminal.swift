import Foundation
import WaterfallJSON

/// Where the command line writes: results on standard output, errors and progress on
/// standard error. The only module that prints.
enum Terminal {
    /// Writes `text` and `terminator` (a newline unless told) to standard output.
    static func print(_ text: String, terminator: String = "\n") {
        write(text + terminator, to: STDOUT_FILENO)
    }

    /// Writes `text` (no newline added) to standard error.
    static func error(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Writes all of `text` to `descriptor` with `write(2)` (`FileHandle` starts a dispatch
    /// thread on first use, a cost every short command would pay). An error (a closed pipe)
    /// drops the rest.
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Prints `message` as one line on standard error and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        // One line, whatever the message quotes (a path or an id with a line break in it).
        let line = String(
            message.unicodeScalars.map { scalar -> String in
                scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
            }.joined())
        error("waterfall: error: \(line)\n")
        exit(status)
    }

    /// Whether standard error is a terminal (progress lines are shown only then).
    static var standardErrorIsTerminal: Bool {
        isatty(STDERR_FILENO) != 0
    }

    /// Prints `value` in the stable machine format (``StableJSON``): one document per line.
    static func printJSON(_ value: some Encodable) {
        printJSON { try StableJSON.document(of: value) }
    }

    /// The same for an answer that writes its own JSON.
    static func printJSON(_ value: some JSONWritable) {
        printJSON { try StableJSON.document(of: value) }
    }

    private static func printJSON(_ encode: () throws -> [UInt8]) {
        do {
            write(String(decoding: try encode(), as: UTF8.self), to: STDOUT_FILENO)
        } catch {
            fail("cannot encode the output as JSON: \(error).", status: 1)
        }
    }
}
