/// A line type whose secret fields `MessageCodec` reads with `SecretFields` (and blanks from the
/// line) before `JSONDecoder` sees the rest.
protocol SecretCarrying {
    /// The object holding the secret fields, as keys from the top level.
    static var secretPath: [String] { get }
    static var secretKeys: Set<String> { get }
}
