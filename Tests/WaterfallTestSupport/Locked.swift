import Foundation

/// A value shared by a test's threads and tasks, behind a lock; a class, so that closures
/// capture it by reference, as the `Mutex` of a local `let` cannot be.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLockedValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}
