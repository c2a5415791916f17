/*
 * The repair of a wheel (wheel/repair.h): what its libraries need from
 * outside the manylinux and CUDA allow-lists copied in under hashed
 * sonames, the members that need them rewritten by patchelf, the wheel
 * repacked (wheel/repack.c) with RECORD following every change.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"
#include "formats/elf.h"
#include "formats/ldconf.h"
#include "formats/manylinux.h"
#include "formats/zip.h"
#include "wheel/repack.h"
#include "wheel/repair.h"

/* A library vendored at most this deep (libA needs libB needs ...): real chains are 2-3. */
#define REPAIR_DEPTH 16
/* At most this many libraries copied in: a wheel that would need more is refused. */
#define REPAIR_MAX 256

/* An ELF member of the wheel and what it needs. */
struct elf_member {
	const struct zip_entry *e;
	struct strvec needed;
	char *runpath;   /* RUNPATH, else RPATH; NULL */
	uint16_t machine;
	int vendored_any;
};

struct repair_ctx {
	const struct repair_opts *o;
	struct zip z;
	struct elf_member *m;
	size_t nm;
	struct strvec basenames;  /* every member's file name: "in the wheel" */
	struct strvec dirs;       /* where libraries are looked for after a member's own */
	struct repair_result *res;
	struct buf *why;
};

void
repair_hashed_name(const char *soname, const char *sha256, struct buf *out)
{
	const char *so = strstr(soname, ".so");
	size_t stem = so ? (size_t)(so - soname) : strlen(soname);

	buf_add(out, soname, stem);
	buf_addf(out, "-%.8s%s", sha256, soname + stem);
}

/* The dynamic part of an ELF image: -1 when it is none this reader takes. */
static int
read_dynamic(const uint8_t *data, size_t len, struct elf_dynamic *d, uint16_t *machine,
	     struct buf *why)
{
	struct elf e;
	int rc;

	if (elf_open(&e, data, len, why) < 0)
		return -1;
	*machine = e.machine;
	rc = elf_dynamic_read(&e, d, why);
	elf_release(&e);
	return rc;
}

/* The wheel's ELF members with their DT_NEEDED and RUNPATH; every member's file name. */
static int
scan_members(struct repair_ctx *c)
{
	c->m = xcalloc(c->z.n + 1, sizeof(*c->m));
	for (size_t i = 0; i < c->z.n; i++) {
		const struct zip_entry *e = &c->z.entries[i];
		struct elf_member *m = &c->m[c->nm];
		struct elf_dynamic d;
		struct zip_spill sp;
		struct buf why = BUF_INIT;
		uint8_t head[4];

		if (ends_with(e->name, "/"))
			continue;
		strset_add(&c->basenames, path_tail(e->name));
		if (zip_peek(&c->z, e, head, sizeof(head)) != sizeof(head) ||
		    !elf_is_elf(head, sizeof(head)))
			continue;
		if (zip_spill(&c->z, e, &sp, c->why) < 0)
			return -1;
		memset(&d, 0, sizeof(d));
		/* An ELF this reader cannot take (32-bit, an object file) needs nothing here: verify judges it. */
		if (read_dynamic(sp.p, sp.n, &d, &m->machine, &why) == 0) {
			m->e = e;
			m->needed = d.needed;
			strvec_init(&d.needed);
			m->runpath = d.runpath ? xstrdup(d.runpath) : d.rpath ? xstrdup(d.rpath) : NULL;
			c->nm++;
		}
		elf_dynamic_release(&d);
		zip_spill_release(&sp);
		buf_release(&why);
	}
	return 0;
}

/* Whether `soname` comes from outside the wheel and the allow-lists (what repair copies in). */
static int
is_external(const struct repair_ctx *c, const char *soname)
{
	if (strset_has(&c->basenames, soname) || soname_origin(soname) != SONAME_UNKNOWN)
		return 0;
	if (c->o->provided && strset_has(c->o->provided, soname))
		return 0;
	for (size_t i = 0; i < c->res->n; i++)
		if (!strcmp(c->res->libs[i].soname, soname))
			return 0;
	return 1;
}

