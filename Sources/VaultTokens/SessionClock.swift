#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// The wall clock session decisions are made by (is a token expired, due for refresh, just
/// refreshed), in Unix seconds. In debug builds only, which the tests run,
/// `VAULT_TEST_CLOCK_OFFSET_FILE` names a file holding seconds to add to it, read at each call:
/// a test moves vaultd's time past a token's expiry instead of sleeping until it. A release build
/// has no such hook.
public enum SessionClock {
    public static func now() -> Double {
        Double(Clock.nowMicroseconds()) / 1_000_000 + testOffset()
    }

    #if DEBUG
    private static let offsetFile = ProcessEnvironment.current["VAULT_TEST_CLOCK_OFFSET_FILE"]

    private static func testOffset() -> Double {
        guard let offsetFile, let text = FileSystem.kernelText(offsetFile, limit: 64) else { return 0 }
        return Double(text.trimming(String.asciiWhitespace)) ?? 0
    }
    #else
    @inline(__always) private static func testOffset() -> Double { 0 }
    #endif
}
