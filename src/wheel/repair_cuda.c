/*
 * The repair's CUDA forms (wheel/repair.h): the vendor form's siblings
 * that cuDNN and NVRTC dlopen, the pip form's packages declared for every
 * CUDA library the members need (wheel/cudalibs.h), and the build
 * machine's RUNPATH entries that every form drops.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/elf.h"
#include "formats/manylinux.h"
#include "wheel/cudalibs.h"
#include "wheel/repair.h"
#include "wheel/repair_priv.h"

/*
 * The vendor form: what cuDNN and NVRTC dlopen by name (libcudnn_ops.so.9,
 * libnvrtc-builtins.so.13.0) is in no DT_NEEDED, so the files of their
 * directory that carry such a soname come along.
 */
int
vendor_siblings(struct repair_ctx *c, uint16_t machine)
{
	static const char *const families[][2] = {
		{ "libcudnn.so", "libcudnn_" }, { "libnvrtc.so", "libnvrtc-builtins" },
	};
	int rc = 0;

	for (size_t i = 0; i < c->res->n && !rc; i++) {
		for (size_t f = 0; f < ARRAY_SIZE(families) && !rc; f++) {
			struct buf dir = BUF_INIT, by = BUF_INIT;
			struct strvec names = STRVEC_INIT, one = STRVEC_INIT;
			struct dirent *de;
			DIR *d;

			if (!starts_with(c->res->libs[i].soname, families[f][0]))
				continue;
			buf_add(&dir, c->res->libs[i].from,
				(size_t)(strrchr(c->res->libs[i].from, '/') - c->res->libs[i].from));
			buf_addf(&by, "%s (dlopen)", c->res->libs[i].soname);
			d = opendir(dir.s);
			while (d && (de = readdir(d)))
				if (starts_with(de->d_name, families[f][1]) && strstr(de->d_name, ".so."))
					strvec_push(&names, de->d_name);
			if (d)
				closedir(d);
			strvec_sort(&names);
			strvec_push(&one, dir.s);
			for (size_t k = 0; k < names.n && !rc; k++) {
				struct buf real = BUF_INIT, own = BUF_INIT;
				struct strvec needed = STRVEC_INIT;

				/* Only the name the library calls itself: not the links to it. */
				if (try_candidate(dir.s, names.v[k], machine, &real, &needed, &own, NULL) &&
				    !strcmp(own.s ? own.s : "", names.v[k]) && is_external(c, names.v[k]))
				{
					c->keep_names = 1;
					rc = vendor(c, names.v[k], by.s, &one, machine, 1);
					c->keep_names = 0;
				}
				buf_release(&real);
				buf_release(&own);
				strvec_clear(&needed);
			}
			strvec_clear(&names);
			strvec_clear(&one);
			buf_release(&dir);
			buf_release(&by);
		}
	}
	return rc;
}

static const struct cuda_dist *
cuda_declared(const struct repair_result *res, const char *soname)
{
	for (size_t i = 0; i < res->ncuda; i++)
		if (!strcmp(res->cuda[i].soname, soname))
			return &res->cuda[i];
	return NULL;
}

/* Whether the member needs a CUDA library the wheel does not carry (the pip form's RUNPATH). */
int
needs_cuda(const struct repair_ctx *c, const struct elf_member *m)
{
	for (size_t j = 0; j < m->needed.n; j++)
		if (cuda_declared(c->res, m->needed.v[j]))
			return 1;
	return 0;
}

/*
 * The pip form: the package of one CUDA library (and of the CUDA
 * libraries it needs in turn) declared, found from this machine's copy
 * where there is one.
 */
