import TaxiPot

/// The options every command reading CSV shares: `--encoding` and `--delimiter`.
enum CSVOptions {
    /// `--encoding auto|utf-8|cp949`: nil for auto (told from the bytes).
    static func encoding(_ a: Arguments) throws -> InputEncoding? {
        do { return try InputEncoding.option(a.value("encoding")) } catch { throw UsageError(error.description) }
    }

    /// `--delimiter ,|;|tab|'|'` as its byte (a comma when absent).
    static func delimiter(_ a: Arguments) throws -> UInt8 {
        guard let d = a.value("delimiter") else { return 0x2C }
        guard case .byte(let b)? = CSVLine.Separator(option: d, allowWhitespace: false) else {
            throw UsageError("option --delimiter must be ',', ';', '|' or tab, got '\(d)'")
        }
        return b
    }
}
