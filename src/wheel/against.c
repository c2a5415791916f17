#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wheel/against.h"
#include "core/buf.h"
#include "core/diag.h"
#include "formats/elf.h"
#include "formats/elfscan.h"
#include "core/json.h"
#include "wheel/manifest.h"
#include "formats/manylinux.h"
#include "formats/record.h"
#include "core/util.h"
#include "wheel/verify.h"
#include "formats/zip.h"

/*
 * One library's bytes: inflated from a wheel into an unlinked temporary
 * file and mapped (zip_spill: a member may claim gigabytes, and only its
 * section and symbol tables are read), or an installed file mapped.
 */
struct lib_bytes {
	const uint8_t *p;
	size_t n;
	void *map;
	struct buf buf;
};

static void
lib_bytes_release(struct lib_bytes *b)
{
	if (b->map)
		munmap(b->map, b->n);
	b->map = NULL;
	b->p = NULL;
	b->n = 0;
}

/*
 * From the wheel `z` (when not NULL) or from `root`/path on disk. Installed
 * libraries are big (libtorch_cpu.so: 451 MB) and only their dynamic
 * symbol tables are read: mapped, not copied, so the resident set stays
 * what the tables take.
 */
static int
library_bytes(const struct zip *z, const char *root, const char *path, struct lib_bytes *out,
	      struct buf *why)
{
	const struct zip_entry *e;
	struct buf full = BUF_INIT;
	struct stat st;
	int fd, rc = -1;

	lib_bytes_release(out);
	if (z) {
		if (!(e = zip_find(z, path))) {
			buf_addf(why, "'%s' is not in the wheel", path);
			return -1;
		}
		struct zip_spill sp;

		if (zip_spill(z, e, &sp, why) < 0)
			return -1;
		out->map = (void *)sp.p;
		out->p = sp.p;
		out->n = sp.n;
		return 0;
	}
	buf_addf(&full, "%s/%s", root, path);
	errno = 0;
	fd = open(full.s, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			out->map = map;
			out->p = map;
			out->n = (size_t)st.st_size;
			rc = 0;
		}
	}
	if (rc < 0)
		buf_addf(why, "cannot read '%s': %s", full.s, errno ? strerror(errno) : "empty");
	if (fd >= 0)
		close(fd);
	buf_release(&full);
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
sorted_has(const struct strvec *v, const char *s)
{
	return v->n && bsearch(&s, v->v, v->n, sizeof(*v->v), cmp_str) != NULL;
}

static void
sorted_unique(struct strvec *v)
{
	size_t o = 0;

	strvec_sort(v);
	for (size_t i = 0; i < v->n; i++) {
		if (o && !strcmp(v->v[o - 1], v->v[i])) {
			free(v->v[i]);
			continue;
		}
		v->v[o++] = v->v[i];
	}
	v->n = o;
	if (v->n)
		v->v[v->n] = NULL;
}

/* What verify's report of the torch says: its names, targets, version, CUDA and commit. */
static void
torch_ref_describe(struct torch_ref *t, const struct wheel_report *r)
{
	struct buf sass = BUF_INIT, ptx = BUF_INIT, line = BUF_INIT;
	struct json *vp;

	t->name = xstrdup(r->name ? r->name : "torch");
	/* Its import directory holds lib/ (an auditwheel torch.libs/ may sort first). */
	for (size_t i = 0; i < r->nlibs && !t->package; i++) {
		const char *l = r->libs[i].path, *slash = strchr(l, '/');

		if (slash && !strncmp(slash, "/lib/", 5))
			t->package = xstrndup(l, (size_t)(slash - l));
	}
	if (!t->package)
		t->package = xstrndup(r->libs[0].path, strcspn(r->libs[0].path, "/"));
	for (size_t i = 0; i < r->sass.n; i++)
		strvec_push(&t->sass, r->sass.v[i]);
	for (size_t i = 0; i < r->ptx.n; i++)
		strvec_push(&t->ptx, r->ptx.v[i]);
	strvec_join(&r->sass, " ", &sass);
	strvec_join(&r->ptx, " ", &ptx);
	buf_addf(&line, "SASS %s; PTX %s", sass.len ? sass.s : "none", ptx.len ? ptx.s : "none");
	t->targets = buf_detach(&line);
	buf_release(&sass);
	buf_release(&ptx);
	t->version = xstrdup(r->version ? r->version : "");
	memcpy(t->sha256, r->sha256, sizeof(t->sha256));
	if (r->version_py) {
		vp = version_py_parse(r->version_py);
		if (json_str(json_get(vp, "cuda")))
			t->cuda = xstrdup(json_str(json_get(vp, "cuda")));
		if (json_str(json_get(vp, "git_version")))
			t->commit = xstrdup(json_str(json_get(vp, "git_version")));
		json_free(vp);
	}
}

