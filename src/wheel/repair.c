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
#include "core/strhash.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"
#include "formats/elf.h"
#include "formats/ldconf.h"
#include "formats/manylinux.h"
#include "formats/zip.h"
#include "wheel/cudalibs.h"
#include "wheel/repack.h"
#include "wheel/repair.h"
#include "wheel/repair_priv.h"
#include "wheel/verify.h"

void
repair_hashed_name(const char *soname, const char *sha256, struct buf *out)
{
	const char *so = strstr(soname, ".so");
	size_t stem = so ? (size_t)(so - soname) : strlen(soname);

	buf_add(out, soname, stem);
	buf_addf(out, "-%.8s%s", sha256, soname + stem);
}

static int
by_natcmp(const void *a, const void *b)
{
	return natcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted (natural order) and each once: what strset_add made, in O(n log n). */
static void
sort_unique(struct strvec *sv)
{
	size_t k = 0;

	if (sv->n < 2)
		return;
	qsort(sv->v, sv->n, sizeof(*sv->v), by_natcmp);
	for (size_t i = 0; i < sv->n; i++)
		if (k && !natcmp(sv->v[k - 1], sv->v[i]))
			free(sv->v[i]);
		else
			sv->v[k++] = sv->v[i];
	sv->n = k;
	sv->v[k] = NULL;
}

/* The dynamic part of an ELF image: -1 when it is none this reader takes. */
static int
read_dynamic(const uint8_t *data, size_t len, struct elf_dynamic *d, uint16_t *machine,
	     struct buf *why)
{
	struct elf e;
	int rc, dynamic = 0;

	if (elf_open(&e, data, len, why) < 0)
		return -1;
	*machine = e.machine;
	rc = elf_dynamic_read(&e, d, why);
	/* No SHT_DYNAMIC (an object file, a static program): nothing the loader would take. */
	for (size_t i = 0; i < e.nsections; i++)
		dynamic |= e.sections[i].type == SHT_DYNAMIC_;
	if (rc == 0 && !dynamic) {
		buf_addstr(why, "it has no dynamic section");
		rc = -1;
	}
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
		strvec_push(&c->basenames, path_tail(e->name));
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
	for (size_t i = 0; i < c->basenames.n; i++)
		strhash_add(&c->in_wheel, c->basenames.v[i]);
	return 0;
}

/* Whether `soname` comes from outside the wheel and the allow-lists (what repair copies in). */
int
is_external(const struct repair_ctx *c, const char *soname)
{
	enum soname_origin origin = soname_origin(soname);

	if (strhash_has(&c->in_wheel, soname))
		return 0;
	if (origin != SONAME_UNKNOWN && !(origin == SONAME_CUDA && c->form == CUDA_LIBS_VENDOR))
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
 * would go on looking, and so do we); its DT_SONAME into `own_soname` if
 * given. The first one found for another machine goes into `other` (if given) ("x86-64: /usr/lib/x86_64-linux-gnu/libz.so.1"),
 * for the message when no right one is found.
 */
int
try_candidate(const char *dir, const char *soname, uint16_t machine, struct buf *real,
	      struct strvec *needed, struct buf *own_soname, struct buf *other)
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
				if (own_soname && d.soname)
					buf_addstr(own_soname, d.soname);
				buf_addstr(real, abs);
				ok = 1;
			} else if (have && have != machine && other && !other->len) {
				char spare[32];

				buf_addf(other, "%s: %s", elf_machine_name(have, spare, sizeof(spare)),
					 abs);
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

/*
 * The absolute entries of a ':'-separated list (RUNPATH, LD_LIBRARY_PATH)
 * into `out`, each once (`seen` holds those already there).
 */
static void
push_abs_dirs(const char *list, struct strvec *out, struct strhash *seen)
{
	for (const char *p = list ? list : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (n && p[0] == '/') {
			struct buf d = BUF_INIT;

			buf_add(&d, p, n);
			/* The vector's string outlives the set: the key is its copy. */
			if (!strhash_has(seen, d.s)) {
				strvec_push(out, d.s);
				strhash_add(seen, out->v[out->n - 1]);
			}
			buf_release(&d);
		}
		p += n + (p[n] == ':');
	}
}

/* `by` needs the vendored `soname` too (nothing when it is not vendored); sorted once at the end. */
static void
mark_needed(struct repair_result *res, const char *soname, const char *by)
{
	for (size_t k = 0; k < res->n; k++)
		if (!strcmp(res->libs[k].soname, soname))
			strvec_push(&res->libs[k].needed_by, by);
}

/*
 * The directories a member's own RUNPATH/RPATH names absolutely, then the
 * loader's, each once: searched once per member, not once per library it
 * needs; -1 past REPAIR_DIRS (a RUNPATH of thousands of entries made every
 * library a thousand lookups).
 */
int
search_dirs(const struct repair_ctx *c, const char *member, const char *runpath,
	    struct strvec *out)
{
	struct strhash seen = STRHASH_INIT;

	push_abs_dirs(runpath, out, &seen);
	for (size_t i = 0; i < c->dirs.n; i++)
		if (strhash_add(&seen, c->dirs.v[i]))
			strvec_push(out, c->dirs.v[i]);
	strhash_release(&seen);
	if (out->n > REPAIR_DIRS) {
		buf_addf(c->why, "'%s' would have libraries looked for in %zu directories (its "
			 "RUNPATH, LD_LIBRARY_PATH, ld.so.conf), more than %d: a crafted RUNPATH?",
			 member, out->n, REPAIR_DIRS);
		return -1;
	}
	return 0;
}

/*
 * Whether `soname` can be looked for at all: the loader opens a name with
 * '/' as a path, never from a search directory, and the member it would
 * become must be a name verify takes (no control byte, no backslash).
 */
int
soname_ok(struct repair_ctx *c, const char *soname, const char *by)
{
	const char *bad = NULL;

	if (strchr(soname, '/'))
		bad = "has a '/': the loader opens it as a path, never from a library directory";
	else if (!*soname || !strcmp(soname, ".") || !strcmp(soname, ".."))
		bad = "is not a file name";
	for (const char *p = soname; !bad && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
			bad = "has a control byte or a backslash, which no wheel member may have";
	if (bad)
		buf_addf(c->why, "'%s' needs '%s', which %s; it is not copied in", by, soname, bad);
	return bad ? -1 : 0;
}

/* Find `soname` (needed by `by`) in `dirs`, add it to the result with what it needs in turn. */
int
vendor(struct repair_ctx *c, const char *soname, const char *by, const struct strvec *dirs,
       uint16_t machine, int depth)
{
	struct strvec needed = STRVEC_INIT;
	struct buf real = BUF_INIT, hex = BUF_INIT, name = BUF_INIT, other = BUF_INIT;
	struct repair_lib *l;
	int rc = -1;
	size_t i, me;

	if (soname_ok(c, soname, by) < 0)
		goto out;
	for (i = 0; i < dirs->n; i++)
		if (try_candidate(dirs->v[i], soname, machine, &real, &needed, NULL, &other))
			break;
	if (i == dirs->n && other.len) {
		char spare[32];
		const char *want = elf_machine_name(machine, spare, sizeof(spare));

		buf_addf(c->why, "'%s' needs '%s', which was found only for %s; install its %s "
			 "build, or put the directory of one on LD_LIBRARY_PATH", by, soname,
			 other.s, want);
		goto out;
	}
	if (i == dirs->n) {
		struct buf where = BUF_INIT;

		strvec_join(dirs, ", ", &where);
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
	/* cuDNN and NVRTC dlopen their siblings by these names: CUDA's keep theirs. */
	if (soname_origin(soname) == SONAME_CUDA || c->keep_names)
		buf_addstr(&name, soname);
	else
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
	me = c->res->n - 1;
	rc = 0;
	/* The base package's copy comes with what it needs (i starts past them). */
	for (i = l->provided ? needed.n : 0; i < needed.n && rc == 0; i++) {
		/* By index: the recursion below may move the array. */
		strvec_push(&c->res->libs[me].needs, needed.v[i]);
		if (is_external(c, needed.v[i]))
			rc = vendor(c, needed.v[i], soname, &c->dirs, machine, depth + 1);
		else
			mark_needed(c->res, needed.v[i], soname);
	}
out:
	strvec_clear(&needed);
	buf_release(&other);
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
 * One patchelf run on `file` with the arguments in `args` (the program
 * and the file added here); -1 with its output in `why`. Every
 * --replace-needed of a file goes in one run, but --set-soname and
 * --set-rpath each get a run of their own: patchelf 0.14 (Debian 12's)
 * gives them the value of a --replace-needed in the same run.
 */
static int
patchelf(const struct repair_ctx *c, struct strvec *args, const char *file)
{
	struct proc p = PROC_INIT;
	struct buf out = BUF_INIT;
	int rc;

	strvec_push(&p.args, c->o->patchelf ? c->o->patchelf : "patchelf");
	for (size_t i = 0; i < args->n; i++)
		strvec_push(&p.args, args->v[i]);
	strvec_push(&p.args, file);
	rc = proc_run_capture(&p, &out);
	if (rc != 0) {
		buf_addf(c->why, "patchelf %s failed on '%s' (exit %d)%s%s", args->v[0], file, rc,
			 out.len ? ": " : "", out.len ? out.s : "");
		while (c->why->len && c->why->s[c->why->len - 1] == '\n')
			buf_setlen(c->why, c->why->len - 1);
	}
	proc_release(&p);
	buf_release(&out);
	strvec_clear(args);
	return rc == 0 ? 0 : -1;
}

/* One patchelf run renaming every vendored library of `needed` (none: no run). */
static int
replace_needed(const struct repair_ctx *c, const struct strvec *needed, const char *file)
{
	struct strvec args = STRVEC_INIT;

	for (size_t j = 0; j < needed->n; j++) {
		const struct repair_lib *l = vendored(c->res, needed->v[j]);

		if (l)
			strvec_pushl(&args, "--replace-needed", l->soname, l->name, NULL);
	}
	return args.n ? patchelf(c, &args, file) : 0;
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

		if (elf_origin_len(p, n)) {
			have |= libdir && n == strlen(libdir) && !strncmp(p, libdir, n);
			if (out->len)
				buf_addch(out, ':');
			buf_add(out, p, n);
		}
		p += n + (p[n] == ':');
	}
	if (!have && libdir) {
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

static int
write_sink(void *ctx, const void *data, size_t n)
{
	return write_all(*(int *)ctx, data, n);
}

/* A member streamed into the new file `path` (created new): never held in memory whole. */
static int
extract(struct repair_ctx *c, const struct zip_entry *e, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), rc;

	if (fd < 0) {
		buf_addf(c->why, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	rc = zip_read(&c->z, e, write_sink, &fd, c->why);
	if (rc == 0 && close(fd) < 0)
		rc = -1;
	else if (rc < 0)
		close(fd);
	if (rc < 0 && !c->why->len)
		buf_addf(c->why, "cannot write '%s': %s", path, strerror(errno));
	return rc;
}

/* One member that needs a vendored library, extracted into `path` and edited there. */
static int
edit_member(struct repair_ctx *c, const struct elf_member *m, const char *libdir, const char *path)
{
	struct buf rp = BUF_INIT, origin = BUF_INIT;
	struct strvec args = STRVEC_INIT;
	int rc;

	if (extract(c, m->e, path) < 0)
		return -1;
	rc = replace_needed(c, &m->needed, path);
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
	for (size_t k = 0; needs_cuda(c, m) && k < c->cuda_dirs.n; k++) {
		struct buf next = BUF_INIT;

		buf_reset(&origin);
		runpath_entry_for(m->e->name, c->cuda_dirs.v[k], &origin);
		new_runpath(rp.len ? rp.s : m->runpath, origin.s, &next);
		buf_reset(&rp);
		buf_add(&rp, next.s, next.len);
		buf_release(&next);
	}
	/* Only the build machine's entries were there: none is left. */
	if (!rp.len && m->runpath)
		new_runpath(m->runpath, NULL, &rp);
	if (!rc && rp.len)
		strvec_pushl(&args, "--set-rpath", rp.s, NULL);
	else if (!rc)
		strvec_pushl(&args, "--remove-rpath", NULL);
	if (!rc)
		rc = patchelf(c, &args, path);
	buf_release(&rp);
	buf_release(&origin);
	return rc;
}

/* A vendored library copied into `path` with its new soname and its own needs renamed. */
static int
edit_vendored(struct repair_ctx *c, const struct repair_lib *l, const char *path)
{
	struct strvec args = STRVEC_INIT;
	int rc, any = 0;

	if (copy_file(l->from, path) < 0 || chmod(path, 0755) < 0) {
		buf_addf(c->why, "cannot copy '%s' to '%s'", l->from, path);
		return -1;
	}
	strvec_pushl(&args, "--set-soname", l->name, NULL);
	rc = patchelf(c, &args, path);
	for (size_t i = 0; i < l->needs.n; i++)
		any |= vendored(c->res, l->needs.v[i]) != NULL;
	if (!rc)
		rc = replace_needed(c, &l->needs, path);
	/* Its own dependencies lie beside it. */
	if (!rc && any) {
		strvec_pushl(&args, "--set-rpath", "$ORIGIN", NULL);
		rc = patchelf(c, &args, path);
	}
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
		if (!needs && !needs_cuda(c, m) && !has_absolute(m->runpath))
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

/* Every member's needs looked up, each member's directories made once. */
static int
vendor_all(struct repair_ctx *c)
{
	for (size_t i = 0; i < c->nm; i++) {
		const struct elf_member *m = &c->m[i];
		struct strvec dirs = STRVEC_INIT;
		int rc = 0, have = 0;

		for (size_t j = 0; j < m->needed.n && !rc; j++) {
			if (!is_external(c, m->needed.v[j])) {
				mark_needed(c->res, m->needed.v[j], m->e->name);
				continue;
			}
			if (!have++ && search_dirs(c, m->e->name, m->runpath, &dirs) < 0)
				rc = -1;
			else
				rc = vendor(c, m->needed.v[j], m->e->name, &dirs, m->machine, 0);
		}
		strvec_clear(&dirs);
		if (rc < 0)
			return -1;
	}
	if (c->form == CUDA_LIBS_VENDOR && c->nm && vendor_siblings(c, c->m[0].machine) < 0)
		return -1;
	for (size_t i = 0; i < c->res->n; i++)
		sort_unique(&c->res->libs[i].needed_by);
	return 0;
}

/*
 * Repair takes what verify takes, but for what repair is for (libraries
 * needed from outside, the build machine's RUNPATH): a wheel with a
 * tampered hash, an unlisted member, a link or a bad name is refused, not
 * given a fresh RECORD that would pass (issue 40 E1).
 */
static int
valid_input(const char *in, struct buf *why)
{
	struct wheel_report r;
	size_t all, shown = 0;

	memset(&r, 0, sizeof(r));
	if (wheel_verify(&r, in, NULL) < 0) {
		buf_addf(why, "cannot read '%s' as a wheel", in);
		return -1;
	}
	all = r.errors.n - (size_t)r.summarised + r.errors_more;
	if (all > r.mendable) {
		buf_addf(why, "it fails verify, and repair does not mend that (run 'bwbuild verify' on "
			 "it):");
		for (size_t i = 0; i < r.errors.n - (size_t)r.summarised && shown < 5; i++)
			if (!ends_with(r.errors.v[i], " (needed)") &&
			    !ends_with(r.errors.v[i], " (runpath)") &&
			    !ends_with(r.errors.v[i], " (cuda libs)") && ++shown)
				buf_addf(why, "\n  %s", r.errors.v[i]);
		if (all - r.mendable > shown)
			buf_addf(why, "\n  ... and %zu more", all - r.mendable - shown);
	}
	wheel_report_release(&r);
	return why->len ? -1 : 0;
}

int
wheel_repair(const char *in, const char *dir, const struct repair_opts *o,
	     struct repair_result *res, struct buf *out, struct buf *why)
{
	struct repair_ctx c = { .o = o, .basenames = STRVEC_INIT, .in_wheel = STRHASH_INIT,
				.dirs = STRVEC_INIT, .res = res, .why = why,
				.form = o->cuda_libs ? o->cuda_libs : CUDA_LIBS_PIP,
				.cuda_dirs = STRVEC_INIT };
	struct strvec paths = STRVEC_INIT;
	struct repack_file *files = NULL;
	struct buf libdir = BUF_INIT;
	size_t nfiles = 0;
	int rc = -1, open = 1;

	memset(res, 0, sizeof(*res));
	strvec_init(&res->patched);
	strvec_init(&res->requires);
	cuda_dist_index_init(&c.ix);
	if (zip_open(&c.z, in) < 0) {
		buf_addf(why, "cannot read '%s' as a zip", in);
		return -1;
	}
	if (valid_input(in, why) < 0 || scan_members(&c) < 0)
		goto out;
	/* LD_LIBRARY_PATH before ld.so.conf and the defaults, as the loader searches. */
	{
		struct strhash seen = STRHASH_INIT;

		push_abs_dirs(o->ld_library_path, &c.dirs, &seen);
		strhash_release(&seen);
	}
	ldconf_search_dirs(o->ldconf, &c.dirs);
	if (vendor_all(&c) < 0 || (c.form == CUDA_LIBS_PIP && declare_all(&c) < 0))
		goto out;
	for (size_t i = 0; o->requires && i < o->requires->n; i++)
		strvec_push(&res->requires, o->requires->v[i]);
	buf_reset(out);
	if (!res->n && !res->requires.n && !any_absolute(&c)) {
		buf_addstr(out, in);
		rc = 0;
		goto out;
	}
	libs_dir(in, &libdir);
	if (edit_all(&c, libdir.s, &files, &nfiles, &paths) < 0)
		goto out;
	{
		struct repack_opts ro = { .epoch = o->epoch, .files = files, .nfiles = nfiles,
					  .add_requires = &res->requires };

		zip_close(&c.z);
		open = 0;
		rc = wheel_repack(in, dir, &ro, out, why);
		res->rewritten = rc == 0;
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
	strhash_release(&c.in_wheel);
	strvec_clear(&c.dirs);
	strvec_clear(&c.cuda_dirs);
	cuda_dist_index_release(&c.ix);
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
		strvec_clear(&l->needs);
	}
	free(res->libs);
	strvec_clear(&res->patched);
	for (size_t i = 0; i < res->ncuda; i++)
		cuda_dist_release(&res->cuda[i]);
	free(res->cuda);
	strvec_clear(&res->requires);
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
