import Testing
@testable import VaultSystem

@Suite struct SystemRandomTests {
    @Test func zeroBytesIsEmpty() throws {
        #expect(try SystemRandom.bytes(0).isEmpty)
        try SystemRandom.fill(UnsafeMutableRawBufferPointer(start: nil, count: 0))
    }

    /// Kernels before 5.18 return at most 32 MiB - 1 bytes per getrandom call (and any may stop
    /// early for a signal past 256 bytes): a request larger than that is filled to its last byte.
    /// (On this machine's kernel one call returns all 33 MiB, so here it checks only the result.)
    @Test func fillsBuffersLargerThanOneCallReturns() throws {
        let count = 33 * 1024 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        try SystemRandom.fill(buffer)
        // 4 KiB of zeros at the end would be a chance of 2^-32768.
        #expect(!buffer[(count - 4096)...].allSatisfy { $0 == 0 })
    }

    @Test func successiveCallsDiffer() throws {
        let a = try SystemRandom.bytes(16)
        let b = try SystemRandom.bytes(16)
        #expect(a.count == 16 && b.count == 16)
        #expect(a != b)
    }
}
