# retrace - thin wrapper over CMake: dependencies, build, demo, tests, benchmarks.
#   make demo       install what is missing, build, run the demo on bundled examples
#   make test       install what is missing, build, run every test (ctest summary)
#   make test-asan  the same tests in an ASan + UBSan build (build-asan/)
#   make bench      build and run the benchmarks in bench/ (never part of the tests)
#   make fuzz       libFuzzer on each C reader, FUZZ_SECONDS (60) each
#   make docs       the Lua API reference (lua-ldoc) in build/docs/api/
#   make install [PREFIX=/usr/local] [DESTDIR=]  program, Lua library (require "retrace"),
#                   man pages, bash completion; PREFIX/share/retrace/env.sh for other prefixes
PREFIX ?= /usr/local
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

DEB_PACKAGES = liblua5.4-dev lua5.4 lua-filesystem libcairo2-dev libpng-dev libfontconfig-dev libfftw3-dev \
  libreadline-dev lua-cjson lua-argparse libcmocka-dev lua-busted cmake pkg-config \
  gcc make poppler-utils fonts-dejavu-core libgraphviz-dev libopen-trace-format2-dev libgsl-dev \
  valgrind libdw-dev libopenmpi-dev openmpi-bin libblas-dev libmicrohttpd-dev ffmpeg \
  libzstd-dev
# packages the tests use when present (a browser for the HTML player and gallery, xmllint
# for well-formed pages, cmark for the README, lua-ldoc (run by lua5.1) for the API reference,
# the OTF2 and Pajé reference tools, chromium-driver and python3-selenium for the viewer's
# browser tests, time for peak-memory checks, man-db to read the installed man pages)
DEB_TEST_PACKAGES = chromium libxml2-utils cmark otf2-tools pajeng chromium-driver python3-selenium time \
  lua-ldoc lua5.1 man-db

.PHONY: all deps build demo test test-asan bench fuzz install clean docs

all: build

# Install missing Debian packages by name; touch apt only when something is missing.
deps:
	@missing=""; for p in $(DEB_PACKAGES) $(DEB_TEST_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing || exit 1; \
	  else \
	    echo "missing packages; run:"; echo "  sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

# CI builds with -Werror; a local build only warns
WERROR = $(if $(CI),ON,OFF)

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRETRACE_WERROR=$(WERROR)

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

demo: build docs
	@sh examples/demo.sh $(BUILD)/retrace

# the Lua API reference, from the --- comments of lua/retrace (lua-ldoc): BUILD/docs/api/index.html
docs: deps
	@mkdir -p $(BUILD)/docs
	cd lua && ldoc -q -d $(abspath $(BUILD))/docs/api -p retrace -t "retrace Lua API" retrace

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRETRACE_SANITIZE=ON -DRETRACE_WERROR=$(WERROR)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

bench: build
	@for b in $(BUILD)/bench/*; do [ -x "$$b" ] && { echo "== $$b"; "$$b"; }; done; \
	for s in bench/*.lua; do [ -f "$$s" ] && { echo "== $$s"; $(BUILD)/retrace "$$s"; }; done; \
	echo "== bench/mpi_overhead.sh"; sh bench/mpi_overhead.sh $(BUILD); true

# libFuzzer on each C reader for FUZZ_SECONDS each (clang; installed when missing)
FUZZ_SECONDS ?= 60
fuzz: deps
	@command -v clang >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq --no-install-recommends clang; } || \
	  { echo "make fuzz needs clang: sudo apt-get install -y clang"; exit 1; }
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DRETRACE_FUZZ=ON
	cmake --build build-fuzz -j $(JOBS) --target fuzz_targets
	sh bench/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
