/// Environment variables that make a program run code it was not built or written with: the
/// dynamic loader's (a library preloaded or found first), and the interpreters' (a module path,
/// start-up code, options that load modules). A caller whose environment sets one is matched by
/// no rule and no timed grant: the program a rule names would run, but not only its own code.
/// `/proc/PID/environ` is the environment the program was started with; one that loads code and
/// then rewrites that memory is not seen (docs/threat-model.md, attack 6).
enum CodeInjection {
    static let variables: Set<String> = [
        // glibc's loader
        "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "GCONV_PATH",
        // Python
        "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONINSPECT", "PYTHONUSERBASE", "PYTHONEXECUTABLE", "PYTHONPLATLIBDIR",
        // Perl
        "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB",
        // Ruby
        "RUBYOPT", "RUBYLIB",
        // Node.js
        "NODE_OPTIONS", "NODE_PATH",
        // shells: start-up files, options, and the trace prompt (expanded with `set -x`)
        "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4",
    ]

    /// The first injection variable set (to anything but the empty string) in `environ` (the
    /// NUL-separated `NAME=value` entries of /proc/PID/environ), as "LD_PRELOAD is set"; nil when none.
    static func reason(environ: [UInt8]) -> String? {
        for entry in environ.split(separator: 0) {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")), equals < entry.endIndex - 1 else { continue }
            let name = String(decoding: entry[entry.startIndex..<equals], as: UTF8.self)
            // Bash exports functions as BASH_FUNC_name%%: run by every bash the program starts.
            if variables.contains(name) || (name.hasPrefix("BASH_FUNC_") && name.hasSuffix("%%")) { return "\(name) is set in its environment" }
        }
        return nil
    }
}
