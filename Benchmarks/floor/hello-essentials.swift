// Swift's own start-up, the floor for `vaultctl --version` (scripts/bench): a static executable
// (swiftc -O -static-stdlib) that imports FoundationEssentials, as vaultctl's modules do, makes
// one Data and prints one line.
import FoundationEssentials

let line = Data("vault floor\n".utf8)
print(String(decoding: line, as: UTF8.self), terminator: "")
