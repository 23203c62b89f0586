/// One `taxipot` subcommand.
///
/// Exit codes: 0 ok, 1 fatal or usage error, 2 finished with some failed items.
protocol Command: Sendable {
    /// The word after `taxipot`.
    var name: String { get }
    /// One line for `taxipot --help`.
    var summary: String { get }
    /// The full text for `taxipot <name> --help`.
    var help: String { get }
    /// Runs with the arguments after the command name; returns the exit code.
    func run(_ args: [String]) throws -> Int32
}
