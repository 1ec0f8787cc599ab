#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore
import VaultHelpers

/// What Docker writes to `docker-credential-vault store`: what parses, written by the helper's
/// own JSON writer, parses to the same credentials; the item it names is checked or refused.
enum DockerInputTarget: FuzzTarget {
    static let name = "docker-input"
    static let maxLength = 4096

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let credentials = try? DockerCredentials(parsing: SecretBytes(input)) else { return }
        if let serverURL = credentials.serverURL { _ = try? DockerCredentials.service(serverURL: serverURL) }
        var written: [UInt8] = Array("{".utf8)
        for (key, value) in [("ServerURL", credentials.serverURL), ("Username", credentials.username), ("Secret", credentials.secret)] {
            guard let value else { continue }
            if written.count > 1 { written.append(UInt8(ascii: ",")) }
            JSONText.appendString(key, to: &written)
            written.append(UInt8(ascii: ":"))
            JSONText.appendString(value, to: &written)
        }
        written.append(UInt8(ascii: "}"))
        guard let again = try? DockerCredentials(parsing: SecretBytes(written)) else { throw FuzzFinding("credentials written by JSONText do not parse") }
        try FuzzFinding.check(again.serverURL == credentials.serverURL && again.username == credentials.username && again.secret == credentials.secret,
                              "credentials written by JSONText read differently")
    }
}
