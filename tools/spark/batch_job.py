"""Fare estimates for a large CSV on Spark: `taxipot batch` as a filter inside RDD.pipe.

    spark-submit tools/spark/batch_job.py IN.csv OUT_DIR [--taxipot BIN] [--data DIR]
        [--master local[2]] [--partitions N] [--workers N] [--depart-at ISO8601] [--shared-path]

IN.csv has a header line (the columns `taxipot batch` reads: origin_lon, origin_lat, dest_lon,
dest_lat or origin, destination, and the optional ones; any other column is carried through)
and one record per line (no line breaks inside quoted fields: Spark splits text files at line
ends). OUT_DIR (must not exist) receives the result as Spark text parts: part-00000 holds the
header line (the input columns, then the result columns), the following parts hold the rows,
in input order; `cat OUT_DIR/part-*` is the whole result CSV.

Every partition runs one `taxipot batch --columns <header>` process (no header line in, none
out, rows in input order). The binary and the dataset folder (DIR/build/seoul.graph,
DIR/build/places.db, DIR/traffic, DIR/fares) are shipped to the executors with
SparkContext.addFile, so the executors need nothing installed; use the release binary
(`make release`: the Swift runtime linked in statically). With --shared-path nothing is
shipped: every executor reads the binary and the folder at the paths given (a shared mount,
or local mode).

A partition whose process fails (exit 1: unreadable data folder, bad columns) fails its task,
and so the job; rows the engine cannot price (exit 2) are results with their error column set.
"""

import argparse
import csv
import os
import shlex
import sys

from pyspark import SparkConf, SparkContext, SparkFiles

# The columns `taxipot batch` appends to every row (Sources/Batch/BatchSchema.swift).
RESULT_COLUMNS = ["distance_m", "duration_s", "fare_krw", "per_person_krw", "night_krw", "schedule",
                  "error_code", "error_message", "error"]

# Runs taxipot from $TAXIPOT_ROOT (the folder the files were shipped to; "." on a cluster's
# executors, whose working folder holds them) and treats exit 2 (some rows failed, each with its
# error column) as success, so that only a real failure fails the task.
LAUNCHER = (
    'r="${TAXIPOT_ROOT:-.}"; b="$1"; d="$2"; shift 2; '
    'case "$b" in /*) ;; *) b="$r/$b";; esac; case "$d" in /*) ;; *) d="$r/$d";; esac; '
    '"$b" batch --data "$d" --progress none "$@"; s=$?; [ "$s" -eq 2 ] && exit 0; exit "$s"'
)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="the input CSV (with a header line)")
    p.add_argument("output", help="the output folder (must not exist)")
    p.add_argument("--taxipot", default=".build/release/taxipot", help="the taxipot binary")
    p.add_argument("--data", default="data", help="the dataset folder (with build/)")
    p.add_argument("--master", default=None, help="Spark master (default: spark-submit's, else local[2])")
    p.add_argument("--partitions", type=int, default=None, help="minimum input partitions")
    p.add_argument("--workers", type=int, default=1, help="estimating threads per taxipot process")
    p.add_argument("--depart-at", default=None, help="departure for rows without depart_at")
    p.add_argument("--shared-path", action="store_true",
                   help="ship nothing: executors use --taxipot and --data at these paths")
    return p.parse_args(argv)


def header_columns(line):
    """The header's column names, refused when `--columns` cannot carry them."""
    names = next(csv.reader([line.lstrip("\ufeff")]))
    for i, name in enumerate(names):
        if not name.strip():
            sys.exit(f"batch_job: header column {i + 1} is empty")
        if "," in name:
            sys.exit(f"batch_job: header column {i + 1} '{name}' has a comma, which --columns cannot carry")
    return names


def main(argv):
    args = parse_args(argv)
    for path, what in ((args.taxipot, "--taxipot"), (args.data, "--data")):
        if not os.path.exists(path):
            sys.exit(f"batch_job: {what} {path}: no such file or folder")
    conf = SparkConf().setAppName("taxipot-batch")
    if args.master or not conf.contains("spark.master"):
        conf.setMaster(args.master or "local[2]")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("WARN")
    try:
        lines = sc.textFile(args.input, args.partitions) if args.partitions else sc.textFile(args.input)
        first = lines.take(1)
        if not first:
            sys.exit(f"batch_job: {args.input} is empty: it has no header line")
        header_line = first[0]
        columns = header_columns(header_line)

        if args.shared_path:
            binary, data, env = os.path.abspath(args.taxipot), os.path.abspath(args.data), {}
        else:
            sc.addFile(os.path.abspath(args.taxipot))
            sc.addFile(os.path.abspath(args.data), recursive=True)
            binary, data = os.path.basename(args.taxipot), os.path.basename(os.path.normpath(args.data))
            # Local mode's executors run in the driver's process: the files are in its folder.
            local = sc.master.startswith("local")
            env = {"TAXIPOT_ROOT": SparkFiles.getRootDirectory() if local else "."}
        command = ["/bin/sh", "-c", LAUNCHER, "taxipot-batch", binary, data,
                   "--columns", ",".join(c.strip() for c in columns), "--workers", str(args.workers)]
        if args.depart_at:
            command += ["--depart-at", args.depart_at]

        # The header is the first line of partition 0 (a text file's first split starts at byte 0).
        rows = lines.mapPartitionsWithIndex(lambda i, it: _drop_first(it) if i == 0 else it,
                                            preservesPartitioning=True)
        results = rows.pipe(" ".join(shlex.quote(c) for c in command), env=env, checkCode=True)
        out_header = ",".join(_csv_field(c) for c in columns + RESULT_COLUMNS)
        sc.parallelize([out_header], 1).union(results).saveAsTextFile(args.output)
    finally:
        sc.stop()


def _drop_first(iterator):
    next(iterator, None)
    return iterator


def _csv_field(text):
    if any(ch in text for ch in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
