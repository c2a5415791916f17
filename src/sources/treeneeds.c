/*
 * What a tree's build needs, read from its files (treeneeds.h).
 *
 * cmake_minimum_required: the first `cmake_minimum_required(` (any case)
 * outside a '#' comment, whose arguments hold "VERSION" then
 * "<min>[...<max>]"; <min> is read as major.minor.
 *
 * Python imports: a line is an import when it starts at column 0 with
 * "import " (then "a.b [as c], d") or "from " (then "X import names",
 * names optionally in parentheses that may span lines, up to 64 lines).
 * Lines inside triple-quoted strings (a line with an odd number of """ or
 * ''' opens or closes one) are skipped. Indented imports (in functions,
 * try blocks) are conditional, so they are not needs.
 *
 * pyproject.toml: the `requires` array of the [build-system] table, read
 * by the build's interpreter (host/pyreqs.h); the distribution names,
 * normalized, of those whose marker holds there.
 *
 * Every reader is bounded (MAX_FILE bytes per file, MAX_FILES files per
 * walk, MAX_NAME bytes per name) and never fails on bad bytes.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "host/pyreqs.h"
#include "profile/knowledge.h"
#include "sources/treeneeds.h"
#include "core/util.h"

#define MAX_FILE (1u << 20)
#define MAX_FILES 400
#define MAX_NAME 200

/*
 * The first cmake_minimum_required of a CMake text: its minimum, and into
 * *max the top of a "<min>...<max>" range (the minimum when none).
 */
static unsigned
cmake_required(const char *text, size_t len, unsigned *line, unsigned *max)
{
	static const char cmd[] = "cmake_minimum_required";
	unsigned ln = 1;
	int in_comment = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\n') {
			ln++;
			in_comment = 0;
			continue;
		}
		if (c == '#')
			in_comment = 1;
		if (in_comment || len - i < sizeof(cmd) - 1 || strncasecmp(text + i, cmd, sizeof(cmd) - 1))
			continue;
		if (i && (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_'))
			continue;
		{
			size_t k = i + sizeof(cmd) - 1;
			char args[256];
			size_t n = 0;
			const char *v, *dots;
			unsigned ver;

			while (k < len && (text[k] == ' ' || text[k] == '\t'))
				k++;
			if (k >= len || text[k] != '(')
				continue;
			for (k++; k < len && text[k] != ')' && n + 1 < sizeof(args); k++)
				args[n++] = text[k] == '\n' || text[k] == '\t' || text[k] == '"' ? ' ' : text[k];
			args[n] = '\0';
			v = strstr(args, "VERSION");
			if (!v)
				return 0;
			v += strlen("VERSION");
			while (*v == ' ')
				v++;
			ver = kb_parse_version(v);
			dots = strstr(v, "...");
			if (max)
				*max = dots && kb_parse_version(dots + 3) ? kb_parse_version(dots + 3) : ver;
			if (ver && line)
				*line = ln;
			return ver;
		}
	}
	return 0;
}

unsigned
cmake_minimum_text(const char *text, size_t len, unsigned *line)
{
	return cmake_required(text, len, line, NULL);
}

unsigned
cmake_policy_text(const char *text, size_t len, unsigned *line)
{
	unsigned max = 0;

	return cmake_required(text, len, line, &max) ? max : 0;
}

static int
read_bounded(const char *path, struct buf *out)
{
	buf_reset(out);
	if (!is_regular(path) || read_file(out, path) < 0)
		return -1;
	if (out->len > MAX_FILE)
		buf_setlen(out, MAX_FILE);
	if (!out->s)
		buf_addstr(out, "");
	return 0;
}

/* "cmake>=3.27" (also "cmake >= 3.27.0") in a requirements text: 327, 0 when none. */
static unsigned
cmake_requirement(const char *text)
{
	const char *p = text;

	while ((p = strstr(p, "cmake"))) {
		const char *q = p + 5;

		if ((p != text && (isalnum((unsigned char)p[-1]) || p[-1] == '-' || p[-1] == '_')) ||
		    isalnum((unsigned char)*q) || *q == '-' || *q == '_') {
			p = q;
			continue;
		}
		while (*q == ' ')
			q++;
		if (q[0] == '>' && q[1] == '=') {
			q += 2;
			while (*q == ' ')
				q++;
			return kb_parse_version(q);
		}
		p = q;
	}
	return 0;
}

