# SPDX-License-Identifier: MIT
# hpmon: a thin front to CMake and the test lanes. Every target installs
# what is missing first (scripts/deps), so a fresh Debian 12 machine needs
# nothing but make.
BUILD    ?= build
SANBUILD ?= build-san
PREFIX   ?= /usr/local
JOBS     ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build check check-quick check-unit check-e2e \
        check-san check-fuzz check-guest fuzz demo install aarch64 clean

all: build

deps:
	@scripts/deps host

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Every test lane: unit + end-to-end, the same under ASan/UBSan, a short
# fuzzing run of every parser, and the arm64 guest lane (real PMU).
# scripts/check ends with "check: N passed, F failed, S skipped", after
# the reason of every skip.
check: build
	HPM_BUILD=$(BUILD) scripts/check

# The native lane only: unit + end-to-end tests of build/, in parallel.
check-quick: build
	HPM_BUILD=$(BUILD) scripts/check native

check-unit check-e2e: build
	HPM_BUILD=$(BUILD) scripts/check $(subst check-,,$@)

check-san: deps
	scripts/check san

check-fuzz: deps
	scripts/check fuzz

check-guest: deps
	scripts/check guest

# Long fuzzing run (FUZZ_SECONDS per fuzzer, default 600).
fuzz: deps
	FUZZ_SECONDS=$${FUZZ_SECONDS:-600} scripts/fuzz

# Only what the demo runs: the tool and four workloads, not the tests.
DEMO_TARGETS = hpmon wl-threads wl-sleeper wl-ratio wl-pages
demo: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	scripts/demo

# The prefix is configured (not only given to --install) so that
# libhpmon.pc names where the files really are.
install: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	cmake --build $(BUILD) -j $(JOBS) >/dev/null
	cmake --install $(BUILD)

# Static aarch64 build for the guest lane: build-aarch64/hpmon
aarch64:
	@scripts/deps guest
	scripts/build-aarch64

clean:
	rm -rf $(BUILD) $(SANBUILD) build-fuzz build-aarch64
