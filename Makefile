# The README's two commands. Both install what is missing, then build.
BUILD ?= build
# The sanitizer build (ASan + UBSan + the fuzz targets), clang-22 only;
# -O1 with line tables: quick to build, and reports still name source lines.
SAN_BUILD ?= build-san
JOBS  ?= $(shell nproc)
FUZZ_SECONDS ?= 180

.PHONY: all deps configure build run test test-release test-sanitize sanitize fuzz clean bench package

all: build

deps:
	bash scripts/install-deps

configure: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release; fi

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	@echo "== tether check examples/ =="
	@$(BUILD)/bin/tether check examples/; rc=$$?; \
	  echo "== tether exited $$rc (1 = findings) =="; [ $$rc -le 1 ]

# The Debian package: $(BUILD)/tether_<version>_amd64.deb (CPack).
package: build
	cmake --build $(BUILD) --target package

# Every test twice: the release build, then the same suite (and a short
# smoke run of every fuzz target) under ASan + UBSan.
test: test-release test-sanitize

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: deps
	@if [ ! -f $(SAN_BUILD)/build.ninja ]; then \
	  cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
	    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
	    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DTETHER_SANITIZE=ON; fi
	cmake --build $(SAN_BUILD) -j $(JOBS)

test-sanitize: sanitize
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS)

# make fuzz [FUZZ_SECONDS=180] [FUZZ_TARGETS="python config"]
fuzz: sanitize
	bash scripts/fuzz.sh $(SAN_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench: build
	bash bench/run-all.sh

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
