// Waterfall's side of `Benchmarks/side-by-side.py`: one bulk layout of a ratios file, timed in
// process, the elapsed nanoseconds of the layout alone printed on stdout.
//
//     side-by-side write-ratios FILE [--count 10000000] [--seed 2024]
//     side-by-side justified FILE [--width 1000] [--row-height 235] [--spacing 2]
//                                 [--tolerance 0.15] [--scale 1] [--verify]
//     side-by-side waterfall FILE [--width 1000] [--columns 3] [--spacing 2] [--scale 1] [--verify]
//
// The ratios file: one record an image, two little-endian UInt32, width then height in pixels
// (a = width / height), nothing else. `write-ratios` writes the photo fixture of
// `Benchmarks/Benchmarks/LayoutBenchmarks/JustifiedBenchmarks.swift` (SplitMix64, seed 2024).
// Loading the file and allocating and touching the frame buffer are not timed. `--verify`
// then lays the same images out image by image (the reference path) and checks that every
// frame is the same, bit for bit (on stderr; exit status 1 if not). With the environment
// variable SIDE_BY_SIDE_CLOCK=thread it prints the thread's CPU time instead of wall-clock time.
import WaterfallLayout

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Command-line options: `--name value` pairs and bare flags.
struct Options {
    var values: [String: String] = [:]
    var flags: Set<String> = []

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments[...]
        while let name = rest.popFirst() {
            if name == "--verify" {
                flags.insert(name)
            } else if let value = rest.popFirst() {
                values[name] = value
            } else {
                fail("\(name) needs a value")
            }
        }
    }

    func double(_ name: String, _ fallback: Double) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text) else { fail("\(name) \(text) is not a number") }
        return value
    }

    func int(_ name: String, _ fallback: Int) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text) else { fail("\(name) \(text) is not a whole number") }
        return value
    }
}

func fail(_ message: String) -> Never {
    printError("side-by-side: \(message)")
    exit(2)
}

/// Writes a line to stderr (`stderr` itself is shared mutable state to Swift 6).
func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// The photo fixture of `JustifiedBenchmarks.swift`, size for size.
func photoFixture(count: Int, seed: UInt64) -> [LayoutItem] {
    let shapes: [(Int32, Int32)] = [
        (4000, 3000), (4000, 3000), (4000, 3000), (3000, 4000), (3000, 4000), (1920, 1080), (1920, 1080),
        (2000, 2000), (2000, 2000), (3000, 2000), (2000, 3000), (4032, 3024), (3024, 4032), (1080, 1920),
        (1280, 720), (1600, 1200),
    ]
    var state = seed
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    return (0..<count).map { _ in
        let random = next()
        if random % 64 == 0 {
            return LayoutItem(width: 3000 + Int32((random >> 8) % 5000), height: 1000)
        }
        let shape = shapes[Int((random >> 8) % UInt64(shapes.count))]
        return LayoutItem(width: shape.0 + Int32((random >> 16) % 32), height: shape.1)
    }
}

func writeRatios(_ path: String, _ items: [LayoutItem]) {
    var bytes = [UInt8]()
    bytes.reserveCapacity(items.count * 8)
    for item in items {
        withUnsafeBytes(of: UInt32(item.width).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(item.height).littleEndian) { bytes.append(contentsOf: $0) }
    }
    guard let file = fopen(path, "wb") else { fail("cannot write \(path)") }
    defer { fclose(file) }
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { fail("cannot write \(path)") }
}

func readRatios(_ path: String) -> [LayoutItem] {
    guard let file = fopen(path, "rb") else { fail("cannot read \(path)") }
    defer { fclose(file) }
    fseek(file, 0, SEEK_END)
    let size = ftell(file)
    fseek(file, 0, SEEK_SET)
    guard size >= 0, size % 8 == 0 else { fail("\(path) is not a ratios file (size \(size) is not a multiple of 8)") }
    var words = [UInt32](repeating: 0, count: size / 4)
    guard fread(&words, 1, size, file) == size else { fail("cannot read \(path)") }
    return (0..<(size / 8)).map { index in
        LayoutItem(
            width: Int32(UInt32(littleEndian: words[2 * index])),
            height: Int32(UInt32(littleEndian: words[2 * index + 1])))
    }
}

