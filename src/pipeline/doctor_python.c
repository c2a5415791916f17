/*
 * The doctor's checks of the build's Python (doctor.h): an interpreter
 * that builds wheels (setup.py trees), 'build' for pyproject trees, the
 * modules the tree's build imports and the requirements it declares, the
 * build environment pyenv.h works out, and NumPy (doctor_needs.c).
 * May include: core/, formats/, host/, profile/, sources/, pipeline/.
 */
#include <string.h>

#include "core/buf.h"
#include "core/proc.h"
#include "core/strvec.h"
#include "host/python.h"
#include "pipeline/doctor.h"
#include "pipeline/pyenv.h"
#include "profile/profile.h"
#include "sources/treeneeds.h"

/* Which of `modules` `py` cannot find (importlib.util.find_spec: nothing is run), one per line. */
static const char find_spec_probe[] =
	"import importlib.util, sys\n"
	"for m in sys.argv[1:]:\n"
	"    try:\n"
	"        ok = importlib.util.find_spec(m) is not None\n"
	"    except Exception:\n"
	"        ok = False\n"
	"    if not ok:\n"
	"        print(m)\n";

int
python_missing(const char *py, const struct strvec *modules, struct strvec *missing)
{
	struct proc pr = PROC_INIT;
	struct buf out = BUF_INIT;
	int rc;

	strvec_pushl(&pr.args, py, "-c", find_spec_probe, NULL);
	for (size_t i = 0; i < modules->n; i++)
		strvec_push(&pr.args, modules->v[i]);
	rc = proc_run_capture(&pr, &out);
	for (const char *l = out.s ? out.s : ""; rc == 0 && *l;) {
		size_t n = strcspn(l, "\n");

		if (n)
			strvec_pushf(missing, "%.*s", (int)n, l);
		l += n + (l[n] == '\n');
	}
	proc_release(&pr);
	buf_release(&out);
	return rc == 0 ? 0 : -1;
}

/* A module's "apt-get install python3-x (pip: x)" hint. */
static void
module_hint(const char *module, struct buf *out)
{
	struct buf pip = BUF_INIT, deb = BUF_INIT;

	py_module_packages(module, &pip, &deb);
	buf_addf(out, "%s%s", out->len ? " " : "", deb.s);
	buf_release(&pip);
	buf_release(&deb);
}

/*
 * What the tree's build imports, with the interpreter that will run it:
 * walked from the tree when it is here, else bwbuild's list for PyTorch
 * (torchgen: yaml and typing_extensions, at configure time).
 */
static void
check_python_imports(struct doctor *d, const struct profile *p, const char *py, const char *src)
{
	struct py_needs n;
	struct strvec mods = STRVEC_INIT, missing = STRVEC_INIT, dmiss = STRVEC_INIT;
	struct strvec asked = STRVEC_INIT, gone = STRVEC_INIT;
	struct buf list = BUF_INIT, hint = BUF_INIT, entries = BUF_INIT;
	int scanned = src && py_needs_scan(&n, src, py) == 0;

	if (!scanned) {
		if (src)
			py_needs_release(&n);
		if (!doctor_real_tree(p, src))
			return;
		strvec_pushl(&mods, "yaml", "typing_extensions", NULL);
	} else {
		for (size_t i = 0; i < n.n; i++)
			strvec_push(&mods, n.v[i].module);
		strvec_join(&n.entries, ", ", &entries);
	}
	/* Both lists asked of one start: the modules the build imports, and those declared. */
	for (size_t i = 0; i < mods.n; i++)
		strset_add(&asked, mods.v[i]);
	for (size_t i = 0; scanned && i < n.declared.n; i++)
		strset_add(&asked, n.declared.v[i]);
	if (asked.n && python_missing(py, &asked, &gone) < 0) {
		doctor_add(d, CHECK_WARN, "python imports", "%s could not be asked which modules it has", py);
		goto out;
	}
	for (size_t i = 0; i < mods.n; i++)
		if (strset_has(&gone, mods.v[i]))
			strvec_push(&missing, mods.v[i]);
	for (size_t i = 0; scanned && i < n.declared.n; i++)
		if (strset_has(&gone, n.declared.v[i]))
			strvec_push(&dmiss, n.declared.v[i]);
	for (size_t i = 0; i < missing.n; i++) {
		const char *where = "torchgen, which the build runs at configure time";

		for (size_t k = 0; scanned && k < n.n; k++)
			if (!strcmp(n.v[k].module, missing.v[i]))
				where = n.v[k].where;
		buf_addf(&list, "%s'%s' (%s)", list.len ? ", " : "", missing.v[i], where);
		module_hint(missing.v[i], &hint);
	}
	if (missing.n)
		doctor_add(d, CHECK_FAIL, "python imports", "%s cannot import %s, which the build imports%s; "
		           "apt-get install %s, or pip install them into that interpreter", py, list.s,
		           scanned ? "" : " (bwbuild's list for PyTorch: no tree here yet; --source DIR "
				          "reads the tree's own)", hint.s);
	else if (scanned && mods.n)
		doctor_add(d, CHECK_OK, "python imports", "%s has the %zu modules the tree's build imports "
		           "(from %s; %zu files read)", py, mods.n, entries.s, n.files);
	else if (!scanned)
		doctor_add(d, CHECK_OK, "python imports", "%s has yaml and typing_extensions (bwbuild's "
		           "list for PyTorch; --source DIR reads the tree's own)", py);
	if (scanned && dmiss.n) {
		buf_reset(&list);
		buf_reset(&hint);
		strvec_join(&dmiss, ", ", &list);
		for (size_t i = 0; i < dmiss.n; i++)
			module_hint(dmiss.v[i], &hint);
		/* without setup.py the build backend is among them: nothing builds without it */
		int needed = 1;

		for (size_t i = 0; i < n.entries.n; i++)
			if (!strcmp(n.entries.v[i], "setup.py"))
				needed = 0;

		doctor_add(d, needed ? CHECK_FAIL : CHECK_WARN, "python reqs", "%s lacks %s, which "
		           "pyproject.toml's [build-system] requires (the build runs without isolation, so "
		           "they come from this interpreter); apt-get install %s", py, list.s, hint.s);
	}
out:
	if (scanned)
		py_needs_release(&n);
	strvec_clear(&mods);
	strvec_clear(&missing);
	strvec_clear(&dmiss);
	strvec_clear(&asked);
	strvec_clear(&gone);
	buf_release(&list);
	buf_release(&hint);
	buf_release(&entries);
}

