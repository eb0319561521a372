#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a readers-writer lock: searches read the index at once, each on its own core,
/// where a `Mutex` made them queue (and, on Linux, sleep in the kernel) behind each other; a
/// change waits for the readers under way and has them all.
///
/// Writers come first (`PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP` on Linux): once a change
/// waits, no new reader starts, so a steady stream of searches cannot hold back the changes that
/// keep search fresh. Neither side may take the lock again inside its body.
final class ReadersWriterLock<Value>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    /// Reached only under the lock: read by readers (borrowed, never copied out whole), changed by
    /// one writer at a time with no reader.
    private var value: Value

    init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if canImport(Glibc)
            pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        let initialised = pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
        precondition(initialised == 0, "pthread_rwlock_init: \(initialised)")
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// `body` with the value, beside other readers.
    func withReadLock<Result>(_ body: (borrowing Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// `body` changing the value, alone.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