unsigned
tree_cmake_needed(const char *src, struct buf *from)
{
	static const char *const reqs[] = { "requirements-build.txt", "requirements.txt",
					    "pyproject.toml", NULL };
	struct buf path = BUF_INIT, text = BUF_INIT;
	unsigned best = 0, v, line = 0;

	buf_addf(&path, "%s/CMakeLists.txt", src);
	if (read_bounded(path.s, &text) == 0 && (v = cmake_minimum_text(text.s, text.len, &line))) {
		best = v;
		buf_reset(from);
		buf_addf(from, "CMakeLists.txt:%u cmake_minimum_required", line);
	}
	for (size_t i = 0; reqs[i]; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", src, reqs[i]);
		if (read_bounded(path.s, &text) == 0 && (v = cmake_requirement(text.s)) > best) {
			best = v;
			buf_reset(from);
			buf_addf(from, "%s: cmake>=%u.%u", reqs[i], v / 100, v % 100);
		}
	}
	buf_release(&path);
	buf_release(&text);
	return best;
}

static size_t
count_str(const char *s, size_t n, const char *what)
{
	size_t c = 0, w = strlen(what);

	for (size_t i = 0; i + w <= n; i++)
		if (!memcmp(s + i, what, w)) {
			c++;
			i += w - 1;
		}
	return c;
}

/* A dotted name (with leading dots for relative imports) at *p; "" when none. */
static void
dotted(const char **p, struct buf *out)
{
	const char *s = *p;

	buf_reset(out);
	while (*s == '.' || isalnum((unsigned char)*s) || *s == '_') {
		if (out->len < MAX_NAME)
			buf_addch(out, *s);
		s++;
	}
	*p = s;
	if (!out->s)
		buf_addstr(out, "");
}

static void
skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

/* After a name of an import list: past its "as ALIAS"; 1 (and past the comma) when another name follows. */
static int
list_goes_on(const char **p, struct buf *alias)
{
	skip_ws(p);
	if (!strncmp(*p, "as ", 3)) {
		*p += 3;
		skip_ws(p);
		dotted(p, alias);
		skip_ws(p);
	}
	if (**p != ',')
		return 0;
	(*p)++;
	return 1;
}

static void
push_import(struct strvec *out, const char *name, unsigned line)
{
	if (*name && strcmp(name, "."))
		strvec_pushf(out, "%s\t%u", name, line);
	else if (!strcmp(name, "."))
		strvec_pushf(out, ".\t%u", line);
}

void
py_imports_text(const char *text, size_t len, struct strvec *out)
{
	struct buf name = BUF_INIT, from = BUF_INIT, joined = BUF_INIT, alias = BUF_INIT;
	size_t i = 0;
	unsigned line = 0;
	int in_str = 0;

	while (i < len) {
		size_t n = 0;
		const char *l, *p;
		unsigned at;

		while (i + n < len && text[i + n] != '\n')
			n++;
		line++;
		at = line;
		l = text + i;
		i += n + 1;
		if ((count_str(l, n, "\"\"\"") + count_str(l, n, "'''")) % 2) {
			in_str = !in_str;
			continue;
		}
		if (in_str || n < 7 || memchr(l, '\0', n))
			continue;
		buf_reset(&joined);
		buf_add(&joined, l, n);
		p = joined.s;
		if (!strncmp(p, "import ", 7)) {
			p += 7;
			for (;;) {
				skip_ws(&p);
				dotted(&p, &name);
				if (!name.len || name.s[0] == '.')
					break;
				push_import(out, name.s, at);
				if (!list_goes_on(&p, &alias))
					break;
			}
		} else if (!strncmp(p, "from ", 5)) {
			p += 5;
			skip_ws(&p);
			dotted(&p, &from);
			skip_ws(&p);
			if (!from.len || strncmp(p, "import", 6) || !(p[6] == ' ' || p[6] == '('))
				continue;
			p += 6;
			push_import(out, from.s, at);
			skip_ws(&p);
			if (*p == '(') {
				/* names in parentheses may go on over the next lines */
				unsigned more = 0;

				while (!strchr(p, ')') && i < len && more++ < 64) {
					size_t m = 0, off = (size_t)(p - joined.s);

					while (i + m < len && text[i + m] != '\n')
						m++;
					buf_addch(&joined, ' ');
					buf_add(&joined, text + i, m);
					i += m + 1;
					line++;
					p = joined.s + off;
				}
				p++;
			}
			for (;;) {
				skip_ws(&p);
				while (*p == ' ' || *p == '(' || *p == '\t')
					p++;
				dotted(&p, &name);
				if (!name.len || strchr(name.s, '.'))
					break;
				if (strcmp(from.s, "__future__")) {
					struct buf sub = BUF_INIT;

					buf_addf(&sub, "%s%s%s", from.s,
						 from.s[from.len - 1] == '.' ? "" : ".", name.s);
					push_import(out, sub.s, at);
					buf_release(&sub);
				}
				if (!list_goes_on(&p, &alias))
					break;
			}
		}
	}
	buf_release(&name);
	buf_release(&from);
	buf_release(&joined);
	buf_release(&alias);
}

