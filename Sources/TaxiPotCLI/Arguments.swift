import Foundation

/// A usage error: the message names the argument at fault. Exit code 1.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
    init(_ message: String) { self.message = message }
}

/// Command-line arguments: `--name value`, `--name=value`, `--flag`, and positionals.
///
/// Each command declares which options take a value and which are flags, so a typo is
/// an error naming the unknown option rather than a silently ignored word.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    /// Options whose value came from the environment: option name → variable name.
    private(set) var fromEnvironment: [String: String] = [:]

    /// Parses `args` (without the command name). `aliases` maps short options to long names
    /// (`["-o": "output"]` makes `-o FILE` mean `--output FILE`).
    init(_ args: [String], valued: Set<String>, flags allowedFlags: Set<String> = [], aliases: [String: String] = [:]) throws {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            var a = args[i]
            i += 1
            if !onlyPositionals, let long = aliases[a] { a = "--" + long }
            if onlyPositionals || !a.hasPrefix("--") || a == "-" {
                positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = String(a.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if valued.contains(name) {
                if let v = inlineValue {
                    options[name] = v
                } else {
                    guard i < args.count else { throw UsageError("option --\(name) needs a value") }
                    options[name] = args[i]
                    i += 1
                }
            } else if allowedFlags.contains(name) || name == "help" {
                guard inlineValue == nil else { throw UsageError("option --\(name) takes no value") }
                flags.insert(name)
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    /// Takes each of `names` not given as a flag from the environment variable `prefix` +
    /// the name upper-cased with `-` as `_` (`state-dir` → `TAXIPOT_STATE_DIR`): flags win.
    mutating func fillFromEnvironment(_ names: [String], prefix: String = "TAXIPOT_",
                                      environment: [String: String] = ProcessInfo.processInfo.environment)
    {
        for name in names where options[name] == nil {
            let variable = prefix + name.uppercased().replacingOccurrences(of: "-", with: "_")
            if let v = environment[variable], !v.isEmpty {
                options[name] = v
                fromEnvironment[name] = variable
            }
        }
    }

    /// How an error names option `name`: `--name`, or the environment variable it came from.
    func label(_ name: String) -> String {
        fromEnvironment[name].map { "environment variable \($0)" } ?? "option --\(name)"
    }

    func value(_ name: String) -> String? { options[name] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func required(_ name: String) throws -> String {
        guard let v = options[name], !v.isEmpty else { throw UsageError("missing required option --\(name)") }
        return v
    }

    func int(_ name: String, default d: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = options[name] else { return d }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("\(label(name)) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return v
    }

    func double(_ name: String) throws -> Double? {
        guard let text = options[name] else { return nil }
        guard let v = Double(text), v.isFinite else { throw UsageError("\(label(name)) must be a number, got '\(text)'") }
        return v
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
