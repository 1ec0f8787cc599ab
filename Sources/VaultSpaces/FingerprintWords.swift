import VaultCrypto

/// A device's fingerprint as words a person can read out and compare: SHA-256 of the label, the
/// space's id and the device's public key, its first 8 bytes each one word of `words` (256
/// words, so 64 bits: forging a key with the same words takes 2^64 tries). `vaultctl space join`
/// prints them; `vaultctl space admit` takes them and admits only the device whose key gives them.
public enum FingerprintWords {
    public static let count = 8

    public static func of(publicKey: [UInt8], spaceID: String) throws -> [String] {
        let digest = try SHA256.hash(Array("vault device fingerprint v1".utf8) + [0] + Array(spaceID.utf8) + [0] + publicKey)
        return digest.prefix(count).map { words[Int($0)] }
    }

    /// The words as typed: lower-cased, any run of spaces or commas between them.
    public static func normalized(_ typed: [String]) -> [String] {
        typed.joined(separator: " ").lowercased().split { $0 == " " || $0 == "," || $0 == "\t" }.map(String.init)
    }

    static let words: [String] = [
        "acid", "acorn", "actor", "adobe", "agent", "album", "alpha", "amber", "anchor", "angel",
        "apple", "april", "arena", "arrow", "atlas", "attic", "audio", "autumn", "avocado", "bacon",
        "badge", "bagel", "baker", "bamboo", "banjo", "barley", "basil", "basket", "beacon", "beaver",
        "bench", "berry", "bicycle", "bison", "blanket", "blossom", "border", "bottle", "bracket",
        "breeze", "brick", "bridge", "bronze", "bubble", "bucket", "buffalo", "butter", "cabin",
        "cactus", "camera", "canal", "candle", "canoe", "canyon", "carbon", "carpet", "castle",
        "cedar", "cement", "cherry", "chess", "circle", "clover", "cobalt", "coconut", "comet",
        "copper", "coral", "cotton", "cougar", "crane", "crystal", "cupcake", "dagger", "daisy",
        "delta", "desert", "diesel", "dolphin", "domino", "donkey", "dragon", "eagle", "echo",
        "eclipse", "elbow", "ember", "engine", "falcon", "feather", "fennel", "ferry", "fiddle", "fig",
        "flannel", "flute", "forest", "fossil", "fountain", "fox", "galaxy", "garden", "garlic",
        "gecko", "ginger", "glacier", "globe", "gopher", "granite", "grape", "gravel", "guitar",
        "hammer", "harbor", "harvest", "hazel", "helmet", "heron", "hickory", "honey", "hornet",
        "igloo", "indigo", "iris", "island", "ivory", "jacket", "jaguar", "jasmine", "jelly", "jigsaw",
        "jungle", "kayak", "kernel", "kettle", "kiwi", "koala", "ladder", "lagoon", "lantern", "laser",
        "lemon", "lentil", "lilac", "linen", "lizard", "lobster", "locket", "lotus", "magnet", "mango",
        "maple", "marble", "meadow", "melon", "meteor", "mint", "mirror", "mitten", "monkey", "mosaic",
        "muffin", "mustard", "napkin", "nectar", "needle", "nickel", "noodle", "nutmeg", "oasis",
        "ocean", "olive", "onion", "orbit", "orchid", "otter", "oyster", "paddle", "panda", "papaya",
        "parrot", "peach", "pebble", "pepper", "piano", "pickle", "pigeon", "pillow", "pine", "planet",
        "plum", "pocket", "pony", "poppy", "potato", "prism", "pumpkin", "puzzle", "quartz", "quill",
        "rabbit", "radar", "radish", "raven", "reef", "ribbon", "river", "robin", "rocket", "saddle",
        "salmon", "sandal", "satin", "scarf", "shadow", "shovel", "silver", "sparrow", "spider",
        "sponge", "spruce", "squash", "stable", "stamp", "summit", "sunset", "swan", "tablet", "tango",
        "teapot", "thistle", "thunder", "tiger", "timber", "tomato", "topaz", "tractor", "trumpet",
        "tulip", "tunnel", "turtle", "umbrella", "valley", "velvet", "violet", "walnut", "walrus",
        "wagon", "whistle", "willow", "window", "winter", "wizard", "yogurt", "zebra", "zipper"
    ]
}