int
torch_ref_load(struct torch_ref *t, const char *path)
{
	struct wheel_report r;
	struct wheel_expect ex = { .sass = NULL };
	struct zip z;
	struct buf why = BUF_INIT, root = BUF_INIT;
	struct lib_bytes bytes = { .buf = BUF_INIT };
	int dir = is_dir(path), zopen = 0, rc = -1;
	size_t libs_cap = 0;

	memset(t, 0, sizeof(*t));
	strvec_init(&t->sonames);
	strvec_init(&t->symbols);
	strvec_init(&t->sass);
	strvec_init(&t->ptx);
	/* Resolved: "site-packages/torch/" and links name the same directory. */
	t->path = realpath(path, NULL);
	if (!t->path)
		t->path = path_absolute(path);
	if (wheel_verify(&r, path, &ex) < 0) {
		torch_ref_release(t);
		return -1;
	}
	if (!r.nlibs) {
		error("'%s' has no libraries; --against takes the torch wheel or site-packages/torch "
		      "the extension was built for", path);
		goto out;
	}
	if (r.errors.n)
		warning("'%s' itself fails verify (%s); its symbols are used as they are", path,
			r.errors.v[0]);
	torch_ref_describe(t, &r);
	if (dir) {
		/* Library paths are relative to site-packages, the directory above torch/. */
		buf_addstr(&root, t->path);
		if (strrchr(root.s, '/'))
			buf_setlen(&root, (size_t)(strrchr(root.s, '/') - root.s));
		if (r.filename) {
			struct buf di = BUF_INIT;

			buf_addf(&di, "%s/%s", root.s, r.filename);
			t->dist_info = buf_detach(&di);
		}
	} else if (zip_open(&z, path) == 0) {
		zopen = 1;
	} else {
		goto out;
	}
	for (size_t i = 0; i < r.nlibs; i++) {
		const struct wheel_lib *l = &r.libs[i];
		struct elf e;

		/* One ABI's names only; a library with both tells nothing (verify_policy.c). */
		if (l->cxx_abi == ELF_CXX11_ABI)
			t->cxx11_abi = 1;
		else if (l->cxx_abi == ELF_OLD_ABI && !t->cxx11_abi)
			t->cxx11_abi = 2;
		if (l->soname)
			strset_add(&t->sonames, l->soname);
		else
			strset_add(&t->sonames, strrchr(l->path, '/') ? strrchr(l->path, '/') + 1 : l->path);
		buf_reset(&why);
		if (library_bytes(zopen ? &z : NULL, root.s, l->path, &bytes, &why) < 0 ||
		    elf_open(&e, bytes.p, bytes.n, &why) < 0) {
			error("cannot read '%s' of '%s': %s", l->path, path, why.s);
			goto out;
		}
		ALLOC_GROW(t->libs, t->nlibs + 1, libs_cap);
		struct torch_lib *tl = &t->libs[t->nlibs++];

		memset(tl, 0, sizeof(*tl));
		strvec_init(&tl->needed);
		strvec_init(&tl->symbols);
		tl->soname = xstrdup(l->soname ? l->soname :
				     strrchr(l->path, '/') ? strrchr(l->path, '/') + 1 : l->path);
		for (size_t j = 0; j < l->needed.n; j++)
			strvec_push(&tl->needed, l->needed.v[j]);
		if (elf_dynsym_read(&e, &tl->symbols, NULL, &why) < 0) {
			error("'%s' of '%s': %s", l->path, path, why.s);
			elf_release(&e);
			goto out;
		}
		elf_release(&e);
		sorted_unique(&tl->symbols);
		for (size_t j = 0; j < tl->symbols.n; j++)
			strvec_push(&t->symbols, tl->symbols.v[j]);
	}
	sorted_unique(&t->symbols);
	rc = 0;
out:
	if (zopen)
		zip_close(&z);
	wheel_report_release(&r);
	lib_bytes_release(&bytes);
	buf_release(&bytes.buf);
	buf_release(&why);
	buf_release(&root);
	if (rc < 0)
		torch_ref_release(t);
	return rc;
}

