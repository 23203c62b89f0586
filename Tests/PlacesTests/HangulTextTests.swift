import Places
import XCTest

final class HangulTextTests: XCTestCase {
    func testSyllableDecomposition() {
        let s = HangulJamo.decompose("강")
        XCTAssertEqual(s?.initial, 0)   // ㄱ
        XCTAssertEqual(s?.medial, 0)    // ㅏ
        XCTAssertEqual(s?.final, 21)    // ㅇ
        XCTAssertNil(HangulJamo.decompose("A"))
        XCTAssertEqual(HangulJamo.compose(initial: 18, medial: 8, final: 21), "홍")
        XCTAssertEqual(HangulJamo.jamoString("왕십리"), "ㅇㅘㅇㅅㅣㅂㄹㅣ")
    }

    func testChoseong() {
        XCTAssertEqual(HangulJamo.choseong("홍대입구역"), "ㅎㄷㅇㄱㅇ")
        XCTAssertEqual(HangulJamo.choseong("종로3가"), "ㅈㄹ3ㄱ")
        XCTAssertTrue(HangulJamo.isChoseongOnly("ㄱㄴ ㅇ"))
        XCTAssertFalse(HangulJamo.isChoseongOnly("ㄱ남"))
        XCTAssertFalse(HangulJamo.isChoseongOnly(""))
    }

    func testRevisedRomanization() {
        let cases = ["왕십리": "wangsimni", "종로": "jongno", "신림": "sillim", "선릉": "seolleung",
                     "독립문": "dongnimmun", "역삼동": "yeoksamdong", "광화문": "gwanghwamun", "해운대": "haeundae",
                     "경복궁": "gyeongbokgung", "낙성대": "nakseongdae", "문래": "mullae", "같이": "gachi",
                     "좋고": "joko", "십일": "sibil", "을지로": "euljiro", "종로3가": "jongno3ga", "여의도": "yeouido"]
        for (k, v) in cases { XCTAssertEqual(Romanization.romanize(k), v, k) }
        XCTAssertEqual(Romanization.transliterate("왕십리"), "wangsipri")
        XCTAssertEqual(Romanization.displayForm("서울 숲"), "Seoul Sup")
    }

    func testLooseRomanization() {
        XCTAssertEqual(Romanization.looseForm("apgujung"), Romanization.looseForm("apgujeong"))
        XCTAssertEqual(Romanization.looseForm("kangnam"), Romanization.looseForm("gangnam"))
        XCTAssertEqual(Romanization.looseForm("shinchon"), Romanization.looseForm("sinchon"))
        XCTAssertEqual(Romanization.looseForm("dongdaemoon"), Romanization.looseForm("dongdaemun"))
        XCTAssertNotEqual(Romanization.looseForm("gangnam"), Romanization.looseForm("gangseo"))
    }

    func testFolding() {
        XCTAssertEqual(SearchText.fold("홍대 입구"), "홍대입구")
        XCTAssertEqual(SearchText.fold("  Seoul-Station!  "), "seoulstation")
        XCTAssertEqual(SearchText.fold("\"강남*\" OR (역삼:동)"), "강남or역삼동")
        // Decomposed Hangul (NFD, as macOS sends it) and full-width Latin compose.
        XCTAssertEqual(SearchText.fold("\u{1100}\u{1161}\u{11BC}\u{1102}\u{1161}\u{11B7}"), "강남")
        XCTAssertEqual(SearchText.fold("Ｇａｎｇｎａｍ"), "gangnam")
        XCTAssertEqual(SearchText.fold("... --- ***"), "")
        XCTAssertEqual(SearchText.words("서울  강남구,역삼동"), ["서울", "강남구", "역삼동"])
    }

    func testNameParts() {
        XCTAssertEqual(SearchText.splitParentheses("왕십리(성동구청)").base, "왕십리")
        XCTAssertEqual(SearchText.splitParentheses("왕십리(성동구청)").inner, ["성동구청"])
        XCTAssertEqual(SearchText.compoundParts("가락시장역4번출구.제일오피스텔"), ["가락시장역4번출구", "제일오피스텔"])
        XCTAssertEqual(SearchText.compoundParts("4.19민주묘지"), ["4.19민주묘지"])
    }

    func testKeystrokeSymbols() {
        // Mid-syllable typing is a prefix; a trailing final may start the next syllable.
        let full = SearchSymbols.encode("광화문")
        XCTAssertTrue(full.starts(with: SearchSymbols.encode("광화ㅁ")))
        let typed = SearchSymbols.encode("광홤")
        XCTAssertFalse(full.starts(with: typed))
        XCTAssertTrue(full.starts(with: SearchSymbols.trailingFinalAsInitial(typed) ?? []))
        XCTAssertEqual(SearchSymbols.encodeChoseong("강남"), SearchSymbols.encode("ㄱㄴ"))
    }
}
