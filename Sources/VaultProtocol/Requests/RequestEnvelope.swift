/// Only the id, decoded leniently so that even a malformed request gets its id echoed back.
public struct RequestEnvelope: Decodable, Sendable {
    public var id: RequestID?
}
