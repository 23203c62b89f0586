"""Tests of report.py (run by `make test`): a target with no figure, no peer figure, failed
answers or NaN outputs counts as missed, and the README block counts it.

    python3 -m unittest discover -s tools/bench -p 'test_*.py'
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "report.py")


def rec(key, side, median, unit="M points/s", better="higher", n=1_000_000, impl=None, errors=0, **extra):
    r = {"key": key, "side": side, "impl": impl or ("taxipot" if side == "ours" else "pyproj 3.7.2 (PROJ 9.5.1)"),
         "metric": "m", "unit": unit, "better": better, "median": median, "min": median, "max": median,
         "runs": 5, "n": n, "errors": errors, "conditions": "c"}
    r.update(extra)
    return r


README = "# x\n\n<!-- bench:start -->\nold\n<!-- bench:end -->\n\ntail\n"


class ReportTests(unittest.TestCase):
    def run_report(self, records, raw=None, meta=None):
        """Runs report.py over one results file (and `meta`, the run's run-meta.txt line);
        returns (BENCHMARKS.md text, README text)."""
        with tempfile.TemporaryDirectory() as d:
            results = os.path.join(d, "results")
            os.makedirs(results)
            if meta:
                with open(os.path.join(results, "run-meta.txt"), "w") as f:
                    f.write(meta + "\n")
            with open(os.path.join(results, "step.json"), "w") as f:
                f.write(raw if raw is not None else json.dumps({"results": records, "notes": []}))
            readme = os.path.join(d, "README.md")
            with open(readme, "w") as f:
                f.write(README)
            out = os.path.join(d, "BENCHMARKS.md")
            subprocess.run([sys.executable, REPORT, results, out, "--mode", "full", "--readme", readme],
                           check=True, capture_output=True)
            with open(out) as f, open(readme) as g:
                return f.read(), g.read()

    @staticmethod
    def row(text, figure):
        return next(line for line in text.splitlines() if line.startswith("| ") and ("| %s" % figure) in line)

    def test_a_target_with_no_figure_is_not_measured_and_missed(self):
        # the clusters restart figure failed this run: its row stays, missed, and the README counts it
        md, readme = self.run_report([rec("clusters.1m.update_us", "ours", 1.0, unit="µs", better="lower"),
                                      rec("clusters.1m.update_us", "peer", 500.0, unit="µs", better="lower")])
        self.assertIn("not measured ❌", self.row(md, "1M parties: restart (reload from SQLite)"))
        self.assertIn("✅", self.row(md, "1M parties: one insert or delete"))
        clusters = self.row(readme, "Clusters")
        self.assertNotIn("✅", clusters.split("|")[2])
        self.assertIn("1 of ", clusters)

    def test_a_target_with_no_peer_figure_is_not_measured(self):
        md, readme = self.run_report([rec("coordinates.5179", "ours", 40.0)])
        self.assertIn("not measured (no peer figure) ❌", self.row(md, "WGS84 → UTM-K (5179), 1M points"))
        self.assertIn("0 of ", self.row(readme, "Coordinates"))

    def test_no_difference_from_proj_when_nothing_was_compared(self):
        md, _ = self.run_report([rec("coordinates.5179", "ours", 40.0), rec("coordinates.5179", "peer", 5.0)])
        row = self.row(md, "largest difference from PROJ, 1M points")
        self.assertIn("not measured ❌", row)
        self.assertNotIn("| 0 m", row)

    def test_our_nan_outputs_count_as_failures(self):
        md, readme = self.run_report([rec("coordinates.deviation", "ours", 0.0005, unit="m", better="lower", errors=12)])
        row = self.row(md, "largest difference from PROJ, 1M points")
        self.assertIn("❌ (12 errors)", row)
        self.assertNotIn("✅", row)

    def test_a_figure_that_is_nan_is_not_measured(self):
        # every request failed: the percentile of no successful answer is NaN (JSON NaN or null)
        for median in ("NaN", "null"):
            raw = json.dumps({"results": [rec("pooling.match.p50", "ours", 0.0, unit="ms", better="lower", errors=500)],
                              "notes": []}).replace('"median": 0.0', '"median": %s' % median)
            md, _ = self.run_report(None, raw=raw)
            row = self.row(md, "10,000 open parties: match p50, in-process")
            self.assertIn("not measured ❌", row, median)
            self.assertNotIn("nan", row.lower())

    def test_failed_answers_miss_a_target_the_figure_meets(self):
        md, readme = self.run_report([rec("http.places.rps", "ours", 9000.0, unit="req/s", errors=3),
                                      rec("http.places.rps", "ceiling", 90000.0, unit="req/s")])
        self.assertIn("❌ (3 errors)", self.row(md, "GET /v1/places"))
        self.assertIn("0 of 2 ❌", self.row(readme, "HTTP"))  # and the gzip target, not measured

    def test_bulk_quotes_over_http_are_judged_against_the_batch_tool(self):
        batch = rec("batch.rows_per_s", "ours", 50_000.0, unit="rows/s", impl="taxipot batch")
        row = "bulk quotes over HTTP, POST /v1/quotes (vs taxipot batch)"
        md, _ = self.run_report([batch, rec("batch.http.rows_per_s", "ours", 41_000.0, unit="rows/s", n=200_000)])
        self.assertIn("✅", self.row(md, row))
        md, _ = self.run_report([batch, rec("batch.http.rows_per_s", "ours", 39_000.0, unit="rows/s", n=200_000)])
        self.assertIn("❌", self.row(md, row))
        md, _ = self.run_report([rec("batch.http.rows_per_s", "ours", 41_000.0, unit="rows/s", n=200_000)])
        self.assertIn("not measured (no peer figure) ❌", self.row(md, row))

    def test_the_osrm_face_is_judged_against_our_own_route_in_the_same_rounds(self):
        route = rec("routing.osrm_face.route_p50", "ours", 100.0, unit="µs", better="lower")
        row = "OSRM face `/route/v1/driving` round trip p50 (vs our /v1/route in the same rounds)"
        md, _ = self.run_report([route, rec("routing.osrm_face.http.p50", "ours", 108.0, unit="µs", better="lower")])
        self.assertIn("✅", self.row(md, row))
        md, _ = self.run_report([route, rec("routing.osrm_face.http.p50", "ours", 115.0, unit="µs", better="lower")])
        self.assertIn("❌", self.row(md, row))
        # /v1/route's own block (timed before, in other rounds) is not the reference
        md, _ = self.run_report([rec("routing.http.p50", "ours", 100.0, unit="µs", better="lower"),
                                 rec("routing.osrm_face.http.p50", "ours", 108.0, unit="µs", better="lower")])
        self.assertIn("not measured", self.row(md, row))

    def test_the_headline_says_when_ours_uses_every_core_and_the_peer_one_thread(self):
        _, readme = self.run_report([rec("coordinates.5179", "ours", 40.0, cores=2),
                                     rec("coordinates.5179", "peer", 5.0, cores=1)])
        self.assertIn("ours on 2 cores, the peer on 1 thread", self.row(readme, "Coordinates"))

    def test_matching_targets_need_the_peer_on_the_same_traces(self):
        accuracy = "synthetic traces: matched length within 2% of the driven one (vs osrm-routed /match)"
        http = "30-minute 1 Hz trace over HTTP (vs osrm-routed /match)"
        seed = {"conditions": "200 random routes (seed 45)"}
        md, _ = self.run_report([rec("match.accuracy.within2pct", "ours", 97.5, unit="%", n=200, **seed),
                                 rec("match.http.30min1hz", "ours", 60.0, unit="ms", better="lower", n=1800)])
        self.assertIn("not measured (no peer figure) ❌", self.row(md, accuracy))
        self.assertIn("not measured (no peer figure) ❌", self.row(md, http))
        md, _ = self.run_report([rec("match.accuracy.within2pct", "ours", 97.5, unit="%", n=200, **seed),
                                 rec("match.accuracy.within2pct", "peer", 80.0, unit="%", n=200),
                                 rec("match.http.30min1hz", "ours", 60.0, unit="ms", better="lower", n=1800),
                                 rec("match.http.30min1hz", "peer", 100.0, unit="ms", better="lower", n=1800)])
        self.assertIn("✅", self.row(md, accuracy))
        self.assertIn("❌", self.row(md, http))  # 0.6× osrm-routed's time: over 0.5×
        md, _ = self.run_report([rec("match.accuracy.within2pct", "ours", 99.0, unit="%", n=200, errors=1, **seed),
                                 rec("match.accuracy.within2pct", "peer", 99.0, unit="%", n=200),
                                 rec("match.http.30min1hz", "ours", 40.0, unit="ms", better="lower", n=1800),
                                 rec("match.http.30min1hz", "peer", 100.0, unit="ms", better="lower", n=1800)])
        self.assertIn("❌ (1 errors)", self.row(md, accuracy))
        self.assertIn("✅", self.row(md, http))

    def test_cold_and_after_a_write_stand_beside_the_clusters_query(self):
        md, _ = self.run_report([rec("clusters.1m.query_p50", "ours", 40.0, unit="µs", better="lower"),
                                 rec("clusters.1m.query_p50", "peer", 9.0, unit="µs", better="lower"),
                                 rec("clusters.1m.query_cold_p50", "ours", 89.0, unit="µs", better="lower"),
                                 rec("clusters.1m.query_after_write_p50", "ours", 20.0, unit="µs", better="lower")])
        row = self.row(md, "1M parties: viewport query p50")
        self.assertIn("no tile kept: 89.0 µs", row)
        self.assertIn("right after a write in view: 20.0 µs", row)
        self.assertIn("❌", row)
        self.assertNotIn("query_cold_p50", md)  # not repeated under "Other figures"


    def test_the_cli_transform_row_gives_the_per_core_ratio(self):
        # ours 60 M points/s on 2 cores, cs2cs 5 and pyproj 4 on one thread: 12× whole, 6× a core
        md, readme = self.run_report([rec("coordinates.cli.5179", "ours", 60.0, cores=2),
                                      rec("coordinates.cli.5179", "peer-cs2cs", 5.0, cores=1, impl="cs2cs"),
                                      rec("coordinates.cli.5179", "peer-pyproj-csv", 4.0, cores=1)])
        row = self.row(md, "CLI `taxipot transform` → 5179, 1M lines")
        self.assertIn("12× better (ours on 2 cores, the peer on 1 thread; per core 6×)", row)
        self.assertIn("✅", row)
        self.assertIn("per core 6×", self.row(readme, "Coordinates"))
        # a time (lower is better): ours 10 s on 2 cores against 15 s on one thread is 0.75× a core
        md, _ = self.run_report([rec("routing.synth.1m.prepare_s", "ours", 10.0, unit="s", better="lower", cores=2),
                                 rec("routing.synth.1m.prepare_s", "peer", 15.0, unit="s", better="lower", cores=1)])
        self.assertIn("per core 0.75×", self.row(md, "synthetic 1M nodes: import + prepare"))

    def test_a_figure_from_another_commit_or_time_says_so_in_its_row(self):
        meta = "0.5 0.7 600 abc1234 clean 2026-12-07 18:00 UTC"  # 18:00 to 18:10 UTC, commit abc1234
        at = 1796666400 + 120  # 2026-12-07 18:02 UTC
        md, _ = self.run_report([
            rec("coordinates.5179", "ours", 40.0, commit="abc1234", started_at=at),
            rec("coordinates.5179", "peer", 5.0, commit="abc1234", started_at=at),
            rec("coordinates.katec", "ours", 40.0, commit="def5678", started_at=at - 86400),  # spliced in
            rec("coordinates.katec", "peer", 5.0, commit="abc1234", started_at=at),
            rec("coordinates.3857", "ours", 40.0),  # written by hand: no stamp
            rec("coordinates.3857", "peer", 5.0, commit="abc1234", started_at=at)], meta=meta)
        self.assertNotIn("not this run's", self.row(md, "WGS84 → UTM-K (5179), 1M points"))
        self.assertIn("not this run's: ours: commit `def5678`, 2026-12-06 18:02 UTC", self.row(md, "WGS84 → KATEC, 1M points"))
        self.assertIn("not this run's: ours: no commit or time of its own", self.row(md, "WGS84 → Web Mercator, 1M points"))
        # the same commit but an hour after the run ended is another run too
        md, _ = self.run_report([rec("coordinates.5179", "ours", 40.0, commit="abc1234", started_at=at + 3600),
                                 rec("coordinates.5179", "peer", 5.0, commit="abc1234", started_at=at)], meta=meta)
        self.assertIn("ours: commit `abc1234`, 2026-12-07 19:02 UTC", self.row(md, "WGS84 → UTM-K (5179), 1M points"))

    def test_the_address_rows_count_every_address_with_n_in_the_label(self):
        md, _ = self.run_report([rec("addresses.all.within300", "ours", 76.5, unit="%", n=382),
                                 rec("addresses.all.median", "ours", 120.0, unit="m", better="lower", n=382),
                                 # the interpolated-only figure of taxipot-bench is not the one judged
                                 rec("addresses.within300", "ours", 85.0, unit="%", n=307)])
        row = self.row(md, "road-name addresses: within 300 m, every address (calibration held out)")
        self.assertIn("(N = 382; the data is the limit", row)
        self.assertIn("❌", row)
        self.assertIn("✅", self.row(md, "road-name addresses: median error, every address (calibration held out)"))
        p90 = rec("addresses.all.p90", "ours", None, unit="m", better="lower", n=382, miss="district-only or no answer")
        md, _ = self.run_report([p90, rec("addresses.all.median", "ours", None, unit="m", better="lower", n=382,
                                          miss="district-only or no answer")])
        self.assertIn("a miss (district-only or no answer)", self.row(md, "road-name addresses: p90 error, every address"))
        self.assertIn("| ≤ 150 m ❌ |", self.row(md, "road-name addresses: median error, every address (calibration held out)"))

    def test_matching_accuracy_is_not_judged_on_the_seed_the_matcher_was_tuned_on(self):
        accuracy = "synthetic traces: matched length within 2% of the driven one (vs osrm-routed /match)"
        peer = rec("match.accuracy.within2pct", "peer", 45.0, unit="%", n=200)
        md, _ = self.run_report([rec("match.accuracy.within2pct", "ours", 97.5, unit="%", n=200,
                                     conditions="200 random routes ≥ 1.5 km (seed 38) on x"), peer])
        self.assertIn("not judged (seed 38 is the one it was tuned on) ❌", self.row(md, accuracy))
        md, _ = self.run_report([rec("match.accuracy.within2pct", "ours", 97.5, unit="%", n=200,
                                     conditions="200 random routes ≥ 1.5 km (seed 45) on x"), peer])
        self.assertIn("≥ 95% ✅", self.row(md, accuracy))


if __name__ == "__main__":
    unittest.main()
