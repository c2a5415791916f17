#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "formats/elf.h"
#include "formats/elfscan.h"
#include "core/hash.h"
#include "host/host.h"
#include "wheel/manifest.h"
#include "formats/manylinux.h"
#include "build/plan.h"
#include "formats/record.h"
#include "wheel/repack.h"
#include "core/span.h"
#include "build/step.h"
#include "core/util.h"
#include "wheel/verify.h"
#include "formats/zip.h"

#define MAX_TEXT_BYTES (16ULL << 20)
/* A wheel's RECORD rows: one per member, and this many more to name as missing. */
#define RECORD_SPARE_ROWS 1024
/* An installed package's (torch has some 15,000). */
#define RECORD_INSTALLED_ROWS 1000000

static uint64_t
record_most(size_t members)
{
	uint64_t most = ((uint64_t)members + RECORD_SPARE_ROWS) * 4096;

	return most < (256ULL << 20) ? most : 256ULL << 20;
}

static void
add_error(struct wheel_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
add_error(struct wheel_report *r, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (r->errors.n >= VERIFY_ERRORS_LISTED) {
		r->errors_more++;
		return;
	}
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	strvec_push_nodup(&r->errors, buf_detach(&b));
}

/* The last line of a report whose problems were not all listed. */
static void
summarise_errors(struct wheel_report *r)
{
	if (r->errors_more)
		strvec_pushf(&r->errors, "... and %zu more problems (the first %d are listed)",
			     r->errors_more, VERIFY_ERRORS_LISTED);
}

/* ---- file name and tags ---- */

static void
normalize_name(struct buf *out, const char *s, size_t n)
{
	size_t i;
	int run = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '-' || s[i] == '_' || s[i] == '.') {
			if (!run)
				buf_addch(out, '_');
			run = 1;
			continue;
		}
		run = 0;
		buf_addch(out, tolower((unsigned char)s[i]));
	}
}

static void
split_dots(struct strvec *out, const char *s)
{
	char *copy = xstrdup(s), *save = NULL, *t;

	for (t = strtok_r(copy, ".", &save); t; t = strtok_r(NULL, ".", &save))
		strvec_push(out, t);
	free(copy);
}

static int
parse_filename(struct wheel_report *r)
{
	struct strvec parts = STRVEC_INIT, py = STRVEC_INIT, abi = STRVEC_INIT, plat = STRVEC_INIT;
	char *stem, *save = NULL, *t;
	size_t i, j, k, n;
	int ret = -1;

	if (!ends_with(r->filename, ".whl")) {
		add_error(r, "file name '%s' does not end in .whl", r->filename);
		return -1;
	}
	stem = xstrndup(r->filename, strlen(r->filename) - 4);
	for (t = strtok_r(stem, "-", &save); t; t = strtok_r(NULL, "-", &save))
		strvec_push(&parts, t);
	free(stem);
	n = parts.n;
	if (n != 5 && n != 6) {
		add_error(r, "file name '%s' has %zu '-'-separated fields (a wheel has 5 or 6: "
			  "name-version[-build]-python-abi-platform)", r->filename, n);
		goto out;
	}
	r->name = xstrdup(parts.v[0]);
	r->version = xstrdup(parts.v[1]);
	if (n == 6) {
		if (!isdigit((unsigned char)parts.v[2][0]))
			add_error(r, "build tag '%s' in the file name does not start with a digit",
				  parts.v[2]);
		r->build_tag = xstrdup(parts.v[2]);
	}
	split_dots(&py, parts.v[n - 3]);
	split_dots(&abi, parts.v[n - 2]);
	split_dots(&plat, parts.v[n - 1]);
	for (i = 0; i < py.n; i++)
		for (j = 0; j < abi.n; j++)
			for (k = 0; k < plat.n; k++)
				strvec_pushf(&r->tags, "%s-%s-%s", py.v[i], abi.v[j], plat.v[k]);
	ret = 0;
out:
	strvec_clear(&parts);
	strvec_clear(&py);
	strvec_clear(&abi);
	strvec_clear(&plat);
	return ret;
}

/* ---- member names ---- */

static void
check_name(struct wheel_report *r, const struct zip_entry *e)
{
	const char *s = e->name;
	size_t i, n = e->name_len;
	const char *comp = s;

	if (strlen(s) != n) {
		add_error(r, "member name '%s' contains a NUL byte (names)", s);
		return;
	}
	if (s[0] == '/')
		add_error(r, "'%s': absolute member name (names)", s);
	if (n >= 2 && isalpha((unsigned char)s[0]) && s[1] == ':')
		add_error(r, "'%s': member name starts with a drive letter (names)", s);
	for (i = 0; i < n; i++) {
		if (s[i] == '\\') {
			add_error(r, "'%s': backslash in member name (names)", s);
			break;
		}
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			add_error(r, "member name with a control character: '%s' (names)", s);
			break;
		}
	}
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '/')
			continue;
		if (i == n && comp == s + n && n && s[n - 1] == '/')
			break; /* a directory entry "a/b/" */
		if (s + i == comp || (s + i - comp == 1 && comp[0] == '.') ||
		    (s + i - comp == 2 && comp[0] == '.' && comp[1] == '.')) {
			add_error(r, "'%s': empty, '.' or '..' path component (names)", s);
			break;
		}
		comp = s + i + 1;
	}
	if (!(e->flags & (1u << 11))) {
		for (i = 0; i < n; i++) {
			if ((unsigned char)s[i] >= 0x80) {
				add_error(r, "'%s': non-ASCII name without the UTF-8 flag (names)", s);
				break;
			}
		}
	}
	if (e->flags & 1)
		add_error(r, "'%s' is encrypted (zip hygiene)", s);
	if (e->method != 0 && e->method != 8)
		add_error(r, "'%s' uses compression method %u; only stored (0) and deflate (8) are "
			  "allowed (zip hygiene)", s, e->method);
	if ((e->made_by >> 8) == 3 && ((e->ext_attr >> 16) & 0170000) == 0120000)
		add_error(r, "'%s' is a symbolic link (zip hygiene)", s);
	if (e->local_name_differs)
		add_error(r, "'%s': the local header names a different file (zip hygiene)", s);
}

/* ---- per-member pass, run on every core ---- */

/*
 * A library up to MAX_ELF_IN_MEMORY is kept in memory; a larger one is
 * streamed into an unlinked temporary file and mapped, so memory stays
 * bounded (threads x this) whatever the member's size. ELF needs the whole
 * file because the section table sits at its end.
 */
#define MAX_ELF_IN_MEMORY (4ULL << 20)

struct job {
	const char *name;             /* the RECORD path */
	const struct zip_entry *e;    /* in a wheel, or */
	char *file;                   /* an installed file on disk */
	uint64_t order_size;          /* for scheduling */
	const struct record_row *row;
	char algo[16];
	uint8_t want[DIGEST_MAX];
	size_t want_len;
	unsigned long long size;
	int keep_text;
	/* results, merged in RECORD order */
	struct strvec errors;
	struct wheel_lib *lib;
	char *text;
	uint64_t got;
};

struct member_ctx {
	struct digest d;
	uint64_t size;
	int first;
	int is_elf;
	int keep_text;
	int stored;           /* method 0: ELF bytes are read in place, never copied */
	struct buf data;
	int fd;
	const char *name;
	struct buf *why;
};

static int
spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	struct buf path = BUF_INIT;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	buf_addf(&path, "%s/bwbuild-verify-XXXXXX", dir);
	fd = mkstemp(path.s);
	if (fd >= 0)
		unlink(path.s);
	buf_release(&path);
	return fd;
}

