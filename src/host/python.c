#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/proc.h"
#include "core/relver.h"
#include "core/strvec.h"
#include "host/python.h"
#include "core/util.h"

int
python_imports(const char *py, const char *modules)
{
	struct proc p = PROC_INIT;
	struct buf code = BUF_INIT;
	int st;

	buf_addf(&code, "import %s", modules);
	strvec_push(&p.args, py);
	strvec_push(&p.args, "-c");
	strvec_push(&p.args, code.s);
	p.quiet = 1;
	st = proc_run(&p);
	proc_release(&p);
	buf_release(&code);
	return st == 0;
}

/*
 * setuptools as the interpreter would import it, read without importing
 * it: importing setuptools 66 (Debian 12's) loads pkg_resources, about
 * 0.4 CPU s, and bwbuild asks on every run. The version comes from the
 * distribution metadata in the same sys.path entry as the package, else
 * (a package without metadata) from importing it. Three lines: the
 * version and the package's file (both empty without setuptools), then 1
 * or 0 as 'wheel' is importable.
 *
 * The metadata is found as importlib.metadata.distributions(name=...,
 * path=[root]) finds it (a setuptools-*.dist-info or .egg-info entry of
 * root, in listing order, else root's EGG-INFO when root is an .egg; its
 * METADATA, PKG-INFO, or the .egg-info file itself; the first Version
 * header), without importing importlib.metadata: that import (email,
 * zipfile, csv) is two thirds of the probe's CPU.
 */
static const char setuptools_probe[] =
	"import os\n"
	"from importlib import util\n"
	"def meta(d):\n"
	"    for n in ('METADATA', 'PKG-INFO', ''):\n"
	"        try:\n"
	"            with open(os.path.join(d, n) if n else d, encoding='utf-8') as h:\n"
	"                t = h.read()\n"
	"        except (OSError, ValueError):\n"
	"            continue\n"
	"        for line in t.splitlines():\n"
	"            if not line.strip():\n"
	"                break\n"
	"            k, c, x = line.partition(':')\n"
	"            if c and k.strip().lower() == 'version':\n"
	"                return x.strip()\n"
	"        return ''\n"
	"    return ''\n"
	"def first(root):\n"
	"    try:\n"
	"        names = os.listdir(root)\n"
	"    except OSError:\n"
	"        names = []\n"
	"    for n in names:\n"
	"        low = n.lower()\n"
	"        if low.endswith(('.dist-info', '.egg-info')) and \\\n"
	"                low.rpartition('.')[0].partition('-')[0] == 'setuptools':\n"
	"            return os.path.join(root, n)\n"
	"    base = os.path.basename(root).lower()\n"
	"    if base.endswith('.egg') and base.rpartition('.')[0].partition('-')[0] == 'setuptools':\n"
	"        for n in names:\n"
	"            if n.lower() == 'egg-info':\n"
	"                return os.path.join(root, n)\n"
	"    return None\n"
	"v = f = ''\n"
	"try:\n"
	"    s = util.find_spec('setuptools')\n"
	"except Exception:\n"
	"    s = None\n"
	"if s is not None and s.origin:\n"
	"    f = s.origin\n"
	"    d = first(os.path.dirname(os.path.dirname(f)))\n"
	"    if d:\n"
	"        v = meta(d)\n"
	"    if not v:\n"
	"        try:\n"
	"            import setuptools\n"
	"            v = str(setuptools.__version__)\n"
	"        except Exception:\n"
	"            f = ''\n"
	"try:\n"
	"    w = util.find_spec('wheel') is not None\n"
	"except Exception:\n"
	"    w = False\n"
	"print(v)\n"
	"print(f)\n"
	"print(int(w))\n";

/*
 * python_find and the toolchain ask about the same interpreter: proc_query
 * asks it once per PYTHONPATH, and again when the interpreter is replaced.
 */
