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
# The road network served (the graph copied to $(GRAPH)): `nodelink`, Seoul-wide from the Korean
# standard node-link network (data/nodelink, imported in its official shapefile form), for
# `make run`; `osm`, the central-Seoul OpenStreetMap extracts, for the tests and the bench.
# `make data OSM=…` builds from other OSM files and serves them. A debug BIN defaults to osm, the
# tests' network (`make derived BIN=… NETWORK=nodelink` builds the node-link graph: ~8 s of CPU in
# a debug build, ~2 s in release).
NETWORK ?= $(if $(filter $(RELEASE_BIN),$(BIN)),nodelink,osm)
ifeq ($(origin OSM),command line)
NETWORK := osm
endif
# The OSM extracts the road graph is built from, merged into one graph (every connected area
# of at least 25 nodes is served). `make data OSM="a.osm.pbf b.osm.pbf"` builds from others.
OSM ?= data/osm/seoul-central.osm.pbf data/osm/extracts/yeouido.osm.pbf \
       data/osm/extracts/dongjak_heukseok.osm.gz data/osm/extracts/songpa_jamsil.osm.gz
OSM_GRAPH := $(BUILD)/seoul-osm.graph
NODELINK_GRAPH := $(BUILD)/seoul-nodelink.graph
# The node-link network as MOLIT distributes it (EPSG:5186 shapefiles, CP949), written from the
# staged CSV subset by tools/nodelink/make-shapefiles (pyshp and pyproj in .venv-nodelink).
NODELINK_SHP := $(BUILD)/nodelink/MOCT_LINK.shp
PLACES := $(BUILD)/places.db
PLACE_SOURCES := $(wildcard data/places/*.csv data/places/*.geojson data/nodelink/*.csv)

.PHONY: run test test-heavy test-tools deps build release data derived graph bench fuzz browser-test clients-test load contract spark-test pg-test clean

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
$(OSM_GRAPH): $(OSM) Sources/Routing/GraphFile.swift
	@mkdir -p $(BUILD)
	$(BIN) import osm $(OSM) -o $@

$(NODELINK_SHP): data/nodelink/Seoul_link.csv data/nodelink/Seoul_node.csv data/nodelink/TURNINFO.csv tools/nodelink/make_shapefiles.py
	bash tools/nodelink/make-shapefiles data/nodelink $(BUILD)/nodelink

$(NODELINK_GRAPH): $(NODELINK_SHP) data/nodelink/topis_speed_20181023.csv Sources/Routing/GraphFile.swift
	$(BIN) import nodelink $(BUILD)/nodelink -o $@ --quiet \
	  --speeds data/nodelink/topis_speed_20181023.csv --speed-mapping data/nodelink/topis_standard_link_mapping_202003.csv

# The served graph: the chosen network's, copied when it differs.
graph: $(BUILD)/seoul-$(NETWORK).graph
	@cmp -s $< $(GRAPH) || cp -f $< $(GRAPH)

# The place DB follows its sources, its builder (a new category or merge rule changes the
# places) and Sources/Places (the file's format, and the search index stored in it, derived by
# the search-key rules there); the build takes about 30 s.
$(PLACES): $(PLACE_SOURCES) $(wildcard Sources/Places/*.swift) $(wildcard Sources/Import/Places/*.swift)
	@mkdir -p $(BUILD)
	$(BIN) import places --data data -o $@

derived: graph $(PLACES)

# Rebuild all derived data from scratch.
data: release
	rm -f $(GRAPH) $(OSM_GRAPH) $(NODELINK_GRAPH) $(PLACES)
	@$(MAKE) --no-print-directory derived

run: release
	@$(MAKE) --no-print-directory derived BIN=$(RELEASE_BIN)
	$(RELEASE_BIN) serve --host $(HOST) --port $(PORT) --data $(DATA)

# The XCTest suite runs on a build with line coverage (swift test --enable-code-coverage); the log
# shows a table of it per module (tools/coverage/table; no threshold). The instrumented binaries
# also serve the later steps; their own counts go to .build/profraw/ instead of the working folder.
COVERAGE_RUNS := LLVM_PROFILE_FILE=$(CURDIR)/.build/profraw/taxipot-%p.profraw

# The tests load the derived data built here (data/build: the road graph and the place DB,
# through Tests/TestSupport's TestDataset; `swift test` alone builds them in-process when absent).
# The equivalence checks sized for a release build (HEAVY_TESTS) keep their size in their own
# tier, `make test-heavy`, which .ci/run runs after `make test`.
# Lanes (tools/test/lanes): the XCTest suite in TEST_SHARDS processes of the test binary, each
# running whole test classes and loading each shared fixture once, beside the tool checks
# (tools/test/jobs), at most TEST_LANES at a time, longest first (seconds recorded in
# tools/test/seconds). On a 2-core machine the suite and its checks took 333 s in lanes against
# 754 s one after the other (docs/DESIGN.md section 11). `swift test --parallel` was no help: a
# process per test case, each loading the Seoul dataset (477 s against 495 s serial).
TEST_LANES ?= 2
TEST_SHARDS ?= 2
XCTEST_BIN := .build/debug/TaxiPotPackageTests.xctest
CODECOV := .build/debug/codecov
test: deps
	@python3 tools/touch-dependents debug
	swift build --build-tests --enable-code-coverage
	@$(COVERAGE_RUNS) $(MAKE) --no-print-directory derived BIN=$(DEBUG_BIN) NETWORK=osm
	@rm -rf $(CODECOV) && mkdir -p $(CODECOV)
	@$(COVERAGE_RUNS) python3 tools/test/lanes --lanes $(TEST_LANES) --shards $(TEST_SHARDS) \
	  --xctest $(XCTEST_BIN) --skip '$(HEAVY_TESTS)' --profile-dir $(CODECOV) \
	  --jobs tools/test/jobs --bin $(DEBUG_BIN) --times tools/test/seconds --record .build/test-logs/seconds
	@echo "Line coverage by module (the XCTest suite; no threshold):"
	@bash tools/coverage/export $(XCTEST_BIN) $(CODECOV)
	@python3 tools/coverage/table $(CODECOV)/TaxiPot.json

# The XCTest cases sized for a release build (1,200 and 1,000 Seoul route pairs against
# Dijkstra, 3,000-party matching against brute force, 100,000- and 200,000-line CSVs): the
# `make test` build and data, these cases only.
HEAVY_TESTS := SeoulExactnessTests.testAStarCostEqualsDijkstraOnRandomPairs|HierarchyQueryTests.testHierarchyRoutesEqualDijkstraOnSeoul|HierarchyQueryTests.testCustomizedHierarchyDistancesAndPathsEqualDijkstraOnSeoul|PartyOfferTests.testOffersEqualBruteForceReference|ProjWorkerPoolTests.testRoundingTiesUseOneWorker|MemoryBoundTests.testHundredThousandRowsKeepBufferedRowsBounded
test-heavy: deps
	@python3 tools/touch-dependents debug
	swift build --build-tests --enable-code-coverage
	@$(COVERAGE_RUNS) $(MAKE) --no-print-directory derived BIN=$(DEBUG_BIN) NETWORK=osm
	swift test --skip-build --enable-code-coverage --filter '$(HEAVY_TESTS)'

# The tool checks of `make test` (tools/test/jobs) one after another, on the debug binary.
test-tools:
	python3 tools/test/lanes --lanes 1 --jobs tools/test/jobs --bin $(DEBUG_BIN)

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
# through the OSRM face, whose answers are compared with osrm-routed's recorded shapes; Kakao
# Local calls; bulk quotes; a client generated from /openapi.json by openapi-python-client
# (no warning allowed) driven through a round trip (about 15 s of the step's 50 s, debug build).
clients-test:
	bash tools/clients/run-tests $(BIN) $(DATA)

# Issue 21's availability checks at full size on loopback (2,000 connections; 1,100 sockets
# trickling a header byte every 5 s), about a minute, and issue 32's table burst (4, 16 and 64
# concurrent 1,000 x 1,000 tables while /health is probed; RSS after 30 s idle), about two
# minutes; `make test` runs both small.
load: release
	@$(MAKE) --no-print-directory derived BIN=$(RELEASE_BIN)
	bash tools/load/hostile-clients $(RELEASE_BIN) full
	bash tools/load/table-burst $(RELEASE_BIN) full
# The Spark batch job (tools/spark/batch_job.py, RDD.pipe over `taxipot batch`) on local[2] over
# SPARK_ROWS rows against `taxipot batch` run alone: the same bytes. Its own target (a JVM, PySpark
# in .venv-spark and 100,000 debug-build rows take minutes); .ci/run runs it after make test.
SPARK_ROWS ?= 100000
spark-test: deps
	@python3 tools/touch-dependents debug
	swift build
	@$(MAKE) --no-print-directory derived BIN=$(DEBUG_BIN) NETWORK=osm
	bash tools/spark/test-batch-job $(DEBUG_BIN) $(SPARK_ROWS)

# The HTTP fuzzer against a server on a free port (FUZZ_REQUESTS requests).
fuzz:
	bash tools/fuzz/run-http-fuzz $(BIN) $(FUZZ_REQUESTS)

# Schemathesis against a live debug server, longer than `make test` runs it (FUZZ_EXAMPLES per
# operation, default 300; CONTRACT_PATHS: a regex of the paths to test; see tools/contract/run).
contract:
	bash tools/contract/run $(DEBUG_BIN) --fuzz

bench: release
	@$(MAKE) --no-print-directory derived BIN=$(RELEASE_BIN) NETWORK=osm
	bash tools/bench/run $(if $(QUICK),--quick,)

clean:
	rm -rf .build $(BUILD)
