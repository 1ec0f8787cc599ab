#if canImport(Glibc)
import Glibc
#endif
import VaultFuzzTargets

// libFuzzer's entry points. Which target runs is VAULT_FUZZ_TARGET (scripts/fuzz sets it): one
// binary for every parser links once under the sanitizers instead of once per target.

nonisolated(unsafe) var target: FuzzTargetEntry?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>>>) -> CInt {
    let name = getenv("VAULT_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let chosen = FuzzTargets.named(name) else {
        let names = FuzzTargets.all.map(\.name).joined(separator: " ")
        report("vault-fuzz: set VAULT_FUZZ_TARGET to one of: \(names)\n")
        exit(2)
    }
    target = chosen
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    guard let target else { return 0 }
    let input = size == 0 ? [] : Array(UnsafeRawBufferPointer(start: data, count: size))
    do {
        try target.run(input)
    } catch {
        report("vault-fuzz: \(target.name): \(error.description)\n")
        abort()
    }
    return 0
}

func report(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
