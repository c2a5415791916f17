/*
 * Wheel verification, the per-member pass: every member RECORD lists is
 * read once, on every core, biggest first: inflated (a large one through a
 * second thread that hashes), hashed against its RECORD row, and, when it is
 * an ELF library, scanned (formats/elfscan.h) in memory, in place in the
 * mapping, or from a temporary file. Installed files are mapped instead.
 * Results stay in each job, merged in RECORD order by verify_record.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "formats/elf.h"
#include "formats/elfscan.h"
#include "formats/fatbin.h"
#include "core/hash.h"
#include "host/host.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/verify_parts.h"
#include "formats/zip.h"

/* elfscan's flags for a deep check with budget `b`, none without. */
#define DEEP(b) ((b) ? ELFSCAN_DEEP : 0)

/*
 * A library up to MAX_ELF_IN_MEMORY is kept in memory; a larger one is
 * streamed into an unlinked temporary file and mapped, so memory stays
 * bounded (threads x this) whatever the member's size. ELF needs the whole
 * file because the section table sits at its end.
 */
#define MAX_ELF_IN_MEMORY (4ULL << 20)

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
scan_library(struct job *j, struct member_ctx *mc, struct fatbin_budget *deep)
{
	j->lib = xcalloc(1, sizeof(*j->lib));
	if (mc->fd < 0) {
		elfscan(j->lib, j->name, (const uint8_t *)mc->data.s, mc->data.len, DEEP(deep), deep,
			&j->errors);
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
		elfscan(j->lib, j->name, map, (size_t)mc->size, DEEP(deep) | ELFSCAN_DROP, deep,
			&j->errors);
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
read_installed(struct job *j, struct member_ctx *mc, struct fatbin_budget *deep)
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
		elfscan(j->lib, j->name, map, (size_t)st.st_size, DEEP(deep) | ELFSCAN_DROP, deep,
			&j->errors);
	} else if (mc->keep_text && map) {
		buf_add(&mc->data, map, (size_t)st.st_size < MAX_TEXT_BYTES ? (size_t)st.st_size :
									    MAX_TEXT_BYTES);
	}
	if (map)
		munmap(map, (size_t)st.st_size);
	return 0;
}

static void
run_job(const struct zip *z, struct job *j, struct fatbin_budget *deep)
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
		elfscan(j->lib, j->name, z->data + j->e->data_off, (size_t)mc.size, DEEP(deep), deep,
			&j->errors);
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
	struct fatbin_budget budget, *deep; /* deep: &budget with --deep, else NULL */
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
void
verify_run_jobs(const struct zip *z, struct job *jobs, size_t n, unsigned threads, int deep)
{
	struct pool p = { z, jobs, NULL, n, 0, { 0, 0 }, NULL };
	pthread_t *tids;
	size_t i, started = 0;
	uint64_t input = z ? z->len : 0;

	if (!n)
		return;
	/* The whole input's bytes, a wheel's or an installed package's files: one budget for all. */
	for (i = 0; !z && i < n; i++)
		input += jobs[i].order_size;
	fatbin_budget_init(&p.budget, input);
	if (deep)
		p.deep = &p.budget;
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