void
torch_ref_release(struct torch_ref *t)
{
	free(t->path);
	free(t->name);
	free(t->package);
	free(t->version);
	free(t->cuda);
	free(t->commit);
	free(t->targets);
	free(t->dist_info);
	strvec_clear(&t->sonames);
	strvec_clear(&t->symbols);
	for (size_t i = 0; i < t->nlibs; i++) {
		free(t->libs[i].soname);
		strvec_clear(&t->libs[i].needed);
		strvec_clear(&t->libs[i].symbols);
	}
	free(t->libs);
	strvec_clear(&t->sass);
	strvec_clear(&t->ptx);
	memset(t, 0, sizeof(*t));
}

int
against_verify(struct wheel_report *r, const char *wheel, struct wheel_expect *ex,
	       const struct torch_ref *t)
{
	if (is_dir(wheel))
		return error("--against checks an extension's wheel (its METADATA pin, its "
			     "libraries' symbols); '%s' is a directory: pass the .whl", wheel);
	ex->provided = &t->sonames;
	if (!ex->cxx11_abi && t->cxx11_abi)
		ex->cxx11_abi = t->cxx11_abi;
	if (wheel_verify(r, wheel, ex) < 0)
		return -1;
	if (against_check(r, wheel, t, 1) < 0) {
		wheel_report_release(r);
		return -1;
	}
	return 0;
}

struct json *
torch_ref_json(const struct torch_ref *t)
{
	struct json *o = json_object();

	json_set(o, "name", json_string(t->name));
	json_set(o, "version", json_string(t->version));
	json_set(o, "wheel_sha256", *t->sha256 ? json_string(t->sha256) : json_null());
	json_set(o, "path", json_string(t->path));
	json_set(o, "cuda", t->cuda ? json_string(t->cuda) : json_null());
	json_set(o, "commit", t->commit ? json_string(t->commit) : json_null());
	return o;
}

/* A symbol of torch's own namespaces: c10::, at::, torch::, caffe2:: (also their vtables, typeinfo). */
static int
torch_symbol(const char *s)
{
	static const char *const ns[] = { "N3c10", "N2at", "N5torch", "N6caffe2", "_ZN3c10",
					   "_ZN2at", "_ZN5torch", "_ZN6caffe2", NULL };

	if (strncmp(s, "_Z", 2))
		return 0;
	for (size_t i = 0; ns[i]; i++)
		if (strstr(s, ns[i]))
			return 1;
	return 0;
}

/* ---- an extension library's DT_NEEDED closure, found as the loader would ---- */

/* One library of a closure: what it defines; found == 0 when it is not on this machine. */
struct clib {
	char *soname;
	int found;
	struct strvec defined;       /* sorted set; empty for a torch library (its own is used) */
	const struct strvec *torch;  /* a torch library's exports, else NULL */
};

struct closure {
	struct clib *v;
	size_t n, cap;
};

static void
closure_release(struct closure *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].soname);
		strvec_clear(&c->v[i].defined);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* The directories a library that is neither torch's nor the wheel's is looked for in, in order. */
static void
search_dirs(const struct torch_ref *t, struct strvec *dirs)
{
	static const char *const sys[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
					   "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					   "/lib64", "/usr/lib64", "/lib", "/usr/lib",
					   "/usr/local/lib", NULL };
	const char *ld = getenv("LD_LIBRARY_PATH"), *cuda = getenv("CUDA_HOME");
	struct buf d = BUF_INIT;

	for (const char *p = ld; p && *p;) {
		size_t n = strcspn(p, ":");

		if (n)
			strvec_pushf(dirs, "%.*s", (int)n, p);
		p += n + (p[n] == ':');
	}
	/* pip's CUDA: site-packages/nvidia/<lib>/lib beside an installed torch (its RUNPATH). */
	if (t->path && is_dir(t->path) && strrchr(t->path, '/')) {
		DIR *dd;
		struct dirent *de;

		buf_addf(&d, "%.*s/nvidia", (int)(strrchr(t->path, '/') - t->path), t->path);
		if ((dd = opendir(d.s))) {
			while ((de = readdir(dd)))
				if (de->d_name[0] != '.')
					strvec_pushf(dirs, "%s/%s/lib", d.s, de->d_name);
			closedir(dd);
		}
	}
	if (cuda && *cuda)
		strvec_pushf(dirs, "%s/lib64", cuda);
	strvec_push(dirs, "/usr/local/cuda/lib64");
	for (size_t i = 0; sys[i]; i++)
		strvec_push(dirs, sys[i]);
	buf_release(&d);
}

