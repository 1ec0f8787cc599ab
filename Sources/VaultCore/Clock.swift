#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time in the units the item model stores.
public enum Clock {
    /// Milliseconds since the Unix epoch (UTC).
    public static func nowMilliseconds() -> Int64 { nowMicroseconds() / 1000 }

    /// Microseconds since the Unix epoch (UTC): audit records' times.
    public static func nowMicroseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }

    /// Monotonic seconds, for timeouts.
    public static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
