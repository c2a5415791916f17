/*
 * CMake option scanner.
 *
 * Finds option() and cmake_dependent_option() calls with the CMake-language
 * lexer of cmakelex.c (its grammar; escapes kept as the escaped character).
 *
 * Command names are case-insensitive. Only the arguments at the
 * invocation's own parenthesis level count (nested parentheses are part
 * of conditions). option(<name> "<doc>" [<default>]) defaults to OFF;
 * cmake_dependent_option(<name> "<doc>" <default> "<condition>" <forced>).
 * In a quoted argument, '\' newline continues the line and other escapes
 * keep the escaped character; variable references (${...}) are kept as
 * written, since their values are only known to a configure.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "formats/cmakelex.h"
#include "formats/cmakeopts.h"
#include "core/diag.h"
#include "core/util.h"

#define MAX_ARGS 6
#define MAX_FILE_BYTES (4u << 20)

/*
 * Parse the arguments after '(' up to the matching ')'. Arguments at the
 * top level go to args (at most MAX_ARGS); returns how many were seen, or
 * -1 when the text ends before the invocation does.
 */
static long
arguments(struct cmakelex *lx, struct buf *args)
{
	long nargs = 0;
	unsigned depth = 1;

	while (lx->i < lx->len) {
		int c = cmakelex_at(lx, 0);
		struct buf tmp = BUF_INIT;
		struct buf *dst;

		if (isspace(c)) {
			cmakelex_advance(lx, 1);
			continue;
		}
		if (c == '#') {
			cmakelex_comment(lx);
			continue;
		}
		if (c == '(') {
			depth++;
			cmakelex_advance(lx, 1);
			continue;
		}
		if (c == ')') {
			cmakelex_advance(lx, 1);
			if (--depth == 0)
				return nargs;
			continue;
		}
		dst = depth == 1 && nargs < MAX_ARGS ? &args[nargs] : &tmp;
		cmakelex_argument(lx, dst);
		if (depth == 1)
			nargs++;
		buf_release(&tmp);
		if (!dst->s)
			buf_addstr(dst, "");
	}
	return -1;
}

static void
add_option(struct cmake_options *o, const char *file, unsigned line, struct buf *args,
	   size_t nargs, int dependent)
{
	struct cmake_option *opt;

	if (nargs < 2 || !args[0].len || cmakeopts_find(o, args[0].s))
		return;
	if (o->n == o->alloc) {
		o->alloc = o->alloc ? 2 * o->alloc : 32;
		o->v = xreallocarray(o->v, o->alloc, sizeof(*o->v));
	}
	opt = &o->v[o->n++];
	memset(opt, 0, sizeof(*opt));
	opt->name = xstrdup(args[0].s);
	opt->doc = xstrdup(args[1].s ? args[1].s : "");
	opt->def = xstrdup(nargs > 2 && args[2].s ? args[2].s : "OFF");
	if (dependent) {
		opt->condition = xstrdup(nargs > 3 && args[3].s ? args[3].s : "");
		opt->forced = xstrdup(nargs > 4 && args[4].s ? args[4].s : "");
	}
	opt->file = xstrdup(file);
	opt->line = line;
}

void
cmakeopts_scan_buffer(struct cmake_options *o, const char *file, const char *text, size_t len)
{
	struct cmakelex lx = CMAKELEX_INIT(text, len);
	size_t start, nlen;
	unsigned line;

	while (cmakelex_command(&lx, &start, &nlen, &line)) {
		struct buf args[MAX_ARGS] = { BUF_INIT, BUF_INIT, BUF_INIT,
					      BUF_INIT, BUF_INIT, BUF_INIT };
		int is_opt = nlen == 6 && !strncasecmp(text + start, "option", 6);
		int is_dep = nlen == 22 && !strncasecmp(text + start, "cmake_dependent_option", 22);
		long nargs = arguments(&lx, args);

		if ((is_opt || is_dep) && nargs >= 0)
			add_option(o, file, line, args, (size_t)nargs, is_dep);
		for (size_t k = 0; k < MAX_ARGS; k++)
			buf_release(&args[k]);
	}
}