/*
 * `dir/soname` if it is an ELF of `machine` with a dynamic section (its
 * DT_NEEDED into `needed`): 1; 0 when it is not there or not one (the loader
 * would go on looking, and so do we).
 */
static int
try_candidate(const char *dir, const char *soname, uint16_t machine, struct buf *real,
	      struct strvec *needed)
{
	struct buf path = BUF_INIT, why = BUF_INIT;
	struct elf_dynamic d;
	struct stat st;
	uint16_t have = 0;
	char *abs;
	int fd, ok = 0;
	void *map;

	buf_addf(&path, "%s/%s", dir, soname);
	abs = realpath(path.s, NULL);
	fd = abs ? open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			memset(&d, 0, sizeof(d));
			if (read_dynamic(map, (size_t)st.st_size, &d, &have, &why) == 0 &&
			    have == machine) {
				for (size_t i = 0; i < d.needed.n; i++)
					strvec_push(needed, d.needed.v[i]);
				buf_addstr(real, abs);
				ok = 1;
			}
			elf_dynamic_release(&d);
			munmap(map, (size_t)st.st_size);
		}
	}
	if (fd >= 0)
		close(fd);
	free(abs);
	buf_release(&path);
	buf_release(&why);
	return ok;
}

/* The absolute entries of a ':'-separated list (RUNPATH, LD_LIBRARY_PATH) into `out`. */
static void
push_abs_dirs(const char *list, struct strvec *out)
{
	for (const char *p = list ? list : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (n && p[0] == '/') {
			struct buf d = BUF_INIT;

			buf_add(&d, p, n);
			strvec_push(out, d.s);
			buf_release(&d);
		}
		p += n + (p[n] == ':');
	}
}

/* `by` needs the vendored `soname` too (nothing when it is not vendored). */
static void
mark_needed(struct repair_result *res, const char *soname, const char *by)
{
	for (size_t k = 0; k < res->n; k++)
		if (!strcmp(res->libs[k].soname, soname))
			strset_add(&res->libs[k].needed_by, by);
}

/* The directories a member's own RUNPATH/RPATH names absolutely, then the loader's. */
static void
search_dirs(const struct repair_ctx *c, const char *runpath, struct strvec *out)
{
	push_abs_dirs(runpath, out);
	for (size_t i = 0; i < c->dirs.n; i++)
		strvec_push(out, c->dirs.v[i]);
}

/* Find `soname` (needed by `by`), add it to the result with what it needs in turn. */
static int
vendor(struct repair_ctx *c, const char *soname, const char *by, const char *runpath,
       uint16_t machine, int depth)
{
	struct strvec dirs = STRVEC_INIT, needed = STRVEC_INIT;
	struct buf real = BUF_INIT, hex = BUF_INIT, name = BUF_INIT;
	struct repair_lib *l;
	int rc = -1;
	size_t i;

	search_dirs(c, runpath, &dirs);
	for (i = 0; i < dirs.n; i++)
		if (try_candidate(dirs.v[i], soname, machine, &real, &needed))
			break;
	if (i == dirs.n) {
		struct buf where = BUF_INIT;

		strvec_join(&dirs, ", ", &where);
		buf_addf(c->why, "'%s' needs '%s', which is not on the manylinux or CUDA allow-lists "
			 "and was not found to copy in (looked in %s); install it, or put its "
			 "directory on LD_LIBRARY_PATH", by, soname, where.s);
		buf_release(&where);
		goto out;
	}
	if (c->res->n >= REPAIR_MAX || depth > REPAIR_DEPTH) {
		buf_addf(c->why, "the wheel would need more than %d libraries copied in, or a chain "
			 "deeper than %d ('%s' needed by '%s')", REPAIR_MAX, REPAIR_DEPTH, soname, by);
		goto out;
	}
	if (sha256_file(real.s, &hex) < 0) {
		buf_addf(c->why, "cannot read '%s': %s", real.s, strerror(errno));
		goto out;
	}
	repair_hashed_name(soname, hex.s, &name);
	c->res->libs = xrealloc(c->res->libs, (c->res->n + 1) * sizeof(*c->res->libs));
	l = &c->res->libs[c->res->n++];
	memset(l, 0, sizeof(*l));
	l->provided = c->o->provided && c->o->provided_libs && strset_has(c->o->provided, name.s);
	l->soname = xstrdup(soname);
	l->from = buf_detach(&real);
	l->name = buf_detach(&name);
	l->sha256 = buf_detach(&hex);
	strvec_push(&l->needed_by, by);
	rc = 0;
	/* The base package's copy comes with what it needs (i starts past them). */
	for (i = l->provided ? needed.n : 0; i < needed.n && rc == 0; i++)
		if (is_external(c, needed.v[i]))
			rc = vendor(c, needed.v[i], soname, NULL, machine, depth + 1);
		else
			mark_needed(c->res, needed.v[i], soname);
out:
	strvec_clear(&dirs);
	strvec_clear(&needed);
	buf_release(&real);
	buf_release(&hex);
	buf_release(&name);
	return rc;
}

