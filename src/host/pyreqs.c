/*
 * A tree's Python build requirements, read by the build's interpreter
 * (pyreqs.h). data/helpers/bwreqs.py does the reading: pyproject.toml
 * through tomllib (Python >= 3.11) or tomli, requirement strings and
 * requirements files through packaging (or the copy setuptools or pip
 * vendors), markers evaluated for that interpreter; it answers one JSON
 * object, read here. Run from argv, never a shell; the tree's path is an
 * argument, its bytes never leave Python. May include: core/, host/.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/strvec.h"
#include "core/util.h"
#include "host/pyreqs.h"
#include "host/python.h"

int
pyreqs_helper(struct buf *out)
{
	return data_find("data/helpers", "BWBUILD_HELPERS_PATH", "bwreqs.py", 0, out);
}

/* What to do when `py` lacks `module` ("packaging", "tomllib"). */
static void
missing(const char *py, const char *module, struct buf *why)
{
	int venv = python_is_venv(py);

	if (!strcmp(module, "packaging"))
		buf_addf(why, "%s has no 'packaging' module (nor the copy setuptools or pip carries), "
			 "which bwbuild reads the tree's requirements with; %s", py,
			 venv ? "" : "on Debian: apt-get install python3-packaging; in a venv: ");
	else
		buf_addf(why, "%s has neither tomllib (Python >= 3.11) nor tomli, which bwbuild reads "
			 "pyproject.toml with; %s", py,
			 venv ? "" : "on Debian: apt-get install python3-tomli; in a venv: ");
	buf_addf(why, "'%s -m pip install %s'", py, !strcmp(module, "packaging") ? module : "tomli");
}

/*
 * The helper's answers kept in this process: a build reads the tree for
 * its preflight's two checks and again for its own, and matches the same
 * versions twice. Kept per interpreter (its path, file identity and the
 * PYTHONPATH and PYTHONHOME it runs with) and question and, for a tree,
 * the identity of each file the helper reads there, so that a tree
 * checked out anew meanwhile is read again. Only answers are kept, never
 * a failure.
 */
struct answer {
	char *key, *line;
};
static struct answer *answers;
static size_t answers_n, answers_alloc;

static void
answer_key(const char *py, const struct strvec *args, struct buf *key)
{
	static const char *const read[] = { "pyproject.toml", "requirements-build.txt",
					    "requirements.txt" };
	const char *path = getenv("PYTHONPATH"), *home = getenv("PYTHONHOME");
	char *prog = strchr(py, '/') ? xstrdup(py) : find_program(py);
	char *id = file_identity(prog);

	buf_addf(key, "%s\n%s\n%s\n%s", py, id, path ? path : "\1", home ? home : "\1");
	free(prog);
	free(id);
	for (size_t i = 0; i < args->n; i++)
		buf_addf(key, "\n%s", args->v[i]);
	for (size_t i = 0; args->n == 2 && !strcmp(args->v[0], "tree") && i < ARRAY_SIZE(read); i++) {
		struct buf f = BUF_INIT;

		buf_addf(&f, "%s/%s", args->v[1], read[i]);
		id = file_identity(f.s);
		buf_addf(key, "\n\1%s", id);
		free(id);
		buf_release(&f);
	}
}

