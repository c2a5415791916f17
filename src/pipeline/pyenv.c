/*
 * The build environment from the tree (pyenv.h). PyTorch 2.9 and later
 * import setuptools.command.bdist_wheel at load time, which setuptools has
 * from 70.1 (their pyproject.toml says so); Debian 12 has 66.1.1. Found
 * here, before the fetch or the configure, not as a traceback inside
 * setup.py. May include: core/, formats/, host/, profile/, sources/.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/pyenv.h"
#include "core/util.h"
#include "host/pyreqs.h"
#include "host/python.h"
#include "profile/knowledge.h"
#include "profile/profile.h"
#include "profile/releases.h"
#include "sources/repourl.h"
#include "sources/treeneeds.h"

static void
add_need(struct pyenv *e, const char *dist, const char *spec, const char *module, const char *from,
	 int hard)
{
	struct pyenv_need *n;

	ALLOC_GROW(e->v, e->n + 1, e->alloc);
	n = &e->v[e->n++];
	n->dist = xstrdup(dist);
	n->spec = xstrdup(spec ? spec : "");
	n->module = module ? xstrdup(module) : NULL;
	n->from = xstrdup(from);
	n->hard = hard;
}

/* Programs, not modules: cmake's version is checked as a program's (doctor.c). */
static int
is_program(const char *dist)
{
	return !strcmp(dist, "cmake") || !strcmp(dist, "ninja");
}

/* The distribution of a build-backend ("setuptools.build_meta:__legacy__" -> setuptools), PEP 503. */
static void
backend_dist(const char *backend, struct buf *out)
{
	size_t n = strcspn(backend, ".:");
	int sep = 0;

	for (size_t i = 0; i < n; i++) {
		if (backend[i] == '-' || backend[i] == '_') {
			sep = 1;
			continue;
		}
		if (sep && out->len)
			buf_addch(out, '-');
		sep = 0;
		buf_addch(out, tolower((unsigned char)backend[i]));
	}
}

/* Each requirement of `reqs` (from `file`) as a need; those of `backend` hard. */
static void
add_requirements(struct pyenv *e, const struct pyreqs *reqs, const char *file, const char *backend,
		 const struct pyreqs *only)
{
	struct buf from = BUF_INIT;

	for (size_t i = 0; i < reqs->n; i++) {
		const struct pyreq *r = &reqs->v[i];
		int hard = backend && !strcmp(r->name, backend);

		/* a marker false for this interpreter; URLs are not judged here */
		if (!r->applies || r->url || is_program(r->name) || (only && !pyreqs_find(only, r->name)))
			continue;
		if (!hard && !*r->spec)
			continue; /* absence is doctor's "python reqs" check */
		buf_reset(&from);
		buf_addf(&from, "%s:%u asks '%s'", file, r->line, r->text);
		add_need(e, r->name, r->spec, NULL, from.s, hard);
	}
	buf_release(&from);
}

/* setup.py's load-time imports that bwbuild's table ties to a release of their distribution. */
static void
add_loadtime(struct pyenv *e, const char *src)
{
	struct strvec imports = STRVEC_INIT;
	struct buf from = BUF_INIT;

	setup_py_loadtime(src, &imports);
	for (size_t i = 0; i < imports.n; i++) {
		char *tab = strchr(imports.v[i], '\t');
		const struct kb_module *m;

		*tab = '\0';
		if (!(m = kb_module_find(imports.v[i])))
			continue;
		buf_reset(&from);
		buf_addf(&from, "setup.py:%s imports %s at load time, which %s has from %s (%s)",
			 tab + 1, m->module, m->dist, m->since, m->why);
		add_need(e, m->dist, m->spec, m->module, from.s, 1);
	}
	strvec_clear(&imports);
	buf_release(&from);
}

