import JSON
import XCTest

/// The strict JSON parser and the compact writer every endpoint answers with.
final class JSONTests: XCTestCase {
    /// A key twice in one object is refused, naming the key (escaped) and where it repeats:
    /// as written, through escapes, nested, and in an object with many keys (no quadratic cost).
    func testJSONDuplicateKeysAreRefused() throws {
        func refusal(_ text: String) -> String? {
            do { _ = try JSONParser.parse(text); return nil } catch { return error.description }
        }
        XCTAssertEqual(refusal(#"{"seats_total":4,"seats_total":1}"#), #"duplicate key "seats_total" in an object at byte 17"#)
        XCTAssertEqual(refusal(#"{"a":1,"\u0061":2}"#), #"duplicate key "a" in an object at byte 7"#)
        XCTAssertNotNil(refusal(#"{"o":{"x":[1,{"k":1,"k":1}]}}"#))
        XCTAssertEqual(refusal(#"{"t\u0007":1,"t\u0007":2}"#), #"duplicate key "t\u0007" in an object at byte 13"#)
        XCTAssertNil(refusal(#"[{"a":1},{"a":2}]"#), "the same key in two objects is fine")
        XCTAssertNil(refusal(#"{"a":{"a":1}}"#), "or nested")
        let many = (0..<50_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        XCTAssertNil(refusal("{" + many + "}"))
        XCTAssertEqual(refusal("{" + many + #","k49999":0}"#)?.hasPrefix(#"duplicate key "k49999""#), true)
        XCTAssertEqual(refusal("{" + many + #","k3":0}"#)?.hasPrefix(#"duplicate key "k3""#), true)
    }

    func testJSONRoundTripAndLimits() throws {
        let v = try JSONParser.parse(#"{"a":[1,2.5,"x\u00e9\ud83d\ude00",true,null],"b":{"c":-1e3}}"#)
        XCTAssertEqual(v["a"]?[1]?.doubleValue, 2.5)
        XCTAssertEqual(v["a"]?[2]?.stringValue, "xé😀")
        XCTAssertEqual(v["b"]?["c"]?.intValue, -1000)
        XCTAssertEqual(try JSONParser.parse(JSONWriter.string(v)), v)
        for bad in ["", "{", "[1,]", "{\"a\":1,}", "01", "1e999", "\"\\ud800\"", "nul", "[1] x", "\"a\u{1}\""] {
            XCTAssertThrowsError(try JSONParser.parse(bad), bad)
        }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        XCTAssertThrowsError(try JSONParser.parse(deep))
        XCTAssertEqual(JSONWriter.string(["s": "a\"b\n", "n": 3, "f": 0.5]), #"{"s":"a\"b\n","n":3,"f":0.5}"#)
        // Strings with nothing to escape are copied whole; the others byte by byte.
        XCTAssertEqual(JSONWriter.string(.string("광화문 Gwanghwamun_~")), "\"광화문 Gwanghwamun_~\"")
        XCTAssertEqual(JSONWriter.string(.string("a\u{01}b\\c\td")), #""a\u0001b\\c\td""#)
        // Whole numbers up to 2^53 − 1 as integers, digit by digit (feature ids are such numbers); others in their shortest form.
        let numbers: [(Double, String)] = [(0, "0"), (-0.0, "0"), (7, "7"), (-42, "-42"), (1_000_000, "1000000"),
                                           (999_999_999_999_999, "999999999999999"), (-999_999_999_999_999, "-999999999999999"),
                                           (1e15, "1000000000000000"), (9_007_199_254_740_991, "9007199254740991"), (1e16, "1e+16"), (0.1, "0.1"), (-2.5e-7, "-2.5e-07"), (126.978, "126.978"), (37.56650000000001, "37.56650000000001"),
                                           (.nan, "null"), (.infinity, "null")]
        for (v, text) in numbers { XCTAssertEqual(JSONWriter.string(.number(v)), text, "\(v)") }
        for v in [Int64.min, -1, 0, 9, 10, 1234567890123456789, Int64.max] {
            var out = [UInt8]()
            JSONWriter.writeInteger(v, into: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), String(v))
        }
    }
}
