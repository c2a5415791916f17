/*
 * What bwbuild launch knows about a compile before it runs: its key (source
 * and the flags that change its memory), its kind, the cold estimate, the
 * learned peaks table's text ("KEY BYTES", "kind:NAME BYTES SAMPLES"), the
 * seed tables and the tree's version that names the shared table. Pure
 * functions over text and argv; the files themselves are read and written
 * by launch.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "launch/launch.h"
#include "launch/peaks.h"
#include "launch/memmodel.h"
#include "core/strvec.h"
#include "core/util.h"

static uint64_t
fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h ^ 0xff; /* separator between arguments */
}

static int
is_source(const char *a)
{
	return ends_with(a, ".c") || ends_with(a, ".cc") || ends_with(a, ".cpp") ||
	       ends_with(a, ".cxx") || ends_with(a, ".cu");
}

/* Flags that change a compile's memory, and whether they take the next argument. */
static int
memory_flag(const char *a, int *takes_next)
{
	static const char *const with_arg[] = { "-gencode", "--generate-code", "-arch", "--threads",
						"-t", "-arch=", NULL };
	static const char *const prefixes[] = { "-gencode=", "--generate-code=", "-arch=",
						"--gpu-architecture", "--threads=", "-O", "-G",
						"-lineinfo", "-g", NULL };
	size_t i;

	*takes_next = 0;
	for (i = 0; with_arg[i]; i++) {
		if (!strcmp(a, with_arg[i])) {
			*takes_next = 1;
			return 1;
		}
	}
	for (i = 0; prefixes[i]; i++)
		if (starts_with(a, prefixes[i]))
			return 1;
	return 0;
}

void
launch_key(char *const *argv, const char *root, struct buf *key, struct buf *source)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *src = NULL, *rel;
	size_t i, rl = root ? strlen(root) : 0;

	for (i = 1; argv[i]; i++) {
		int next;

		if (!strcmp(argv[i], "-c") && argv[i + 1])
			src = argv[i + 1];
		if (memory_flag(argv[i], &next)) {
			h = fnv1a(h, argv[i]);
			if (next && argv[i + 1])
				h = fnv1a(h, argv[++i]);
		}
	}
	for (i = 1; !src && argv[i]; i++)
		if (is_source(argv[i]))
			src = argv[i];
	if (!src)
		src = argv[0];
	rel = src;
	if (rl && !strncmp(src, root, rl) && src[rl] == '/')
		rel = src + rl + 1;
	buf_reset(key);
	buf_addf(key, "%s#%016llx", rel, (unsigned long long)h);
	if (source) {
		buf_reset(source);
		buf_addstr(source, rel);
	}
}

int
launch_is_heavy(const char *source)
{
	static const char *const marks[] = { "flash", "mem_eff", "cutlass", "fmha", "mslk",
					     "fbgemm_gpu", "genai", NULL };
	size_t i;

	for (i = 0; marks[i]; i++)
		if (strstr(source, marks[i]))
			return 1;
	return 0;
}

/* What the flags say: the language, gencode count and nvcc --threads (0 = every CPU). */
static void
compile_shape(char *const *argv, const char *source, int *cuda, unsigned *gencodes,
	      unsigned *threads)
{
	const char *cc = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	*cuda = ends_with(source, ".cu") || !strcmp(cc, "nvcc");
	*gencodes = 0;
	*threads = 1;
	for (size_t i = 1; argv[i]; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-gencode") || !strcmp(a, "--generate-code"))
			(*gencodes)++;
		else if (starts_with(a, "-gencode=") || starts_with(a, "--generate-code="))
			(*gencodes)++;
		else if ((!strcmp(a, "--threads") || !strcmp(a, "-t")) && argv[i + 1])
			*threads = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (starts_with(a, "--threads="))
			*threads = (unsigned)strtoul(a + 10, NULL, 10);
		else if (!strcmp(a, "-x") && argv[i + 1] && !strcmp(argv[i + 1], "cu"))
			*cuda = 1;
	}
	if (!*gencodes)
		*gencodes = 1;
	if (*threads == 0)
		*threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (*threads > *gencodes)
		*threads = *gencodes;
	if (*threads < 1)
		*threads = 1;
}

uint64_t
launch_estimate(char *const *argv, const char *source)
{
	unsigned gencodes, threads;
	uint64_t base;
	int cuda;

	compile_shape(argv, source, &cuda, &gencodes, &threads);
	if (!cuda)
		return EST_LAUNCH_CXX;
	base = launch_is_heavy(source) ? EST_LAUNCH_HEAVY : EST_LAUNCH_CUDA;
	/* est = base x (1 + 0.1 x (n - 1)) x min(T, n)  (docs/design/scheduling.md §2) */
	return base * (10 + (gencodes - 1)) / 10 * threads;
}

