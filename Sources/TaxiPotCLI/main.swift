import Foundation
import TaxiPot
import TaxiPotServer

/// Every `taxipot` subcommand, in the order `taxipot --help` lists them.
let commands: [any Command] = [
    VersionCommand(),
    ServeCommand(),
    ImportCommand(),
    ExportCommand(),
    TransformCommand(),
    FareCommand(),
    QuoteCommand(),
    RouteCommand(),
    SynthOSMCommand(),
    PartiesCommand(),
    PlacesCommand(),
    ReverseCommand(),
    BatchCommand(),
    TableCommand(),
    MatchTraceCommand(),
    SettleCommand(),
]

func usage() -> String {
    var s = "taxipot: the Taxipot engine (coordinates, places, routing, fares, parties)\n\n"
    s += "Usage: taxipot <command> [options]     taxipot help <command>     taxipot --version\n\nCommands:\n"
    for c in commands { s += "  " + c.name.padding(toLength: 12, withPad: " ", startingAt: 0) + c.summary + "\n" }
    return s
}


let argv = Array(CommandLine.arguments.dropFirst())
if argv == ["--version"] || argv == ["-V"] {
    print("taxipot \(TaxiPotVersion.string)")
    exit(0)
}
// `taxipot help COMMAND` is `taxipot COMMAND --help`.
if argv.count >= 2, argv[0] == "help" {
    guard let c = commands.first(where: { $0.name == argv[1] }) else {
        printError("taxipot help: unknown command '\(argv[1])'\n")
        printError(usage())
        exit(1)
    }
    if c.name == "import", argv.count == 3 {
        exit((try? c.run([argv[2], "--help"])) ?? 1)
    }
    print(c.help)
    exit(0)
}
guard let first = argv.first, first != "--help", first != "-h", first != "help" else {
    print(usage(), terminator: "")
    exit(argv.isEmpty ? 1 : 0)
}
guard let command = commands.first(where: { $0.name == first }) else {
    printError("taxipot: unknown command '\(first)'\n")
    printError(usage())
    exit(1)
}
let rest = Array(argv.dropFirst())
// `import <kind> --help` is answered by the kind itself (ImportCommand.run).
if rest.first == "--help" || rest.first == "-h" || (command.name != "import" && (rest.contains("--help") || rest.contains("-h"))) {
    print(command.help)
    exit(0)
}
do {
    let code = try command.run(rest)
    fflush(nil)
    exit(code)
} catch let e as UsageError {
    printError("taxipot \(command.name): \(e.message)\nRun 'taxipot \(command.name) --help' for usage.")
    exit(1)
} catch {
    printError("taxipot \(command.name): \(error)")
    exit(1)
}
