import TaxiPot
import TaxiPotServer

/// `taxipot version`: the engine and library versions.
struct VersionCommand: Command {
    let name = "version"
    let summary = "print the engine version"
    let help = "Usage: taxipot version\n\nPrints the engine version."
    func run(_ args: [String]) throws -> Int32 {
        _ = try Arguments(args, valued: [])
        print("taxipot \(TaxiPotVersion.string)")
        return 0
    }
}
