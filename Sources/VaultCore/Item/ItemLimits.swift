/// Documented size limits for everything an item holds (see README and docs/file-format.md).
public enum ItemLimits {
    /// Maximum bytes of UTF-8 in a service or an account name.
    public static let maxNameBytes = 512
    /// Maximum bytes of UTF-8 in a label.
    public static let maxLabelBytes = 1024
    /// Maximum bytes of UTF-8 in a comment.
    public static let maxCommentBytes = 4096
    /// Maximum size of a secret: 64 KiB. The empty secret is allowed.
    public static let maxSecretBytes = 64 * 1024
}
