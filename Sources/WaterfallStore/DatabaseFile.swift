import Foundation

/// Checks a path before SQLite touches it, so that foreign files are refused unmodified.
enum DatabaseFile {
    /// Throws unless `path` is absent (and creatable), empty, or a Waterfall database.
    ///
    /// Reads only the 100-byte SQLite header: the magic string, `application_id` (offset 68)
    /// and the schema cookie (offset 40), which is 0 in a database that never had a table.
    @discardableResult
    static func inspect(_ path: String) throws(StoreError) -> Bool {
        if path.isEmpty {
            throw StoreError(.cannotCreate, "the database path is empty; give --db a file path.")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var folderIsDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: folder, isDirectory: &folderIsDirectory) || !folderIsDirectory.boolValue {
                throw StoreError(.cannotCreate, "\(path): cannot create the database: the folder \(folder) does not exist.")
            }
            if !FileManager.default.isWritableFile(atPath: folder) {
                throw StoreError(.cannotCreate, "\(path): cannot create the database: the folder \(folder) is not writable.")
            }
            return true
        }
        if isDirectory.boolValue {
            throw StoreError(.cannotOpen, "\(path) is a directory, not a database file; it was left untouched.")
        }
        // A FIFO, socket or device would block or misbehave on open: only regular files are read.
        let type = (try? FileManager.default.attributesOfItem(atPath: path)[.type]) as? FileAttributeType
        if type != .typeRegular {
            throw StoreError(.cannotOpen, "\(path) is not a regular file, so not a database file; it was left untouched.")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError(.cannotOpen, "\(path): cannot be read (permission denied?); it was left untouched.")
        }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        if header.isEmpty { return true }  // an empty file is a new database
        let magic = Array("SQLite format 3\u{0}".utf8)
        guard header.count == 100, Array(header[0..<16]) == magic else {
            throw StoreError(.cannotOpen, "\(path) is not a SQLite database, so not a Waterfall database; it was left untouched.")
        }
        func bigEndian(_ offset: Int) -> UInt32 {
            header[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let applicationID = Int32(bitPattern: bigEndian(68))
        let schemaCookie = bigEndian(40)
        if applicationID == CatalogDatabase.applicationID { return false }
        if applicationID == 0 && schemaCookie == 0 { return true }  // SQLite file with no schema yet
        throw StoreError(.cannotOpen, "\(path) is a SQLite database of another application, not a Waterfall database; it was left untouched.")
    }
}
