#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/launch/launch.h"
#include "../../src/launch/peaks.h"
#include "../../src/launch/admit.h"
#include "../../src/launch/pole.h"
#include "../../src/launch/memmodel.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/* A command line from its words, split at spaces. */
static void
argv_of(struct strvec *argv, const char *cmd)
{
	strvec_clear(argv);
	while (*cmd) {
		size_t n = strcspn(cmd, " ");

		strvec_push_nodup(argv, xstrndup(cmd, n));
		cmd += n + (cmd[n] == ' ');
	}
}

static void
key_of(const char *cmd, const char *root, struct buf *key, struct buf *source)
{
	struct strvec argv = STRVEC_INIT;

	argv_of(&argv, cmd);
	launch_key(argv.v, root, key, source);
	CHECK(key->len > 0);
	strvec_clear(&argv);
}

static uint64_t
estimate(const char *cmd, const char *source)
{
	struct strvec argv = STRVEC_INIT;
	uint64_t est;

	argv_of(&argv, cmd);
	est = launch_estimate(argv.v, source);
	strvec_clear(&argv);
	return est;
}

static void
t_key(void)
{
	/* One compile from two checkouts: include, output and source paths all differ. */
	const char *a = "/usr/bin/c++ -I/w1/src/aten/include -DFOO -O2 -o /w1/src/build/x.o "
			"-c /w1/src/aten/x.cpp";
	const char *b = "/usr/bin/c++ -I/w2/src/aten/include -DBAR -O2 -o /w2/src/build/x.o "
			"-c /w2/src/aten/x.cpp";
	const char *o0 = "/usr/bin/c++ -O0 -c /w1/src/aten/x.cpp";
	const char *g = "/usr/bin/c++ -O2 -g -c /w1/src/aten/x.cpp";
	const char *cu80 = "nvcc -gencode arch=compute_80,code=sm_80 --threads 2 -c k/flash_fwd.cu";
	const char *cu90 = "nvcc -gencode arch=compute_90,code=sm_90 --threads 2 -c k/flash_fwd.cu";
	const char *t4 = "nvcc -gencode arch=compute_80,code=sm_80 --threads 4 -c k/flash_fwd.cu";
	const char *nodash_c = "gcc -O2 -I/inc /w1/src/lib/y.c -o y.o";
	const char *none = "gcc --version";
	const char *sibling = "gcc -c /w1/srcfoo/z.c";
	struct buf ka = BUF_INIT, kb = BUF_INIT, sa = BUF_INIT, sb = BUF_INIT;
	const char *hash;

	key_of(a, "/w1/src", &ka, &sa);
	key_of(b, "/w2/src", &kb, &sb);
	CHECK_STR(ka.s, kb.s);
	CHECK_STR(sa.s, "aten/x.cpp");
	CHECK_STR(sb.s, "aten/x.cpp");
	/* "SOURCE#" and 16 hex digits of the flags' hash */
	hash = strchr(ka.s, '#');
	CHECK(hash && hash - ka.s == 10 && strlen(hash + 1) == 16 &&
	      strspn(hash + 1, "0123456789abcdef") == 16);

	/* Flags that change memory change the key; the source part stays. */
	key_of(o0, "/w1/src", &kb, NULL);
	CHECK(strcmp(ka.s, kb.s) != 0 && !strncmp(kb.s, "aten/x.cpp#", 11));
	key_of(g, "/w1/src", &kb, NULL);
	CHECK(strcmp(ka.s, kb.s) != 0);
	key_of(cu80, NULL, &ka, &sa);
	CHECK_STR(sa.s, "k/flash_fwd.cu");
	key_of(cu90, NULL, &kb, NULL);
	CHECK(strcmp(ka.s, kb.s) != 0);
	key_of(t4, NULL, &kb, NULL);
	CHECK(strcmp(ka.s, kb.s) != 0);
	/* The same argv twice: the same key. */
	key_of(cu80, NULL, &kb, NULL);
	CHECK_STR(ka.s, kb.s);

	/* Without -c, the source file among the arguments. */
	key_of(nodash_c, "/w1/src", &ka, &sa);
	CHECK_STR(sa.s, "lib/y.c");
	/* No source at all: the compiler names the key. */
	key_of(none, "/w1/src", &ka, &sa);
	CHECK_STR(sa.s, "gcc");
	CHECK(!strncmp(ka.s, "gcc#", 4));
	/* Only whole directories of the root are cut off. */
	key_of(sibling, "/w1/src", &ka, &sa);
	CHECK_STR(sa.s, "/w1/srcfoo/z.c");
	key_of(a, NULL, &ka, &sa);
	CHECK_STR(sa.s, "/w1/src/aten/x.cpp");

	buf_release(&ka);
	buf_release(&kb);
	buf_release(&sa);
	buf_release(&sb);
}