static const struct repair_lib *
vendored(const struct repair_result *res, const char *soname)
{
	for (size_t i = 0; i < res->n; i++)
		if (!strcmp(res->libs[i].soname, soname))
			return &res->libs[i];
	return NULL;
}

/*
 * One patchelf edit (`op` with its one or two values) of `file`; -1 with its
 * output in `why`. One edit a run: patchelf 0.14 (Debian 12's) applies
 * --set-soname or --set-rpath with the value of a --replace-needed given in
 * the same run, and keeps only the first of several --replace-needed.
 */
static int
patchelf(const struct repair_ctx *c, const char *op, const char *v1, const char *v2,
	 const char *file)
{
	struct proc p = PROC_INIT;
	struct buf out = BUF_INIT;
	int rc;

	strvec_pushl(&p.args, c->o->patchelf ? c->o->patchelf : "patchelf", op, v1, NULL);
	if (v2)
		strvec_push(&p.args, v2);
	strvec_push(&p.args, file);
	rc = proc_run_capture(&p, &out);
	if (rc != 0) {
		buf_addf(c->why, "patchelf %s failed on '%s' (exit %d)%s%s", op, file, rc,
			 out.len ? ": " : "", out.len ? out.s : "");
		while (c->why->len && c->why->s[c->why->len - 1] == '\n')
			buf_setlen(c->why, c->why->len - 1);
	}
	proc_release(&p);
	buf_release(&out);
	return rc == 0 ? 0 : -1;
}

/*
 * The RUNPATH a member gets: its $ORIGIN-relative entries kept (absolute
 * ones are the build machine's and go), and `libdir` added when missing.
 */
static void
new_runpath(const char *old, const char *libdir, struct buf *out)
{
	int have = 0;

	for (const char *p = old ? old : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (n && (!strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9))) {
			have |= n == strlen(libdir) && !strncmp(p, libdir, n);
			if (out->len)
				buf_addch(out, ':');
			buf_add(out, p, n);
		}
		p += n + (p[n] == ':');
	}
	if (!have) {
		if (out->len)
			buf_addch(out, ':');
		buf_addstr(out, libdir);
	}
}

/* "$ORIGIN/../../torch.libs" for the member "torch/lib/x.so" and the directory "torch.libs". */
static void
origin_path(const char *member, const char *libdir, struct buf *out)
{
	buf_addstr(out, "$ORIGIN");
	for (const char *p = member; (p = strchr(p, '/')); p++)
		buf_addstr(out, "/..");
	buf_addf(out, "/%s", libdir);
}

