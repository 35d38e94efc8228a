#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One object per thread, made on first use and released when the thread ends: the one mechanism behind the
/// package's per-thread caches (parsed headers, embedded keys, digest contexts, verified-token fronts). What a thread
/// keeps here no other thread reads or writes, so it needs no lock and shares no reference count.
package final class PerThread<Value: AnyObject>: @unchecked Sendable {
    private let key: pthread_key_t?
    private let make: @Sendable () -> Value

    /// Objects made by `make`, one per thread that asks.
    package init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let status = pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0).release() }
        #else
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        #endif
        self.key = status == 0 ? key : nil
        self.make = make
    }

    /// This thread's object; `nil` only when the system has no thread-specific storage to give (callers then do
    /// without their cache).
    package var current: Value? {
        guard let key else { return nil }
        if let stored = pthread_getspecific(key) { return Unmanaged<Value>.fromOpaque(stored).takeUnretainedValue() }
        let value = make()
        let retained = Unmanaged.passRetained(value)
        guard pthread_setspecific(key, retained.toOpaque()) == 0 else {
            retained.release()
            return nil
        }
        return value
    }
}
