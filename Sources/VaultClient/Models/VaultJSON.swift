internal import VaultProtocol

/// The documented JSON of the client's models (`vaultctl … --json`), written the way vaultd
/// writes responses: keys sorted, and an item's secret spliced into the one buffer returned,
/// which the caller wipes after writing it.
public enum VaultJSON {
    public static func line<T: Encodable>(_ value: T) -> [UInt8]? { MessageCodec.encodedLine(value) }
}
