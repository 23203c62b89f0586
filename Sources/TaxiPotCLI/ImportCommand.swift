/// `taxipot import <kind> …`: the build stage that turns source data into prepared files.
struct ImportCommand: Command {
    let name = "import"
    let summary = "build prepared data: 'import osm' / 'import nodelink' (road graph), 'import places' (place DB)"

    /// Each `import` kind; the word after `import` selects one.
    let kinds: [any Command] = [
        ImportOSMCommand(),
        ImportNodeLinkCommand(),
        ImportPlacesCommand(),
    ]

    var help: String {
        var s = "Usage: taxipot import <kind> [options]\n\nKinds:\n"
        for k in kinds { s += "  \(k.name)  \(k.summary)\n" }
        return s + "\nRun 'taxipot import <kind> --help' for each kind's options."
    }

    func run(_ args: [String]) throws -> Int32 {
        guard let first = args.first else { throw UsageError("missing the kind to import (one of: \(kinds.map(\.name).joined(separator: ", ")))") }
        guard let kind = kinds.first(where: { $0.name == first }) else {
            throw UsageError("unknown import kind '\(first)' (one of: \(kinds.map(\.name).joined(separator: ", ")))")
        }
        let rest = Array(args.dropFirst())
        if rest.contains("--help") { print(kind.help); return 0 }
        return try kind.run(rest)
    }
}