/* A module's file under src: "a/b.py" or "a/b/__init__.py" into out; -1 when it is not in the tree. */
static int
module_file(const char *src, const char *module, struct buf *out)
{
	struct buf rel = BUF_INIT;
	int ret = -1;

	for (const char *c = module; *c; c++)
		buf_addch(&rel, *c == '.' ? '/' : *c);
	buf_reset(out);
	buf_addf(out, "%s.py", rel.s);
	if (rel.len) {
		struct buf abs = BUF_INIT;

		buf_addf(&abs, "%s/%s", src, out->s);
		if (is_regular(abs.s)) {
			ret = 0;
		} else {
			buf_reset(out);
			buf_addf(out, "%s/__init__.py", rel.s);
			buf_reset(&abs);
			buf_addf(&abs, "%s/%s", src, out->s);
			ret = is_regular(abs.s) ? 0 : -1;
		}
		buf_release(&abs);
	}
	buf_release(&rel);
	return ret;
}

/* An in-tree top-level package or module, other than torch (what is being built). */
static int
in_tree(const char *src, const char *top)
{
	struct buf f = BUF_INIT;
	int r;

	if (!strcmp(top, "torch"))
		return 1;
	r = module_file(src, top, &f) == 0;
	buf_release(&f);
	return r;
}

static void
add_need(struct py_needs *n, const char *module, const char *where)
{
	for (size_t i = 0; i < n->n; i++)
		if (!strcmp(n->v[i].module, module))
			return;
	ALLOC_GROW(n->v, n->n + 1, n->alloc);
	n->v[n->n].module = xstrdup(module);
	n->v[n->n].where = xstrdup(where);
	n->n++;
}

/* "..x" imported from the file rel ("torchgen/api/cpp.py") -> "torchgen.x". */
static void
absolute_module(const char *rel, const char *name, struct buf *out)
{
	size_t dots = strspn(name, "."), n = strlen(rel);
	struct buf pkg = BUF_INIT;

	buf_reset(out);
	if (!dots) {
		buf_addstr(out, name);
		return;
	}
	/* The module's dotted name: without ".py", whose dot is no package boundary. */
	if (ends_with(rel, ".py"))
		n -= 3;
	for (size_t i = 0; i < n; i++)
		buf_addch(&pkg, rel[i] == '/' ? '.' : rel[i]);
	/* drop the file name: its package is what the dots count from */
	while (pkg.len && pkg.s[pkg.len - 1] != '.')
		pkg.len--;
	if (pkg.len)
		pkg.len--;
	buf_setlen(&pkg, pkg.len);
	for (size_t d = 1; d < dots; d++) {
		char *dot = pkg.s ? strrchr(pkg.s, '.') : NULL;

		buf_setlen(&pkg, dot ? (size_t)(dot - pkg.s) : 0);
	}
	buf_addf(out, "%s%s%s", pkg.s ? pkg.s : "", pkg.len && name[dots] ? "." : "", name + dots);
	buf_release(&pkg);
}