static void
t_estimate(void)
{
	const char *cxx = "c++ -O2 -c flash_api.cpp";
	const char *cu = "nvcc -c ops.cu";
	const char *cu4 = "nvcc -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 "
			  "--generate-code arch=compute_100,code=sm_100 "
			  "--generate-code=arch=compute_120,code=sm_120 -c ops.cu";
	const char *cu4t2 = "nvcc -gencode a -gencode b -gencode c -gencode d --threads 2 -c ops.cu";
	const char *cu4t8 = "nvcc -gencode a -gencode b -gencode c -gencode d -t 8 -c ops.cu";
	const char *cu1t0 = "nvcc -gencode a --threads=0 -c ops.cu";
	const char *xcu = "c++ -x cu -c ops.cpp";
	const char *nvcc_cpp = "/usr/local/cuda/bin/nvcc -c host.cpp";

	/* C and C++: one cold estimate, whatever the path says. */
	CHECK(estimate(cxx, "csrc/flash/flash_api.cpp") == EST_LAUNCH_CXX);
	CHECK(estimate(cu, "csrc/ops.cu") == EST_LAUNCH_CUDA);
	/* Heavy kernels by path. */
	CHECK(estimate(cu, "csrc/flash/flash_fwd.cu") == EST_LAUNCH_HEAVY);
	CHECK(estimate(cu, "third_party/cutlass/gemm.cu") == EST_LAUNCH_HEAVY);
	/* 4 gencodes in every spelling, one thread: 3 GiB x 1.3 */
	CHECK(estimate(cu4, "ops.cu") == 4187593113ULL);
	/* ... on 2 threads: x 2; more threads than gencodes do not add up. */
	CHECK(estimate(cu4t2, "ops.cu") == 8375186226ULL);
	CHECK(estimate(cu4t8, "ops.cu") == 16750372452ULL);
	/* --threads=0 is one per CPU, still no more than the gencodes. */
	CHECK(estimate(cu1t0, "ops.cu") == EST_LAUNCH_CUDA);
	/* CUDA by -x cu or by nvcc itself. */
	CHECK(estimate(xcu, "ops.cpp") == EST_LAUNCH_CUDA);
	CHECK(estimate(nvcc_cpp, "host.cpp") == EST_LAUNCH_CUDA);
	CHECK(EST_LAUNCH_CXX < EST_LAUNCH_CUDA && EST_LAUNCH_CUDA < EST_LAUNCH_HEAVY);
}

