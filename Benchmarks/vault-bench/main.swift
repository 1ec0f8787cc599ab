// Measures vaultd's request round trip as a client sees it: one connection, N sequential `get`s
// of a cached item (JSON encode, socket write, daemon decode/lookup/decrypt/encode, socket read,
// JSON decode). Prints the median, p90 and p99 in microseconds. Usage: vault-bench [N]
#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20_000 : 20_000
let vault = VaultConnection(autostart: false)
do {
    try vault.set(service: "vault-bench", account: "cached", secret: SecretBytes(utf8: "benchmark-secret-value"))
    for _ in 0..<1_000 { _ = try vault.get(service: "vault-bench", account: "cached") }  // warm up
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
        let start = Clock.monotonicSeconds()
        _ = try vault.get(service: "vault-bench", account: "cached")
        samples.append((Clock.monotonicSeconds() - start) * 1e6)
    }
    try vault.delete(service: "vault-bench", account: "cached")
    samples.sort()
    func percentile(_ p: Double) -> String {
        let value = samples[min(samples.count - 1, Int(Double(samples.count) * p))]
        return String(Int(value.rounded()))
    }
    print("cached get round trip over \(count) requests: median \(percentile(0.5)) µs, p90 \(percentile(0.9)) µs, p99 \(percentile(0.99)) µs")
} catch {
    print("vault-bench: \(error)")
    exit(1)
}