/* Entry points named by the CMake files that run Python during the build. */
static void
cmake_entries(const char *src, struct strvec *files)
{
	static const char *const cm[] = { "CMakeLists.txt", "cmake/Codegen.cmake",
					  "caffe2/CMakeLists.txt", NULL };
	struct buf path = BUF_INIT, text = BUF_INIT, tok = BUF_INIT, f = BUF_INIT;

	for (size_t i = 0; cm[i]; i++) {
		const char *l;

		buf_reset(&path);
		buf_addf(&path, "%s/%s", src, cm[i]);
		if (read_bounded(path.s, &text) < 0)
			continue;
		for (l = text.s; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] ? 1 : 0)) {
			size_t n = strcspn(l, "\n");
			char *line = xstrndup(l, n), *m;

			if (strstr(line, "Python_EXECUTABLE") || strstr(line, "PYTHON_EXECUTABLE") ||
			    strstr(line, "Python::Interpreter")) {
				if ((m = strstr(line, " -m "))) {
					const char *q = m + 4;

					skip_ws(&q);
					dotted(&q, &tok);
					if (tok.len && module_file(src, tok.s, &f) == 0)
						strvec_push(files, f.s);
				}
				for (m = strstr(line, ".py"); m; m = strstr(m + 1, ".py")) {
					const char *b = m;

					if (isalnum((unsigned char)m[3]) || m[3] == '_')
						continue;
					while (b > line && (isalnum((unsigned char)b[-1]) ||
							    strchr("/_.-", b[-1])))
						b--;
					buf_reset(&tok);
					buf_add(&tok, b, (size_t)(m + 3 - b));
					buf_reset(&f);
					buf_addf(&f, "%s/%s", src, tok.s);
					if (tok.s[0] != '/' && !strstr(tok.s, "..") && is_regular(f.s))
						strvec_push(files, tok.s);
				}
			}
			free(line);
		}
	}
	buf_release(&path);
	buf_release(&text);
	buf_release(&tok);
	buf_release(&f);
}

int
py_needs_scan(struct py_needs *out, const char *src, const char *py)
{
	struct strvec todo = STRVEC_INIT, seen = STRVEC_INIT, imports = STRVEC_INIT;
	struct buf path = BUF_INIT, text = BUF_INIT, mod = BUF_INIT, f = BUF_INIT, where = BUF_INIT;
	struct buf why = BUF_INIT;
	struct pytree t;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->entries);
	strvec_init(&out->declared);
	buf_addf(&path, "%s/setup.py", src);
	if (is_regular(path.s))
		strvec_push(&todo, "setup.py");
	cmake_entries(src, &todo);
	for (size_t i = 0; i < todo.n; i++)
		strvec_push(&out->entries, todo.v[i]);
	for (size_t i = 0; i < todo.n && out->files < MAX_FILES; i++) {
		const char *rel = todo.v[i];

		if (strset_has(&seen, rel))
			continue;
		strset_add(&seen, rel);
		buf_reset(&path);
		buf_addf(&path, "%s/%s", src, rel);
		if (read_bounded(path.s, &text) < 0)
			continue;
		out->files++;
		strvec_clear(&imports);
		py_imports_text(text.s, text.len, &imports);
		for (size_t k = 0; k < imports.n; k++) {
			char *tab = strchr(imports.v[k], '\t');
			size_t top;

			*tab = '\0';
			absolute_module(rel, imports.v[k], &mod);
			top = strcspn(mod.s, ".");
			if (!mod.len || !top)
				continue;
			buf_reset(&where);
			buf_add(&where, mod.s, top);
			if (!strcmp(where.s, "__future__"))
				continue;
			if (!in_tree(src, where.s)) {
				struct buf at = BUF_INIT;

				/* "X.a" from `from X import a` names no module of its own */
				buf_addf(&at, "%s:%s", rel, tab + 1);
				add_need(out, where.s, at.s);
				buf_release(&at);
				continue;
			}
			if (!strcmp(where.s, "torch"))
				continue;
			/* every package on the way is imported too */
			for (size_t e = 0; e <= mod.len; e++) {
				if (e < mod.len && mod.s[e] != '.')
					continue;
				buf_reset(&where);
				buf_add(&where, mod.s, e);
				if (module_file(src, where.s, &f) == 0 && !strset_has(&seen, f.s))
					strvec_push(&todo, f.s);
			}
		}
	}
	/* pyproject's build requirements that no walked file imports */
	if (py && pytree_read(&t, py, src, &why) == 0) {
		for (size_t i = 0; i < t.requires.n; i++) {
			const char *d = t.requires.v[i].name;
			int have = 0;

			if (!t.requires.v[i].applies || !strcmp(d, "cmake") || !strcmp(d, "ninja"))
				continue; /* programs, checked as such */
			buf_reset(&mod);
			if (!strcmp(d, "pyyaml"))
				buf_addstr(&mod, "yaml");
			else
				for (const char *c = d; *c; c++)
					buf_addch(&mod, *c == '-' || *c == '.' ? '_' : *c);
			for (size_t k = 0; k < out->n; k++)
				have |= !strcmp(out->v[k].module, mod.s);
			if (!have && !strset_has(&out->declared, mod.s))
				strset_add(&out->declared, mod.s);
		}
	}
	if (py)
		pytree_release(&t);
	strvec_clear(&todo);
	strvec_clear(&seen);
	strvec_clear(&imports);
	buf_release(&why);
	buf_release(&path);
	buf_release(&text);
	buf_release(&mod);
	buf_release(&f);
	buf_release(&where);
	return out->entries.n || out->declared.n ? 0 : -1;
}