/* One member that needs a vendored library, extracted into `path` and edited there. */
static int
edit_member(struct repair_ctx *c, const struct elf_member *m, const char *libdir, const char *path)
{
	struct buf rp = BUF_INIT, origin = BUF_INIT, data = BUF_INIT;
	int rc = -1;

	if (zip_read_all(&c->z, m->e, &data, (uint64_t)16 << 30, c->why) < 0)
		goto out;
	if (write_file_atomic(path, data.s, data.len) < 0) {
		buf_addf(c->why, "cannot write '%s'", path);
		goto out;
	}
	buf_release(&data);
	rc = 0;
	for (size_t j = 0; j < m->needed.n && !rc; j++) {
		const struct repair_lib *l = vendored(c->res, m->needed.v[j]);

		if (l)
			rc = patchelf(c, "--replace-needed", l->soname, l->name, path);
	}
	for (int pass = 0; pass < 2; pass++) {
		/* Ours, then the base package's: each directory only where a library of it is needed. */
		const char *dir = pass ? c->o->provided_libs : libdir;
		struct buf next = BUF_INIT;
		int any = 0;

		for (size_t j = 0; j < m->needed.n; j++) {
			const struct repair_lib *l = vendored(c->res, m->needed.v[j]);

			any |= l && l->provided == pass;
		}
		if (!any)
			continue;
		buf_reset(&origin);
		origin_path(m->e->name, dir, &origin);
		new_runpath(rp.len ? rp.s : m->runpath, origin.s, &next);
		buf_reset(&rp);
		buf_add(&rp, next.s, next.len);
		buf_release(&next);
	}
	if (!rc)
		rc = patchelf(c, "--set-rpath", rp.s, NULL, path);
out:
	buf_release(&rp);
	buf_release(&origin);
	buf_release(&data);
	return rc;
}

/* A vendored library copied into `path` with its new soname and its own needs renamed. */
static int
edit_vendored(struct repair_ctx *c, const struct repair_lib *l, const char *path)
{
	int rc, any = 0;

	if (copy_file(l->from, path) < 0 || chmod(path, 0755) < 0) {
		buf_addf(c->why, "cannot copy '%s' to '%s'", l->from, path);
		return -1;
	}
	rc = patchelf(c, "--set-soname", l->name, NULL, path);
	for (size_t i = 0; i < c->res->n && !rc; i++) {
		const struct repair_lib *dep = &c->res->libs[i];

		if (strset_has(&dep->needed_by, l->soname)) {
			rc = patchelf(c, "--replace-needed", dep->soname, dep->name, path);
			any = 1;
		}
	}
	/* Its own dependencies lie beside it. */
	if (!rc && any)
		rc = patchelf(c, "--set-rpath", "$ORIGIN", NULL, path);
	return rc;
}

/* "torch" from "torch-2.6.0+cpu-cp311-cp311-linux_x86_64.whl": the directory is "torch.libs". */
static void
libs_dir(const char *wheel, struct buf *out)
{
	const char *base = path_tail(wheel);

	buf_add(out, base, strcspn(base, "-"));
	buf_addstr(out, ".libs");
}

/* The edited files, in `scratch`, as members for the repack. */
static int
edit_all(struct repair_ctx *c, const char *libdir, struct repack_file **files, size_t *nfiles,
	 struct strvec *paths)
{
	struct repack_file *f = xcalloc(c->nm + c->res->n + 1, sizeof(*f));
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < c->res->n && !rc; i++) {
		struct repair_lib *l = &c->res->libs[i];
		struct buf member = BUF_INIT;

		buf_addf(&member, "%s/%s", l->provided ? c->o->provided_libs : libdir, l->name);
		l->member = buf_detach(&member);
		if (l->provided)
			continue;
		strvec_pushf(paths, "%s/v%zu-%s", c->o->scratch, i, l->name);
		rc = edit_vendored(c, l, paths->v[paths->n - 1]);
		f[n++] = (struct repack_file){ l->member, paths->v[paths->n - 1], 0755 };
	}
	for (size_t i = 0; i < c->nm && !rc; i++) {
		const struct elf_member *m = &c->m[i];
		int needs = 0;

		for (size_t j = 0; j < m->needed.n && !needs; j++)
			needs = vendored(c->res, m->needed.v[j]) != NULL;
		if (!needs)
			continue;
		strvec_pushf(paths, "%s/m%zu-%s", c->o->scratch, i, path_tail(m->e->name));
		rc = edit_member(c, m, libdir, paths->v[paths->n - 1]);
		/* The result's copy of the name: the zip's own goes when it is closed for the repack. */
		strvec_push(&c->res->patched, m->e->name);
		f[n++] = (struct repack_file){ c->res->patched.v[c->res->patched.n - 1],
					       paths->v[paths->n - 1],
					       (m->e->ext_attr >> 16) & 0111 ? 0755 : 0644 };
	}
	*files = f;
	*nfiles = n;
	return rc;
}