static int
member_consume(struct member_ctx *c, const void *data, size_t n)
{

	if (c->first) {
		c->first = 0;
		c->is_elf = elf_is_elf(data, n);
	}
	digest_update(&c->d, data, n);
	c->size += n;
	if (c->is_elf && c->stored)
		return 0; /* read in place from the mapping afterwards */
	if (c->is_elf) {
		if (c->fd < 0 && c->data.len + n <= MAX_ELF_IN_MEMORY) {
			buf_add(&c->data, data, n);
			return 0;
		}
		if (c->fd < 0) {
			c->fd = spill_open();
			if (c->fd < 0 || write_all(c->fd, c->data.s, c->data.len) < 0) {
				buf_addf(c->why, "'%s': cannot write a temporary copy: %s", c->name,
					 strerror(errno));
				return -1;
			}
			buf_release(&c->data);
		}
		if (write_all(c->fd, data, n) < 0) {
			buf_addf(c->why, "'%s': cannot write a temporary copy: %s", c->name,
				 strerror(errno));
			return -1;
		}
	} else if (c->keep_text) {
		if (c->data.len + n > MAX_TEXT_BYTES) {
			buf_addf(c->why, "'%s' is larger than %llu bytes", c->name,
				 (unsigned long long)MAX_TEXT_BYTES);
			return -1;
		}
		buf_add(&c->data, data, n);
	}
	return 0;
}

static int
member_sink(void *vctx, const void *data, size_t n)
{
	return member_consume(vctx, data, n);
}

/*
 * A large member is hashed (and spilled, when it is a library) on a
 * second thread while its own thread inflates, so the hash does not add
 * to the longest member's time: the inflated bytes go through a ring of
 * PIPE_SLOTS blocks of PIPE_BLOCK bytes.
 */
#define PIPE_MIN (32ULL << 20)
#define PIPE_BLOCK ((size_t)2 << 20)
#define PIPE_SLOTS 3

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t tid;
	uint8_t *block[PIPE_SLOTS];
	size_t len[PIPE_SLOTS];
	size_t produced, consumed;   /* blocks handed over, blocks done */
	size_t fill;                 /* bytes in the block being filled */
	int done, failed;
	struct member_ctx *mc;
};

static void *
pipe_consumer(void *arg)
{
	struct pipe *p = arg;

	for (;;) {
		size_t slot;
		int failed;

		pthread_mutex_lock(&p->mu);
		while (p->consumed == p->produced && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->consumed == p->produced) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		slot = p->consumed % PIPE_SLOTS;
		failed = p->failed;
		pthread_mutex_unlock(&p->mu);
		if (!failed && member_consume(p->mc, p->block[slot], p->len[slot]) < 0)
			failed = 1;
		pthread_mutex_lock(&p->mu);
		p->failed |= failed;
		p->consumed++;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
}

/* -1 once the consumer has failed. */
static int
pipe_hand_over(struct pipe *p)
{
	int failed;

	pthread_mutex_lock(&p->mu);
	p->len[p->produced % PIPE_SLOTS] = p->fill;
	p->produced++;
	pthread_cond_broadcast(&p->cv);
	/* The next block to fill must be free: wait for the consumer to be done with it. */
	while (p->produced - p->consumed >= PIPE_SLOTS)
		pthread_cond_wait(&p->cv, &p->mu);
	failed = p->failed;
	pthread_mutex_unlock(&p->mu);
	p->fill = 0;
	return failed ? -1 : 0;
}

static int
pipe_sink(void *vctx, const void *data, size_t n)
{
	struct pipe *p = vctx;
	const uint8_t *d = data;

	while (n) {
		uint8_t *b = p->block[p->produced % PIPE_SLOTS];
		size_t k = PIPE_BLOCK - p->fill < n ? PIPE_BLOCK - p->fill : n;

		memcpy(b + p->fill, d, k);
		p->fill += k;
		d += k;
		n -= k;
		if (p->fill == PIPE_BLOCK && pipe_hand_over(p) < 0)
			return -1;
	}
	return 0;
}

static void
pipe_start(struct pipe *p, struct member_ctx *mc)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	for (size_t i = 0; i < PIPE_SLOTS; i++)
		p->block[i] = xmalloc(PIPE_BLOCK);
	p->mc = mc;
	if (pthread_create(&p->tid, NULL, pipe_consumer, p) != 0)
		die("cannot start a thread:");
}

