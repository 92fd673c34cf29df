# lance-cpp: the two commands of the README quick start, and a few more.
MAKEFLAGS += --no-print-directory
#   make run    install what is missing, build Release, run the demo
#   make test   install what is missing, build, run every test (unit, interop, CLI)
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
WERROR ?= ON
CMAKE_FLAGS ?=

.PHONY: all deps npm configure build run test bench fuzz clean

all: build

deps:
	@scripts/install-deps.sh

npm: deps
	@scripts/install-npm.sh

$(BUILD_DIR)/CMakeCache.txt:
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DLANCE_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null

configure: deps $(BUILD_DIR)/CMakeCache.txt

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@$(BUILD_DIR)/lance demo

test: build npm
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 900

bench: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DLANCE_BUILD_BENCH=ON >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target lance_bench lance_cli

# make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="file_reader_fuzz ..."]: builds every libFuzzer
# target (clang, ASan+UBSan) and runs each for FUZZ_SECONDS from its seeds in fuzz/corpus/<target>/.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(sort $(basename $(notdir $(shell find src -name '*_fuzz.cc'))))
fuzz:
	@LANCE_WITH_CLANG=1 scripts/install-deps.sh
	@CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLANCE_FUZZ=ON >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target $(FUZZ_TARGETS)
	@scripts/run-fuzzers.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD_DIR) build-fuzz