/// A frame buffer with every page touched, so that page faults are not timed.
func touchedFrames(_ count: Int) -> UnsafeMutableBufferPointer<Frame> {
    let frames = UnsafeMutableBufferPointer<Frame>.allocate(capacity: count)
    frames.initialize(repeating: Frame(x: 0, y: 0, width: 0, height: 0))
    return frames
}

/// The nanoseconds `body` takes: wall-clock time, or this thread's CPU time when the
/// environment has `SIDE_BY_SIDE_CLOCK=thread` (for a busy machine; the peer reads it too).
func timed(_ body: () -> Void) -> Int64 {
    let clock =
        getenv("SIDE_BY_SIDE_CLOCK").map { String(cString: $0) } == "thread" ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC
    var start = timespec()
    var end = timespec()
    clock_gettime(clock, &start)
    body()
    clock_gettime(clock, &end)
    return (Int64(end.tv_sec) - Int64(start.tv_sec)) * 1_000_000_000 + Int64(end.tv_nsec) - Int64(start.tv_nsec)
}

/// Reports the first frame that differs from the reference, or that all agree.
func verify(_ frames: UnsafeMutableBufferPointer<Frame>, _ reference: [Frame]) {
    for index in reference.indices where !same(frames[index], reference[index]) {
        printError("side-by-side: frame \(index) is \(frames[index]), the reference path's \(reference[index])")
        exit(1)
    }
    printError("side-by-side: all \(reference.count) frames are the reference path's, bit for bit")
}

func same(_ a: Frame, _ b: Frame) -> Bool {
    a.x.bitPattern == b.x.bitPattern && a.y.bitPattern == b.y.bitPattern
        && a.width.bitPattern == b.width.bitPattern && a.height.bitPattern == b.height.bitPattern
}

func justified(_ items: [LayoutItem], _ options: Options) {
    let configuration = JustifiedConfiguration(
        width: options.double("--width", 1_000), rowHeight: options.double("--row-height", 235),
        rowHeightTolerance: options.double("--tolerance", 0.15),
        columnSpacing: options.double("--spacing", 2), rowSpacing: options.double("--spacing", 2),
        sectionInset: .zero, scale: options.int("--scale", 1))
    let layout: JustifiedLayout
    do { layout = try JustifiedLayout(configuration) } catch { fail("\(error)") }
    let frames = touchedFrames(items.count)
    var state = layout.initialState
    _ = layout.openSection(&state)
    let elapsed = items.withUnsafeBufferPointer { items in
        timed {
            layout.append(contentsOf: items, into: frames, &state)
            _ = layout.closeSection(&state) { position, frame in frames[position] = frame }
        }
    }
    print(elapsed)
    guard options.flags.contains("--verify") else { return }
    var reference = [Frame](repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: items.count)
    var streaming = layout.initialState
    _ = layout.openSection(&streaming)
    for item in items {
        layout.append(item, &streaming) { position, frame in reference[position] = frame }
    }
    _ = layout.closeSection(&streaming) { position, frame in reference[position] = frame }
    verify(frames, reference)
}

func waterfall(_ items: [LayoutItem], _ options: Options) {
    let configuration = LayoutConfiguration(
        columns: options.int("--columns", 3), width: options.double("--width", 1_000),
        columnSpacing: options.double("--spacing", 2), rowSpacing: options.double("--spacing", 2),
        sectionInset: .zero, scale: options.int("--scale", 1))
    let layout: WaterfallLayout
    do { layout = try WaterfallLayout(configuration) } catch { fail("\(error)") }
    let frames = touchedFrames(items.count)
    var state = layout.initialState
    _ = layout.openSection(&state)
    let elapsed = items.withUnsafeBufferPointer { items in
        timed { layout.place(items, into: frames, &state) }
    }
    print(elapsed)
    guard options.flags.contains("--verify") else { return }
    var streaming = layout.initialState
    _ = layout.openSection(&streaming)
    verify(frames, items.map { layout.place($0, &streaming) })
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fail("usage: side-by-side write-ratios|justified|waterfall FILE [options] (see main.swift)")
}
let options = Options(arguments.dropFirst(3))
switch arguments[1] {
case "write-ratios":
    writeRatios(
        arguments[2], photoFixture(count: options.int("--count", 10_000_000), seed: UInt64(options.int("--seed", 2024)))
    )
case "justified": justified(readRatios(arguments[2]), options)
case "waterfall": waterfall(readRatios(arguments[2]), options)
default: fail("unknown mode \(arguments[1]): write-ratios, justified or waterfall")
}