/* Hand over the last block and wait for the consumer; -1 if it failed. */
static int
pipe_finish(struct pipe *p)
{
	if (p->fill)
		pipe_hand_over(p);
	pthread_mutex_lock(&p->mu);
	p->done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
	for (size_t i = 0; i < PIPE_SLOTS; i++)
		free(p->block[i]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	/* The consumer has ended: nothing else reads or writes `failed` now. */
	return p->failed ? -1 : 0;
}

static void
scan_library(struct job *j, struct member_ctx *mc, int deep)
{
	j->lib = xcalloc(1, sizeof(*j->lib));
	if (mc->fd < 0) {
		elfscan(j->lib, j->name, (const uint8_t *)mc->data.s, mc->data.len, deep, &j->errors);
		return;
	}
	{
		void *map = mmap(NULL, (size_t)mc->size, PROT_READ, MAP_PRIVATE, mc->fd, 0);

		if (map == MAP_FAILED) {
			strvec_pushf(&j->errors, "'%s': cannot map its temporary copy: %s", j->name,
				     strerror(errno));
			free(j->lib);
			j->lib = NULL;
			return;
		}
		elfscan(j->lib, j->name, map, (size_t)mc->size, deep | ELFSCAN_DROP, &j->errors);
		munmap(map, (size_t)mc->size);
	}
}

/*
 * Whether the installed file j->file (root/name) resolves outside root, as
 * a planted symbolic link would; pip never installs links, other tools may
 * (inside the tree they are followed).
 */
static int
leaves_root(const struct job *j)
{
	size_t rootlen = strlen(j->file) - strlen(j->name);
	char *real = realpath(j->file, NULL), *rroot;
	struct buf root = BUF_INIT;
	int out = 0;

	if (!real)
		return 0; /* missing: the open says why */
	buf_add(&root, j->file, rootlen ? rootlen - 1 : 0);
	rroot = realpath(root.len ? root.s : "/", NULL);
	if (rroot && strcmp(rroot, "/")) {
		size_t n = strlen(rroot);

		out = strncmp(real, rroot, n) || (real[n] != '/' && real[n]);
	}
	free(real);
	free(rroot);
	buf_release(&root);
	return out;
}

/* An installed file: mapped, hashed whole, and scanned in place when it is ELF. */
static int
read_installed(struct job *j, struct member_ctx *mc, int deep)
{
	struct stat st;
	void *map = NULL;
	/* A FIFO or device listed in RECORD must not block or stream forever: refused unread. */
	int fd;

	if (leaves_root(j)) {
		strvec_pushf(&j->errors, "'%s' is a symbolic link out of site-packages; it is not "
			     "read (RECORD)", j->name);
		return -1;
	}
	fd = open(j->file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		strvec_pushf(&j->errors, "'%s' is listed in RECORD but cannot be read: %s (RECORD)",
			     j->name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		strvec_pushf(&j->errors, "'%s' is listed in RECORD but is not a regular file "
			     "(a FIFO, device or directory is not read) (RECORD)", j->name);
		close(fd);
		return -1;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			strvec_pushf(&j->errors, "'%s': cannot map: %s", j->name, strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	mc->is_elf = map && elf_is_elf(map, (size_t)st.st_size);
	mc->size = (uint64_t)st.st_size;
	if (map) {
		size_t off, chunk = 8u << 20, len = (size_t)st.st_size;

		/* Hash in chunks and let go of each behind us; the scan re-reads only its sections. */
		for (off = 0; off < len; off += chunk) {
			size_t n = len - off < chunk ? len - off : chunk;

			digest_update(&mc->d, (const uint8_t *)map + off, n);
			if (n == chunk)
				madvise((uint8_t *)map + off, n, MADV_DONTNEED);
		}
	}
	if (mc->is_elf) {
		j->lib = xcalloc(1, sizeof(*j->lib));
		elfscan(j->lib, j->name, map, (size_t)st.st_size, deep | ELFSCAN_DROP, &j->errors);
	} else if (mc->keep_text && map) {
		buf_add(&mc->data, map, (size_t)st.st_size < MAX_TEXT_BYTES ? (size_t)st.st_size :
									    MAX_TEXT_BYTES);
	}
	if (map)
		munmap(map, (size_t)st.st_size);
	return 0;
}

static void
run_job(const struct zip *z, struct job *j, int deep)
{
	struct buf why = BUF_INIT;
	struct member_ctx mc;
	uint8_t got[DIGEST_MAX];

	memset(&mc, 0, sizeof(mc));
	digest_init(&mc.d, j->algo);
	mc.first = 1;
	mc.fd = -1;
	mc.keep_text = j->keep_text;
	mc.stored = !j->file && j->e->method == 0;
	mc.name = j->name;
	mc.why = &why;
	buf_init(&mc.data);
	if (j->file) {
		if (read_installed(j, &mc, deep) < 0) {
			digest_abort(&mc.d);
			goto out;
		}
	} else if (j->e->method == 8 && j->e->usize >= PIPE_MIN) {
		struct pipe pp;
		int rc;

		pipe_start(&pp, &mc);
		rc = zip_read(z, j->e, pipe_sink, &pp, &why);
		if (pipe_finish(&pp) < 0 || rc < 0) {
			digest_abort(&mc.d);
			strvec_pushf(&j->errors, "%s (zip hygiene)", why.s);
			goto out;
		}
	} else if (zip_read(z, j->e, member_sink, &mc, &why) < 0) {
		digest_abort(&mc.d);
		strvec_pushf(&j->errors, "%s (zip hygiene)", why.s);
		goto out;
	}
	digest_final(&mc.d, got);
	j->got = mc.size;
	if (mc.size != j->size)
		strvec_pushf(&j->errors, "'%s' is %llu bytes, RECORD says %llu (hashes)", j->name,
			     (unsigned long long)mc.size, j->size);
	if (j->want_len != mc.d.size || memcmp(j->want, got, mc.d.size))
		strvec_pushf(&j->errors, "'%s' does not match its %s in RECORD (hashes)", j->name,
			     j->algo);
	if (mc.is_elf && !j->file && j->e->method == 0 && mc.size == j->e->csize) {
		/* stored: the library's bytes are already in the mapping */
		j->lib = xcalloc(1, sizeof(*j->lib));
		elfscan(j->lib, j->name, z->data + j->e->data_off, (size_t)mc.size, deep, &j->errors);
	} else if (mc.is_elf && !j->file) {
		scan_library(j, &mc, deep);
	}
	else if (mc.keep_text)
		j->text = buf_detach(&mc.data);
out:
	if (mc.fd >= 0)
		close(mc.fd);
	buf_release(&mc.data);
	buf_release(&why);
}

struct pool {
	const struct zip *z;
	struct job *jobs;
	size_t *order;
	size_t n;
	size_t next;
	int deep;
};

static void *
worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);

		if (i >= p->n)
			return NULL;
		run_job(p->z, &p->jobs[p->order[i]], p->deep);
	}
}

static const struct job *sort_jobs_base;

static int
bigger_first(const void *a, const void *b)
{
	uint64_t x = sort_jobs_base[*(const size_t *)a].order_size;
	uint64_t y = sort_jobs_base[*(const size_t *)b].order_size;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The biggest members start first so one large library does not finish last alone. */
static void
run_jobs(const struct zip *z, struct job *jobs, size_t n, unsigned threads, int deep)
{
	struct pool p = { z, jobs, NULL, n, 0, deep };
	pthread_t *tids;
	size_t i, started = 0;

	if (!n)
		return;
	/*
	 * Buffers of a few MiB (pipe blocks, libraries kept in memory) come and
	 * go on every thread; with glibc's sliding mmap threshold they would
	 * stay in per-thread arenas after free and add up. A fixed threshold
	 * keeps them mapped, so a free gives the memory back.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	p.order = xcalloc(n, sizeof(*p.order));
	for (i = 0; i < n; i++)
		p.order[i] = i;
	sort_jobs_base = jobs;
	qsort(p.order, n, sizeof(*p.order), bigger_first);
	if (!threads)
		threads = host_cpus();
	if (threads > n)
		threads = (unsigned)n;
	tids = xcalloc(threads, sizeof(*tids));
	for (i = 0; i + 1 < threads; i++)
		if (!pthread_create(&tids[started], NULL, worker, &p))
			started++;
	worker(&p);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	free(p.order);
}

static int
is_dist_info_file(const char *name, const char *dist_info, const char *file)
{
	size_t n = strlen(dist_info);

	return !strncmp(name, dist_info, n) && name[n] == '/' && !strcmp(name + n + 1, file);
}

/* WHEEL against the file name: Wheel-Version 1.x, the same tags and build tag. */
static void
check_wheel_file(struct wheel_report *r, const char *text, const char *member)
{
	struct strvec tags = STRVEC_INIT;
	struct wheel_file wf;
	int have_version = 0, purelib = -1;
	size_t i;

	wheel_file_parse(&wf, text);
	for (i = 0; i < wf.n; i++) {
		const char *key = wf.fields[i].key, *val = wf.fields[i].value;

		if (!strcmp(key, "Wheel-Version")) {
			have_version = 1;
			if (atoi(val) != 1)
				add_error(r, "%s: Wheel-Version %s is not 1.x (WHEEL)", member,
					  val);
		} else if (!strcmp(key, "Root-Is-Purelib")) {
			purelib = !strcmp(val, "true");
		} else if (!strcmp(key, "Tag")) {
			strvec_push(&tags, val);
		} else if (!strcmp(key, "Build")) {
			if (!r->build_tag || strcmp(r->build_tag, val))
				add_error(r, "%s: Build '%s' does not match the file name (WHEEL)",
					  member, val);
		}
	}
	wheel_file_release(&wf);
	if (!have_version)
		add_error(r, "%s has no Wheel-Version (WHEEL)", member);
	for (i = 0; i < tags.n; i++)
		if (!strset_has(&r->tags, tags.v[i]))
			add_error(r, "%s: Tag '%s' is not in the file name's tags (WHEEL)", member, tags.v[i]);
	for (i = 0; i < r->tags.n; i++) {
		if (!strset_has(&tags, r->tags.v[i]))
			add_error(r, "%s has no Tag line for '%s' from the file name (WHEEL)", member,
				  r->tags.v[i]);
		if (!ends_with(r->tags.v[i], "-any") && purelib == 1)
			add_error(r, "%s: Root-Is-Purelib is true for platform tag '%s' (WHEEL)", member,
				  r->tags.v[i]);
	}
	strvec_clear(&tags);
}

static int
check_hash_field(struct wheel_report *r, const struct record_row *row, uint8_t *want,
		 size_t *want_len, char *algo, size_t algo_cap)
{
	const char *h = row->fields[1], *eq = strchr(h, '=');
	struct digest d;
	size_t alen, i, dlen, expect_len;

	if (!eq) {
		add_error(r, "RECORD line %d: hash '%s' of '%s' is not algo=digest (hashes)", row->line,
			  h, row->fields[0]);
		return -1;
	}
	alen = (size_t)(eq - h);
	if (alen >= algo_cap || (memcpy(algo, h, alen), algo[alen] = '\0', digest_init(&d, algo) < 0)) {
		add_error(r, "RECORD line %d: '%s' uses hash algorithm '%.*s'; only sha256, sha384 and "
			  "sha512 are allowed (hashes)", row->line, row->fields[0], (int)alen, h);
		return -1;
	}
	digest_abort(&d);
	dlen = strlen(eq + 1);
	expect_len = (d.size * 4 + 2) / 3;
	for (i = 0; i < dlen; i++) {
		char c = eq[1 + i];

		if (!isalnum((unsigned char)c) && c != '-' && c != '_')
			break;
	}
	if (i != dlen || dlen != expect_len) {
		add_error(r, "RECORD line %d: digest of '%s' is not urlsafe base64 of %zu bytes without "
			  "padding (hashes)", row->line, row->fields[0], d.size);
		return -1;
	}
	{
		/* Decode to compare bytes, not strings: both are canonical anyway. */
		static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
		uint32_t acc = 0;
		int bits = 0;
		size_t o = 0;

		for (i = 0; i < dlen; i++) {
			acc = acc << 6 | (uint32_t)(strchr(tbl, eq[1 + i]) - tbl);
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				if (o < DIGEST_MAX)
					want[o++] = (uint8_t)(acc >> bits);
			}
		}
		*want_len = o;
	}
	return 0;
}

/* ---- libraries: what they need, and what the platform tag claims ---- */

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int
by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
check_platform(struct wheel_report *r, const char *platform)
{
	const char *arch;
	unsigned claim = manylinux_tag_glibc(platform, &arch), machine = manylinux_arch_machine(arch);
	size_t i;

	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		if (machine && l->machine && l->machine != machine)
			add_error(r, "'%s' is built for ELF machine %u, but the platform tag is '%s' "
				  "(platform)", l->path, l->machine, platform);
		if (!claim)
			continue;
		if (!l->ml.min_glibc)
			add_error(r, "'%s' needs %s, which no manylinux policy allows, yet the wheel "
				  "claims '%s' (manylinux)", l->path, l->ml.blocker, platform);
		else if (l->ml.min_glibc > claim)
			add_error(r, "'%s' needs GLIBC %s%s%s, so it satisfies manylinux_2_%u at best, "
				  "yet the wheel claims '%s'; build it on an older glibc (manylinux)",
				  l->path, *l->ml.glibc ? l->ml.glibc : "-",
				  *l->ml.glibcxx ? " and GLIBCXX " : "", l->ml.glibcxx, l->ml.min_glibc,
				  platform);
	}
}

int
wheel_platform_earned(const struct wheel_report *r, unsigned require, struct buf *tag,
		      struct buf *why)
{
	const char *platform = r->tags.n ? strrchr(r->tags.v[0], '-') : NULL, *arch = NULL;
	const struct wheel_lib *worst = NULL;
	unsigned need = 0;

	if (platform)
		manylinux_tag_glibc(platform + 1, &arch);
	if (!arch) {
		buf_addf(why, "the wheel's platform tag names no architecture");
		return -1;
	}
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		if (!l->ml.min_glibc) {
			buf_addf(why, "'%s' needs %s, which no manylinux policy allows", l->path,
				 l->ml.blocker);
			return -1;
		}
		if (l->ml.min_glibc > need) {
			need = l->ml.min_glibc;
			worst = l;
		}
	}
	if (!need)
		need = 17; /* no libraries: the oldest policy PyPI still takes */
	if (require && need > require) {
		buf_addf(why, "'%s' needs GLIBC %s%s%s%s%s (manylinux_2_%u), newer than "
			 "manylinux_2_%u allows", worst->path, *worst->ml.glibc ? worst->ml.glibc : "-",
			 *worst->ml.glibcxx ? ", GLIBCXX " : "", worst->ml.glibcxx,
			 *worst->ml.cxxabi ? ", CXXABI " : "", worst->ml.cxxabi, need, require);
		return -1;
	}
	buf_reset(tag);
	buf_addf(tag, "manylinux_2_%u_%s", require ? require : need, arch);
	if (worst) {
		buf_addf(why, "'%s' needs GLIBC %s%s%s", worst->path,
			 *worst->ml.glibc ? worst->ml.glibc : "-",
			 *worst->ml.glibcxx ? ", GLIBCXX " : "", worst->ml.glibcxx);
	}
	return 0;
}