/* The exports and DT_NEEDED of `path` on disk; -1 when it is no readable ELF of `machine`. */
static int
disk_library(const char *path, unsigned machine, struct strvec *defined, struct strvec *needed)
{
	struct lib_bytes bytes = { .buf = BUF_INIT };
	struct buf why = BUF_INIT;
	struct elf e;
	struct elf_dynamic d;
	int rc = -1;

	if (library_bytes(NULL, "", path, &bytes, &why) == 0 && elf_open(&e, bytes.p, bytes.n, &why) == 0) {
		if ((!machine || e.machine == machine) && elf_dynsym_read(&e, defined, NULL, &why) == 0) {
			memset(&d, 0, sizeof(d));
			if (elf_dynamic_read(&e, &d, &why) == 0) {
				for (size_t i = 0; i < d.needed.n; i++)
					strvec_push(needed, d.needed.v[i]);
				elf_dynamic_release(&d);
			}
			rc = 0;
		}
		elf_release(&e);
	}
	lib_bytes_release(&bytes);
	buf_release(&bytes.buf);
	buf_release(&why);
	return rc;
}

/*
 * Every library `lib` (of the wheel in `z`, reported in `r`) loads, directly
 * or through the libraries it loads: torch's (its own tables), the wheel's
 * own (read from the wheel), and the others from the search directories.
 */
static void
closure_build(struct closure *c, const struct wheel_lib *lib, const struct wheel_report *r,
	      const struct zip *z, const struct torch_ref *t, const struct strvec *dirs)
{
	struct strvec queue = STRVEC_INIT;
	struct buf why = BUF_INIT, path = BUF_INIT;
	struct lib_bytes bytes = { .buf = BUF_INIT };

	for (size_t i = 0; i < lib->needed.n; i++)
		strvec_push(&queue, lib->needed.v[i]);
	for (size_t q = 0; q < queue.n; q++) {
		const char *so = queue.v[q];
		struct strvec needed = STRVEC_INIT;
		struct clib *cl;
		int seen = 0;

		for (size_t i = 0; i < c->n && !seen; i++)
			seen = !strcmp(c->v[i].soname, so);
		if (seen)
			continue;
		ALLOC_GROW(c->v, c->n + 1, c->cap);
		cl = &c->v[c->n++];
		memset(cl, 0, sizeof(*cl));
		cl->soname = xstrdup(so);
		strvec_init(&cl->defined);
		for (size_t i = 0; i < t->nlibs && !cl->found; i++) {
			if (strcmp(t->libs[i].soname, so))
				continue;
			cl->found = 1;
			cl->torch = &t->libs[i].symbols;
			for (size_t j = 0; j < t->libs[i].needed.n; j++)
				strvec_push(&needed, t->libs[i].needed.v[j]);
		}
		for (size_t i = 0; i < r->nlibs && !cl->found; i++) {
			const struct wheel_lib *w = &r->libs[i];
			const char *base = strrchr(w->path, '/') ? strrchr(w->path, '/') + 1 : w->path;
			struct elf e;

			if (strcmp(w->soname ? w->soname : base, so) && strcmp(base, so))
				continue;
			buf_reset(&why);
			if (library_bytes(z, NULL, w->path, &bytes, &why) == 0 &&
			    elf_open(&e, bytes.p, bytes.n, &why) == 0) {
				elf_dynsym_read(&e, &cl->defined, NULL, &why);
				elf_release(&e);
			}
			cl->found = 1;
			for (size_t j = 0; j < w->needed.n; j++)
				strvec_push(&needed, w->needed.v[j]);
		}
		for (size_t i = 0; i < dirs->n && !cl->found && !strchr(so, '/'); i++) {
			buf_reset(&path);
			buf_addf(&path, "%s/%s", dirs->v[i], so);
			if (is_regular(path.s) &&
			    disk_library(path.s, lib->machine, &cl->defined, &needed) == 0)
				cl->found = 1;
		}
		sorted_unique(&cl->defined);
		for (size_t i = 0; i < needed.n; i++)
			strvec_push(&queue, needed.v[i]);
		strvec_clear(&needed);
	}
	strvec_clear(&queue);
	lib_bytes_release(&bytes);
	buf_release(&bytes.buf);
	buf_release(&why);
	buf_release(&path);
}

