# Taxipot engine. `make run` and `make test` do all set-up on a fresh Debian machine.
SHELL := /bin/bash
HOST ?= 127.0.0.1
PORT ?= 8080
DATA ?= data
BUILD := data/build
RELEASE_BIN := .build/release/taxipot
DEBUG_BIN := .build/debug/taxipot
# The binary that builds derived data: release for run/bench, debug for test (no extra build).
BIN ?= $(RELEASE_BIN)
FUZZ_REQUESTS ?= 20000

GRAPH := $(BUILD)/seoul.graph
# The OSM extracts the road graph is built from, merged into one graph (every connected area
# of at least 25 nodes is served). `make data OSM="a.osm.pbf b.osm.pbf"` builds from others.
OSM ?= data/osm/seoul-central.osm.pbf data/osm/extracts/yeouido.osm.pbf \
       data/osm/extracts/dongjak_heukseok.osm.gz data/osm/extracts/songpa_jamsil.osm.gz
PLACES := $(BUILD)/places.db
PLACE_SOURCES := $(wildcard data/places/*.csv data/places/*.geojson)

.PHONY: run test deps build release data derived bench fuzz browser-test clients-test load contract spark-test pg-test clean

deps:
	@bash tools/install-deps

# tools/touch-dependents first: SwiftPM's incremental build misses layout changes that keep a
# module's interface (a private stored property), leaving its dependents with the old layout.
build: deps
	@python3 tools/touch-dependents debug
	swift build

# The Swift runtime and Foundation linked in statically: a self-contained binary that starts in
# about 12 ms instead of 20 (no relocations against ~15 shared Swift libraries at every start).
RELEASE_FLAGS := -c release --static-swift-stdlib

release: deps
	@python3 tools/touch-dependents release
	swift build $(RELEASE_FLAGS)

# Derived data (road graph, place DB) from the sources in data/, rebuilt when absent or older
# than their sources. The graph also follows the file that defines its format version (and the
# place DB the file that defines its checksum), so a checkout with a new format rebuilds it
# instead of serving a refusal.
$(GRAPH): $(OSM) Sources/Routing/GraphFile.swift
	@mkdir -p $(BUILD)
	$(BIN) import osm $(OSM) -o $@

$(PLACES): $(PLACE_SOURCES) Sources/Places/PlaceFileChecksum.swift
	@mkdir -p $(BUILD)
	$(BIN) import places --data data -o $@

derived: $(GRAPH) $(PLACES)

# Rebuild all derived data from scratch.
data: release
	rm -f $(GRAPH) $(PLACES)
	@$(MAKE) --no-print-directory derived

run: release
	@$(MAKE) --no-print-directory derived BIN=$(RELEASE_BIN)
	$(RELEASE_BIN) serve --host $(HOST) --port $(PORT) --data $(DATA)

test: deps
	@python3 tools/touch-dependents debug
	swift build --build-tests
	@$(MAKE) --no-print-directory derived BIN=$(DEBUG_BIN)
	swift test --skip-build
	python3 -m unittest discover -s tools/bench -p 'test_*.py'
	bash tools/systemd/verify $(DEBUG_BIN)
	bash tools/contract/run $(DEBUG_BIN)
	@$(MAKE) --no-print-directory fuzz BIN=$(DEBUG_BIN)
	@$(MAKE) --no-print-directory browser-test BIN=$(DEBUG_BIN)
	@$(MAKE) --no-print-directory clients-test BIN=$(DEBUG_BIN)
	bash tools/load/hostile-clients $(DEBUG_BIN) quick
	bash tools/pg/test-replicas $(DEBUG_BIN)

# Replicas on a shared PostgreSQL party store (issue 27): its own PostgreSQL server in a
# temporary folder, two replicas, visibility, racing joins, kill -9 and an outage (~45 s debug).
pg-test:
	bash tools/pg/test-replicas $(BIN)

# The map page in headless Chromium (Debian's) driven by Playwright (PyPI, in .venv-test):
# installs what is missing, starts its own server on a free port, writes screenshots to
# .build/screenshots/.
browser-test:
	bash tools/browser/run-tests $(BIN) $(DATA)

# Existing clients against the server (issue 37): routingpy and osrm-py (PyPI, in .venv-clients)
# through the OSRM face, whose answers are compared with osrm-routed's recorded shapes.
clients-test:
	bash tools/clients/run-tests $(BIN) $(DATA)

# Issue 21's availability checks at full size on loopback (2,000 connections; 1,100 sockets
# trickling a header byte every 5 s), about a minute; `make test` runs them small.
load: release
	@$(MAKE) --no-print-directory derived BIN=$(RELEASE_BIN)
	bash tools/load/hostile-clients $(RELEASE_BIN) full
# The Spark batch job (tools/spark/batch_job.py, RDD.pipe over `taxipot batch`) on local[2] over
# SPARK_ROWS rows against `taxipot batch` run alone: the same bytes. Its own target (a JVM, PySpark
# in .venv-spark and 100,000 debug-build rows take minutes); .ci/run runs it after make test.
SPARK_ROWS ?= 100000
spark-test: deps
	@python3 tools/touch-dependents debug
	swift build
	@$(MAKE) --no-print-directory derived BIN=$(DEBUG_BIN)
	bash tools/spark/test-batch-job $(DEBUG_BIN) $(SPARK_ROWS)

# The HTTP fuzzer against a server on a free port (FUZZ_REQUESTS requests).
fuzz:
	bash tools/fuzz/run-http-fuzz $(BIN) $(FUZZ_REQUESTS)

# Schemathesis against a live debug server, longer than `make test` runs it (FUZZ_EXAMPLES per
# operation, default 300; CONTRACT_PATHS: a regex of the paths to test; see tools/contract/run).
contract:
	bash tools/contract/run $(DEBUG_BIN) --fuzz

bench: release
	@$(MAKE) --no-print-directory derived BIN=$(RELEASE_BIN)
	bash tools/bench/run $(if $(QUICK),--quick,)

clean:
	rm -rf .build $(BUILD)