/*
 * _GLIBCXX_USE_CXX11_ABI: what the libraries' std::string symbols say, what
 * the build settings header (CXX_FLAGS) says, and what the profile asks
 * for must agree; mixing the two ABIs fails at import with an undefined
 * symbol, or worse, at run time.
 */
static void
check_cxx_abi(struct wheel_report *r, int expect)
{
	const char *flag = r->macros_h ? strstr(r->macros_h, "_GLIBCXX_USE_CXX11_ABI=") : NULL;
	int settings = flag ? flag[strlen("_GLIBCXX_USE_CXX11_ABI=")] == '0' ? 2 : 1 : 0;
	const struct wheel_lib *newest = NULL, *oldest = NULL;

	/*
	 * Only a library with one ABI's names tells: torch 2.11.0+cu130's
	 * libtorch.so, built with the C++11 ABI, also references the old
	 * string's _ZNSs4_Rep20_S_empty_rep_storageE (measured).
	 */
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		if (l->cxx_abi == ELF_OLD_ABI && !oldest)
			oldest = l;
		else if (l->cxx_abi == ELF_CXX11_ABI && !newest)
			newest = l;
	}
	if (!expect)
		expect = settings ? settings : newest ? 1 : 0;
	if (settings && settings != expect)
		add_error(r, "the build settings (%s) say _GLIBCXX_USE_CXX11_ABI=%d, but %d is "
			  "expected (build.cxx11_abi; cxx11 abi)", r->macros_h_path, settings == 1,
			  expect == 1);
	if (expect == 1 && oldest)
		add_error(r, "'%s' uses the pre-C++11 std::string ABI (%s), but the wheel is built "
			  "with _GLIBCXX_USE_CXX11_ABI=1; rebuild it with the same flag (cxx11 abi)",
			  oldest->path, oldest->old_abi_symbol);
	if (expect == 2 && newest)
		add_error(r, "'%s' uses the C++11 std::string ABI (std::__cxx11), but the wheel is "
			  "built with _GLIBCXX_USE_CXX11_ABI=0 (cxx11 abi)", newest->path);
}

static void
check_libraries(struct wheel_report *r, char *const *paths, size_t npaths,
		const struct strvec *provided)
{
	struct strvec platforms = STRVEC_INIT;
	char **members = xcalloc(npaths ? npaths : 1, sizeof(*members));
	size_t i, j, unresolved = 0;

	for (i = 0; i < npaths; i++) {
		members[i] = (char *)base_name(paths[i]);
		if (soname_origin(members[i]) == SONAME_DRIVER)
			add_error(r, "'%s' bundles the NVIDIA driver's library; it must come from the "
				  "installed driver (bundled driver)", paths[i]);
	}
	qsort(members, npaths, sizeof(*members), by_string);
	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		for (j = 0; j < l->needed.n; j++) {
			const char *need = l->needed.v[j];

			if (bsearch(&need, members, npaths, sizeof(*members), by_string) ||
			    soname_origin(need) != SONAME_UNKNOWN || (provided && strset_has(provided, need)))
				continue;
			add_error(r, "'%s' needs '%s', which is neither in the wheel nor on the manylinux "
				  "or CUDA allow-lists (needed)", l->path, need);
			unresolved++;
		}
		if (l->runpath) {
			const char *p = l->runpath;

			while (*p) {
				size_t n = strcspn(p, ":");

				if (n && strncmp(p, "$ORIGIN", 7) && strncmp(p, "${ORIGIN}", 9))
					add_error(r, "'%s' has RUNPATH entry '%.*s', a path on the build "
						  "machine; use $ORIGIN-relative entries (runpath)", l->path,
						  (int)n, p);
				p += n + (p[n] == ':');
			}
		}
	}
	free(members);
	/* Which sonames a torch provides is read from that torch, so the wheel alone cannot say. */
	if (unresolved && !provided)
		strvec_pushf(&r->notes, "if this is an extension built on torch, it takes torch's "
			     "libraries from it: check it with --against TORCH_WHEEL|site-packages/torch");
	for (i = 0; i < r->tags.n; i++) {
		const char *platform = strrchr(r->tags.v[i], '-');

		if (platform && !strset_has(&platforms, platform + 1)) {
			strset_add(&platforms, platform + 1);
			check_platform(r, platform + 1);
		}
	}
	strvec_clear(&platforms);
}

