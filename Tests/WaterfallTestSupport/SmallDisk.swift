import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real full disk for tests: a tmpfs of a few megabytes mounted on a fresh folder, which a
/// test can fill to the last block (``fill()``) and free again (``free()``).
///
/// Mounting needs root (CAP_SYS_ADMIN): suites check ``canMount`` and are skipped elsewhere.
public struct SmallDisk: Sendable {
    /// A failure to set the disk up, with the system's reason.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether this process may mount a tmpfs (tried once, on a scratch folder).
    public static let canMount: Bool = {
        guard let folder = try? TemporaryDirectory(prefix: "waterfall-mount-probe") else { return false }
        defer { folder.remove() }
        guard mount("tmpfs", folder.url.path, "tmpfs", 0, "size=1m") == 0 else { return false }
        umount2(folder.url.path, Int32(MNT_DETACH))
        return true
    }()

    /// The mount point: a folder of `megabytes` MB.
    public let path: String
    /// The file ``fill()`` writes.
    private var filler: String { path + "/filler" }

    /// Mounts a tmpfs of `megabytes` MB at `folder`, which must exist and be empty.
    public init(megabytes: Int, at folder: String) throws {
        guard mount("tmpfs", folder, "tmpfs", 0, "size=\(megabytes)m") == 0 else {
            throw Failure(description: "mount \(folder): \(String(cString: strerror(errno)))")
        }
        path = folder
    }

    /// Writes a file until the disk has no block left.
    public func fill() throws {
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "open \(filler): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0xAB, count: 4096)
        while write(descriptor, block, block.count) > 0 {}
        // The last partial block, if any.
        while write(descriptor, block, 1) > 0 {}
    }

    /// Removes what ``fill()`` wrote.
    public func free() throws {
        try FileManager.default.removeItem(atPath: filler)
    }

    /// Unmounts the disk (lazily: files still open on it keep it until they close).
    public func unmount() {
        umount2(path, Int32(MNT_DETACH))
    }
}
