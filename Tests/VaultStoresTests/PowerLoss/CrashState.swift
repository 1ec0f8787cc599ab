/// One state a power loss may leave a directory in (`CrashStates`).
struct CrashState {
    /// Name to contents.
    var files: [String: [UInt8]]
    /// How many events had happened, and which acknowledgement was the last among them.
    var cut: Int
    var acknowledged: Int?
    var variant: String
}