/* ---- sorted views, so lookups and duplicate checks stay O(n log n) ---- */

static int
by_entry_name(const void *a, const void *b, void *ctx)
{
	const struct zip *z = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(z->entries[x].name, z->entries[y].name);

	return c ? c : x < y ? -1 : x > y;
}

static int
by_row_path(const void *a, const void *b, void *ctx)
{
	const struct record_row *rows = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(rows[x].fields[0], rows[y].fields[0]);

	return c ? c : x < y ? -1 : x > y;
}

/* idx: 0..n-1 sorted with cmp; dup[i] set for every item equal to an earlier one. */
static size_t *
sorted_index(size_t n, int (*cmp)(const void *, const void *, void *), void *ctx,
	     int (*same)(size_t, size_t, void *), char *dup)
{
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx)), i;

	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp, ctx);
	for (i = 1; i < n; i++)
		if (same(idx[i - 1], idx[i], ctx))
			dup[idx[i]] = 1;
	return idx;
}

static int
same_entry_name(size_t a, size_t b, void *ctx)
{
	const struct zip *z = ctx;

	return !strcmp(z->entries[a].name, z->entries[b].name);
}

static int
same_row_path(size_t a, size_t b, void *ctx)
{
	const struct record_row *rows = ctx;

	return !strcmp(rows[a].fields[0], rows[b].fields[0]);
}

/* The first central-directory entry named `name` (names with a NUL never match). */
static const struct zip_entry *
index_find(const struct zip *z, const size_t *idx, const char *name)
{
	size_t lo = 0, hi = z->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(z->entries[idx[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < z->n && !strcmp(z->entries[idx[lo]].name, name); lo++)
		if (strlen(name) == z->entries[idx[lo]].name_len)
			return &z->entries[idx[lo]];
	return NULL;
}

/* A hashed row's size field; -1 after adding the error. */
static int
row_size(struct wheel_report *r, const struct record_row *row, unsigned long long *size)
{
	char *end;

	if (!*row->fields[1] || !*row->fields[2]) {
		add_error(r, "RECORD line %d: '%s' has an empty hash or size (hashes)", row->line,
			  row->fields[0]);
		return -1;
	}
	errno = 0;
	*size = strtoull(row->fields[2], &end, 10);
	if (*end || !isdigit((unsigned char)*row->fields[2]) || errno == ERANGE) {
		add_error(r, "RECORD line %d: size '%s' of '%s' is not a number (hashes)",
			  row->line, row->fields[2], row->fields[0]);
		return -1;
	}
	return 0;
}

/*
 * A '..' after the leading ones (which name console scripts beside
 * site-packages, never opened): "torch/../../../etc/hostname".
 */
static int
climbs_out(const char *path)
{
	const char *p = path;

	while (starts_with(p, "../"))
		p += 3;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* The job of a row: a zip member `e`, or the file under `root` of an installed package. */
static void
job_init(struct job *jb, const struct record_row *row, const struct zip_entry *e,
	 const char *root)
{
	jb->name = row->fields[0];
	jb->e = e;
	jb->order_size = e ? e->usize : 0;
	if (root) {
		struct stat st;
		struct buf f = BUF_INIT;

		buf_addf(&f, "%s/%s", root, row->fields[0]);
		jb->file = buf_detach(&f);
		if (!stat(jb->file, &st))
			jb->order_size = (uint64_t)st.st_size;
	}
	jb->row = row;
	strvec_init(&jb->errors);
	jb->keep_text = ends_with(jb->name, "/include/caffe2/core/macros.h") ||
			(ends_with(jb->name, "/version.py") &&
			 strchr(jb->name, '/') == strrchr(jb->name, '/'));
}

/*
 * Check every RECORD row and turn each hashed one into a job: a zip member
 * (z) or, for an installed package, a file under `root`.
 */
static size_t
plan_jobs(struct wheel_report *r, const struct record_row *rows, size_t nrows,
	  const char *record_name, const char *dist_info, const struct zip *z, const size_t *names,
	  char *seen_rows, const char *root, struct job *jobs)
{
	char *dup_rows = xcalloc(nrows ? nrows : 1, 1);
	size_t i, njobs = 0;

	/* record_parse gives every row at least its path field. */
	free(sorted_index(nrows, by_row_path, (void *)rows, same_row_path, dup_rows));
	for (i = 0; i < nrows; i++) {
		const struct record_row *row = &rows[i];
		const struct zip_entry *e;
		struct job *jb;
		int is_record, is_sig;

		if (row->nfields != 3) {
			add_error(r, "RECORD line %d has %zu fields (a row is path,hash,size) (RECORD)",
				  row->line, row->nfields);
			continue;
		}
		if (dup_rows[i])
			add_error(r, "RECORD line %d lists '%s' again (RECORD)", row->line,
				  row->fields[0]);
		is_record = !strcmp(row->fields[0], record_name);
		is_sig = is_dist_info_file(row->fields[0], dist_info, "RECORD.jws") ||
			 is_dist_info_file(row->fields[0], dist_info, "RECORD.p7s");
		if (is_sig) {
			add_error(r, "RECORD lists the signature file '%s' (RECORD)", row->fields[0]);
			continue;
		}
		if (root && (row->fields[0][0] == '/' || starts_with(row->fields[0], "../"))) {
			/* console scripts installed outside site-packages: never opened */
			continue;
		}
		if (root && climbs_out(row->fields[0])) {
			add_error(r, "RECORD line %d: '%s' leads out of the package through '..'; "
				  "it is not read (RECORD)", row->line, row->fields[0]);
			continue;
		}
		e = z ? index_find(z, names, row->fields[0]) : NULL;
		if (z && !e) {
			add_error(r, "RECORD line %d lists '%s', which is not in the archive (RECORD)",
				  row->line, row->fields[0]);
			continue;
		}
		if (e)
			seen_rows[e - z->entries] = 1;
		if (is_record) {
			if (*row->fields[1] || *row->fields[2])
				add_error(r, "RECORD's own row has a hash or size (RECORD)");
			continue;
		}
		if (root && !*row->fields[1] && !*row->fields[2])
			continue; /* written after installation (.pyc): PEP 376 lists them bare */
		jb = &jobs[njobs];
		if (row_size(r, row, &jb->size) < 0 ||
		    check_hash_field(r, row, jb->want, &jb->want_len, jb->algo,
				     sizeof(jb->algo)) < 0)
			continue;
		njobs++;
		job_init(jb, row, e, root);
	}

	free(dup_rows);
	return njobs;
}

/* Collect the jobs' results in RECORD order, so reports do not depend on timing. */
static void
merge_jobs(struct wheel_report *r, struct job *jobs, size_t njobs)
{
	size_t i, j;

	for (i = 0; i < njobs; i++) {
		struct job *jb = &jobs[i];

		free(jb->file);
		for (j = 0; j < jb->errors.n; j++)
			add_error(r, "%s", jb->errors.v[j]);
		strvec_clear(&jb->errors);
		r->bytes += jb->got;
		if (jb->lib) {
			r->libs = xreallocarray(r->libs, r->nlibs + 1, sizeof(*r->libs));
			r->libs[r->nlibs++] = *jb->lib;
			free(jb->lib);
		} else if (jb->text && ends_with(jb->name, "macros.h")) {
			free(r->macros_h);
			free(r->macros_h_path);
			r->macros_h = jb->text;
			r->macros_h_path = xstrdup(jb->name);
		} else if (jb->text) {
			free(r->version_py);
			free(r->version_py_path);
			r->version_py = jb->text;
			r->version_py_path = xstrdup(jb->name);
		}
	}
	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		for (j = 0; j < l->sass.n; j++)
			strset_add(&r->sass, l->sass.v[j]);
		for (j = 0; j < l->ptx.n; j++)
			strset_add(&r->ptx, l->ptx.v[j]);
	}
}

/* The exception that lets library `path` lack `target`, or NULL. */
static const struct wheel_exception *
excepted(const struct wheel_expect *opts, const char *path, const char *target)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	for (size_t i = 0; i < opts->nexceptions; i++) {
		const struct wheel_exception *e = &opts->exceptions[i];

		if (strcmp(e->library, path) && strcmp(e->library, base))
			continue;
		for (size_t j = 0; j < e->nmissing; j++)
			if (!strcmp(e->missing[j], target))
				return e;
	}
	return NULL;
}

static void
missing_target(struct wheel_report *r, const struct wheel_expect *opts,
	       const struct wheel_lib *l, const char *kind, const char *target)
{
	const struct wheel_exception *e = excepted(opts, l->path, target);

	if (e)
		strvec_pushf(&r->notes, "'%s' has no %s for %s: allowed by the profile's "
			     "verify.exceptions (%s)", l->path, kind, target, e->reason);
	else
		add_error(r, "'%s' has no %s for %s, which the profile asks for (coverage)",
			  l->path, kind, target);
}

/* An exception the wheel does not need any more is said, so profiles stay true. */
static void
check_exceptions_used(struct wheel_report *r, const struct wheel_expect *opts)
{
	for (size_t i = 0; i < opts->nexceptions; i++) {
		const struct wheel_exception *e = &opts->exceptions[i];
		const struct wheel_lib *l = NULL;

		for (size_t k = 0; k < r->nlibs && !l; k++) {
			const char *p = r->libs[k].path, *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;

			if (!strcmp(e->library, p) || !strcmp(e->library, base))
				l = &r->libs[k];
		}
		if (!l) {
			strvec_pushf(&r->notes, "verify.exceptions names '%s', which is not a library "
				     "of this wheel", e->library);
			continue;
		}
		for (size_t j = 0; j < e->nmissing; j++)
			if (strset_has(&l->sass, e->missing[j]) || strset_has(&l->ptx, e->missing[j]))
				strvec_pushf(&r->notes, "verify.exceptions lets '%s' lack %s, but it "
					     "carries it: the exception can go", l->path, e->missing[j]);
	}
}

/* Every CUDA library must carry each SASS and PTX target the profile asks for. */
static void
check_coverage(struct wheel_report *r, const struct wheel_expect *opts)
{
	size_t i, j;

	if (!opts->sass)
		return;
	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		if (!l->has_fatbin)
			continue;
		for (j = 0; j < opts->sass->n; j++)
			if (!strset_has(&l->sass, opts->sass->v[j]))
				missing_target(r, opts, l, "SASS", opts->sass->v[j]);
		for (j = 0; opts->ptx && j < opts->ptx->n; j++)
			if (!strset_has(&l->ptx, opts->ptx->v[j]))
				missing_target(r, opts, l, "PTX", opts->ptx->v[j]);
		for (j = 0; j < l->sass.n; j++)
			if (!strset_has(opts->sass, l->sass.v[j]))
				strvec_pushf(&r->notes, "'%s' also carries %s, which the profile "
					     "does not list", l->path, l->sass.v[j]);
	}
	check_exceptions_used(r, opts);
}

