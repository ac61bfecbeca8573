import Foundation
import Hummingbird
import NIOCore
import Waterfall

/// A request body kept in a temporary file as it arrives, never whole in memory: what an
/// import reads with the same streaming decoder as a file on the command line. Bodies longer
/// than the limit are refused (413) as soon as they pass it.
struct SpooledBody: Sendable {
    /// The temporary file.
    let path: String

    /// Streams `body` into a new temporary file; the writes, a mebibyte at a time, run on the
    /// process's threads for blocking work (``BlockingThreads``), never on a cooperative thread.
    /// - Throws: ``Problem`` 413 past `limit` bytes, 500 when no temporary file can be written.
    init(_ body: RequestBody, limit: Int) async throws {
        let template =
            (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
            + "/waterfall-body-XXXXXX"
        var name = Array(template.utf8CString)
        let descriptor = mkstemp(&name)
        guard descriptor >= 0 else {
            throw Problem(
                .internalServerError,
                "cannot keep the request body: no temporary file can be created in \(template.dropLast(20)).")
        }
        path = String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let file = FileDescriptorBox(descriptor)
        defer { close(descriptor) }
        do {
            var pending = ByteBuffer()
            var total = 0
            for try await chunk in BodyChunks(body) {
                total += chunk.readableBytes
                guard total <= limit else { throw Problem.bodyTooLarge(limit) }
                var chunk = chunk
                pending.writeBuffer(&chunk)
                if pending.readableBytes >= 1 << 20 {
                    let bytes = pending
                    try await BlockingThreads.run { try file.write(bytes) }
                    pending.clear()
                }
            }
            // A read cancelled (the shutdown's grace over) may end like a body that ended: never
            // take what came for the whole.
            try Task.checkCancellation()
            if pending.readableBytes > 0 {
                let bytes = pending
                try await BlockingThreads.run { try file.write(bytes) }
            }
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Deletes the temporary file.
    func remove() {
        unlink(path)
    }
}

/// An open file descriptor that a thread-pool closure may write to.
private struct FileDescriptorBox: Sendable {
    let descriptor: Int32

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    func write(_ buffer: ByteBuffer) throws {
        try buffer.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    throw Problem(
                        .internalServerError, "cannot keep the request body: \(String(cString: strerror(errno))).")
                }
            }
        }
    }
}

/// A small request body (a reorder, a configuration) read whole.
enum RequestBodyBytes {
    /// - Throws: ``Problem`` 413 past `limit` bytes.
    static func collect(_ body: RequestBody, limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in BodyChunks(body) {
            guard bytes.count + chunk.readableBytes <= limit else { throw Problem.bodyTooLarge(limit) }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        try Task.checkCancellation()
        return bytes
    }
}

extension Problem {
    static func bodyTooLarge(_ limit: Int) -> Problem {
        Problem(
            .contentTooLarge,
            "the request body is larger than the server's limit of \(limit) bytes (waterfall serve --max-body).")
    }
}

/// A request body's chunks; a body that ends early (the client went away mid-upload) is a
/// problem of the request, not a failure of the server.
private struct BodyChunks: AsyncSequence {
    typealias Element = ByteBuffer
    let body: RequestBody

    init(_ body: RequestBody) {
        self.body = body
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator

        mutating func next() async throws -> ByteBuffer? {
            do {
                return try await base.next()
            } catch {
                throw Problem.badRequest("the request body ended before its end: \(error).")
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: body.makeAsyncIterator())
    }
}