static const char *
closure_names(const struct closure *c, struct buf *out)
{
	buf_reset(out);
	for (size_t i = 0; i < c->n; i++)
		buf_addf(out, "%s%s", out->len ? " " : "", c->v[i].soname);
	return out->len ? out->s : "none";
}

static int
closure_defines(const struct closure *c, const char *sym)
{
	for (size_t i = 0; i < c->n; i++)
		if (sorted_has(c->v[i].torch ? c->v[i].torch : &c->v[i].defined, sym))
			return 1;
	return 0;
}

/* The interpreter's C API, which the python executable (or libpython) provides to every module. */
static int
python_api(const char *s)
{
	return !strncmp(s, "Py", 2) || !strncmp(s, "_Py", 3);
}

/* "Requires-Dist: NAME==X" (PEP 508), X exactly torch's version; the first NAME requirement into `found`. */
static int
pins_torch(const char *metadata, const char *name, const char *version, struct buf *found)
{
	const char *p = metadata;

	while (p && *p) {
		size_t n = strcspn(p, "\r\n");

		if (n > 14 && !strncasecmp(p, "Requires-Dist:", 14)) {
			struct buf line = BUF_INIT;
			const char *v;

			buf_add(&line, p + 14, n - 14);
			v = line.s + strspn(line.s, " \t");
			size_t nl = strlen(name);

			if (!strncasecmp(v, name, nl) && !isalnum((unsigned char)v[nl]) &&
			    v[nl] != '-' && v[nl] != '_' && v[nl] != '.') {
				const char *spec = v + nl + strspn(v + nl, " \t(");
				size_t vl = strlen(version);

				if (!found->len)
					buf_addstr(found, v);
				if (!strncmp(spec, "==", 2) && spec[2] != '=' &&
				    !strncmp(spec + 2 + strspn(spec + 2, " "), version, vl)) {
					const char *end = spec + 2 + strspn(spec + 2, " ") + vl;

					if (!*end || strchr(" \t);", *end)) {
						buf_release(&line);
						return 1;
					}
				}
			}
			buf_release(&line);
		}
		p += n;
		p += strspn(p, "\r\n");
	}
	return 0;
}

/* The major of a CUDA library's soname: libcudart.so.13 -> 13; 0 when it has none. */
static unsigned
cuda_major_needed(const char *soname)
{
	const char *so = strstr(soname, ".so.");

	if (!so || soname_origin(soname) != SONAME_CUDA)
		return 0;
	if (strncmp(soname, "libcudart", 9) && strncmp(soname, "libcublas", 9) &&
	    strncmp(soname, "libnvrtc", 8) && strncmp(soname, "libcusparse", 11) &&
	    strncmp(soname, "libcufft", 8) && strncmp(soname, "libcurand", 9) &&
	    strncmp(soname, "libcusolver", 11))
		return 0; /* cuDNN, NCCL, ... version on their own */
	return (unsigned)strtoul(so + 4, NULL, 10);
}

/*
 * The undefined symbols of library l that are not torch's: each defined by a
 * library in its DT_NEEDED closure cl, or the interpreter's C API. Where a
 * library of the closure is not on this machine, one it lacks may define
 * it: said as a note, not failed.
 */
static void
check_closure(struct wheel_report *r, const struct wheel_lib *l, const struct torch_ref *t,
	      const struct closure *cl, const struct strvec *undef)
{
	struct buf absent = BUF_INIT, names = BUF_INIT;
	size_t unresolved = 0;

	for (size_t j = 0; j < cl->n; j++)
		if (!cl->v[j].found)
			buf_addf(&absent, "%s%s", absent.len ? ", " : "", cl->v[j].soname);
	for (size_t j = 0; j < undef->n; j++) {
		if ((torch_symbol(undef->v[j]) && !sorted_has(&t->symbols, undef->v[j])) ||
		    python_api(undef->v[j]) || closure_defines(cl, undef->v[j]))
			continue;
		if (absent.len) {
			if (unresolved++ < 3)
				strvec_pushf(&r->notes, "'%s' needs '%s', which no library it "
					     "loads defines here; %s not found on this machine "
					     "to check (against)", l->path, undef->v[j], absent.s);
			continue;
		}
		if (unresolved++ < 3)
			verify_error(r, "'%s' needs '%s', which no library it loads defines "
				     "(DT_NEEDED, with theirs: %s) and which is not the "
				     "interpreter's C API: importing it fails with 'undefined "
				     "symbol'; link the library that defines it (against)",
				     l->path, undef->v[j], closure_names(cl, &names));
	}
	if (unresolved > 3 && !absent.len)
		verify_error(r, "'%s' needs %zu more symbols no library it loads defines (against)",
			     l->path, unresolved - 3);
	buf_release(&absent);
	buf_release(&names);
}

