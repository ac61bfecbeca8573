#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file (or standard input) read in fixed-size chunks into one reusable buffer.
///
/// The buffer is the only copy of the file's bytes in memory, so a 100 MB feed costs one chunk
/// (1 MiB) of memory here, whatever its size.
final class FileReader {
    /// The bytes of one chunk plus room kept at the front for a few bytes carried over.
    let buffer: UnsafeMutablePointer<UInt8>
    /// The buffer's size in bytes: one chunk plus room for the few bytes a refill keeps.
    let capacity: Int
    /// How many bytes one read asks for.
    private let chunkSize: Int
    /// The file's size when it is a regular file (used to size the result up front).
    let knownSize: Int?
    /// How many bytes have been read so far.
    private(set) var bytesRead = 0

    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let name: String
    private let maximumBytes: Int
    private let progress: (@Sendable (_ bytesRead: Int, _ totalBytes: Int?) -> Void)?
    private var nextProgressReport: Int
    /// Set once a read returns nothing: a terminal on standard input must not be asked again.
    private var reachedEnd = false
    private static let progressInterval = 4 << 20

    /// Opens `path` (`-` is standard input), or throws a `fileUnreadable` error naming it.
    init(
        path: String, name: String, maximumBytes: Int, chunkSize: Int = 1 << 20,
        progress: (@Sendable (_ bytesRead: Int, _ totalBytes: Int?) -> Void)?
    ) throws(SyncError) {
        if path == "-" {
            descriptor = 0
            closesDescriptor = false
        } else {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 { throw FileReader.unreadable(name, errno) }
            descriptor = fd
            closesDescriptor = true
        }
        var status = stat()
        if fstat(descriptor, &status) != 0 {
            let code = errno
            if closesDescriptor { close(descriptor) }
            throw FileReader.unreadable(name, code)
        }
        let type = status.st_mode & S_IFMT
        if type == S_IFDIR {
            if closesDescriptor { close(descriptor) }
            throw FileReader.unreadable(name, EISDIR)
        }
        knownSize = type == S_IFREG ? Int(status.st_size) : nil
        if let size = knownSize {
            do {
                try FileReader.checkSize(size, maximumBytes: maximumBytes, name: name)
            } catch {
                if closesDescriptor { close(descriptor) }
                throw error
            }
        }
        self.name = name
        self.maximumBytes = maximumBytes
        self.progress = progress
        nextProgressReport = FileReader.progressInterval
        self.chunkSize = chunkSize
        capacity = chunkSize + 16
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    /// How messages name the file at `path`: `standard input` for `-`.
    static func displayName(of path: String) -> String {
        path == "-" ? "standard input" : Display.fileName(path)
    }

    /// Refuses a file of `size` bytes when that is more than `maximumBytes`, naming it `name`
    /// (for files on disk and already in memory alike).
    static func checkSize(_ size: Int, maximumBytes: Int, name: String) throws(SyncError) {
        guard size <= maximumBytes else {
            throw SyncError(
                kind: .invalidData,
                message: "\(name): expected a file of at most \(maximumBytes) bytes, found \(size) bytes.")
        }
    }

    deinit {
        buffer.deallocate()
        if closesDescriptor { close(descriptor) }
    }

    /// Fills `buffer[offset...]` (`offset` is at most 16) with the next bytes of the file, returning how many arrived;
    /// 0 means end of file (and reports final progress).
    func read(into offset: Int) throws(SyncError) -> Int {
        if reachedEnd { return 0 }
        while true {
            let count = systemRead(descriptor, buffer + offset, min(chunkSize, capacity - offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw FileReader.unreadable(name, errno)
            }
            bytesRead += count
            if count == 0 { reachedEnd = true }
            if bytesRead > maximumBytes {
                throw SyncError(
                    kind: .invalidData,
                    message: "\(name): expected a file of at most \(maximumBytes) bytes, found more.")
            }
            if let progress {
                if count == 0 {
                    progress(bytesRead, knownSize)
                } else if bytesRead >= nextProgressReport {
                    progress(bytesRead, knownSize)
                    nextProgressReport = (bytesRead / FileReader.progressInterval + 1) * FileReader.progressInterval
                }
            }
            return count
        }
    }

    private static func unreadable(_ name: String, _ code: Int32) -> SyncError {
        SyncError(kind: .fileUnreadable, message: "\(name): cannot be read: \(String(cString: strerror(code))).")
    }
}

/// The POSIX `read`, under a name that does not clash with `FileReader.read(into:)`.
@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(fd, buffer, count)
}