static void
t_peaks(void)
{
	static const char peaks[] = "a.cu#0000000000000001 3000000000\n"
				    "a.cu#00000000000000012 7\n"
				    "b.cpp#0000000000000001 100\n"
				    "a.cu#0000000000000001 4000000000\n"
				    "c.cu#0000000000000001 5";
	const uint64_t G = 1ULL << 30;
	uint64_t v;
	int i;

	/* The last line of a key wins; a key is never a prefix of another. */
	CHECK(peaks_get(peaks, "a.cu#0000000000000001") == 4000000000ULL);
	CHECK(peaks_get(peaks, "b.cpp#0000000000000001") == 100);
	CHECK(peaks_get(peaks, "c.cu#0000000000000001") == 5);
	CHECK(peaks_get(peaks, "a.cu") == 0);
	CHECK(peaks_get(peaks, "d.cu#0000000000000001") == 0);
	CHECK(peaks_get("", "a.cu") == 0);
	CHECK(peaks_get(NULL, "a.cu") == 0);

	/* A higher peak is taken at once. */
	CHECK(peaks_learn(1 * G, 3 * G) == 3 * G);
	CHECK(peaks_learn(3 * G, 3 * G) == 3 * G);
	/* A lower one only moves a tenth of the way down. */
	CHECK(peaks_learn(10 * G, 0) == 9 * G);
	CHECK(peaks_learn(10 * G, 5 * G) == 95 * G / 10);
	/* Twenty small peaks in a row: down, never below the peak, still far from it. */
	v = 10 * G;
	for (i = 0; i < 20; i++) {
		uint64_t next = peaks_learn(v, 1 * G);

		CHECK(next < v && next > 1 * G);
		v = next;
	}
	CHECK(v > 2 * G && v < 3 * G);

	/*
	 * A rewrite keeps every other key's row and drops what is no row
	 * (issue 31: a line cut short, or planted, was carried on for ever).
	 */
	{
		struct buf out = BUF_INIT;

		peaks_rewrite("b.cpp#1 100\n"
			      "garbage\n"
			      "a.cu#1 3000000000\n"
			      "half.cu#1 12\r\n"
			      "kind:cuda 5000 3\n"
			      "x.cu#1 12abc\n"
			      " 5\n"
			      "y.cu#1  5\n"
			      "z.cu#1 5 6 7\n"
			      "w.cu#1 123456789012345678901\n"
			      "a.cu#1 4000000000\n"
			      "c.cu#1 5",
			      "a.cu#1", 1000, 0, &out);
		CHECK_STR(out.s, "b.cpp#1 100\nkind:cuda 5000 3\nc.cu#1 5\na.cu#1 3600000100\n");
		buf_reset(&out);
		peaks_rewrite("kind:cuda 5000 3\nnot a row\n", "kind:cuda", 6000, 0, &out);
		CHECK_STR(out.s, "kind:cuda 6000 4\n");
		buf_reset(&out);
		peaks_rewrite(NULL, "k#1", 7, 0, &out);
		CHECK_STR(out.s, "k#1 7\n");
		buf_release(&out);
	}
}

static void
t_oom(void)
{
	struct strvec keys = STRVEC_INIT;

	remove_tree(t_path("launch"));
	CHECK(launch_oom_read(t_path("launch"), &keys) == 0);
	CHECK(mkdir_p(t_path("launch")) == 0);
	t_write("launch/oom", "csrc/flash/flash_fwd.cu#00000000000000aa 6442450944\n"
			      "\n"
			      "ops.cu#00000000000000bb 3221225472");
	CHECK(launch_oom_read(t_path("launch"), &keys) == 2);
	CHECK(keys.n == 2 && !strcmp(keys.v[0], "csrc/flash/flash_fwd.cu#00000000000000aa") &&
	      !strcmp(keys.v[1], "ops.cu#00000000000000bb"));
	strvec_clear(&keys);
}

static void
kind_is(const char *cmd, const char *source, const char *want)
{
	struct strvec argv = STRVEC_INIT;
	struct buf kind = BUF_INIT;

	argv_of(&argv, cmd);
	launch_kind(argv.v, source, &kind);
	CHECK_STR(kind.s, want);
	strvec_clear(&argv);
	buf_release(&kind);
}

/* Kinds from real command lines: what a never-seen file is estimated like. */
static void
t_kind(void)
{
	kind_is("/usr/bin/c++ -O2 -fPIC -c aten/src/ATen/native/Sort.cpp -o Sort.o",
		"aten/src/ATen/native/Sort.cpp", "kind:cxx");
	kind_is("/usr/local/cuda/bin/nvcc -gencode arch=compute_90,code=sm_90 -gencode "
		"arch=compute_120,code=[sm_120,compute_120] --threads 4 -c ops.cu -o ops.o",
		"ops.cu", "kind:cuda-g2-t2");
	kind_is("/usr/local/cuda/bin/nvcc -gencode=arch=compute_100,code=sm_100 -c "
		"flash_fwd_hdim128.cu", "csrc/flash/flash_fwd_hdim128.cu", "kind:cuda-heavy-g1-t1");
}