void
launch_kind(char *const *argv, const char *source, struct buf *kind)
{
	unsigned gencodes, threads;
	int cuda;

	compile_shape(argv, source, &cuda, &gencodes, &threads);
	buf_addf(kind, "kind:%s%s", cuda ? "cuda" : "cxx", launch_is_heavy(source) ? "-heavy" : "");
	if (cuda)
		buf_addf(kind, "-g%u-t%u", gencodes, threads);
}

uint64_t
peaks_get(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;
	uint64_t v = 0;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			v = strtoull(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return v;
}

uint64_t
peaks_learn(uint64_t old, uint64_t peak)
{
	return old > peak ? (9 * old + peak) / 10 : peak;
}

/* The decimal number at `p` (of `n` bytes left): its length, 0 when none. */
static size_t
number_len(const char *p, size_t n)
{
	size_t k = 0;

	while (k < n && k < 20 && p[k] >= '0' && p[k] <= '9')
		k++;
	return k < n && p[k] >= '0' && p[k] <= '9' ? 0 : k;
}

/* "KEY NUMBER" or "KEY NUMBER NUMBER", KEY without spaces: `n` bytes, no newline. */
static int
row_ok(const char *l, size_t n)
{
	const char *sp = memchr(l, ' ', n);
	size_t at, k;

	if (!sp || sp == l)
		return 0;
	at = (size_t)(sp - l) + 1;
	if (!(k = number_len(l + at, n - at)))
		return 0;
	at += k;
	if (at == n)
		return 1;
	if (l[at] != ' ' || !(k = number_len(l + at + 1, n - at - 1)))
		return 0;
	return at + 1 + k == n;
}

void
peaks_rewrite(const char *text, const char *key, uint64_t value, int force, struct buf *out)
{
	size_t kl = strlen(key);
	uint64_t old = peaks_get(text, key);
	int kind = starts_with(key, "kind:");

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		if (row_ok(p, n) && (strncmp(p, key, kl) || p[kl] != ' ')) {
			buf_add(out, p, n);
			buf_addch(out, '\n');
		}
		p += n + (p[n] == '\n');
	}
	/* A kind keeps the largest peak seen (it must cover every file of that kind) and its count. */
	buf_addf(out, "%s %llu", key,
		 (unsigned long long)(force || !old ? value : kind ? (old > value ? old : value) :
				      peaks_learn(old, value)));
	if (kind)
		buf_addf(out, " %u", peaks_samples(text, key) + 1);
	buf_addch(out, '\n');
}

unsigned
peaks_samples(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;
	unsigned v = 0;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			char *end;

			strtoull(p + kl + 1, &end, 10);
			v = *end == ' ' ? (unsigned)strtoul(end + 1, NULL, 10) : 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return v;
}

uint64_t
launch_estimate_from(const char *learned, const char *key, const char *kind, uint64_t seed,
		     uint64_t est)
{
	uint64_t v;

	if (learned && (v = peaks_get(learned, key)))
		return v + v / 10;
	if (seed)
		return seed + seed / 10;
	/* Never compiled: its kind's largest +25 %, once enough real units of the kind have run. */
	if (learned && (v = peaks_get(learned, kind)) &&
	    peaks_samples(learned, kind) >= LAUNCH_KIND_MIN_SAMPLES && v + v / 4 < est)
		return v + v / 4;
	return est;
}

int
launch_is_probe(char *const *argv, const char *cwd)
{
	static const char *const marks[] = { "/CMakeFiles/CMakeScratch/", "/CMakeFiles/CMakeTmp",
					     "/TryCompile-", "/CompilerIdC", "/CompilerIdCUDA",
					     "/CompilerIdCXX", "CompilerABI.c", NULL };

	for (size_t m = 0; marks[m]; m++) {
		if (cwd && strstr(cwd, marks[m]))
			return 1;
		for (size_t i = 0; argv[i]; i++)
			if (strstr(argv[i], marks[m]))
				return 1;
	}
	return 0;
}

void
launch_tree_version(const char *src_dir, struct buf *out)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	size_t n = 0;

	buf_addf(&path, "%s/version.txt", src_dir ? src_dir : ".");
	if (src_dir && path_exists(path.s) && read_file(&text, path.s) == 0) {
		const char *t = text.s + strspn(text.s, " \t\r\n");

		n = strspn(t, "0123456789.");
		while (n && t[n - 1] == '.')
			n--;
		buf_add(out, t, n);
	}
	if (!n)
		buf_addstr(out, "unknown");
	buf_release(&path);
	buf_release(&text);
}

