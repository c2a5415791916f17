/*
 * Wheel verification, CUDA's own libraries (wheel/cudalibs.h): each one a
 * library needs and the wheel does not carry comes either from NVIDIA's
 * pip packages (a Requires-Dist that installs it and a RUNPATH entry that
 * reaches its site-packages/nvidia/<dir>/lib; installed, the file there)
 * or from the installing machine's CUDA (the system form, said in a
 * note). A wheel half in the pip form is an error: pip would install the
 * package where no RUNPATH looks, or a RUNPATH would look where nothing
 * installs it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/elfscan.h"
#include "formats/manylinux.h"
#include "wheel/cudalibs.h"
#include "wheel/verify.h"
#include "wheel/verify_parts.h"

/* One CUDA soname the libraries need from outside the wheel, with who needs it. */
struct need {
	const char *soname;
	const struct wheel_lib *first_unreached, *first_undeclared, *first;
	size_t unreached, libs;
};

static struct need *
need_of(struct need **v, size_t *n, const char *soname)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].soname, soname))
			return &(*v)[i];
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].soname = soname;
	return &(*v)[(*n)++];
}

static int
in_wheel(char *const *paths, size_t npaths, const char *soname)
{
	for (size_t i = 0; i < npaths; i++)
		if (!strcmp(path_tail(paths[i]), soname))
			return 1;
	return 0;
}

void
verify_cuda_libs(struct wheel_report *r, char *const *paths, size_t npaths,
		 const struct wheel_expect *opts, const char *root)
{
	struct strvec all = STRVEC_INIT, system = STRVEC_INIT;
	struct need *needs = NULL;
	size_t nneeds = 0;
	unsigned major;
	int form = opts ? opts->cuda_libs : CUDA_LIBS_UNSET, pip_seen = 0;

	for (size_t i = 0; i < r->nlibs; i++)
		for (size_t j = 0; j < r->libs[i].needed.n; j++)
			strvec_push(&all, r->libs[i].needed.v[j]);
	major = cuda_major_of(&all);
	strvec_clear(&all);
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		for (size_t j = 0; j < l->needed.n; j++) {
			const char *s = l->needed.v[j], *dist, *dir;
			struct need *nd;

			if (soname_origin(s) != SONAME_CUDA || in_wheel(paths, npaths, s) ||
			    (opts && opts->provided && strset_has(opts->provided, s)))
				continue;
			nd = need_of(&needs, &nneeds, s);
			nd->libs++;
			if (!nd->first)
				nd->first = l;
			if (cuda_dist_known(s, major, &dist, &dir) < 0)
				continue;
			pip_seen |= runpath_reaches(l->path, l->runpath, NULL, NULL);
			if (!runpath_reaches(l->path, l->runpath, dir, NULL)) {
				nd->unreached++;
				if (!nd->first_unreached)
					nd->first_unreached = l;
			}
		}
	}
	for (size_t i = 0; i < nneeds && !pip_seen; i++)
		pip_seen = requires_cuda_lib(&r->requires, needs[i].soname, major);
	for (size_t i = 0; i < nneeds; i++) {
		struct need *nd = &needs[i];
		const char *dist = NULL, *dir = NULL;
		int known = cuda_dist_known(nd->soname, major, &dist, &dir) == 0;

		if (form == CUDA_LIBS_VENDOR) {
			verify_error(r, "'%s' needs '%s', which wheel.cuda_libs: vendor puts in the wheel, "
				     "but it is not there; repair it with 'bwbuild repair --cuda-libs "
				     "vendor' (cuda libs)", nd->first->path, nd->soname);
			continue;
		}
		if (form == CUDA_LIBS_SYSTEM || (form == CUDA_LIBS_UNSET && !pip_seen)) {
			strvec_push(&system, nd->soname);
			continue;
		}
		if (!known) {
			verify_error(r, "'%s' needs '%s', which no pip package of NVIDIA's is known to "
				     "install for CUDA %u; vendor it (wheel.cuda_libs: vendor) (cuda libs)",
				     nd->first->path, nd->soname, major);
			continue;
		}
		if (nd->unreached)
			verify_error(r, "'%s'%s needs '%s', which %s installs into site-packages/%s, but "
				     "no RUNPATH entry of it reaches there; repair it with 'bwbuild repair "
				     "--cuda-libs pip' (cuda libs)", nd->first_unreached->path,
				     nd->unreached > 1 ? " (and others)" : "", nd->soname, dist, dir);
		if (!requires_cuda_lib(&r->requires, nd->soname, major))
			verify_error(r, "'%s' finds '%s' in site-packages/%s, but METADATA requires no "
				     "%s to put it there; repair it with 'bwbuild repair --cuda-libs pip' "
				     "(cuda libs)", nd->first->path, nd->soname, dir, dist);
		if (root) {
			struct buf at = BUF_INIT;

			buf_addf(&at, "%s/%s/%s", root, dir, nd->soname);
			if (!path_exists(at.s))
				verify_error(r, "'%s' needs '%s', which is not installed at %s; pip install "
					     "%s for it (cuda libs)", nd->first->path, nd->soname, at.s, dist);
			buf_release(&at);
		}
	}
	if (system.n) {
		struct buf list = BUF_INIT;

		strvec_join(&system, ", ", &list);
		strvec_pushf(&r->notes, "CUDA's libraries come from the machine the wheel is installed "
			     "on (no Requires-Dist on NVIDIA's packages, no RUNPATH into "
			     "site-packages/nvidia): %s", list.s);
		buf_release(&list);
	}
	strvec_clear(&system);
	free(needs);
}
