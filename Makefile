# bwbuild: `make` builds bin/bwbuild; `make demo` and `make test` are the
# two commands of README.md and do all set-up on a fresh Debian 12 machine.

.SUFFIXES:

CC = cc
PKG_CONFIG = pkg-config
PKGS = libgit2 yaml-0.1 libcjson libcrypto zlib libzstd liblz4
WARN = -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
	-Wvla -Wwrite-strings -Wno-unused-parameter
CFLAGS = -std=c17 -O2 -g $(WARN)
CPPFLAGS = -D_GNU_SOURCE
LDFLAGS =
PKG_CFLAGS = `$(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null`
PKG_LIBS = `$(PKG_CONFIG) --libs $(PKGS) 2>/dev/null` -pthread

LIBOBJ = obj/arch.o obj/buf.o obj/build.o obj/compile.o obj/fetch.o obj/package.o obj/publish.o obj/resolve.o obj/step.o obj/workdir.o obj/ccache.o obj/cmakecache.o obj/cmakeopts.o obj/compat.o obj/configure.o obj/diff.o obj/diag.o obj/doctor.o obj/elf.o obj/elfscan.o obj/era.o obj/fatbin.o obj/git.o \
	obj/hash.o obj/host.o obj/json.o obj/knowledge.o obj/launch.o obj/manifest.o obj/manylinux.o obj/patch.o obj/plan.o obj/proc.o obj/profile.o \
	obj/python.o obj/record.o obj/strvec.o obj/util.o obj/verify.o obj/zip.o
LIBOBJ += obj/options.o obj/report.o
CMDOBJ = obj/main.o obj/cmd_opts.o obj/cmd_build.o obj/cmd_plan.o obj/cmd_verify.o obj/cmd_manifest.o obj/cmd_diff.o obj/cmd_doctor.o obj/cmd_profiles.o obj/cmd_launch.o
HDR = src/*.h

all: bin/bwbuild

bin/bwbuild: $(LIBOBJ) $(CMDOBJ)
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(LIBOBJ) $(CMDOBJ) $(PKG_LIBS)

obj/libbwbuild.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

obj/%.o: src/%.c $(HDR)
	@mkdir -p obj
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

UNIT_SRC = tests/unit/t_main.c tests/unit/t_arch.c tests/unit/t_profile.c tests/unit/t_fatbin.c \
	tests/unit/t_record.c tests/unit/t_zip.c tests/unit/t_plan.c tests/unit/t_manifest.c \
	tests/unit/t_compat.c tests/unit/t_manylinux.c tests/unit/t_knowledge.c tests/unit/t_cmakecache.c tests/unit/t_era.c tests/unit/t_patch.c tests/unit/t_sources.c tests/unit/t_options.c
FUZZ = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

tests/bin/unit: $(UNIT_SRC) tests/unit/t.h obj/libbwbuild.a
	@mkdir -p tests/bin
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(UNIT_SRC) obj/libbwbuild.a $(PKG_LIBS)

tests/bin/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c obj/libbwbuild.a
	@mkdir -p tests/bin
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/driver.c obj/libbwbuild.a $(PKG_LIBS)

test-bins: tests/bin/unit $(FUZZ:%=tests/bin/fuzz_%)

# libFuzzer builds of the same targets, for real fuzzing (clang).
fuzz-%: tests/fuzz/fuzz_%.c
	@mkdir -p tests/bin
	clang $(CPPFLAGS) -g -O1 -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS) -o tests/bin/libfuzzer_$* \
		$< $(LIBOBJ:obj/%.o=src/%.c) $(PKG_LIBS)

# Benchmarks print a table with the peer measured in the same run.
bench-verify: all
	@sh scripts/bench-verify.sh $(WHEEL)

bench-sched: all
	@sh scripts/bench-sched.sh

bench: bench-verify bench-sched

deps:
	@sh scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

test: deps
	@$(MAKE) --no-print-directory all test-bins
	@sh tests/run.sh

# Unit tests, fuzz-corpus replay and CLI tests under ASan and UBSan.
asan: deps
	@$(MAKE) --no-print-directory clean-obj
	@$(MAKE) --no-print-directory all test-bins \
		CPPFLAGS=-D_GNU_SOURCE CFLAGS="-std=c17 -O1 -g $(WARN) -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined"
	@ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp sh tests/run.sh
	@$(MAKE) --no-print-directory clean-obj

# Every header compiles on its own.
check-headers:
	@for h in src/*.h; do \
		echo "#include \"$$h\"" | $(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -I. -x c -fsyntax-only - || exit 1; \
	done

clean-obj:
	rm -rf obj bin tests/bin

clean: clean-obj
	rm -rf build work out

.PHONY: all deps demo test test-bins asan check-headers clean clean-obj