#define W(t, b) { (t), 1, 'W', (b), 0, -1, 1, 0 }
#define R(t, b) { (t), 1, 'R', (b), 0, -1, 1, 0 }
#define WT(t, b, ms) { (t), 1, 'W', (b), 0, -1, 1, (ms) }
#define RT(t, b, ms) { (t), 1, 'R', (b), 0, -1, 1, (ms) }

/* The admission decision: head first, backfill that cannot delay the head, no starvation. */
static void
t_admission(void)
{
	const uint64_t G = 1ULL << 30, M = 1ULL << 20;
	/* A heavy runs; the heavy head does not fit beside it; a light one may pass. */
	struct launch_entry a[] = { R(1, 600 * M), W(2, 600 * M), W(3, 120 * M), W(4, 120 * M) };
	/* ... but not when a younger one already took the spare slot (2 slots). */
	struct launch_entry b[] = { R(1, 600 * M), W(2, 600 * M), R(3, 120 * M), W(4, 120 * M) };
	/* A younger one that would not leave room for the head once the older finish waits. */
	struct launch_entry c[] = { R(1, 600 * M), W(2, 600 * M), W(3, 500 * M) };
	/* Nothing running: the head starts whatever its size; others never before it. */
	struct launch_entry d[] = { W(5, 4 * G), W(6, 10 * M) };

	CHECK(!launch_may_start(a, 4, 2, G, 2));
	CHECK(launch_may_start(a, 4, 3, G, 2));
	CHECK(!launch_may_start(a, 4, 4, G, 2)); /* the older candidate goes first */
	CHECK(!launch_may_start(b, 4, 4, G, 2));
	CHECK(launch_may_start(b, 4, 4, G, 3));
	CHECK(!launch_may_start(c, 3, 3, G, 2));
	CHECK(launch_may_start(d, 2, 5, G, 2));
	CHECK(!launch_may_start(d, 2, 6, G, 2));
	/* The head fits: it goes, nobody passes it. */
	a[0].bytes = 300 * M;
	CHECK(launch_may_start(a, 4, 2, G, 2));
	CHECK(!launch_may_start(a, 4, 3, G, 2));
}

/* The longest waiting compile first, whatever its ticket; unknown times last, oldest first. */
static void
t_admission_longest(void)
{
	const uint64_t G = 1ULL << 30, M = 1ULL << 20;
	/* One slot, nothing runs: the longest goes, then the next longest, the unknown last. */
	struct launch_entry a[] = { WT(1, M, 100), WT(2, M, 5000), WT(3, M, 0), WT(4, M, 700) };
	/* A free slot and room: the longest (4) goes, not the oldest (2). */
	struct launch_entry b[] = { RT(1, 600 * M, 9000), WT(2, 200 * M, 10), WT(3, 120 * M, 50),
				    WT(4, 120 * M, 900) };
	/* The longest waits for memory: the next in line may pass it, the oldest may not first. */
	struct launch_entry c[] = { RT(1, 600 * M, 0), WT(2, 300 * M, 10), WT(3, 600 * M, 9000),
				    WT(4, 300 * M, 500) };
	/* A shorter one started while the longest waited holds a slot: nothing else passes. */
	struct launch_entry d[] = { RT(1, 600 * M, 0), RT(2, 300 * M, 10), WT(3, 600 * M, 9000),
				    WT(4, 10 * M, 500) };

	CHECK(launch_may_start(a, 4, 2, G, 1));
	CHECK(!launch_may_start(a, 4, 1, G, 1));
	CHECK(!launch_may_start(a, 4, 3, G, 1));
	CHECK(!launch_may_start(a, 4, 4, G, 1));
	a[1].state = 'R';
	CHECK(!launch_may_start(a, 4, 4, G, 1)); /* no free slot */
	CHECK(launch_may_start(a + 2, 2, 4, G, 1)); /* 2 gone: 4 (700 ms) next */
	CHECK(!launch_may_start(a + 2, 2, 3, G, 1));
	a[3] = a[0];
	CHECK(launch_may_start(a + 2, 2, 1, G, 1)); /* 1 (100 ms) before 3 (unknown) */
	CHECK(!launch_may_start(a + 2, 2, 3, G, 1));

	CHECK(launch_may_start(b, 4, 4, G, 2));
	CHECK(!launch_may_start(b, 4, 2, G, 2));
	CHECK(!launch_may_start(b, 4, 3, G, 2));

	CHECK(!launch_may_start(c, 4, 3, G, 3));
	CHECK(launch_may_start(c, 4, 4, G, 3));
	CHECK(!launch_may_start(c, 4, 2, G, 3));

	CHECK(!launch_may_start(d, 4, 4, G, 3));
}

