/// Documented size limits for everything an item holds (see docs/commands.md, "Limits", and
/// docs/file-format.md).
public enum ItemLimits {
    /// Maximum bytes of UTF-8 in a service or an account name.
    public static let maxNameBytes = 512
    /// Maximum bytes of UTF-8 in a label.
    public static let maxLabelBytes = 1024
    /// Maximum bytes of UTF-8 in a comment.
    public static let maxCommentBytes = 4096
    /// Maximum size of a secret: 64 KiB. The empty secret is allowed.
    public static let maxSecretBytes = 64 * 1024
    /// The most other attributes an item has (`ItemAttributes`), and their sizes.
    public static let maxAttributes = 64
    public static let maxAttributeNameBytes = 255
    public static let maxAttributeValueBytes = 1024
    /// Maximum bytes of a secret's content type ("text/plain").
    public static let maxContentTypeBytes = 255
}