int
launch_table_path(const char *cache_dir, const char *src_dir, struct buf *out)
{
	struct buf v = BUF_INIT;
	int rc = 0;

	launch_tree_version(src_dir, &v);
	if (!strcmp(v.s, "unknown"))
		rc = -1;
	else
		buf_addf(out, "%s/peaks/pytorch-%s.peaks", cache_dir, v.s);
	buf_release(&v);
	return rc;
}

/* One gencode's "arch=compute_XY,code=..." into the sm and compute sets (numbers XY with suffix). */
static void
gencode_archs(const char *g, struct strvec *sm, struct strvec *ptx)
{
	const char *code = strstr(g, "code=");
	const char *p;

	if (!code)
		return;
	for (p = code + 5; *p;) {
		size_t n;

		p += strspn(p, "[],\"' ");
		n = strcspn(p, "[],\"' ");
		if (!n)
			break;
		char *v = NULL;

		if (n > 3 && !strncmp(p, "sm_", 3))
			strset_add(sm, v = xstrndup(p + 3, n - 3));
		else if (n > 8 && !strncmp(p, "compute_", 8))
			strset_add(ptx, v = xstrndup(p + 8, n - 8));
		free(v);
		p += n;
	}
}

void
launch_archs(char *const *argv, struct buf *out)
{
	struct strvec sm = STRVEC_INIT, ptx = STRVEC_INIT;
	struct buf g = BUF_INIT;

	for (size_t i = 1; argv[i]; i++) {
		const char *a = argv[i];

		buf_reset(&g);
		if ((!strcmp(a, "-gencode") || !strcmp(a, "--generate-code")) && argv[i + 1])
			buf_addstr(&g, argv[++i]);
		else if (starts_with(a, "-gencode="))
			buf_addstr(&g, a + 9);
		else if (starts_with(a, "--generate-code="))
			buf_addstr(&g, a + 16);
		else if (starts_with(a, "-arch=sm_"))
			buf_addf(&g, "code=sm_%s", a + 9);
		else if (!strcmp(a, "-arch") && argv[i + 1] && starts_with(argv[i + 1], "sm_"))
			buf_addf(&g, "code=%s", argv[++i]);
		if (g.len)
			gencode_archs(g.s, &sm, &ptx);
	}
	/* A PTX-only target is listed as such. */
	for (size_t i = 0; i < ptx.n; i++)
		strset_add(&sm, ptx.v[i]);
	for (size_t i = 0; i < sm.n; i++) {
		const char *v = sm.v[i];
		size_t digits = strspn(v, "0123456789");

		if (i)
			buf_addch(out, ';');
		if (digits >= 2)
			buf_addf(out, "%.*s.%.*s%s", (int)digits - 1, v, 1, v + digits - 1, v + digits);
		else
			buf_addstr(out, v);
		if (strset_has(&ptx, v))
			buf_addstr(out, "+PTX");
	}
	if (!sm.n)
		buf_addstr(out, "-");
	strvec_clear(&sm);
	strvec_clear(&ptx);
	buf_release(&g);
}

/* The largest number in field `f` (3: PEAK_MB, 4: SECONDS) of the seed lines for (path, archs, version), 0 when none. */
static double
seed_field(const char *text, const char *path, const char *archs, const char *version, int f)
{
	double best = 0;

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		char v[6][512];
		char line[2048];
		int got;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			got = sscanf(line, "%511s %511s %511s %511s %511s %511s", v[0], v[1], v[2], v[3],
				     v[4], v[5]);
			if (got == 6 && v[0][0] != '#' && !strcmp(v[0], path) && !strcmp(v[2], archs) &&
			    !strcmp(v[5], version)) {
				char *end;
				double x = strtod(v[f], &end);

				if (*end == '\0' && x > 0 && x < 1e9 && x > best)
					best = x;
			}
		}
		p += n + (p[n] == '\n');
	}
	return best;
}

uint64_t
launch_seed_lookup(const char *text, const char *path, const char *archs, const char *version)
{
	return (uint64_t)(seed_field(text, path, archs, version, 3) * MiB);
}

uint64_t
launch_seed_ms(const char *text, const char *path, const char *archs, const char *version)
{
	return (uint64_t)(seed_field(text, path, archs, version, 4) * 1000);
}