/* CMake's probes, by where they run and what they compile. */
static void
t_probe(void)
{
	struct strvec argv = STRVEC_INIT;

	argv_of(&argv, "/usr/bin/c++ -o CMakeFiles/cmTC_1a2b3.dir/CMakeCXXCompilerABI.cpp.o "
		"-c /usr/share/cmake-3.31/Modules/CMakeCXXCompilerABI.cpp");
	CHECK(launch_is_probe(argv.v, "/w/src/build/CMakeFiles/CMakeScratch/TryCompile-Hx8kq2"));
	CHECK(launch_is_probe(argv.v, "/w/src/build/CMakeFiles/CMakeTmp"));
	strvec_clear(&argv);
	argv_of(&argv, "/usr/bin/c++ -o CMakeFiles/cmTC_1a2b3.dir/src.cxx.o -c src.cxx");
	CHECK(launch_is_probe(argv.v, "/w/src/build/CMakeFiles/CMakeScratch/TryCompile-Hx8kq2"));
	CHECK(!launch_is_probe(argv.v, "/w/src/build"));
	strvec_clear(&argv);
	argv_of(&argv, "/usr/bin/cc -c /w/src/build/CMakeFiles/CMakeScratch/TryCompile-x/src.c");
	CHECK(launch_is_probe(argv.v, NULL));
	strvec_clear(&argv);
	argv_of(&argv, "/usr/bin/c++ -c /w/src/build/CMakeFiles/3.31.6/CompilerIdCXX/CMakeCXXCompilerId.cpp");
	CHECK(launch_is_probe(argv.v, NULL));
	strvec_clear(&argv);
	/* CMake's ABI probe, wherever it runs: it taught the CUDA kinds ~200 MB. */
	argv_of(&argv, "/usr/local/cuda/bin/nvcc -c /usr/share/cmake-3.31/Modules/CMakeCUDACompilerABI.cu");
	CHECK(launch_is_probe(argv.v, "/w/x"));
	strvec_clear(&argv);
	argv_of(&argv, "/usr/bin/c++ -I/w/src/build -c /w/src/aten/src/ATen/native/Sort.cpp");
	CHECK(!launch_is_probe(argv.v, "/w/src/build"));
	strvec_clear(&argv);
}

static void
archs_are(const char *cmd, const char *want)
{
	struct strvec argv = STRVEC_INIT;
	struct buf a = BUF_INIT;

	argv_of(&argv, cmd);
	launch_archs(argv.v, &a);
	CHECK_STR(a.s, want);
	strvec_clear(&argv);
	buf_release(&a);
}

static void
t_launch_archs(void)
{
	archs_are("/usr/bin/c++ -O2 -c a.cpp", "-");
	archs_are("nvcc -gencode arch=compute_120,code=[sm_120,compute_120] "
		  "-gencode arch=compute_90,code=sm_90 -c a.cu", "9.0;12.0+PTX");
	archs_are("nvcc -gencode=arch=compute_90a,code=sm_90a --generate-code=arch=compute_100,code=sm_100 "
		  "-c a.cu", "9.0a;10.0");
	archs_are("nvcc -arch=sm_120 -c a.cu", "12.0");
	archs_are("nvcc -gencode arch=compute_120,code=compute_120 -c a.cu", "12.0+PTX");
}

