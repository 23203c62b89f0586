"""Tests of how the bench runners count (issue 45 item 6): failed peer requests are the peer's
errors, warm-ups send other requests than the timed ones, OSRM's per-trace results are kept,
every step's records carry their commit and time, and the address rows count every address.
No peer binary is needed: a local HTTP server stands in for osrm-routed.

    python3 -m unittest discover -s tools/bench -p 'test_*.py'
"""
import csv
import http.server
import json
import os
import shutil
import tempfile
import threading
import unittest
from unittest import mock

import benchlib
import http_load
import httpclient
import osrm
import peer_match
import peer_routing
import peer_table
import pooling_http
import addresses_score


class FakeOSRM:
    """A keep-alive HTTP server on loopback: `answer(path) -> (status, JSON text)`."""

    def __init__(self, answer):
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                status, text = answer(self.path)
                body = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class PeerRoutingTests(unittest.TestCase):
    def test_osrm_routed_failed_requests_are_the_peers_errors(self):
        # every third pair answers NoRoute: 3 rounds of 9 pairs, 3 failures a round
        pairs = [((127.0 + i / 1000, 37.5), (127.01, 37.51)) for i in range(9)]
        bad = {osrm.route_path(a, b) for a, b in pairs[::3]}
        fake = FakeOSRM(lambda p: (400, '{"code":"NoRoute"}') if p in bad else (200, '{"code":"Ok","routes":[]}'))
        self.addCleanup(fake.close)
        with mock.patch.object(osrm, "start_routed", lambda base, alg, **kw: (None, fake.port)), \
                mock.patch.object(osrm, "version", lambda: "OSRM test"):
            records = peer_routing.http_records("unused", "ch", pairs, 3)
        self.assertEqual([r["key"] for r in records], ["routing.http.p50", "routing.http.p99"])
        for r in records:
            self.assertEqual(r["errors"], 9, r["key"])
            self.assertIn("9 requests failed", r["conditions"])


class PeerMatchTests(unittest.TestCase):
    def test_osrm_per_trace_results_are_written(self):
        # trace "0" matched at its driven length, "1" 10% long, "2" refused
        answers = {"0": 1000.0, "1": 1100.0}

        def answer(p):
            tid = "0" if "127.000000" in p else "1" if "127.100000" in p else "2"
            if tid not in answers:
                return 400, '{"code":"NoSegment"}'
            return 200, json.dumps({"code": "Ok", "matchings": [{"distance": answers[tid]}],
                                    "tracepoints": [{"matchings_index": 0, "location": [127.0, 37.5]}]})

        fake = FakeOSRM(answer)
        self.addCleanup(fake.close)
        traces = [(str(i), 1000.0, 10.0, [(127.0 + i / 10, 37.5, 0), (127.0 + i / 10, 37.51, 10)]) for i in range(3)]
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        out = os.path.join(d, "peer_per_trace.csv")
        client = httpclient.Client("127.0.0.1", fake.port)
        within, failed = peer_match.accuracy(client, traces, out)
        client.close()
        self.assertEqual((within, failed), (1, 1))
        with open(out) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["trace_id"] for r in rows], ["0", "1", "2"])
        self.assertEqual(rows[1]["matched_length_m"], "1100.0")
        self.assertEqual(rows[1]["error_pct"], "10.00")
        self.assertEqual((rows[2]["matched_length_m"], rows[2]["status"]), ("", "400"))

    def test_the_text_says_how_osrms_lengths_are_summed(self):
        # the code sums matchings[].distance; the docstring and the record must say so, not "geometry"
        with open(peer_match.__file__) as f:
            text = f.read()
        self.assertIn("matchings[].distance", peer_match.__doc__)
        self.assertNotIn("geometry", peer_match.__doc__)
        self.assertNotIn("from its geometry", text)

    def test_the_run_judges_matching_on_a_seed_it_was_not_tuned_on(self):
        import report
        with open(os.path.join(benchlib.HERE, "run")) as f:
            run = f.read()
        seeds = [int(s) for s in __import__("re").findall(r"--match-seed (\d+)", run)]
        self.assertTrue(seeds, "tools/bench/run passes no --match-seed (taxipot-bench's default is the tuning seed)")
        for s in seeds:
            self.assertNotIn(s, report.TUNED_SEEDS["match.accuracy.within2pct"])


