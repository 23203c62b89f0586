"""App code written for Kakao Local against Taxipot's Kakao face (issue 37 part 2), over HTTP on
the real place DB: the same calls, parameters and answer fields Kakao documents, with a
`KakaoAK` key sent as such an app sends it. Usage: kakao_local_test.py TAXIPOT_BINARY DATA_DIR"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from taxipot_server import Server, check, finish  # noqa: E402


def kakao(base, path, **params):
    """What a Kakao Local client does: GET with the key in Authorization."""
    req = urllib.request.Request(base + path + "?" + urllib.parse.urlencode(params), headers={"Authorization": "KakaoAK 0123456789abcdef"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def main():
    server = Server(sys.argv[1], sys.argv[2])
    try:
        b = server.base
        st, r = kakao(b, "/v2/local/search/keyword.json", query="강남역", size=5)
        doc = r["documents"][0] if st == 200 and r["documents"] else {}
        check(st == 200 and doc.get("place_name") == "강남역" and doc.get("category_group_code") == "SW8",
              f"keyword 강남역: the station first ({doc.get('place_name')}, {doc.get('category_group_code')})")
        check(isinstance(doc.get("x"), str) and isinstance(doc.get("y"), str) and 126 < float(doc["x"]) < 128, "x and y are strings of degrees")
        check(set(r.get("meta", {})) >= {"total_count", "pageable_count", "is_end"}, "meta has total_count, pageable_count, is_end")
        check(doc.get("road_address_name", "").startswith("서울"), f"a road-name address is road_address_name ({doc.get('road_address_name')!r})")
        st, r = kakao(b, "/v2/local/search/keyword.json", query="역", x="127.0276", y="37.4979", radius=1500, sort="distance", size=15)
        d = [int(x["distance"]) for x in r.get("documents", [])]
        check(st == 200 and d and d == sorted(d) and d[-1] <= 1500, f"keyword near x,y within radius, nearest first ({d[:5]}…)")
        st2, r2 = kakao(b, "/v2/local/search/keyword.json", query="역", x="127.0276", y="37.4979", radius=1500, sort="distance", size=5, page=2)
        check(st2 == 200 and [x["id"] for x in r2["documents"]] == [x["id"] for x in r["documents"][5:10]], "page 2 of size 5 is items 6–10")
        st, r = kakao(b, "/v2/local/search/keyword.json", query="역", category_group_code="SW8")
        check(st == 200 and r["documents"] and all(x["category_group_code"] == "SW8" for x in r["documents"]), "category_group_code=SW8: stations only")
        st, r = kakao(b, "/v2/local/search/address.json", query="역삼동")
        a = r["documents"][0] if st == 200 and r["documents"] else {}
        check(a.get("address", {}).get("region_2depth_name") == "강남구" and a.get("address_type") == "REGION", f"address 역삼동: in 강남구 ({a.get('address_name')})")
        st, r = kakao(b, "/v2/local/geo/coord2address.json", x="127.0276", y="37.4979")
        ad = r["documents"][0]["address"] if st == 200 and r["documents"] else {}
        check(ad.get("region_1depth_name") == "서울특별시" and ad.get("region_3depth_name") == "서초동", f"coord2address at 강남역: 서초동 ({ad.get('address_name')})")
        # Kakao's errors
        for path, params, etype in [("/v2/local/search/keyword.json", {}, "MissingParameter"),
                                    ("/v2/local/search/keyword.json", {"query": "역", "size": 99}, "InvalidArgument"),
                                    ("/v2/local/search/keyword.json", {"query": "역", "x": "abc", "y": "37"}, "InvalidArgument"),
                                    ("/v2/local/geo/coord2address.json", {"x": "127"}, "MissingParameter"),
                                    ("/v2/local/geo/coord2address.json", {"x": "127", "y": "37", "input_coord": "TM"}, "InvalidArgument")]:
            st, r = kakao(b, path, **params)
            check(st == 400 and r.get("errorType") == etype and r.get("message"), f"{path} {params}: 400 {etype} ({r})")
        # Taxipot's own search names the missing parameter.
        st, r = kakao(b, "/v1/places", query="강남역")
        check(st == 400 and r["error"]["code"] == "missing_parameter" and "'q'" in r["error"]["message"], f"/v1/places?query=…: q is missing ({r})")
    finally:
        server.stop()
    finish()


if __name__ == "__main__":
    main()