int
pyenv_read_tree(struct pyenv *e, const char *py, const char *src, struct buf *why)
{
	struct pytree t;
	struct buf path = BUF_INIT, backend = BUF_INIT;
	const char *hard;

	if (pytree_read(&t, py, src, why) < 0) {
		pytree_release(&t);
		return -1;
	}
	/*
	 * What must be there to start: setuptools where setup.py is run
	 * (bwbuild runs it itself, whatever backend pyproject.toml names), else
	 * the backend `python -m build` loads (PEP 517: setuptools when none is
	 * named), unless it is in the tree (backend-path).
	 */
	buf_addf(&path, "%s/setup.py", src);
	if (is_regular(path.s))
		buf_addstr(&backend, "setuptools");
	else if (!t.backend_path)
		backend_dist(t.backend ? t.backend : "setuptools", &backend);
	hard = backend.len ? backend.s : NULL;
	add_requirements(e, &t.requires, "pyproject.toml", hard, NULL);
	add_requirements(e, &t.build, "requirements-build.txt", hard, NULL);
	/* requirements.txt is also what runs and tests torch: only what the build declares */
	add_requirements(e, &t.all, "requirements.txt", hard, t.build.n ? &t.build : &t.requires);
	add_loadtime(e, src);
	pytree_release(&t);
	buf_release(&path);
	buf_release(&backend);
	return 0;
}

void
pyenv_read_table(struct pyenv *e, const struct relver *torch)
{
	const struct torch_release *r = release_find(torch);
	const struct kb_module *m;
	struct buf from = BUF_INIT;

	if (!r || !r->loadtime || !(m = kb_module_find(r->loadtime)))
		return;
	buf_addf(&from, "bwbuild's table for torch %u.%u: its setup.py imports %s at load time, "
		 "which %s has from %s (%s); the tree's own files are read after the fetch",
		 torch->major, torch->minor, m->module, m->dist, m->since, m->why);
	add_need(e, m->dist, r->setuptools, m->module, from.s, 1);
	e->from_table = 1;
	buf_release(&from);
}

void
pyenv_prefix_root(struct buf *out)
{
	repo_cache_dir(out);
	buf_addstr(out, "/python-prefix");
}

void
pyenv_script_hint(struct buf *out)
{
	struct buf f = BUF_INIT;
	char *abs = NULL;

	if (data_find("scripts", "BWBUILD_SCRIPTS_PATH", "python-prefix.sh", 0, &f) == 0)
		abs = realpath(f.s, NULL);
	buf_addf(out, "sh %s", abs ? abs : f.s);
	free(abs);
	buf_release(&f);
}