/* Run the helper with `args` under `py` (or take its answer kept): its JSON answer, or NULL with why. */
static struct json *
ask(const char *py, const struct strvec *args, struct buf *why)
{
	struct proc p = PROC_INIT;
	struct buf script = BUF_INIT, out = BUF_INIT, err = BUF_INIT, key = BUF_INIT;
	struct json *j = NULL;
	const char *line = NULL, *m;
	int st;

	answer_key(py, args, &key);
	for (size_t i = 0; i < answers_n && !line; i++)
		if (!strcmp(answers[i].key, key.s))
			line = answers[i].line;
	if (line) {
		j = json_parse(line, strlen(line), &err);
		goto answered;
	}
	if (pyreqs_helper(&script) < 0) {
		buf_addf(why, "bwbuild's Python helper %s is not installed (looked beside the "
			 "binary and in $BWBUILD_HELPERS_PATH)", script.s);
		goto out;
	}
	strvec_pushl(&p.args, py, script.s, NULL);
	for (size_t i = 0; i < args->n; i++)
		strvec_push(&p.args, args->v[i]);
	p.silence_timeout = 120; /* the tree's files are read by it: bounded, as any reader */
	st = proc_run_capture(&p, &out);
	if (p.timed_out) {
		buf_addf(why, "%s %s said nothing for 120 s and was stopped", py, script.s);
		goto out;
	}
	/* the answer is one line; anything Python said before it (warnings) is not */
	for (const char *l = out.s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (*l == '{')
			line = l;
	if (st != 0 || !line || !(j = json_parse(line, strcspn(line, "\n"), &err))) {
		buf_addf(why, "%s %s failed (exit %d)%s%.*s", py, script.s, st,
			 out.len ? ": " : "", (int)(out.len > 400 ? 400 : out.len), out.s);
		buf_rtrim(why);
		goto out;
	}
	ALLOC_GROW(answers, answers_n + 1, answers_alloc);
	answers[answers_n].key = buf_detach(&key);
	answers[answers_n++].line = xstrndup(line, strcspn(line, "\n"));
answered:
	if ((m = json_str(json_get(j, "missing")))) {
		missing(py, m, why);
		json_free(j);
		j = NULL;
	}
out:
	proc_release(&p);
	buf_release(&script);
	buf_release(&out);
	buf_release(&err);
	buf_release(&key);
	return j;
}

static char *
str_or(const struct json *j, const char *key, const char *dflt)
{
	const char *s = json_str(json_get(j, key));

	return s ? xstrdup(s) : dflt ? xstrdup(dflt) : NULL;
}

/* One file's answer: its requirements into `out`; -1 with "FILE: ..." in why. */
static int
take_file(const struct json *f, const char *src, const char *file, const char *py,
	  struct pyreqs *out, struct buf *why)
{
	const struct json *reqs;
	const char *err;

	if (!f || !json_is_object(f))
		return 0;
	if ((err = json_str(json_get(f, "missing")))) {
		missing(py, err, why);
		return -1;
	}
	if ((err = json_str(json_get(f, "error")))) {
		buf_addf(why, "%s/%s: %s (read by %s)", src, file, err, py);
		return -1;
	}
	reqs = json_get(f, "requires");
	for (size_t i = 0; i < json_len(reqs); i++) {
		const struct json *r = json_at(reqs, i);
		struct pyreq *q;

		ALLOC_GROW(out->v, out->n + 1, out->alloc);
		q = &out->v[out->n++];
		q->name = str_or(r, "name", "");
		q->spec = str_or(r, "spec", "");
		q->text = str_or(r, "text", "");
		q->line = (unsigned)json_number_value(json_get(r, "line"));
		q->url = json_is_true(json_get(r, "url"));
		q->applies = json_is_true(json_get(r, "applies"));
	}
	return 0;
}

/* Whether the tree has any file the helper reads. */
static int
tree_has_files(const char *src)
{
	static const char *const files[] = { "pyproject.toml", "requirements-build.txt",
					     "requirements.txt", NULL };
	struct buf f = BUF_INIT;
	int any = 0;

	for (size_t i = 0; files[i] && !any; i++) {
		buf_reset(&f);
		buf_addf(&f, "%s/%s", src, files[i]);
		any = path_exists(f.s);
	}
	buf_release(&f);
	return any;
}

int
pytree_read(struct pytree *t, const char *py, const char *src, struct buf *why)
{
	struct strvec args = STRVEC_INIT;
	const struct json *pp;
	struct json *j;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (!tree_has_files(src))
		return 0; /* nothing to read: no interpreter started */
	strvec_pushl(&args, "tree", src, NULL);
	if (!(j = ask(py, &args, why)))
		goto out;
	pp = json_get(j, "pyproject");
	if (take_file(pp, src, "pyproject.toml", py, &t->requires, why) < 0 ||
	    take_file(json_get(j, "requirements-build.txt"), src, "requirements-build.txt", py,
		      &t->build, why) < 0 ||
	    take_file(json_get(j, "requirements.txt"), src, "requirements.txt", py, &t->all, why) < 0)
		goto out;
	t->has_pyproject = json_is_object(pp);
	t->has_table = json_is_true(json_get(pp, "table"));
	t->backend = str_or(pp, "backend", NULL);
	t->backend_path = json_is_true(json_get(pp, "backend_path"));
	rc = 0;
out:
	json_free(j);
	strvec_clear(&args);
	return rc;
}

static void
pyreqs_release(struct pyreqs *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].spec);
		free(r->v[i].text);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void
pytree_release(struct pytree *t)
{
	pyreqs_release(&t->requires);
	pyreqs_release(&t->build);
	pyreqs_release(&t->all);
	free(t->backend);
	memset(t, 0, sizeof(*t));
}

const struct pyreq *
pyreqs_find(const struct pyreqs *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return &r->v[i];
	return NULL;
}

int
pyreqs_match(const char *py, const struct strvec *pairs, int *ok, struct buf *why)
{
	struct strvec args = STRVEC_INIT;
	const struct json *m;
	struct json *j;
	int rc = -1;

	strvec_push(&args, "match");
	for (size_t i = 0; i < pairs->n; i++)
		strvec_push(&args, pairs->v[i]);
	if (!(j = ask(py, &args, why)))
		goto out;
	m = json_get(j, "match");
	if (json_len(m) != pairs->n / 2) {
		buf_addf(why, "%s answered %zu of %zu version checks", py, json_len(m), pairs->n / 2);
		goto out;
	}
	for (size_t i = 0; i < pairs->n / 2; i++) {
		const struct json *a = json_at(m, i);

		ok[i] = json_is_bool(a) ? json_is_true(a) : -1;
	}
	rc = 0;
out:
	json_free(j);
	strvec_clear(&args);
	return rc;
}
