import CSV

/// Reads CSV text into records with the CSV module's reader.
public func parseCSV(_ text: String) throws -> [[String]] {
    let reader = CSVReader(source: MemorySource(text))
    var out: [[String]] = []
    while let r = try reader.next() { out.append(r.fields) }
    return out
}