/* A prefix this user owns, that no one else may write: its code runs in the build. */
static int
trusted_dir(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* <root>/NAME/site for each NAME made by the script (it writes NAME/PACKAGES last). */
static void
discovered_prefixes(struct strvec *out)
{
	struct buf root = BUF_INIT, d = BUF_INIT, f = BUF_INIT;
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	DIR *dir;

	pyenv_prefix_root(&root);
	dir = opendir(root.s);
	while (dir && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			strvec_push(&names, de->d_name);
	if (dir)
		closedir(dir);
	strvec_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		buf_reset(&d);
		buf_reset(&f);
		buf_addf(&d, "%s/%s", root.s, names.v[i]);
		buf_addf(&f, "%s/PACKAGES", d.s);
		if (!is_regular(f.s) || !trusted_dir(root.s) || !trusted_dir(d.s))
			continue;
		buf_addstr(&d, "/site");
		if (trusted_dir(d.s))
			strvec_push(out, d.s);
	}
	strvec_clear(&names);
	buf_release(&root);
	buf_release(&d);
	buf_release(&f);
}

int
pyenv_wheel_prefix(const char *py, struct buf *out)
{
	struct strvec cands = STRVEC_INIT;
	int rc = -1;

	discovered_prefixes(&cands);
	for (size_t i = 0; i < cands.n && rc < 0; i++)
		if (python_builds_wheels(py, cands.v[i])) {
			buf_reset(out);
			buf_addstr(out, cands.v[i]);
			rc = 0;
		}
	strvec_clear(&cands);
	return rc;
}

int
pyenv_find_python(struct buf *py, const char *preferred, struct buf *why, struct buf *prefix)
{
	if (python_find(py, preferred, why) == 0)
		return 0;
	if (!preferred || pyenv_wheel_prefix(preferred, prefix) < 0)
		return -1;
	buf_reset(py);
	buf_addstr(py, preferred);
	buf_reset(why);
	return 0;
}

void
pyenv_wheel_hint(const char *py, struct buf *out)
{
	struct buf script = BUF_INIT;

	pyenv_script_hint(&script);
	if (python_is_venv(py))
		buf_addf(out, "it is a virtual environment: install them into it ('%s -m pip install "
			 "setuptools wheel'), or make the prefix bwbuild puts first on its PYTHONPATH "
			 "('%s')", py, script.s);
	else
		buf_addf(out, "apt-get install python3-setuptools python3-wheel, or make the prefix "
			 "bwbuild puts first on its PYTHONPATH ('%s')", script.s);
	buf_release(&script);
}

/* One environment judged: what it has of the hard needs, what it lacks of either kind. */
struct verdict {
	size_t hard, soft;
	struct buf have;          /* "setuptools 78.1.1": what it has of the hard needs met */
	struct buf lack;          /* "setuptools 78.1.1 without setuptools.command.bdist_wheel" */
	struct buf asked;         /* where each unmet hard need was asked, "; "-separated */
	struct strvec soft_lines;
};

static void
verdict_release(struct verdict *v)
{
	buf_release(&v->have);
	buf_release(&v->lack);
	buf_release(&v->asked);
	strvec_clear(&v->soft_lines);
}

/*
 * One environment judged: `py` with `path` first on PYTHONPATH says what it
 * has; packaging (in `py` alone) says whether each version meets its need.
 * A need's module is asked only where its version did not already fail:
 * asking whether setuptools.command.bdist_wheel imports imports setuptools
 * (half a CPU second), and Debian 12's setuptools 66 fails >=70.1 anyway.
 * -1 with why when either could not be asked.
 */
static int
judge(const struct pyenv *e, const char *py, const char *path, struct verdict *v, struct buf *why)
{
	struct strvec q = STRVEC_INIT, ver = STRVEC_INIT, mq = STRVEC_INIT, ma = STRVEC_INIT;
	struct strvec seen = STRVEC_INIT, short_of = STRVEC_INIT, pairs = STRVEC_INIT;
	struct buf line = BUF_INIT;
	int *meets = xcalloc(e->n ? e->n : 1, sizeof(*meets));
	/* per need: 1 imports, 0 does not, -1 not asked (no module, or its version failed) */
	int *mod = xcalloc(e->n ? e->n : 1, sizeof(*mod));
	int rc;

	memset(v, 0, sizeof(*v));
	buf_init(&v->have);
	buf_init(&v->lack);
	buf_init(&v->asked);
	strvec_init(&v->soft_lines);
	for (size_t i = 0; i < e->n; i++)
		strvec_pushf(&q, "d:%s", e->v[i].dist);
	if ((rc = python_probe(py, path, &q, &ver)) < 0)
		buf_addf(why, "%s could not be asked which packages it has", py);
	for (size_t i = 0; rc == 0 && i < e->n; i++) {
		meets[i] = 1;
		if (*ver.v[i] && *e->v[i].spec)
			strvec_pushl(&pairs, e->v[i].spec, ver.v[i], NULL);
	}
	if (rc == 0 && pairs.n) {
		int *ans = xcalloc(pairs.n / 2, sizeof(*ans));

		rc = pyreqs_match(py, &pairs, ans, why);
		/* a version packaging cannot read is not judged (-1 meets it) */
		for (size_t i = 0, k = 0; rc == 0 && i < e->n; i++)
			if (*ver.v[i] && *e->v[i].spec)
				meets[i] = ans[k++] != 0;
		free(ans);
	}
	for (size_t i = 0; rc == 0 && i < e->n; i++) {
		mod[i] = -1;
		if (e->v[i].module && meets[i])
			strvec_pushf(&mq, "m:%s", e->v[i].module);
	}
	if (rc == 0 && mq.n && (rc = python_probe(py, path, &mq, &ma)) < 0)
		buf_addf(why, "%s could not be asked which modules it has", py);
	for (size_t i = 0, k = 0; rc == 0 && i < e->n; i++)
		if (e->v[i].module && meets[i])
			mod[i] = !strcmp(ma.v[k++], "1");
	for (size_t i = 0; rc == 0 && i < e->n; i++) {
		const struct pyenv_need *n = &e->v[i];
		const char *have = ver.v[i];
		int ok = *have && meets[i] && mod[i] != 0;

		buf_reset(&line);
		if (mod[i] == 0 && *have)
			buf_addf(&line, "%s %s has no %s (%s)", n->dist, have, n->module, n->from);
		else if (mod[i] == 0)
			buf_addf(&line, "no %s (%s)", n->module, n->from);
		else if (*have)
			buf_addf(&line, "%s %s (%s)", n->dist, have, n->from);
		else
			buf_addf(&line, "no %s (%s)", n->dist, n->from);
		if (!ok && n->hard) {
			v->hard++;
			buf_addf(&v->asked, "%s%s", v->asked.len ? "; " : "", n->from);
			if (!strset_has(&short_of, n->dist)) {
				strset_add(&short_of, n->dist);
				if (*have)
					buf_addf(&v->lack, "%s%s %s", v->lack.len ? ", " : "", n->dist, have);
				else
					buf_addf(&v->lack, "%sno %s", v->lack.len ? ", " : "", n->dist);
			}
			if (mod[i] == 0 && *have)
				buf_addf(&v->lack, " without %s", n->module);
		} else if (!ok && !strset_has(&short_of, n->dist)) {
			/* once a distribution: where it is asked first */
			strset_add(&short_of, n->dist);
			v->soft++;
			strvec_push(&v->soft_lines, line.s);
		} else if (n->hard && !strset_has(&seen, n->dist)) {
			strset_add(&seen, n->dist);
			buf_addf(&v->have, "%s%s %s", v->have.len ? ", " : "", n->dist, have);
		}
	}
	strvec_clear(&q);
	strvec_clear(&ver);
	strvec_clear(&mq);
	strvec_clear(&ma);
	strvec_clear(&seen);
	strvec_clear(&short_of);
	strvec_clear(&pairs);
	buf_release(&line);
	free(meets);
	free(mod);
	return rc;
}

/* What the user should get: the first hard need the environment lacks, with its version. */
static void
wanted(const struct pyenv *e, struct buf *out)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].hard) {
			buf_addf(out, "%s%s", e->v[i].dist, e->v[i].spec);
			return;
		}
}