struct whole {
	const uint8_t *data;
	size_t len;
	int mapped;
	pthread_t tid;
	int started;
	char hex[65];
};

static void *
whole_hash(void *arg)
{
	struct whole *w = arg;
	struct digest d;
	struct buf h = BUF_INIT;
	uint8_t out[DIGEST_MAX];

	size_t off, chunk = 8u << 20; /* a multiple of any page size */

	digest_init(&d, "sha256");
	for (off = 0; off < w->len; off += chunk) {
		size_t n = w->len - off < chunk ? w->len - off : chunk;

		digest_update(&d, w->data + off, n);
		if (w->mapped && n == chunk)
			madvise((void *)(w->data + off), n, MADV_DONTNEED);
	}
	digest_final(&d, out);
	hex_encode(&h, out, d.size);
	memcpy(w->hex, h.s, sizeof(w->hex));
	buf_release(&h);
	return NULL;
}

static void
report_init(struct wheel_report *r)
{
	memset(r, 0, sizeof(*r));
	strvec_init(&r->tags);
	strvec_init(&r->sass);
	strvec_init(&r->ptx);
	strvec_init(&r->errors);
	strvec_init(&r->notes);
}

/* The wheel's own sha256 is computed beside the member pass, not before it. */
static void
whole_start(struct whole *w, const struct zip *z)
{
	memset(w, 0, sizeof(*w));
	w->data = z->data;
	w->len = z->len;
	w->mapped = z->mapped;
	w->started = !pthread_create(&w->tid, NULL, whole_hash, w);
	if (!w->started)
		whole_hash(w);
}

static void
whole_finish(struct whole *w, struct wheel_report *r)
{
	if (w->started)
		pthread_join(w->tid, NULL);
	memcpy(r->sha256, w->hex, sizeof(r->sha256));
}

/*
 * Names, duplicates and the one .dist-info directory (into dist_info).
 * Returns the members' index sorted by name, for the RECORD lookups.
 */
static size_t *
check_names(struct wheel_report *r, const struct zip *z, struct buf *dist_info)
{
	char *dup_names = xcalloc(z->n ? z->n : 1, 1);
	size_t *names = sorted_index(z->n, by_entry_name, (void *)z, same_entry_name, dup_names);

	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *e = &z->entries[i];
		const char *s = strchr(e->name, '/');

		check_name(r, e);
		if (dup_names[i])
			add_error(r, "'%s' appears twice in the archive (names)", e->name);
		if (s && s - e->name > 10 && !strncmp(s - 10, ".dist-info", 10)) {
			if (!dist_info->len)
				buf_add(dist_info, e->name, (size_t)(s - e->name));
			else if (strncmp(dist_info->s, e->name, (size_t)(s - e->name)) ||
				 dist_info->len != (size_t)(s - e->name))
				add_error(r, "more than one .dist-info directory ('%s' and '%.*s') "
					  "(dist-info)", dist_info->s, (int)(s - e->name), e->name);
		}
	}
	free(dup_names);
	return names;
}

/* {name}-{version}.data/ may hold only the five scheme directories. */
static void
check_data_dirs(struct wheel_report *r, const struct zip *z, const struct buf *dist_info)
{
	static const char *const schemes[] = { "purelib/", "platlib/", "headers/", "scripts/",
					       "data/" };

	for (size_t i = 0; i < z->n; i++) {
		const char *n = z->entries[i].name, *s = strchr(n, '/');
		size_t k;

		if (!s || s - n < 5 || strncmp(s - 5, ".data", 5))
			continue;
		if ((size_t)(s - n) - 5 != dist_info->len - 10 ||
		    strncmp(n, dist_info->s, dist_info->len - 10)) {
			add_error(r, "'%s': a .data directory that does not match '%.*s' (dist-info)",
				  n, (int)(dist_info->len - 10), dist_info->s);
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(schemes); k++)
			if (starts_with(s + 1, schemes[k]))
				break;
		if (k == ARRAY_SIZE(schemes) && s[1])
			add_error(r, "'%s': .data may hold only purelib, platlib, headers, scripts and "
				  "data (dist-info)", n);
	}
}

