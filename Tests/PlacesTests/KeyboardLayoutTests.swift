import Places
import TestSupport
import XCTest

/// The 2-set keyboard conversion and the searches it serves (Korean typed in English mode,
/// addresses typed without spaces).
final class KeyboardLayoutTests: XCTestCase {
    /// Every one of the 11,172 syllables types as keys and composes back to itself, alone and
    /// followed by a syllable starting with ㅇ (where a final could move on).
    func testEverySyllableRoundTrips() {
        var failures: [String] = []
        for v in HangulJamo.firstSyllable...HangulJamo.lastSyllable {
            let s = String(Unicode.Scalar(v)!)
            let keys = KeyboardLayout.keys(fromHangul: s)
            XCTAssertTrue(keys.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.isAlphabetic }, s)
            if KeyboardLayout.hangul(fromKeys: keys) != s { failures.append("\(s)→\(keys)") }
            let pair = s + "아"
            if KeyboardLayout.hangul(fromKeys: KeyboardLayout.keys(fromHangul: pair)) != pair { failures.append(pair) }
        }
        XCTAssertEqual(failures.count, 0, failures.prefix(20).joined(separator: " "))
        XCTAssertEqual(HangulJamo.lastSyllable - HangulJamo.firstSyllable + 1, 11_172)
    }

    func testKnownWords() {
        XCTAssertEqual(KeyboardLayout.keys(fromHangul: "강남역"), "rkdskadur")
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "rkdskadur"), "강남역")
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "ghdeo"), "홍대")
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "dhkdtlqfl"), "왕십리")
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "ekfrrhrl"), "닭고기")   // ㄺ split before a vowel
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "djqtek"), "없다")      // ㅄ kept before a consonant
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "tjdnfTnq"), "서울쑵")  // shifted T = ㅆ
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "강남dur"), "강남역")     // mixed
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "rkdskad"), "강남ㅇ")     // partial: a lone initial
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "hk"), "ㅘ")             // vowels alone combine
        XCTAssertEqual(KeyboardLayout.hangul(fromKeys: "2 ghdeo!"), "2 홍대!")
    }

    func testKeysTypedInEnglishModeFindThePlace() throws {
        XCTAssertEqual(try PlacesFixture.top("rkdskadur")?.name, "강남역")
        XCTAssertEqual(try PlacesFixture.top("ghdeo")?.name, "홍대입구역")
        XCTAssertEqual(try PlacesFixture.top("ghdeodlqrn")?.name, "홍대입구역")
        XCTAssertEqual(try PlacesFixture.top("rkdskadu")?.name, "강남역")      // partial: final not yet typed
        XCTAssertEqual(try PlacesFixture.top("강남dur")?.name, "강남역")        // mixed
        // Romanised names still find their place as typed.
        XCTAssertEqual(try PlacesFixture.top("gangnam")?.name, "강남역")
        XCTAssertEqual(try PlacesFixture.top("hongdae")?.name, "홍대입구역")
    }

    func testAddressesRunTogether() throws {
        let a = try PlacesFixture.top("강남구역삼동")
        XCTAssertEqual(a?.name, "역삼동"); XCTAssertTrue(a?.address.contains("강남구") ?? false)
        let b = try PlacesFixture.top("서울강남구역삼동")
        XCTAssertEqual(b?.name, "역삼동"); XCTAssertTrue(b?.address.contains("서울특별시 강남구") ?? false)
        let c = try PlacesFixture.top("부산해운대구우동")
        XCTAssertEqual(c?.name, "우동"); XCTAssertTrue(c?.address.contains("해운대구") ?? false)
        // A station whose name starts with a division stays the station.
        XCTAssertEqual(try PlacesFixture.top("서울역")?.name, "서울역")
    }
}
