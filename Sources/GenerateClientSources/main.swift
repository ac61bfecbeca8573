import Foundation

// Build-time tool of the GenerateClient plugin: runs swift-openapi-generator on an OpenAPI
// document and writes the files it generates with plain `import`s where it wrote `public import`.
//
//     GenerateClientSources GENERATOR DOCUMENT CONFIGURATION OUTPUT-FOLDER FILE…
//
// Why: swift-openapi-generator 1.14.3 with `accessModifier: public` writes the same access-level
// imports (`public import struct Foundation.URL`, …) into each of its files and silences the
// compiler's "public import of 'Foundation' was not used in public declarations" only from Swift
// 6.4 on (`#if compiler(>=6.4) @diagnose(UnusedImportAccess, as: ignored)`). On Swift 6.3 every
// file that does not use all of them warns, and the build must show no warning. Without
// InternalImportsByDefault a plain `import` is visible to clients anyway, so the generated API
// stays public and otherwise byte for byte what the generator wrote.

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 5 else {
    FileHandle.standardError.write(
        Data("usage: GenerateClientSources GENERATOR DOCUMENT CONFIGURATION OUTPUT-FOLDER FILE…\n".utf8))
    exit(64)
}
let (generator, document, configuration) = (arguments[0], arguments[1], arguments[2])
let output = URL(fileURLWithPath: arguments[3])
let files = arguments[4...]
let scratch = output.deletingLastPathComponent().appending(path: "GeneratorOutput")

// The generator's report of its configuration and files stays out of the build log; its
// diagnostics go through. A warning fails the build: the document must be one the generator
// takes whole, with no schema skipped (DESIGN section 13), and a warning is how it says one is.
let process = Process()
process.executableURL = URL(fileURLWithPath: generator)
process.arguments = [
    "generate", document, "--config", configuration, "--output-directory", scratch.path, "--plugin-source", "build",
]
let report = Pipe()
process.standardOutput = FileHandle.nullDevice
process.standardError = report
try process.run()
// (The report's last line has no line feed: a first diagnostic may follow on the same line.)
let diagnostics = String(decoding: report.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    .split(separator: "\n")
    .compactMap { line -> Substring? in
        guard let start = ["warning:", "error:", "Error:"].compactMap({ line.range(of: $0)?.lowerBound }).min() else {
            return nil
        }
        return line[start...]
    }
process.waitUntilExit()
for line in diagnostics { FileHandle.standardError.write(Data((line + "\n").utf8)) }
guard process.terminationStatus == 0 else { exit(process.terminationStatus) }
if diagnostics.contains(where: { $0.hasPrefix("warning:") }) {
    FileHandle.standardError.write(
        Data("error: \(document) must pass swift-openapi-generator with no warning (DESIGN section 13).\n".utf8))
    exit(1)
}

/// The generated text with plain imports, and without the Swift 6.4 silencing of their access.
func plainImports(_ text: String) -> String {
    var lines: [Substring] = []
    let all = text.split(separator: "\n", omittingEmptySubsequences: false)
    var index = all.startIndex
    while index < all.endIndex {
        let line = all[index]
        if line == "#if compiler(>=6.4)", index + 2 < all.endIndex,
            all[index + 1] == "@diagnose(UnusedImportAccess, as: ignored)", all[index + 2] == "#endif"
        {
            index += 3
            continue
        }
        if line.hasPrefix("public import ") {
            lines.append(line.dropFirst("public ".count))
        } else if line.hasPrefix("@_spi(Generated) public import ") {
            lines.append("@_spi(Generated) " + line.dropFirst("@_spi(Generated) public ".count))
        } else {
            lines.append(line)
        }
        index += 1
    }
    return lines.joined(separator: "\n")
}

try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
for file in files {
    let text = plainImports(try String(contentsOf: scratch.appending(path: file), encoding: .utf8))
    let destination = output.appending(path: file)
    // Unchanged files keep their date, so that the client is not compiled again for nothing.
    if (try? String(contentsOf: destination, encoding: .utf8)) != text {
        try text.write(to: destination, atomically: true, encoding: .utf8)
    }
}
