import Foundation
import WaterfallStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `backup --json`: where a backup was copied from and to, its size, and each feed of the copy
/// with its counts and the revision the copy holds it at.
public struct BackupReport: Hashable, Sendable {
    /// The catalog copied, as the user named it.
    public var from: String
    /// The file written.
    public var to: String
    /// The copy's size, in bytes.
    public var bytes: Int64
    /// The feeds the copy holds, by name, each at the revision copied.
    public var feeds: [FeedList.Feed]
}

extension WaterfallService {
    /// Copies the catalog, consistently, into the SQLite file at `target` while other
    /// connections and processes go on reading and writing it (DESIGN section 18).
    ///
    /// The copy is one snapshot: it answers every read as the catalog did at the revisions
    /// the report gives. It is written to a temporary file in the target's folder and moved
    /// into place only when complete, so an interrupted backup never leaves a half-written
    /// `target` (at most a hidden `.NAME.…partial` file beside it). An existing `target` is
    /// refused unless `replacing`; when replacing, a `-wal` or `-shm` file an earlier use of
    /// the old target left beside it is removed first (it would be read as the new copy's).
    /// - Throws: ``WaterfallError/backupTargetExists(_:)``; `invalidValue(.backupTarget, …)`
    ///   for the catalog itself or a folder; ``WaterfallError/backupNeedsPgDump(location:schema:)``
    ///   for a PostgreSQL catalog; `cannotCreate`, `diskFull` or `database` when the copy
    ///   cannot be written.
    public func backup(to target: String, replacing: Bool) async throws(WaterfallError) -> BackupReport {
        guard let copying = database as? any CatalogFileCopying else {
            if let postgres = database as? PostgresCatalog {
                let schema = try await perform { try await postgres.schemaName() }
                throw .backupNeedsPgDump(location: postgres.location ?? "the catalog", schema: schema)
            }
            throw .other("this catalog's engine cannot be backed up to a file.")
        }
        let files = FileManager.default
        let targetURL = URL(fileURLWithPath: target).standardizedFileURL
        if let source = database.location, Self.sameFile(source, target) {
            throw .invalidValue(.backupTarget, "names the catalog itself (\(target)); give the path of a new file.")
        }
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: target, isDirectory: &isFolder) {
            if isFolder.boolValue {
                throw .invalidValue(.backupTarget, "names a folder (\(target)); give the path of a file to write.")
            }
            if !replacing { throw .backupTargetExists(target) }
        }
        let folder = targetURL.deletingLastPathComponent()
        guard files.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .cannotCreate("\(target): cannot be created: there is no folder \(folder.path).")
        }
        let temporary = folder.appending(path: ".\(targetURL.lastPathComponent).\(UUID().uuidString).partial").path
        defer {
            // Gone once moved into place; what a failed copy left otherwise.
            for file in [temporary, temporary + "-journal"] { try? files.removeItem(atPath: file) }
        }
        let feeds = try await perform {
            try await copying.copy(to: temporary, shownAs: target) { tx in
                try tx.feedSummaries().map {
                    FeedList.Feed(
                        name: $0.name, images: $0.images, sections: $0.sections, revision: $0.revision,
                        incarnation: $0.id, layouts: $0.layouts)
                }
            }
        }
        try Self.place(temporary, at: targetURL.path, replacing: replacing, shownAs: target)
        let bytes = (try? files.attributesOfItem(atPath: targetURL.path)[.size] as? NSNumber)?.int64Value ?? 0
        return BackupReport(from: database.location ?? "the catalog", to: target, bytes: bytes, feeds: feeds)
    }

    /// Moves the finished copy at `temporary` to `target`: a rename over it when `replacing`,
    /// else a hard link that fails if `target` appeared meanwhile (then nothing is replaced).
    private static func place(_ temporary: String, at target: String, replacing: Bool, shownAs name: String)
        throws(WaterfallError)
    {
        if replacing {
            for stale in [target + "-wal", target + "-shm"] where FileManager.default.fileExists(atPath: stale) {
                guard unlink(stale) == 0 else {
                    throw .cannotCreate("\(stale): cannot be removed: \(String(cString: strerror(errno))).")
                }
            }
            guard rename(temporary, target) == 0 else {
                throw .cannotCreate("\(name): cannot be replaced: \(String(cString: strerror(errno))).")
            }
        } else {
            guard link(temporary, target) == 0 else {
                if errno == EEXIST { throw .backupTargetExists(name) }
                throw .cannotCreate("\(name): cannot be created: \(String(cString: strerror(errno))).")
            }
            unlink(temporary)
        }
        // The rename or link is durable once the folder is.
        syncFolder(of: target)
    }

    /// Whether the paths `first` and `second` name one existing file (a link or another
    /// spelling of the same path included).
    private static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}

/// Flushes the folder holding `path` to disk (best effort), so that a rename or link into it
/// survives a power cut.
private func syncFolder(of path: String) {
    let folder = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY)
    guard folder >= 0 else { return }
    fsync(folder)
    close(folder)
}
