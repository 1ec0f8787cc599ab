/// What a space refuses from the engine: never applied, always reported (`vaultctl space
/// status`, the log), each a sentence naming the entry and never a secret.
public enum SpaceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An entry that does not open with the space's key at its name and generation: altered,
    /// moved from another name, or from another space.
    case tampered(String)
    /// An entry older than one this device already saw: the engine rolled it back or replays it.
    case rolledBack(String)
    /// An entry this format does not know (a newer vault, or not a space).
    case unknownFormat(String)
    /// A generation of the key this device does not hold (it was removed, or not yet given it).
    case missingKey(Int)
    /// A record for an item that has access rules on this device: such an item is never written
    /// from a space, so its rules cannot be walked around through another device.
    case guardedHere(String)

    public var description: String {
        switch self {
        case .tampered(let what): "refused a tampered entry: \(what)"
        case .rolledBack(let what): "refused an entry rolled back: \(what)"
        case .unknownFormat(let what): "refused an entry of an unknown format: \(what)"
        case .missingKey(let generation): "this device holds no key of generation \(generation)"
        case .guardedHere(let what): "not applied: \(what) has access rules on this device, and such an item is never written from a space"
        }
    }
}