/* The seed table: exact (path, archs, version), the largest line, comments and junk ignored. */
static void
t_seed(void)
{
	const char *t =
		"# PATH KIND ARCHS PEAK_MB SECONDS VERSION\n"
		"aten/src/ATen/native/Sort.cpp kind:cxx - 1200 40 2.6.0\n"
		"aten/src/ATen/native/transformers/cuda/flash_attn/flash_fwd.cu kind:cuda-heavy-g1-t1 12.0 5300.5 600 2.6.0\n"
		"aten/src/ATen/native/transformers/cuda/flash_attn/flash_fwd.cu kind:cuda-heavy-g1-t1 9.0 4800 500 2.6.0\n"
		"aten/src/ATen/native/Sort.cpp kind:cxx - 1300 40 2.6.0\n"
		"aten/src/ATen/native/Sort.cpp kind:cxx - 999 40 2.7.0\n"
		"aten/src/ATen/native/Sort.cpp kind:cxx - notanumber 40 2.6.0\n"
		"aten/src/ATen/native/Sort.cpp kind:cxx -\n";
	const char *fa = "aten/src/ATen/native/transformers/cuda/flash_attn/flash_fwd.cu";

	CHECK(launch_seed_lookup(t, "aten/src/ATen/native/Sort.cpp", "-", "2.6.0") == 1300 * MiB);
	CHECK(launch_seed_lookup(t, "aten/src/ATen/native/Sort.cpp", "-", "2.7.0") == 999 * MiB);
	CHECK(launch_seed_lookup(t, "aten/src/ATen/native/Sort.cpp", "-", "2.8.0") == 0);
	/* Its time, for its place in line (the longest first). */
	CHECK(launch_seed_ms(t, fa, "12.0", "2.6.0") == 600000);
	CHECK(launch_seed_ms(t, fa, "9.0", "2.6.0") == 500000);
	CHECK(launch_seed_ms(t, "aten/src/ATen/native/Sort.cpp", "-", "2.8.0") == 0);
	CHECK(launch_seed_lookup(t, fa, "12.0", "2.6.0") == (uint64_t)(5300.5 * MiB));
	CHECK(launch_seed_lookup(t, fa, "9.0", "2.6.0") == 4800 * MiB);
	CHECK(launch_seed_lookup(t, fa, "9.0;12.0", "2.6.0") == 0);
	CHECK(launch_seed_lookup("", fa, "9.0", "2.6.0") == 0);
	CHECK(launch_seed_lookup(NULL, fa, "9.0", "2.6.0") == 0);
}

/*
 * Issue 22: a kind's bound stays at the default until enough real units of
 * it have run (protobuf-lite's 200 MB taught C++ 251 MB); then its largest
 * peak + 25 % bounds unseen files. Own peaks and seeds come first.
 */
static void
t_kind_bound(void)
{
	const uint64_t def = EST_LAUNCH_CXX;
	struct buf t = BUF_INIT;

	buf_addf(&t, "kind:cxx %llu 1\n", (unsigned long long)(200 * MiB));
	CHECK(launch_estimate_from(t.s, "x.cpp#1", "kind:cxx", 0, def) == def);
	CHECK(peaks_samples(t.s, "kind:cxx") == 1);
	buf_reset(&t);
	buf_addf(&t, "kind:cxx %llu %u\n", (unsigned long long)(200 * MiB),
		 LAUNCH_KIND_MIN_SAMPLES - 1);
	CHECK(launch_estimate_from(t.s, "x.cpp#1", "kind:cxx", 0, def) == def);
	buf_reset(&t);
	buf_addf(&t, "kind:cxx %llu %u\n", (unsigned long long)(800 * MiB), LAUNCH_KIND_MIN_SAMPLES);
	CHECK(launch_estimate_from(t.s, "x.cpp#1", "kind:cxx", 0, def) == 1000 * MiB);
	/* An old "kind:cxx BYTES" line (no count) never bounds. */
	CHECK(launch_estimate_from("kind:cxx 1000\n", "x.cpp#1", "kind:cxx", 0, def) == def);
	/* A seed wins over the kind; the file's own peak over the seed. */
	CHECK(launch_estimate_from(t.s, "x.cpp#1", "kind:cxx", 3000 * MiB, def) == 3300 * MiB);
	buf_addf(&t, "x.cpp#1 %llu\n", (unsigned long long)(100 * MiB));
	CHECK(launch_estimate_from(t.s, "x.cpp#1", "kind:cxx", 3000 * MiB, def) == 110 * MiB);
	CHECK(launch_estimate_from(NULL, "x.cpp#1", "kind:cxx", 0, def) == def);
	buf_release(&t);
}