void
py_needs_release(struct py_needs *n)
{
	for (size_t i = 0; i < n->n; i++) {
		free(n->v[i].module);
		free(n->v[i].where);
	}
	free(n->v);
	strvec_clear(&n->entries);
	strvec_clear(&n->declared);
	memset(n, 0, sizeof(*n));
}

void
py_module_packages(const char *module, struct buf *pip, struct buf *deb)
{
	static const struct { const char *module, *pip, *deb; } known[] = {
		{ "yaml", "pyyaml", "python3-yaml" },
		{ "typing_extensions", "typing-extensions", "python3-typing-extensions" },
		{ "setuptools", "setuptools", "python3-setuptools" },
		{ "wheel", "wheel", "python3-wheel" },
		{ "distutils", "setuptools", "python3-setuptools" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(known[i].module, module)) {
			buf_addstr(pip, known[i].pip);
			buf_addstr(deb, known[i].deb);
			return;
		}
	buf_addstr(pip, module);
	buf_addstr(deb, "python3-");
	for (const char *c = module; *c; c++)
		buf_addch(deb, *c == '_' ? '-' : tolower((unsigned char)*c));
}

int
setup_py_loadtime(const char *src, struct strvec *out)
{
	struct buf path = BUF_INIT, text = BUF_INIT, top = BUF_INIT;
	struct strvec imports = STRVEC_INIT;
	int rc = -1;

	buf_addf(&path, "%s/setup.py", src);
	if (read_bounded(path.s, &text) < 0)
		goto out;
	rc = 0;
	py_imports_text(text.s, text.len, &imports);
	for (size_t i = 0; i < imports.n; i++) {
		const char *name = imports.v[i];

		buf_reset(&top);
		buf_add(&top, name, strcspn(name, ".\t"));
		if (!top.len || !strcmp(top.s, "__future__") || in_tree(src, top.s))
			continue;
		strvec_push(out, name);
	}
out:
	strvec_clear(&imports);
	buf_release(&path);
	buf_release(&text);
	buf_release(&top);
	return rc;
}

#define MAX_CMAKE_FILES 4000
#define MAX_CMAKE_DEPTH 8

struct cmake_walk {
	const char *src;
	size_t files;
	unsigned best;
	struct buf *where;
};

static void
cmake_walk_dir(struct cmake_walk *w, const char *rel, int depth)
{
	struct buf dir = BUF_INIT, file = BUF_INIT, text = BUF_INIT, sub = BUF_INIT;
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	struct stat st;
	DIR *d;

	buf_addf(&dir, "%s%s%s", w->src, *rel ? "/" : "", rel);
	d = opendir(dir.s);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && (*rel || strcmp(de->d_name, "build")))
			strvec_push(&names, de->d_name);
	if (d)
		closedir(d);
	/* sorted: the same tree names the same file every time */
	strvec_sort(&names);
	buf_addf(&file, "%s/CMakeLists.txt", dir.s);
	if (w->files < MAX_CMAKE_FILES && read_bounded(file.s, &text) == 0) {
		unsigned line = 0, v = cmake_policy_text(text.s, text.len, &line);

		w->files++;
		if (v && (!w->best || v < w->best)) {
			w->best = v;
			buf_reset(w->where);
			buf_addf(w->where, "%s%sCMakeLists.txt:%u", rel, *rel ? "/" : "", line);
		}
	}
	for (size_t i = 0; i < names.n && depth < MAX_CMAKE_DEPTH && w->files < MAX_CMAKE_FILES; i++) {
		buf_reset(&sub);
		buf_addf(&sub, "%s/%s", dir.s, names.v[i]);
		/* never through a symlink: out of the tree, or round in a loop */
		if (lstat(sub.s, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		buf_reset(&sub);
		buf_addf(&sub, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
		cmake_walk_dir(w, sub.s, depth + 1);
	}
	strvec_clear(&names);
	buf_release(&dir);
	buf_release(&file);
	buf_release(&text);
	buf_release(&sub);
}

unsigned
tree_cmake_oldest(const char *src, struct buf *where)
{
	struct cmake_walk w = { .src = src, .where = where };

	cmake_walk_dir(&w, "", 0);
	return w.best;
}
