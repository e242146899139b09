# The README's two commands. Both install what is missing, then build.
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: all deps configure build run test clean bench

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

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	bash bench/run-all.sh

clean:
	rm -rf $(BUILD)