static void
explain(struct pyenv *e, const char *py, const char *explicit_path, const struct verdict *alone,
	const struct strvec *tried)
{
	struct buf want = BUF_INIT, root = BUF_INIT, script = BUF_INIT;

	wanted(e, &want);
	pyenv_prefix_root(&root);
	pyenv_script_hint(&script);
	if (explicit_path)
		buf_addf(&e->error, "the build needs %s, and %s with build.python_path '%s' has %s: %s",
			 want.s, py, explicit_path, alone->lack.s, alone->asked.s);
	else
		buf_addf(&e->error, "the build needs %s, and %s has %s: %s", want.s, py, alone->lack.s,
			 alone->asked.s);
	for (size_t i = 0; i < tried->n; i++)
		buf_addf(&e->error, "; %s does not provide it either", tried->v[i]);
	if (starts_with(want.s, "setuptools"))
		buf_addf(&e->error, ". Get %s: on Debian 12, '%s' puts trixie's python3-setuptools "
			 "(78.1.1) and what it needs into %s/trixie, which the build then finds by itself "
			 "(or name its site directory in build.python_path); elsewhere, make a venv with "
			 "pip install '%s' and name its python in build.python", want.s, script.s, root.s,
			 want.s);
	else
		buf_addf(&e->error, ". Get %s: make a venv with pip install '%s' and name its python in "
			 "build.python, or name a directory that has it in build.python_path", want.s,
			 want.s);
	buf_release(&want);
	buf_release(&root);
	buf_release(&script);
}