int
wheel_repair(const char *in, const char *dir, const struct repair_opts *o,
	     struct repair_result *res, struct buf *out, struct buf *why)
{
	struct repair_ctx c = { .o = o, .basenames = STRVEC_INIT, .dirs = STRVEC_INIT, .res = res,
				.why = why };
	struct strvec paths = STRVEC_INIT;
	struct repack_file *files = NULL;
	struct buf libdir = BUF_INIT;
	size_t nfiles = 0;
	int rc = -1, open = 1;

	memset(res, 0, sizeof(*res));
	strvec_init(&res->patched);
	if (zip_open(&c.z, in) < 0) {
		buf_addf(why, "cannot read '%s' as a zip", in);
		return -1;
	}
	if (scan_members(&c) < 0)
		goto out;
	/* LD_LIBRARY_PATH before ld.so.conf and the defaults, as the loader searches. */
	push_abs_dirs(o->ld_library_path, &c.dirs);
	ldconf_search_dirs(o->ldconf, &c.dirs);
	for (size_t i = 0; i < c.nm; i++)
		for (size_t j = 0; j < c.m[i].needed.n; j++)
			if (is_external(&c, c.m[i].needed.v[j])) {
				if (vendor(&c, c.m[i].needed.v[j], c.m[i].e->name, c.m[i].runpath,
					   c.m[i].machine, 0) < 0)
					goto out;
			} else {
				mark_needed(res, c.m[i].needed.v[j], c.m[i].e->name);
			}
	buf_reset(out);
	if (!res->n) {
		buf_addstr(out, in);
		rc = 0;
		goto out;
	}
	libs_dir(in, &libdir);
	if (edit_all(&c, libdir.s, &files, &nfiles, &paths) < 0)
		goto out;
	{
		struct repack_opts ro = { .epoch = o->epoch, .files = files, .nfiles = nfiles };

		zip_close(&c.z);
		open = 0;
		rc = wheel_repack(in, dir, &ro, out, why);
	}
out:
	if (open)
		zip_close(&c.z);
	for (size_t i = 0; i < c.nm; i++) {
		strvec_clear(&c.m[i].needed);
		free(c.m[i].runpath);
	}
	free(c.m);
	for (size_t i = 0; i < paths.n; i++)
		unlink(paths.v[i]);
	strvec_clear(&paths);
	strvec_clear(&c.basenames);
	strvec_clear(&c.dirs);
	free(files);
	buf_release(&libdir);
	return rc;
}

void
repair_result_release(struct repair_result *res)
{
	for (size_t i = 0; i < res->n; i++) {
		struct repair_lib *l = &res->libs[i];

		free(l->soname);
		free(l->from);
		free(l->name);
		free(l->member);
		free(l->sha256);
		strvec_clear(&l->needed_by);
	}
	free(res->libs);
	strvec_clear(&res->patched);
	memset(res, 0, sizeof(*res));
}

struct json *
repair_result_json(const struct repair_result *res)
{
	struct json *a = json_array();

	for (size_t i = 0; i < res->n; i++) {
		const struct repair_lib *l = &res->libs[i];
		struct json *o = json_object(), *by = json_array();

		json_set(o, "soname", json_string(l->soname));
		json_set(o, "member", json_string(l->member ? l->member : ""));
		json_set(o, "from", json_string(l->from));
		json_set(o, "sha256", json_string(l->sha256));
		json_set(o, "provided", json_bool(l->provided));
		for (size_t k = 0; k < l->needed_by.n; k++)
			json_push(by, json_string(l->needed_by.v[k]));
		json_set(o, "needed_by", by);
		json_push(a, o);
	}
	return a;
}