/* The learned table is keyed by the tree's version, under the cache directory. */
static void
t_table(void)
{
	struct buf p = BUF_INIT;

	mkdir_p(t_path("v26"));
	mkdir_p(t_path("v27"));
	t_write("v26/version.txt", "2.6.0a0\n");
	CHECK(launch_table_path("/c/bwbuild", t_path("v26"), &p) == 0);
	CHECK_STR(p.s, "/c/bwbuild/peaks/pytorch-2.6.0.peaks");
	buf_reset(&p);
	/* No version, no shared table: an extension's csrc/x.cu is not torch's. */
	CHECK(launch_table_path("/c/bwbuild", t_path("no-such-tree"), &p) == -1);
	CHECK_STR(p.s, "");
	launch_tree_version(t_path("no-such-tree"), &p);
	CHECK_STR(p.s, "unknown");
	buf_reset(&p);
	t_write("v27/version.txt", "  2.7.1+cu128\n");
	launch_tree_version(t_path("v27"), &p);
	CHECK_STR(p.s, "2.7.1");
	buf_release(&p);
}

/* The long pole's nvcc flags: one thread per gencode, none for a command that chose its own. */
static void
t_pole(void)
{
	struct strvec three = STRVEC_INIT, split = STRVEC_INIT, gcc = STRVEC_INIT, out = STRVEC_INIT;
	struct buf said = BUF_INIT;
	unsigned g;
	char *old = t_env_save(LAUNCH_ENV_SPLIT);

	argv_of(&three, "ccache /cuda/bin/nvcc -gencode=arch=compute_90,code=sm_90 -gencode "
			"arch=compute_100,code=sm_100 --generate-code=arch=compute_120,code=sm_120 "
			"-c k.cu -o k.o");
	argv_of(&split, "nvcc -gencode=a -gencode=b --split-compile=2");
	argv_of(&gcc, "g++ -c a.cpp");
	unsetenv(LAUNCH_ENV_SPLIT);
	CHECK(launch_pole_want(three.v, "", "k", "pole:k", 8, &g) == 3 && g == 3);
	CHECK(launch_pole_want(split.v, "", "k", "pole:k", 8, &g) == 1);
	CHECK(launch_pole_want(gcc.v, "", "k", "pole:k", 8, &g) == 1 && g == 0);
	/* The extra cores did not pay: pole:k no faster than k by 10 %. */
	CHECK(launch_pole_want(three.v, "k 1000\npole:k 950\n", "k", "pole:k", 8, &g) == 1);
	launch_pole_args(three.v, 2, 3, &out, &said);
	CHECK(out.n == 11 && !strcmp(out.v[2], "--threads=2") && !strcmp(said.s, " --threads=2"));
	t_env_restore(LAUNCH_ENV_SPLIT, old);
	strvec_clear(&three);
	strvec_clear(&split);
	strvec_clear(&gcc);
	strvec_clear(&out);
	buf_release(&said);
}

void
t_launch(void)
{
	t_pole();
	t_probe();
	t_launch_archs();
	t_seed();
	t_kind_bound();
	t_table();
	t_kind();
	t_admission();
	t_admission_longest();
	t_key();
	t_estimate();
	t_peaks();
	t_oom();
}