int
against_check(struct wheel_report *r, const char *wheel, const struct torch_ref *t,
	      int check_pin)
{
	struct zip z;
	struct buf meta = BUF_INIT, why = BUF_INIT, pin = BUF_INIT;
	struct lib_bytes bytes = { .buf = BUF_INIT };
	const struct zip_entry *me;
	unsigned torch_cuda = t->cuda ? (unsigned)strtoul(t->cuda, NULL, 10) : 0;
	int needs_torch = 0;
	const char *torch_need = NULL;
	struct strvec dirs = STRVEC_INIT;

	if (zip_open(&z, wheel) < 0)
		return -1;
	search_dirs(t, &dirs);
	me = NULL;
	for (size_t i = 0; !me && i < z.n; i++) {
		const char *n = z.entries[i].name, *slash = strchr(n, '/');

		if (slash && !strchr(slash + 1, '/') && ends_with(n, ".dist-info/METADATA"))
			me = &z.entries[i];
	}
	if (me)
		zip_read_all(&z, me, &meta, 16 << 20, &why);
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];
		const char *base = strrchr(l->path, '/') ? strrchr(l->path, '/') + 1 : l->path;
		struct strvec undef = STRVEC_INIT;
		struct closure cl = { 0 };
		struct elf e;
		size_t missing = 0;

		if (strset_has(&t->sonames, base))
			verify_error(r, "'%s' bundles torch's own '%s'; it must come from %s==%s, "
				     "which the wheel requires (against)", l->path, base, t->name, t->version);
		for (size_t j = 0; j < l->needed.n; j++) {
			unsigned major = cuda_major_needed(l->needed.v[j]);

			if (strset_has(&t->sonames, l->needed.v[j]) && !needs_torch) {
				needs_torch = 1;
				torch_need = l->needed.v[j];
			}
			if (major && torch_cuda && major != torch_cuda)
				verify_error(r, "'%s' needs '%s' (CUDA %u), but %s %s is built with CUDA "
					     "%s; build the extension with the CUDA %u toolkit (against)",
					     l->path, l->needed.v[j], major, t->name, t->version, t->cuda,
					     torch_cuda);
		}
		buf_reset(&why);
		if (library_bytes(&z, NULL, l->path, &bytes, &why) < 0 ||
		    elf_open(&e, bytes.p, bytes.n, &why) < 0) {
			verify_error(r, "'%s': %s (against)", l->path, why.s);
			continue;
		}
		elf_dynsym_read(&e, NULL, &undef, &why);
		elf_release(&e);
		closure_build(&cl, l, r, &z, t, &dirs);
		for (size_t j = 0; j < undef.n; j++) {
			if (!torch_symbol(undef.v[j]) || sorted_has(&t->symbols, undef.v[j]))
				continue;
			if (missing++ < 3)
				verify_error(r, "'%s' needs '%s', which %s %s does not export: importing it "
					     "fails with 'undefined symbol'; rebuild it against this torch "
					     "(against)", l->path, undef.v[j], t->name, t->version);
		}
		if (missing > 3)
			verify_error(r, "'%s' needs %zu more symbols %s %s does not export (against)",
				     l->path, missing - 3, t->name, t->version);
		check_closure(r, l, t, &cl, &undef);
		closure_release(&cl);
		strvec_clear(&undef);
	}
	if (check_pin && needs_torch && !pins_torch(meta.s ? meta.s : "", t->name, t->version, &pin)) {
		if (pin.len)
			verify_error(r, "METADATA requires '%s', not the exact torch its libraries "
				     "link against; make it 'Requires-Dist: %s==%s' (against)", pin.s,
				     t->name, t->version);
		else
			verify_error(r, "the libraries need torch's (%s), but METADATA does not require "
				     "torch; add 'Requires-Dist: %s==%s' (against)", torch_need,
				     t->name, t->version);
	}
	zip_close(&z);
	buf_release(&meta);
	buf_release(&why);
	lib_bytes_release(&bytes);
	buf_release(&bytes.buf);
	buf_release(&pin);
	verify_summarise(r);
	strvec_clear(&dirs);
	return 0;
}
