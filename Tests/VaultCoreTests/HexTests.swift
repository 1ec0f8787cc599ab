import Foundation
import Testing
import VaultCore

@Suite struct HexTests {
    @Test func everyByteIsTwoLowercaseDigits() {
        #expect([UInt8]().lowercaseHex == "")
        #expect([0x00, 0x0F, 0xA0, 0xFF].lowercaseHex == "000fa0ff")
        #expect((0...255).map(UInt8.init).lowercaseHex == (0...255).map { String(format: "%02x", $0) }.joined())
        #expect("é".utf8.lowercaseHex == "c3a9")
    }
}
