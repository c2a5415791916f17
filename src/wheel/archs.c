#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wheel/archs.h"
#include "core/buf.h"
#include "core/diag.h"
#include "formats/elf.h"
#include "formats/fatbin.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/zip.h"

/* Mapped pages the walk has passed are given back once this much has piled up. */
#define DROP_CHUNK (4u << 20)

/* 0, or -1 when `name` would be one distinct target more than FATBIN_MAX_TARGETS. */
static int
counts_add(struct target_counts *c, const char *name)
{
	size_t pos;

	for (pos = 0; pos < c->n; pos++) {
		int d = natcmp(c->v[pos].name, name);

		if (!d) {
			c->v[pos].n++;
			return 0;
		}
		if (d > 0)
			break;
	}
	if (c->n >= FATBIN_MAX_TARGETS)
		return -1;
	ALLOC_GROW(c->v, c->n + 1, c->cap);
	memmove(c->v + pos + 1, c->v + pos, (c->n - pos) * sizeof(*c->v));
	c->v[pos].name = xstrdup(name);
	c->v[pos].n = 1;
	c->n++;
	return 0;
}

static void
counts_release(struct target_counts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

void
target_counts_format(const struct target_counts *c, struct buf *out)
{
	if (!c->n)
		buf_addstr(out, "none");
	for (size_t i = 0; i < c->n; i++)
		buf_addf(out, "%s%s (%u)", i ? "  " : "", c->v[i].name, c->v[i].n);
}

struct walk {
	struct archs_lib *lib;
	int rel;
	const uint8_t *map;     /* page-aligned start of a mapping whose pages may be dropped; NULL: none */
	const uint8_t *region;
	size_t dropped;         /* bytes of `map` already given back */
	struct buf name;
};

static int
walk_cb(void *vctx, const struct fatbin_entry *e)
{
	struct walk *w = vctx;
	struct archs_lib *l = w->lib;

	int full = 0;

	buf_reset(&w->name);
	fatbin_entry_name(e, &w->name);
	if (e->kind == FATBIN_PTX)
		full = counts_add(w->rel ? &l->rel_ptx : &l->ptx, w->name.s);
	else if (e->kind == FATBIN_ELF)
		full = counts_add(w->rel ? &l->rel_sass : &l->sass, w->name.s);
	else
		l->other++;
	if (full) {
		struct buf msg = BUF_INIT;

		buf_addf(&msg, "more than %d distinct targets (a crafted fatbin?)", FATBIN_MAX_TARGETS);
		free(l->error);
		l->error = buf_detach(&msg);
		return 1;
	}
	if (w->rel)
		l->rel_containers = e->container + 1 > l->rel_containers ? e->container + 1
									 : l->rel_containers;
	else
		l->containers = e->container + 1 > l->containers ? e->container + 1 : l->containers;
	if (w->map) {
		/* Everything before this entry's payload has been read: give it back. */
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t upto = (size_t)(w->region - w->map) + (size_t)e->payload_off;

		upto -= upto % page;
		if (upto > w->dropped + DROP_CHUNK) {
			madvise((void *)(w->map + w->dropped), upto - w->dropped, MADV_DONTNEED);
			w->dropped = upto;
		}
	}
	return 0;
}

static int
is_fatbin(const uint8_t *data, size_t len)
{
	return len >= 16 && data[0] == 0x50 && data[1] == 0xED && data[2] == 0x55 && data[3] == 0xBA;
}

static void
walk_region(struct archs_lib *l, const uint8_t *map, const uint8_t *region, size_t len, int rel,
	    const char *section)
{
	struct walk w = { l, rel, map, region, 0, BUF_INIT };
	struct buf why = BUF_INIT;

	l->has_cuda = 1;
	if (fatbin_walk(region, len, walk_cb, &w, &why) < 0 && !l->error) {
		struct buf msg = BUF_INIT;

		buf_addf(&msg, "%s: %s", section, why.s);
		l->error = buf_detach(&msg);
	}
	buf_release(&w.name);
	buf_release(&why);
}

void
archs_scan_bytes(struct archs_lib *l, const uint8_t *data, size_t len, int drop_pages)
{
	static const char *const sections[] = { ".nv_fatbin", "__nv_relfatbin" };
	const uint8_t *map = drop_pages ? data : NULL;
	struct buf why = BUF_INIT;
	struct elf elf;

	if (is_fatbin(data, len)) {
		walk_region(l, map, data, len, 0, "fatbin");
		return;
	}
	if (elf_open(&elf, data, len, &why) < 0) {
		l->error = buf_detach(&why);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++) {
		const struct elf_section *s = elf_section_by_name(&elf, sections[i]);

		if (s && s->type != SHT_NOBITS_)
			walk_region(l, map, data + s->offset, (size_t)s->size, (int)i, sections[i]);
	}
	elf_release(&elf);
	buf_release(&why);
}

void
archs_lib_release(struct archs_lib *l)
{
	free(l->path);
	free(l->error);
	counts_release(&l->sass);
	counts_release(&l->ptx);
	counts_release(&l->rel_sass);
	counts_release(&l->rel_ptx);
	memset(l, 0, sizeof(*l));
}

/* ---- inputs: files, directories, wheels ---- */

struct job {
	struct archs_lib lib;
	char *file;                  /* a file to map, or NULL for a wheel member */
	const struct zip *zip;
	const struct zip_entry *member;
	uint64_t size;
	int explicit;                /* named on the command line: not ELF is an error */
	int skip;                    /* not ELF: left out of the report */
};

struct jobs {
	struct job *v;
	size_t n, cap;
	size_t next;
	pthread_mutex_t lock;
	struct zip *zips;
	size_t nzips;
};

static struct job *
job_add(struct jobs *js, const char *display, uint64_t size)
{
	struct job *j;

	ALLOC_GROW(js->v, js->n + 1, js->cap);
	j = &js->v[js->n++];
	memset(j, 0, sizeof(*j));
	j->lib.path = xstrdup(display);
	j->size = size;
	return j;
}

static int
looks_like_library(const char *name)
{
	size_t n = strlen(name);

	return (n > 3 && !strcmp(name + n - 3, ".so")) || strstr(name, ".so.") != NULL;
}

/* Every library below `dir`, symbolic links not followed (no loops, no counting twice). */
static void
add_dir(struct jobs *js, const char *dir, unsigned depth)
{
	struct buf path = BUF_INIT;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d || depth > 64) {
		if (d)
			closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, de->d_name);
		if (lstat(path.s, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			add_dir(js, path.s, depth + 1);
		} else if (S_ISREG(st.st_mode) && looks_like_library(de->d_name) && st.st_size >= 64) {
			struct job *j = job_add(js, path.s, (uint64_t)st.st_size);

			j->file = xstrdup(path.s);
		}
	}
	closedir(d);
	buf_release(&path);
}