void
cmakeopts_mentions(struct cmake_options *o, const char *text, size_t len)
{
	size_t i = 0;

	while (i + 4 < len) {
		size_t j;

		if (memcmp(text + i, "USE_", 4) || (i && (isalnum((unsigned char)text[i - 1]) ||
							 text[i - 1] == '_'))) {
			i++;
			continue;
		}
		j = i + 4;
		while (j < len && (isupper((unsigned char)text[j]) || isdigit((unsigned char)text[j]) ||
				   text[j] == '_'))
			j++;
		if (j > i + 4 && !(j < len && islower((unsigned char)text[j]))) {
			char *name = xstrndup(text + i, j - i);

			strset_add(&o->mentioned, name);
			free(name);
		}
		i = j;
	}
}

static int
skipped_dir(const char *rel)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	return base[0] == '.' || !strcmp(rel, "third_party") || !strcmp(rel, "build") ||
	       !strcmp(base, "__pycache__") || !strcmp(base, "node_modules");
}

static int
read_limited(const char *path, struct buf *out)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > MAX_FILE_BYTES)
		return -1;
	return read_file(out, path);
}

static void
scan_file(struct cmake_options *o, const char *src, const char *rel, int cmake)
{
	struct buf path = BUF_INIT, text = BUF_INIT;

	buf_addf(&path, "%s/%s", src, rel);
	if (read_limited(path.s, &text) == 0) {
		if (cmake)
			cmakeopts_scan_buffer(o, rel, text.s, text.len);
		cmakeopts_mentions(o, text.s, text.len);
		o->files++;
	}
	buf_release(&path);
	buf_release(&text);
}

static void
walk(struct cmake_options *o, const char *src, const char *rel, unsigned depth)
{
	struct buf dir = BUF_INIT;
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	DIR *d;
	size_t i;

	buf_addf(&dir, "%s%s%s", src, *rel ? "/" : "", rel);
	d = depth < 24 ? opendir(dir.s) : NULL;
	buf_release(&dir);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strset_add(&names, de->d_name);
	closedir(d);
	for (i = 0; i < names.n; i++) {
		struct buf r = BUF_INIT, full = BUF_INIT;
		struct stat st;

		if (!*rel && !strcmp(names.v[i], "CMakeLists.txt"))
			continue; /* scanned first */
		buf_addf(&r, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
		buf_addf(&full, "%s/%s", src, r.s);
		if (lstat(full.s, &st) == 0) {
			if (S_ISDIR(st.st_mode) && !skipped_dir(r.s))
				walk(o, src, r.s, depth + 1);
			else if (S_ISREG(st.st_mode) && (!strcmp(names.v[i], "CMakeLists.txt") ||
							 ends_with(names.v[i], ".cmake")))
				scan_file(o, src, r.s, 1);
		}
		buf_release(&r);
		buf_release(&full);
	}
	strvec_clear(&names);
}

int
cmakeopts_scan_tree(struct cmake_options *o, const char *src)
{
	static const char *const py[] = { "setup.py", "pyproject.toml", NULL };
	struct buf helpers = BUF_INIT;
	size_t i;
	DIR *d;

	cmakeopts_init(o);
	if (!is_dir(src))
		return error("cannot read the source tree '%s'", src);
	/* The top-level CMakeLists.txt first: its declarations are the ones CMake's cache keeps. */
	scan_file(o, src, "CMakeLists.txt", 1);
	walk(o, src, "", 0);
	for (i = 0; py[i]; i++)
		scan_file(o, src, py[i], 0);
	buf_addf(&helpers, "%s/tools/setup_helpers", src);
	d = opendir(helpers.s);
	if (d) {
		struct dirent *de;

		while ((de = readdir(d))) {
			struct buf rel = BUF_INIT;

			if (!ends_with(de->d_name, ".py"))
				continue;
			buf_addf(&rel, "tools/setup_helpers/%s", de->d_name);
			scan_file(o, src, rel.s, 0);
			buf_release(&rel);
		}
		closedir(d);
	}
	buf_release(&helpers);
	return 0;
}

void
cmakeopts_init(struct cmake_options *o)
{
	memset(o, 0, sizeof(*o));
	strvec_init(&o->mentioned);
}

const struct cmake_option *
cmakeopts_find(const struct cmake_options *o, const char *name)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->v[i].name, name))
			return &o->v[i];
	return NULL;
}

void
cmakeopts_release(struct cmake_options *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].name);
		free(o->v[i].doc);
		free(o->v[i].def);
		free(o->v[i].condition);
		free(o->v[i].forced);
		free(o->v[i].file);
	}
	free(o->v);
	strvec_clear(&o->mentioned);
	memset(o, 0, sizeof(*o));
}