/*
 * What the tree's build needs from python before anything runs (pyenv.h):
 * the tree's own files when it is here, else bwbuild's table for a real
 * PyTorch release; met by the interpreter alone or with a prefix.
 */
static void
check_build_env(struct doctor *d, const struct profile *p, const char *py, const char *src)
{
	struct pyenv e = PYENV_INIT;

	if (!p || profile_is_extension(p))
		return;
	if (pyenv_for(&e, p, py, src) < 0) {
		doctor_add(d, CHECK_FAIL, "build env", "%s", e.error.s);
		/* The prefix it named did not do: the key to change (compile.c says it the same way). */
		if (p->python_path.str && e.n)
			d->checks[d->n - 1].at = p->python_path.loc;
	} else if (e.pythonpath.len)
		doctor_add(d, CHECK_OK, "build env", "%s with PYTHONPATH=%s (%s), for %s", py, e.pythonpath.s,
		           e.have.s, pyenv_first_hard(&e));
	else if (e.have.len)
		doctor_add(d, CHECK_OK, "build env", "%s has %s, for %s", py, e.have.s, pyenv_first_hard(&e));
	for (size_t i = 0; i < e.soft.n; i++)
		doctor_add(d, CHECK_WARN, "build env", "%s has %s; not needed to start the build", py,
		           e.soft.v[i]);
	pyenv_release(&e);
}

/* python_find's "  path (from): reason" lines as one "; "-separated line. */
static void
one_line(const struct buf *lines, struct buf *out)
{
	const char *s = lines->s ? lines->s : "";

	while (*s) {
		size_t n = strcspn(s, "\n");

		while (n && *s == ' ')
			s++, n--;
		buf_addf(out, "%s%.*s", out->len ? "; " : "", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

void
doctor_check_python(struct doctor *d, const struct profile *p, const char *src)
{
	struct buf py = BUF_INIT, why = BUF_INIT, skipped = BUF_INIT, prefix = BUF_INIT;
	const char *given = p ? p->python.str : NULL;
	int found = pyenv_find_python(&py, given, &why, &prefix) == 0;

	if (prefix.len) {
		doctor_add(d, CHECK_OK, "python", "%s can build wheels with PYTHONPATH=%s "
		           "(scripts/python-prefix.sh's), which the build puts first", py.s, prefix.s);
	} else if (found) {
		one_line(&why, &skipped);
		doctor_add(d, CHECK_OK, "python", "%s can build wheels (setup.py trees)%s%s", py.s,
		           skipped.len ? "; skipped " : "", skipped.len ? skipped.s : "");
	} else {
		struct buf hint = BUF_INIT;

		pyenv_wheel_hint(given ? given : "python3", &hint);
		doctor_add(d, CHECK_FAIL, "python", "no Python that imports setuptools and wheel (%.*s); "
		           "%s", (int)strcspn(why.s, "\n"), why.s, hint.s);
		buf_release(&hint);
	}
	/* Only a warning: never asked for a build's preflight. */
	if (found && !d->preflight) {
		if (!python_imports(py.s, "build"))
			doctor_add(d, CHECK_WARN, "python build", "%s cannot import 'build'; trees with only "
			           "pyproject.toml (scikit-build-core) need it: apt-get install python3-build",
			           py.s);
		else
			doctor_add(d, CHECK_OK, "python build", "'python3 -m build' available (pyproject trees)");
	}
	if (found) {
		check_python_imports(d, p, py.s, src);
		check_build_env(d, p, py.s, src);
		if (p)
			doctor_check_numpy(d, p, py.s, src);
	}
	buf_release(&py);
	buf_release(&why);
	buf_release(&skipped);
	buf_release(&prefix);
}