static int
is_wheel(const char *path)
{
	size_t n = strlen(path);
	uint8_t magic[4] = { 0 };
	int fd;

	if (n > 4 && !strcmp(path + n - 4, ".whl"))
		return 1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	n = (size_t)read(fd, magic, sizeof(magic));
	close(fd);
	return n == 4 && !memcmp(magic, "PK\3\4", 4);
}

static void
add_wheel(struct jobs *js, struct zip *z, const char *path)
{
	struct buf display = BUF_INIT;

	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *e = &z->entries[i];
		const char *base = strrchr(e->name, '/') ? strrchr(e->name, '/') + 1 : e->name;
		struct job *j;

		if (!looks_like_library(base) || e->usize < 64)
			continue;
		buf_reset(&display);
		buf_addf(&display, "%s:%s", path, e->name);
		j = job_add(js, display.s, e->usize);
		j->zip = z;
		j->member = e;
	}
	buf_release(&display);
}

static void
run_job(struct job *j)
{
	struct buf why = BUF_INIT;

	if (j->member) {
		struct zip_spill sp;

		/* Inflated to a temporary file, not memory: a member can claim gigabytes. */
		if (zip_spill(j->zip, j->member, &sp, &why) < 0)
			j->lib.error = buf_detach(&why);
		else if (!elf_is_elf(sp.p, sp.n))
			j->skip = 1;
		else
			archs_scan_bytes(&j->lib, sp.p, sp.n, 1);
		zip_spill_release(&sp);
	} else {
		int fd = open(j->file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat st;
		void *map = MAP_FAILED;

		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
			map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			buf_addf(&why, "cannot read it: %s", fd < 0 ? strerror(errno) :
				 "not a regular file with content");
			j->lib.error = buf_detach(&why);
		} else {
			const uint8_t *data = map;
			size_t len = (size_t)st.st_size;

			/* Only headers are read: no read-ahead of the payloads between them. */
			madvise(map, len, MADV_RANDOM);
			if (!elf_is_elf(data, len) && !is_fatbin(data, len)) {
				if (j->explicit)
					j->lib.error = xstrdup("not an ELF file or a fatbin");
				else
					j->skip = 1;
			} else {
				archs_scan_bytes(&j->lib, data, len, 1);
			}
			munmap(map, len);
		}
		if (fd >= 0)
			close(fd);
	}
	buf_release(&why);
}