static int
declare_cuda(struct repair_ctx *c, const char *soname, const struct strvec *dirs,
	     uint16_t machine, int depth)
{
	struct strvec needed = STRVEC_INIT;
	struct buf real = BUF_INIT;
	struct cuda_dist d;
	size_t i;
	int rc = 0;

	if (cuda_declared(c->res, soname) || strhash_has(&c->in_wheel, soname) ||
	    (c->o->provided && strset_has(c->o->provided, soname)))
		return 0;
	if (soname_ok(c, soname, "the wheel") < 0)
		return -1;
	if (c->res->ncuda >= REPAIR_MAX || depth > REPAIR_DEPTH) {
		buf_addf(c->why, "more than %d CUDA libraries, or a chain deeper than %d, at '%s'",
			 REPAIR_MAX, REPAIR_DEPTH, soname);
		return -1;
	}
	for (i = 0; i < dirs->n; i++)
		if (try_candidate(dirs->v[i], soname, machine, &real, &needed, NULL, NULL))
			break;
	if (cuda_dist_find(&c->ix, soname, real.len ? real.s : NULL, c->res->cuda_major, &d,
			   c->why) < 0) {
		buf_addstr(c->why, "; set wheel.cuda_libs: vendor or system in the profile");
		rc = -1;
		goto out;
	}
	c->res->cuda = xreallocarray(c->res->cuda, c->res->ncuda + 1, sizeof(*c->res->cuda));
	c->res->cuda[c->res->ncuda++] = d;
	strset_add(&c->cuda_dirs, d.dir);
	for (i = 0; i < needed.n && !rc; i++)
		if (soname_origin(needed.v[i]) == SONAME_CUDA)
			rc = declare_cuda(c, needed.v[i], &c->dirs, machine, depth + 1);
out:
	strvec_clear(&needed);
	buf_release(&real);
	return rc;
}

int
declare_all(struct repair_ctx *c)
{
	struct strvec all = STRVEC_INIT;
	int rc = 0;

	for (size_t i = 0; i < c->nm; i++)
		for (size_t j = 0; j < c->m[i].needed.n; j++)
			strvec_push(&all, c->m[i].needed.v[j]);
	c->res->cuda_major = c->o->cuda_major ? c->o->cuda_major : cuda_major_of(&all);
	strvec_clear(&all);
	for (size_t i = 0; i < c->nm && !rc; i++) {
		const struct elf_member *m = &c->m[i];
		struct strvec dirs = STRVEC_INIT;
		int have = 0;

		for (size_t j = 0; j < m->needed.n && !rc; j++) {
			if (soname_origin(m->needed.v[j]) != SONAME_CUDA)
				continue;
			if (!have++ && search_dirs(c, m->e->name, m->runpath, &dirs) < 0)
				rc = -1;
			else
				rc = declare_cuda(c, m->needed.v[j], &dirs, m->machine, 0);
		}
		strvec_clear(&dirs);
	}
	for (size_t i = 0; i < c->res->ncuda; i++)
		strvec_push(&c->res->requires, c->res->cuda[i].requirement);
	return rc;
}

/* A RUNPATH entry that names a directory of the build machine: it goes. */
int
has_absolute(const char *runpath)
{
	for (const char *p = runpath ? runpath : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (n && !elf_origin_len(p, n))
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

int
any_absolute(const struct repair_ctx *c)
{
	for (size_t i = 0; i < c->nm; i++)
		if (has_absolute(c->m[i].runpath))
			return 1;
	return 0;
}


struct json *
repair_cuda_json(const struct repair_result *res, int form)
{
	struct json *o = json_object(), *pk = json_array(), *rq = json_array();

	json_set(o, "form", json_string(cuda_libs_form_name(form ? form : CUDA_LIBS_PIP)));
	json_set(o, "cuda", res->cuda_major ? json_number(res->cuda_major) : json_null());
	for (size_t i = 0; i < res->ncuda; i++) {
		const struct cuda_dist *d = &res->cuda[i];
		struct json *e = json_object();

		json_set(e, "soname", json_string(d->soname));
		json_set(e, "dist", json_string(d->dist));
		json_set(e, "version", d->version ? json_string(d->version) : json_null());
		json_set(e, "dir", json_string(d->dir));
		json_set(e, "requirement", json_string(d->requirement));
		json_set(e, "source", json_string(d->source));
		json_push(pk, e);
	}
	json_set(o, "packages", pk);
	for (size_t i = 0; i < res->requires.n; i++)
		json_push(rq, json_string(res->requires.v[i]));
	json_set(o, "requires", rq);
	return o;
}