int
python_setuptools(const char *py, const char *pythonpath, struct python_setuptools *st)
{
	const char *argv[] = { py, "-c", setuptools_probe, NULL };
	struct strvec env = STRVEC_INIT;
	struct buf out = BUF_INIT;
	const char *f, *w;
	int rc = -1;

	buf_reset(&st->version);
	buf_reset(&st->file);
	st->wheel = 0;
	/* NULL: bwbuild's own PYTHONPATH; otherwise exactly this one. */
	if (pythonpath)
		strvec_env_set(&env, "PYTHONPATH", pythonpath);
	if (proc_query(argv, &env, &out) == 0 && (f = strchr(out.s, '\n')) &&
	    (w = strchr(++f, '\n'))) {
		buf_add(&st->version, out.s, (size_t)(f - 1 - out.s));
		buf_add(&st->file, f, (size_t)(w - f));
		st->wheel = w[1] == '1';
		rc = 0;
	}
	strvec_clear(&env);
	buf_release(&out);
	return rc;
}

void
python_setuptools_release(struct python_setuptools *st)
{
	buf_release(&st->version);
	buf_release(&st->file);
}

/* setuptools >= 70.1 builds wheels itself (bdist_wheel moved into it); older ones need 'wheel'. */
int
python_builds_wheels(const char *py, const char *pythonpath)
{
	struct python_setuptools st = PYTHON_SETUPTOOLS_INIT;
	struct relver v;
	int builds = python_setuptools(py, pythonpath, &st) == 0 && st.file.len &&
		     (st.wheel || (relver_parse(st.version.s, &v, NULL) == 0 &&
				   (v.major > 70 || (v.major == 70 && v.minor >= 1))));

	python_setuptools_release(&st);
	return builds;
}

static int
try_candidate(struct buf *out, const char *py, const char *from, struct buf *why,
	      struct strvec *tried)
{
	struct buf esc = BUF_INIT;

	/* The venv's python is also first on PATH: judged and named once. */
	for (size_t i = 0; i < tried->n; i++)
		if (!strcmp(tried->v[i], py))
			return 0;
	strvec_push(tried, py);
	/* One line per candidate: its path (build.python, $VIRTUAL_ENV) escaped to it. */
	if (access(py, X_OK) < 0) {
		buf_addf(why, "  %s (%s): not executable\n", diag_name(&esc, py), from);
		buf_release(&esc);
		return 0;
	}
	if (!python_builds_wheels(py, NULL)) {
		buf_addf(why, "  %s (%s): cannot build wheels (needs setuptools >= 70.1, or "
			 "setuptools and wheel)\n", diag_name(&esc, py), from);
		buf_release(&esc);
		return 0;
	}
	buf_reset(out);
	buf_addf(out, "%s", py);
	return 1;
}

/* The interpreter of an active environment (venv, conda), which users mean to build with. */
static int
try_environment(struct buf *out, const char *var, struct buf *why, struct strvec *tried)
{
	const char *dir = getenv(var);
	struct buf py = BUF_INIT, from = BUF_INIT;
	int found;

	if (!dir || !*dir)
		return 0;
	buf_addf(&py, "%s/bin/python3", dir);
	buf_addf(&from, "the active environment, $%s", var);
	found = try_candidate(out, py.s, from.s, why, tried);
	buf_release(&py);
	buf_release(&from);
	return found;
}

int
python_find(struct buf *out, const char *preferred, struct buf *why)
{
	const char *path = getenv("PATH");
	struct strvec tried = STRVEC_INIT;
	char *copy, *tok, *save = NULL;
	int found = 0;

	if (preferred) {
		found = try_candidate(out, preferred, "build.python", why, &tried);
		strvec_clear(&tried);
		return found ? 0 : -1;
	}
	found = try_environment(out, "VIRTUAL_ENV", why, &tried) ||
		try_environment(out, "CONDA_PREFIX", why, &tried);
	copy = xstrdup(path ? path : "/usr/bin:/bin");
	for (tok = strtok_r(copy, ":", &save); tok && !found; tok = strtok_r(NULL, ":", &save)) {
		struct buf c = BUF_INIT;

		buf_addf(&c, "%s/python3", *tok ? tok : ".");
		if (access(c.s, X_OK) == 0)
			found = try_candidate(out, c.s, "on PATH", why, &tried);
		buf_release(&c);
	}
	free(copy);
	if (!found)
		found = try_candidate(out, "/usr/bin/python3", "the system's", why, &tried);
	strvec_clear(&tried);
	return found ? 0 : -1;
}