static void *
worker(void *arg)
{
	struct jobs *js = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&js->lock);
		i = js->next++;
		pthread_mutex_unlock(&js->lock);
		if (i >= js->n)
			return NULL;
		run_job(&js->v[i]);
	}
}

static int
cmp_job_size(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static int
cmp_lib_path(const void *a, const void *b)
{
	return strcmp(((const struct archs_lib *)a)->path, ((const struct archs_lib *)b)->path);
}

int
archs_scan(struct archs_report *r, char *const *paths, size_t npaths, unsigned threads)
{
	struct jobs js;
	pthread_t *tids;
	size_t i, nt;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	memset(&js, 0, sizeof(js));
	pthread_mutex_init(&js.lock, NULL);
	js.zips = xcalloc(npaths ? npaths : 1, sizeof(*js.zips));
	for (i = 0; i < npaths; i++) {
		struct stat st;

		if (stat(paths[i], &st) < 0) {
			rc = error("cannot read '%s': %s", paths[i], strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			char *dir = xstrdup(paths[i]);
			size_t n = strlen(dir);

			while (n > 1 && dir[n - 1] == '/')
				dir[--n] = '\0';
			add_dir(&js, dir, 0);
			free(dir);
		} else if (!S_ISREG(st.st_mode)) {
			rc = error("'%s' is not a file, a directory or a wheel", paths[i]);
		} else if (is_wheel(paths[i])) {
			if (zip_open(&js.zips[js.nzips], paths[i]) < 0)
				rc = -1;
			else
				add_wheel(&js, &js.zips[js.nzips++], paths[i]);
		} else {
			struct job *j = job_add(&js, paths[i], (uint64_t)st.st_size);

			j->file = xstrdup(paths[i]);
			j->explicit = 1;
		}
	}
	/* The biggest first, so no thread is left with the longest one at the end. */
	if (js.n)
		qsort(js.v, js.n, sizeof(*js.v), cmp_job_size);
	nt = threads ? threads : (size_t)sysconf(_SC_NPROCESSORS_ONLN);
	if (nt > js.n)
		nt = js.n;
	if (nt < 1)
		nt = 1;
	tids = xcalloc(nt, sizeof(*tids));
	for (i = 1; i < nt; i++)
		if (pthread_create(&tids[i], NULL, worker, &js) != 0)
			break;
	nt = i;
	worker(&js);
	for (i = 1; i < nt; i++)
		pthread_join(tids[i], NULL);
	free(tids);

	r->libs = xcalloc(js.n ? js.n : 1, sizeof(*r->libs));
	for (i = 0; i < js.n; i++) {
		struct job *j = &js.v[i];

		if (!j->skip) {
			r->files++;
			r->libs[r->n++] = j->lib;
		} else {
			archs_lib_release(&j->lib);
		}
		free(j->file);
	}
	if (r->n)
		qsort(r->libs, r->n, sizeof(*r->libs), cmp_lib_path);
	for (i = 0; i < js.nzips; i++)
		zip_close(&js.zips[i]);
	free(js.zips);
	free(js.v);
	pthread_mutex_destroy(&js.lock);
	return rc;
}

void
archs_report_release(struct archs_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		archs_lib_release(&r->libs[i]);
	free(r->libs);
	memset(r, 0, sizeof(*r));
}