static void
take(struct pyenv *e, const char *path, struct verdict *v)
{
	buf_reset(&e->pythonpath);
	buf_addstr(&e->pythonpath, path ? path : "");
	buf_reset(&e->have);
	buf_addstr(&e->have, v->have.s);
	strvec_clear(&e->soft);
	for (size_t i = 0; i < v->soft_lines.n; i++)
		strvec_push(&e->soft, v->soft_lines.v[i]);
}

int
pyenv_choose(struct pyenv *e, const char *py, const char *python_path)
{
	struct strvec cands = STRVEC_INIT, tried = STRVEC_INIT;
	struct verdict alone, v;
	struct buf skip = BUF_INIT;
	int rc = -1;

	/* Nothing the tree asks for: a build.python_path given is still used, as documented. */
	if (!e->n) {
		buf_reset(&e->pythonpath);
		buf_addstr(&e->pythonpath, python_path ? python_path : "");
		return 0;
	}
	if (judge(e, py, python_path, &alone, &e->error) < 0) {
		verdict_release(&alone);
		return -1;
	}
	if (!alone.hard) {
		take(e, python_path, &alone);
		verdict_release(&alone);
		return 0;
	}
	if (!python_path)
		discovered_prefixes(&cands);
	for (size_t i = 0; i < cands.n && rc < 0; i++) {
		buf_reset(&skip);
		if (judge(e, py, cands.v[i], &v, &skip) == 0 && !v.hard) {
			take(e, cands.v[i], &v);
			rc = 0;
		} else {
			strvec_pushf(&tried, "PYTHONPATH=%s (%s)", cands.v[i], v.lack.len ? v.lack.s :
				     "could not be asked");
		}
		verdict_release(&v);
	}
	if (rc < 0)
		explain(e, py, python_path, &alone, &tried);
	verdict_release(&alone);
	strvec_clear(&cands);
	strvec_clear(&tried);
	buf_release(&skip);
	return rc;
}

int
pyenv_for(struct pyenv *e, const struct profile *p, const char *py, const char *src)
{
	if (src) {
		struct buf why = BUF_INIT;
		int rc = pyenv_read_tree(e, py, src, &why);

		if (rc < 0)
			buf_addf(&e->error, "%s; bwbuild reads the build's requirements from the tree",
				 why.s);
		buf_release(&why);
		if (rc < 0)
			return -1;
	} else if (p->source_repo.str && strstr(p->source_repo.str, "pytorch/pytorch")) {
		struct relver torch;

		tree_version(p->source_ref.str, NULL, &torch);
		pyenv_read_table(e, &torch);
	}
	return pyenv_choose(e, py, p->python_path.str);
}

const char *
pyenv_first_hard(const struct pyenv *e)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].hard)
			return e->v[i].from;
	return "";
}

void
pyenv_release(struct pyenv *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].dist);
		free(e->v[i].spec);
		free(e->v[i].module);
		free(e->v[i].from);
	}
	free(e->v);
	e->v = NULL;
	e->n = e->alloc = 0;
	buf_release(&e->pythonpath);
	buf_release(&e->have);
	strvec_clear(&e->soft);
	buf_release(&e->error);
}
