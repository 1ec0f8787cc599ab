import Foundation

/// The executables SwiftPM built beside the running test bundle (vaultd, vaultctl, helpers).
public enum BuiltProducts {
    /// The built executable `name`: in the nearest directory above this test binary that holds it
    /// (the test binary may sit inside an .xctest bundle directory on some layouts).
    public static func path(_ name: String) -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent(name).path
    }
}
