"""The road-name address rows, every address counted (issue 45 item 6): reads taxipot-bench's
`--addresses-dump` (one line an address of the public test set: the stations' and the tourist
sites' road addresses with a position in Seoul, its answer by the rule alone and with the
calibration held out) and scores every address, not only the ones placed by number: an answer
placed by number or on the road counts with its distance; a district-only (`dong`) answer or
none is a miss (never within 300 m; an infinite error in the percentiles).

  addresses_score.py DUMP.tsv

Records `addresses.all.{median,p90,within300}` (calibration held out) and
`addresses.all.rule.{median,p90,within300}` (the rule alone), n = every address of the dump.
taxipot-bench's own `addresses.*` records (interpolated answers only) stay under Other figures.
"""
import csv
import math
import sys

import benchlib

IMPL = "taxipot PlaceIndex"
MISSES = ("dong", "none", "")


def errors(rows, precision, error):
    """Per address: its error in metres, or infinity for a miss (district-only or no answer)."""
    out = []
    for r in rows:
        miss = r[precision] in MISSES or r[error] in ("", None)
        out.append(math.inf if miss else float(r[error]))
    return out


def share_within(errs, limit):
    return 100.0 * sum(1 for e in errs if e <= limit) / len(errs) if errs else float("nan")


def figure(key, metric, unit, better, value, n, conditions):
    """A record; an infinite percentile is a miss, said so, not a distance."""
    if value == math.inf:
        return benchlib.record(key, "ours", IMPL, metric, unit, better, [], n, conditions,
                               miss="district-only or no answer: more of the set is missed than the percentile leaves")
    return benchlib.record(key, "ours", IMPL, metric, unit, better, [value], n, conditions)


def score(path):
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    results = []
    for prefix, precision, error, how in (
            ("addresses.all.rule", "precision", "error", "the rule alone, no calibration"),
            ("addresses.all", "held_out_precision", "held_out_error",
             "calibrated per road, held out (each address placed with the calibration fitted on the other pairs)")):
        errs = errors(rows, precision, error)
        kinds = {}
        for r in rows:
            kinds[r[precision] or "none"] = kinds.get(r[precision] or "none", 0) + 1
        cond = ("every one of the %d Seoul station and tourist-site road addresses of data/places (the whole test set: "
                "no other addresses with a known position are in the repo); answers by precision: %s; district-only and "
                "unanswered ones count as misses; %s" % (len(rows), ", ".join("%s %d" % kv for kv in sorted(kinds.items())), how))
        results += [
            figure(prefix + ".median", "median error, every address", "m", "lower", benchlib.percentile(errs, 50), len(rows), cond),
            figure(prefix + ".p90", "p90 error, every address", "m", "lower", benchlib.percentile(errs, 90), len(rows), cond),
            figure(prefix + ".within300", "within 300 m, every address", "%", "higher", share_within(errs, 300), len(rows), cond),
        ]
    return results


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    benchlib.emit(score(sys.argv[1]), ["addresses: no held-out landmark-address set (large buildings people paste) is in the "
                                       "repo; the address rows are judged on the stations' and tourist sites' addresses only"])