/* The .dist-info directory is the file name's {name}-{version}, normalized. */
static void
check_dist_info_name(struct wheel_report *r, const char *dist_info)
{
	struct buf have = BUF_INIT, want = BUF_INIT;

	if (!r->name || !r->version)
		return;
	normalize_name(&want, r->name, strlen(r->name));
	buf_addf(&want, "-%s.dist-info", r->version);
	normalize_name(&have, dist_info, strcspn(dist_info, "-"));
	buf_addstr(&have, dist_info + strcspn(dist_info, "-"));
	if (strcmp(have.s, want.s))
		add_error(r, "'%s' does not match the file name's '%s' (dist-info)", dist_info,
			  want.s);
	buf_release(&have);
	buf_release(&want);
}

/* Read `name` from the archive into text; -1 after adding the error. */
static int
read_member(struct wheel_report *r, const struct zip *z, const char *name, uint64_t most,
	    const char *rule, struct buf *text)
{
	struct buf why = BUF_INIT;
	const struct zip_entry *e = zip_find(z, name);
	int ret = -1;

	if (!e)
		add_error(r, "no %s (%s)", name, rule);
	else if ((ret = zip_read_all(z, e, text, most, &why)) < 0)
		add_error(r, "%s", why.s);
	buf_release(&why);
	return ret;
}

/*
 * Hash every member RECORD lists (on every core), name the members it
 * leaves out, then check the libraries and their GPU targets.
 */
static void
check_members(struct wheel_report *r, const struct zip *z, const size_t *names,
	      const struct record_row *rows, size_t nrows, const char *record_name,
	      const char *dist_info, const struct wheel_expect *opts)
{
	char *seen_rows = xcalloc(z->n ? z->n : 1, 1);
	struct job *jobs = xcalloc(nrows ? nrows : 1, sizeof(*jobs));
	char **paths = xcalloc(z->n ? z->n : 1, sizeof(*paths));
	size_t i, njobs;

	njobs = plan_jobs(r, rows, nrows, record_name, dist_info, z, names, seen_rows, NULL, jobs);
	run_jobs(z, jobs, njobs, opts->threads, opts->deep);
	merge_jobs(r, jobs, njobs);
	free(jobs);
	for (i = 0; i < z->n; i++) {
		const char *n = z->entries[i].name;

		paths[i] = z->entries[i].name;
		if (seen_rows[i] || ends_with(n, "/"))
			continue;
		if (is_dist_info_file(n, dist_info, "RECORD.jws") ||
		    is_dist_info_file(n, dist_info, "RECORD.p7s"))
			continue;
		add_error(r, "'%s' is in the archive but not in RECORD (RECORD)", n);
	}
	free(seen_rows);
	check_libraries(r, paths, z->n, opts->provided);
	free(paths);
	check_cxx_abi(r, opts->cxx11_abi);
	check_coverage(r, opts);
}

int
wheel_verify(struct wheel_report *r, const char *path, const struct wheel_expect *expect)
{
	struct zip z;
	struct buf why = BUF_INIT, dist_info = BUF_INIT, member = BUF_INIT, text = BUF_INIT;
	struct record_row *rows = NULL;
	size_t nrows = 0, *names = NULL;
	const char *slash;
	struct wheel_expect opts = { .sass = NULL };
	struct whole wh;

	if (is_dir(path))
		return installed_verify(r, path, expect);
	if (expect)
		opts = *expect;
	report_init(r);
	r->path = xstrdup(path);
	slash = strrchr(path, '/');
	r->filename = xstrdup(slash ? slash + 1 : path);
	if (zip_open(&z, path) < 0) {
		wheel_report_release(r);
		return -1;
	}
	whole_start(&wh, &z);
	r->members = z.n;
	parse_filename(r);

	/* Data after the central directory, other than the end records, is smuggled. */
	if (z.cd_end != z.eocd_offset && z.cd_end + 20 != z.eocd_offset &&
	    !(z.eocd_offset >= 76 && z.cd_end + 76 <= z.eocd_offset))
		add_error(r, "bytes between the central directory and its end record (zip hygiene)");

	names = check_names(r, &z, &dist_info);
	if (!dist_info.len) {
		add_error(r, "no .dist-info directory (dist-info)");
		goto done;
	}
	check_data_dirs(r, &z, &dist_info);
	check_dist_info_name(r, dist_info.s);

	buf_addf(&member, "%s/WHEEL", dist_info.s);
	if (read_member(r, &z, member.s, MAX_TEXT_BYTES, "WHEEL", &text) == 0)
		check_wheel_file(r, text.s, member.s);
	buf_reset(&text);

	buf_reset(&member);
	buf_addf(&member, "%s/RECORD", dist_info.s);
	/* A row takes some 100 bytes: 4 KiB for each member (and spare row) is far beyond a real one. */
	if (read_member(r, &z, member.s, record_most(z.n), "RECORD", &text) < 0)
		goto done;
	/* Rows beyond the members (and some to spare, to be named) can only be errors. */
	if (record_parse_max(text.s, text.len, z.n + RECORD_SPARE_ROWS, &rows, &nrows, &why) < 0) {
		add_error(r, "%s: %s (RECORD)", member.s, why.s);
		goto done;
	}
	check_members(r, &z, names, rows, nrows, member.s, dist_info.s, &opts);
done:
	summarise_errors(r);
	whole_finish(&wh, r);
	record_free(rows, nrows);
	free(names);
	zip_close(&z);
	buf_release(&why);
	buf_release(&dist_info);
	buf_release(&member);
	buf_release(&text);
	return 0;
}

/* ---- an installed package: site-packages/<pkg> with its .dist-info ---- */

static int
dist_info_for(const char *root, const char *pkg, struct buf *out)
{
	struct buf want = BUF_INIT;
	struct dirent *de;
	DIR *d = opendir(root);

	if (!d)
		return -1;
	normalize_name(&want, pkg, strlen(pkg));
	while ((de = readdir(d))) {
		struct buf have = BUF_INIT;
		const char *dash = strchr(de->d_name, '-');

		if (!dash || !ends_with(de->d_name, ".dist-info"))
			continue;
		normalize_name(&have, de->d_name, (size_t)(dash - de->d_name));
		if (!strcmp(have.s, want.s)) {
			buf_reset(out);
			buf_addstr(out, de->d_name);
		}
		buf_release(&have);
	}
	closedir(d);
	buf_release(&want);
	return out->len ? 0 : -1;
}

