// Swift's own start-up, the floor for `vaultctl --version` (scripts/bench): a program that
// imports FoundationEssentials, as vaultctl's modules do, makes one Data and prints one line;
// built as a static executable (swiftc -O -static-executable, as vaultctl is) and with only the
// Swift libraries static (-static-stdlib).
import FoundationEssentials

let line = Data("vault floor\n".utf8)
print(String(decoding: line, as: UTF8.self), terminator: "")
