import Foundation
import Geo

/// Values as spreadsheets and pandas write them, read where a batch file's field is typed:
/// whole numbers written as `2.0` (pandas writes an integer column holding a NaN as floats) and
/// the date-time forms Excel shows in a Korean locale, besides ISO 8601 and Unix seconds.
enum SpreadsheetValues {
    /// A whole number: `2`, `2.0`, `2.00`; nil for `2.5`, `2e0`, text.
    static func wholeNumber<S: StringProtocol>(_ text: S) -> Int? {
        if let n = Int(text) { return n }
        guard let dot = text.firstIndex(of: "."), let n = Int(text[..<dot]),
              text[text.index(after: dot)...].allSatisfy({ $0 == "0" }), text.index(after: dot) < text.endIndex else { return nil }
        return n
    }

    /// Korean Excel forms of a Seoul date-time: `2026-12-03 오후 3:00:00`, `2026. 12. 3. 15:00`,
    /// `2026/12/03 9:00` (오전/오후 or AM/PM before or after the time; seconds optional).
    private static let koreanForm = try! NSRegularExpression(pattern:
        #"^(\d{4})\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{1,2})\.?\s+(?:(오전|오후|AM|PM|am|pm)\s*)?(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*(오전|오후|AM|PM|am|pm))?$"#)

    /// An instant from ISO 8601 (no offset: Seoul time), a Korean Excel form (Seoul time) or
    /// Unix seconds (digits, 9 or more, optionally with a fraction); nil otherwise.
    static func instant(_ text: String) -> Double? {
        if let t = SeoulTime.parse(text) { return t }
        if text.count >= 9, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let v = Double(text), v.isFinite { return v }
        let range = NSRange(text.startIndex..., in: text)
        guard let m = koreanForm.firstMatch(in: text, range: range) else { return nil }
        func group(_ i: Int) -> String? { Range(m.range(at: i), in: text).map { String(text[$0]) } }
        guard let year = group(1).flatMap({ Int($0) }), let month = group(2).flatMap({ Int($0) }), let day = group(3).flatMap({ Int($0) }),
              var hour = group(5).flatMap({ Int($0) }), let minute = group(6).flatMap({ Int($0) }) else { return nil }
        let second = group(7).flatMap { Int($0) } ?? 0
        let marks = [group(4), group(8)].compactMap { $0 }
        guard marks.count <= 1 else { return nil }
        if let mark = marks.first {
            guard (1...12).contains(hour) else { return nil }
            let afternoon = mark == "오후" || mark.uppercased() == "PM"
            hour = afternoon ? (hour == 12 ? 12 : hour + 12) : (hour == 12 ? 0 : hour)
        }
        return SeoulTime.parse(String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second))
    }
}
