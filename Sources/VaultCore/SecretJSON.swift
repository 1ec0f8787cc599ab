#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The stored records' one encoding: JSON with sorted keys, straight into `SecretBytes`, the
/// intermediate copy wiped.
extension Encodable {
    public func secretJSON() throws -> SecretBytes {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var data = try encoder.encode(self)
        defer { data.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        return SecretBytes(data)
    }
}
