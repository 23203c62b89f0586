# Taxipot engine. `make run` and `make test` do all set-up on a fresh Debian machine.
SHELL := /bin/bash
HOST ?= 127.0.0.1
PORT ?= 8080
DATA ?= data
BUILD := data/build
RELEASE_BIN := .build/release/taxipot
DEBUG_BIN := .build/debug/taxipot

.PHONY: run test deps build release data bench clean

deps:
	@bash tools/install-deps

build: deps
	swift build

release: deps
	swift build -c release

# Derived data (graph, place DB) from the sources in data/; rebuilt only when absent or older.
$(BUILD)/seoul.graph: data/osm/seoul-central.osm.pbf | release
	@mkdir -p $(BUILD)
	$(RELEASE_BIN) import osm data/osm/seoul-central.osm.pbf -o $@

$(BUILD)/places.db: $(wildcard data/places/*.csv data/places/*.geojson) | release
	@mkdir -p $(BUILD)
	$(RELEASE_BIN) import places --data data -o $@

data: release
	@rm -f $(BUILD)/seoul.graph $(BUILD)/places.db
	@$(MAKE) --no-print-directory $(BUILD)/seoul.graph $(BUILD)/places.db

run: release $(BUILD)/seoul.graph $(BUILD)/places.db
	$(RELEASE_BIN) serve --host $(HOST) --port $(PORT) --data $(DATA)

test: deps
	swift build --build-tests
	swift test --skip-build

bench: release $(BUILD)/seoul.graph $(BUILD)/places.db
	bash tools/bench/run $(if $(QUICK),--quick,)

clean:
	rm -rf .build $(BUILD)