int
python_is_venv(const char *py)
{
	struct buf cfg = BUF_INIT;
	const char *slash = strrchr(py, '/');
	int venv = 0;

	/* VENV/bin/python: VENV/pyvenv.cfg (PEP 405), the path as given, not resolved */
	if (slash && slash > py) {
		buf_add(&cfg, py, (size_t)(slash - py));
		if ((slash = strrchr(cfg.s, '/'))) {
			buf_setlen(&cfg, (size_t)(slash - cfg.s));
			buf_addstr(&cfg, "/pyvenv.cfg");
			venv = access(cfg.s, F_OK) == 0;
		}
	}
	buf_release(&cfg);
	return venv;
}

int
python_guess(struct buf *out, const char *preferred)
{
	const char *vars[] = { "VIRTUAL_ENV", "CONDA_PREFIX" };
	char *found;

	buf_reset(out);
	if (preferred) {
		buf_addstr(out, preferred);
		return 0;
	}
	for (size_t i = 0; i < 2; i++) {
		const char *dir = getenv(vars[i]);

		if (dir && *dir) {
			buf_addf(out, "%s/bin/python3", dir);
			if (access(out->s, X_OK) == 0)
				return 0;
			buf_reset(out);
		}
	}
	found = find_program("python3");
	buf_addstr(out, found ? found : "/usr/bin/python3");
	free(found);
	return 0;
}

/*
 * Asked by argv, never by text: "d:NAME" a distribution's version
 * (importlib.metadata, "" when absent), "m:NAME" whether a module imports
 * (find_spec, or NAME an attribute of its parent, as `from X import a`).
 */
static const char probe[] =
	"import sys\n"
	"from importlib import import_module, metadata, util\n"
	"for q in sys.argv[1:]:\n"
	"    k, n = q.split(':', 1)\n"
	"    if k == 'd':\n"
	"        try:\n"
	"            v = metadata.version(n)\n"
	"        except Exception:\n"
	"            v = ''\n"
	"        print(v)\n"
	"        continue\n"
	"    try:\n"
	"        ok = util.find_spec(n) is not None\n"
	"    except Exception:\n"
	"        ok = False\n"
	"    if not ok and '.' in n:\n"
	"        p, _, a = n.rpartition('.')\n"
	"        try:\n"
	"            ok = hasattr(import_module(p), a)\n"
	"        except Exception:\n"
	"            ok = False\n"
	"    print(int(ok))\n";

/*
 * Asked through proc_query: a build asks it for its preflight and again
 * for the fetch (pyenv_for), the same interpreter the same questions.
 */
int
python_probe(const char *py, const char *pythonpath, const struct strvec *queries,
	     struct strvec *answers)
{
	struct strvec args = STRVEC_INIT, env = STRVEC_INIT;
	struct buf out = BUF_INIT;
	size_t got = 0;
	int st;

	strvec_pushl(&args, py, "-c", probe, NULL);
	for (size_t i = 0; i < queries->n; i++)
		strvec_push(&args, queries->v[i]);
	if (pythonpath && *pythonpath)
		strvec_env_prepend_path(&env, "PYTHONPATH", pythonpath);
	st = proc_query((const char *const *)args.v, &env, &out);
	for (const char *l = out.s; st == 0 && *l && got < queries->n; got++) {
		size_t n = strcspn(l, "\n");

		strvec_pushf(answers, "%.*s", (int)n, l);
		l += n + (l[n] == '\n');
	}
	strvec_clear(&args);
	strvec_clear(&env);
	buf_release(&out);
	return st == 0 && got == queries->n ? 0 : -1;
}
