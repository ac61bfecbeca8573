import Foundation

/// A fresh, uniquely named directory under the system's temporary folder, removed on `remove()`.
///
/// Tests that need real files (WAL databases, feeds on disk, spawned processes) make one each.
public struct TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let url: URL

    /// Creates the directory; throws when the file system refuses.
    public init(prefix: String = "waterfall-test") throws {
        url = FileManager.default.temporaryDirectory
            .appending(path: "\(prefix)-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String {
        url.appending(path: name).path
    }

    /// Writes `text` to `name` inside the directory and returns the file's path.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> String {
        let path = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