class WarmupTests(unittest.TestCase):
    def setUp(self):
        self.inputs = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.inputs)
        patcher = mock.patch.object(benchlib, "INPUTS", self.inputs)
        patcher.start()
        self.addCleanup(patcher.stop)

    def write(self, name, text):
        with open(os.path.join(self.inputs, name), "w", encoding="utf-8") as f:
            f.write(text)

    def test_wrk_warm_ups_send_none_of_the_timed_requests(self):
        self.write("route_pairs.csv", "from_lon,from_lat,to_lon,to_lat\n127.0,37.5,127.1,37.6\n127.2,37.4,126.9,37.55\n")
        self.write("place_queries.tsv", "kind\tquery\tnear\nname\t서울역\t\naddress\t세종대로 110\t127.0,37.5\n")
        self.write("viewports.csv", "z,w,s,e,n\n14,127.0,37.5,127.01,37.51\n15,127.0,37.5,127.005,37.505\n")
        self.write("viewports_warmup.csv", "z,w,s,e,n\n13,126.9,37.4,126.95,37.45\n")
        for name in http_load.GENERATORS:
            timed, warm = http_load.GENERATORS[name](), http_load.warmup_requests(name)
            self.assertTrue(timed and warm, name)
            self.assertFalse(set(timed) & set(warm), name)

    def test_wrk_rows_say_their_requests_are_cycled(self):
        runs = [{"requests": 1000, "errors": 0, "rps": 500.0, "p50_us": 100, "p99_us": 900}] * http_load.ROUNDS
        sent = []
        with mock.patch.object(http_load, "wrk_once", lambda url, f, s, gzip=False: sent.append(f) or runs[0]):
            records = http_load.wrk_records("http.route", "ours", "t", "u", "timed.tsv", 5, "c",
                                            warm_reqfile="warm.tsv", distinct=500)
        self.assertEqual(sent[0], "warm.tsv")
        self.assertNotIn("warm.tsv", sent[1:])
        self.assertIn("cycle the 500 distinct requests, each sent about 10 times", records[0]["conditions"])

    def test_the_one_client_match_pass_times_requests_wrk_never_sent(self):
        import random
        rng = random.Random(7)
        points = [(126.9 + rng.random() / 5, 37.5 + rng.random() / 10) for _ in range(500)]
        reqs = pooling_http.make_requests(points, 2000, 0, random.Random(2323))
        loaded, one_client = pooling_http.split_requests(reqs)
        self.assertEqual(one_client, reqs[:pooling_http.SEQUENTIAL])  # the peer's timed requests (peer_pooling.py)
        self.assertEqual(len(loaded) + len(one_client), len(reqs))
        self.assertFalse(set(map(pooling_http.match_path, loaded)) & set(map(pooling_http.match_path, one_client)))

    def test_the_table_rows_say_the_same_table_is_repeated(self):
        class Client:
            def get(self, path):
                return 200, b'{"code":"Ok","durations":[]}', 1000

        with mock.patch.object(peer_table, "REQUESTS", {10: 3}):
            results, _ = peer_table.measure(Client(), {10: ("/t", "/w")}, "peer", "x", "c", b'"code":"Ok"')
        self.assertIn("repeat the same table", results[0]["conditions"])


class StampTests(unittest.TestCase):
    def test_every_record_gets_its_steps_commit_and_time_and_keeps_its_own(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "step.json")
        with open(path, "w") as f:
            json.dump({"results": [{"key": "a"}, {"key": "b", "commit": "old1234", "started_at": 5}], "notes": []}, f)
        benchlib.stamp(path, "abc1234", 1_000_000)
        with open(path) as f:
            a, b = json.load(f)["results"]
        self.assertEqual((a["commit"], a["started_at"]), ("abc1234", 1_000_000))
        self.assertEqual((b["commit"], b["started_at"]), ("old1234", 5))

    def test_the_run_stamps_every_step(self):
        with open(os.path.join(benchlib.HERE, "run")) as f:
            step = f.read().split("step() {", 1)[1].split("\n}\n", 1)[0]
        self.assertIn("benchlib.stamp", step)


class AddressScoreTests(unittest.TestCase):
    def test_district_only_and_unanswered_addresses_are_misses(self):
        head = "label\taddress\ttruth_lon\ttruth_lat\tprecision\tlon\tlat\terror\ttext\theld_out_precision\theld_out_error\n"
        rows = [
            "s1\t서울 a로 1\t127\t37.5\tinterpolated\t127\t37.5\t100\tt\tinterpolated\t50",
            "s2\t서울 a로 3\t127\t37.5\tinterpolated\t127\t37.5\t200\tt\tinterpolated\t250",
            "s3\t서울 b로 5\t127\t37.5\troad\t127\t37.5\t400\tt\troad\t400",
            "s4\t서울 c동 9\t127\t37.5\tdong\t127\t37.5\t20\tt\tdong\t20",  # near, but only the district: a miss
            "s5\t서울 z로 7\t127\t37.5\tnone\t\t\t\t\tnone\t",
        ]
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "dump.tsv")
        with open(path, "w", encoding="utf-8") as f:
            f.write(head + "\n".join(rows) + "\n")
        by = {r["key"]: r for r in addresses_score.score(path)}
        held = by["addresses.all.within300"]
        self.assertEqual(held["n"], 5)
        self.assertAlmostEqual(held["median"], 40.0)  # 2 of 5 (the interpolated 50 and 250 m)
        self.assertEqual(by["addresses.all.median"]["median"], 400.0)
        self.assertTrue(by["addresses.all.p90"].get("miss"))  # the 90th percentile falls on a miss
        self.assertAlmostEqual(by["addresses.all.rule.within300"]["median"], 40.0)
        self.assertEqual(by["addresses.all.rule.median"]["median"], 400.0)  # of 100, 200, 400, miss, miss


if __name__ == "__main__":
    unittest.main()