int
installed_verify(struct wheel_report *r, const char *pkgdir, const struct wheel_expect *expect)
{
	struct wheel_expect opts = { .sass = NULL };
	struct buf root = BUF_INIT, di = BUF_INIT, path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct record_row *rows = NULL;
	struct job *jobs;
	char *abs = realpath(pkgdir, NULL), *slash, **paths;
	size_t nrows = 0, njobs, i;
	int ret = -1;

	if (expect)
		opts = *expect;
	report_init(r);
	if (!abs || !is_dir(abs)) {
		error("'%s' is not a directory (give an installed package, e.g. "
		      "$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))'))", pkgdir);
		goto out;
	}
	slash = strrchr(abs, '/');
	buf_add(&root, abs, (size_t)(slash - abs));
	if (dist_info_for(root.s, slash + 1, &di) < 0) {
		error("no %s-*.dist-info next to '%s'; was it installed from a wheel?", slash + 1, abs);
		goto out;
	}
	r->path = xstrdup(abs);
	r->filename = xstrdup(di.s);
	r->name = xstrndup(di.s, strcspn(di.s, "-"));
	r->version = xstrndup(di.s + strlen(r->name) + 1, di.len - strlen(r->name) - 1 - 10);
	buf_addf(&path, "%s/%s/WHEEL", root.s, di.s);
	if (read_file(&text, path.s) == 0) {
		struct wheel_file wf;

		wheel_file_parse(&wf, text.s);
		for (i = 0; i < wf.n; i++)
			if (!strcmp(wf.fields[i].key, "Tag"))
				strset_add(&r->tags, wf.fields[i].value);
		wheel_file_release(&wf);
	}
	buf_reset(&path);
	buf_reset(&text);
	buf_addf(&path, "%s/%s/RECORD", root.s, di.s);
	if (read_file(&text, path.s) < 0)
		goto out;
	if (record_parse_max(text.s, text.len, RECORD_INSTALLED_ROWS, &rows, &nrows, &why) < 0) {
		error("%s: %s", path.s, why.s);
		goto out;
	}
	r->members = nrows;
	buf_reset(&path);
	buf_addf(&path, "%s/RECORD", di.s);
	jobs = xcalloc(nrows ? nrows : 1, sizeof(*jobs));
	njobs = plan_jobs(r, rows, nrows, path.s, di.s, NULL, NULL, NULL, root.s, jobs);
	run_jobs(NULL, jobs, njobs, opts.threads, opts.deep);
	merge_jobs(r, jobs, njobs);
	free(jobs);
	paths = xcalloc(nrows ? nrows : 1, sizeof(*paths));
	for (i = 0; i < nrows; i++)
		paths[i] = rows[i].fields[0];
	check_libraries(r, paths, nrows, opts.provided);
	free(paths);
	check_cxx_abi(r, opts.cxx11_abi);
	check_coverage(r, &opts);
	summarise_errors(r);
	ret = 0;
out:
	if (ret < 0)
		wheel_report_release(r);
	record_free(rows, nrows);
	free(abs);
	buf_release(&root);
	buf_release(&di);
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	return ret;
}

void
wheel_report_release(struct wheel_report *r)
{
	size_t i;

	for (i = 0; i < r->nlibs; i++)
		wheel_lib_release(&r->libs[i]);
	free(r->libs);
	free(r->path);
	free(r->filename);
	free(r->name);
	free(r->version);
	free(r->build_tag);
	strvec_clear(&r->tags);
	strvec_clear(&r->sass);
	strvec_clear(&r->ptx);
	strvec_clear(&r->errors);
	strvec_clear(&r->notes);
	free(r->macros_h);
	free(r->macros_h_path);
	free(r->version_py);
	free(r->version_py_path);
	memset(r, 0, sizeof(*r));
}

void
wheel_lib_targets(const struct wheel_lib *l, struct buf *out)
{
	buf_addstr(out, "SASS");
	for (size_t j = 0; j < l->sass.n; j++)
		buf_addf(out, " %s", l->sass.v[j]);
	buf_addstr(out, "; PTX");
	for (size_t j = 0; j < l->ptx.n; j++)
		buf_addf(out, " %s", l->ptx.v[j]);
	if (!l->ptx.n)
		buf_addstr(out, " none");
}

/* The verify step: the wheel in <work>/dist against the profile's archs. */
/*
 * The wheel rewritten as it will ship (src/wheel/repack.c): the platform tag its
 * libraries earn or the profile demands, members in order with one
 * timestamp and fixed modes. The old file goes; -1 after reporting.
 */
static int
repack_wheel(struct build *b)
{
	const struct pvalue *want = &b->profile.platform;
	struct repack_opts ro = { .platform = NULL, .epoch = b->epoch };
	struct buf pin = BUF_INIT;
	struct buf tag = BUF_INIT, why = BUF_INIT, dir = BUF_INIT, out = BUF_INIT;
	const char *env = getenv("SOURCE_DATE_EPOCH");
	int require = want->str ? profile_platform_glibc(want->str) : 0, rc = -1;

	if (env && *env)
		ro.epoch = strtoll(env, NULL, 10);
	if (want->str && !strcmp(want->str, "linux")) {
		ro.platform = NULL;
	} else if (wheel_platform_earned(&b->report, (unsigned)require, &tag, &why) < 0) {
		if (require > 0) {
			error_at(&want->loc, "the wheel cannot be tagged %s: %s", want->str, why.s);
			goto out;
		}
		note("platform: %s stays: %s", strrchr(b->report.tags.v[0], '-') + 1, why.s);
	} else {
		ro.platform = tag.s;
		fprintf(stderr, "verify: platform %s (%s)\n", tag.s, why.len ? why.s : "no libraries");
	}
	/* An extension requires exactly the torch it was built on (docs/extensions.md). */
	if (b->have_torch) {
		buf_addf(&pin, "%s==%s", b->torch.name, b->torch.version);
		ro.requires_name = b->torch.name;
		ro.requires = pin.s;
	}
	buf_reset(&why);
	buf_addstr(&dir, b->wheel.s);
	buf_setlen(&dir, (size_t)(strrchr(dir.s, '/') - dir.s));
	if (wheel_repack(b->wheel.s, dir.s, &ro, &out, &why) < 0) {
		error("cannot repack '%s': %s", b->wheel.s, why.s);
		goto out;
	}
	if (strcmp(out.s, b->wheel.s) && unlink(b->wheel.s) < 0)
		warning("cannot remove '%s':", b->wheel.s);
	buf_reset(&b->wheel);
	buf_addstr(&b->wheel, out.s);
	rc = 0;
out:
	buf_release(&tag);
	buf_release(&why);
	buf_release(&dir);
	buf_release(&out);
	buf_release(&pin);
	return rc;
}

static int
verify_once(struct build *b, int repacked)
{
	struct wheel_expect ex = { .sass = &b->plan.sass, .ptx = &b->plan.ptx };
	struct wheel_exception *exc = plan_exceptions(&b->profile, &ex.nexceptions);
	int rc;

	ex.exceptions = exc;
	ex.cxx11_abi = b->profile.cxx11_abi == TRI_OFF ? 2 : 1;
	if (b->have_torch) {
		/* An extension: torch's libraries come from torch, its C++ ABI is torch's. */
		ex.provided = &b->torch.sonames;
		if (b->torch.cxx11_abi)
			ex.cxx11_abi = b->torch.cxx11_abi;
	}
	if (b->have_report)
		wheel_report_release(&b->report);
	b->have_report = 0;
	rc = wheel_verify(&b->report, b->wheel.s, &ex);
	free(exc);
	if (rc < 0)
		return -1;
	/* Requested vs effective is only true if the wheel agrees with what configure said. */
	if (b->effective)
		features_crosscheck(&b->report, b->effective, &b->report.errors);
	if (b->have_torch)
		extension_verify(b, repacked);
	b->have_report = 1;
	return 0;
}

int
verify_run(struct build *b)
{
	const struct wheel_report *r = &b->report;

	if (verify_once(b, 0) < 0)
		return -1;
	/* A sound wheel is repacked as it ships and verified again, as a user's verify would. */
	if (!r->errors.n && (repack_wheel(b) < 0 || verify_once(b, 1) < 0))
		return -1;
	fprintf(stderr, "verify: %zu members, %zu ELF libraries\n", r->members, r->nlibs);
	for (size_t i = 0; i < r->nlibs; i++) {
		struct buf line = BUF_INIT;

		if (!r->libs[i].has_fatbin)
			continue;
		wheel_lib_targets(&r->libs[i], &line);
		fprintf(stderr, "  %s: %s\n", r->libs[i].path, line.s);
		buf_release(&line);
	}
	for (size_t i = 0; i < r->notes.n; i++)
		note("%s", r->notes.v[i]);
	for (size_t i = 0; i < r->errors.n; i++)
		error("%s", r->errors.v[i]);
	return 0;
}
