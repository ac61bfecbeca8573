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
        // POSIX calls rather than FileManager: its attributes look up the owner's user and group
        // names (NSS, /etc/passwd), which cost a read command more than its whole query.
        var status = stat()
        guard stat(path, &status) == 0 else {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var folderStatus = stat()
            if stat(folder, &folderStatus) != 0 || folderStatus.st_mode & S_IFMT != S_IFDIR {
                throw StoreError(
                    .cannotCreate, "\(path): cannot create the database: the folder \(folder) does not exist.")
            }
            if access(folder, W_OK) != 0 {
                throw StoreError(
                    .cannotCreate, "\(path): cannot create the database: the folder \(folder) is not writable.")
            }
            return true
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            throw StoreError(.cannotOpen, "\(path) is a directory, not a database file; it was left untouched.")
        }
        // A FIFO, socket or device would block or misbehave on open, and SQLite does not follow
        // symbolic links: only regular files are read.
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(
                .cannotOpen, "\(path) is not a regular file, so not a database file; it was left untouched.")
        }
        // Closing this descriptor drops every POSIX lock this process holds on the file, SQLite's
        // included: a process reads the header before it opens the file with SQLite, never while
        // a connection of its own has it open (a server opens its database once, at start).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreError(.cannotOpen, "\(path): cannot be read (permission denied?); it was left untouched.")
        }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 100)
        var count = 0
        while count < header.count {
            let read = header.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + count, buffer.count - count, off_t(count))
            }
            if read > 0 {
                count += read
            } else if read < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        header.removeSubrange(count...)
        if header.isEmpty { return true }  // an empty file is a new database
        let magic = Array("SQLite format 3\u{0}".utf8)
        guard header.count == 100, Array(header[0..<16]) == magic else {
            throw StoreError(
                .cannotOpen, "\(path) is not a SQLite database, so not a Waterfall database; it was left untouched.")
        }
        func bigEndian(_ offset: Int) -> UInt32 {
            header[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let applicationID = Int32(bitPattern: bigEndian(68))
        let schemaCookie = bigEndian(40)
        if applicationID == SQLiteCatalog.applicationID { return false }
        if applicationID == 0 && schemaCookie == 0 { return true }  // SQLite file with no schema yet
        throw StoreError(
            .cannotOpen,
            "\(path) is a SQLite database of another application, not a Waterfall database; it was left untouched.")
    }
}
