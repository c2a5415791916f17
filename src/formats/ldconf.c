/*
 * ld.so.conf reader (glibc's elf/ldconfig.c parse_conf is the reference):
 *
 *	file    := line*
 *	line    := [ "include" WS pattern (WS pattern)* | "hwcap" ... | dir (SEP dir)* ] [ "#" comment ]
 *	SEP     := any run of ' ', '\t', ':', ','
 *
 * Patterns are glob(3) patterns, relative ones taken from the including
 * file's directory. Directories that are not absolute are skipped. The
 * reader works on the bytes it is given (a NUL inside ends nothing) and
 * keeps at most `max` directories and `max` includes.
 */
#include <glob.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/ldconf.h"

#define LDCONF_DEPTH 4
#define LDCONF_FILES 64
#define LDCONF_DIRS 256
#define LDCONF_FILE_MAX (64 << 10)

static int
is_sep(char c)
{
	return c == ' ' || c == '\t' || c == ':' || c == ',' || c == '\r';
}

static void
add_unique(struct strvec *v, const char *s, size_t max)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return;
	if (v->n < max)
		strvec_push(v, s);
}

/* One line without its '#' comment: its words into the right list. */
static void
parse_line(const char *p, size_t n, const char *base_dir, size_t max, struct strvec *dirs,
	   struct strvec *includes)
{
	struct buf word = BUF_INIT;
	size_t i = 0;
	int nword = 0, include = 0;

	while (i < n) {
		size_t start;

		while (i < n && is_sep(p[i]))
			i++;
		start = i;
		while (i < n && !is_sep(p[i]))
			i++;
		if (i == start)
			break;
		buf_reset(&word);
		buf_add(&word, p + start, i - start);
		/* A NUL in the text would cut the word short: such a word names nothing. */
		if (strlen(word.s) != word.len)
			continue;
		if (nword++ == 0 && !strcmp(word.s, "hwcap"))
			break;
		if (nword == 1 && !strcmp(word.s, "include")) {
			include = 1;
			continue;
		}
		if (include) {
			struct buf abs = BUF_INIT;

			if (word.s[0] != '/' && base_dir)
				buf_addf(&abs, "%s/", base_dir);
			buf_addstr(&abs, word.s);
			add_unique(includes, abs.s, max);
			buf_release(&abs);
		} else if (word.s[0] == '/') {
			/* ldconfig drops trailing slashes: "/usr/lib/" is "/usr/lib". */
			while (word.len > 1 && word.s[word.len - 1] == '/')
				buf_setlen(&word, word.len - 1);
			add_unique(dirs, word.s, max);
		}
	}
	buf_release(&word);
}

void
ldconf_parse(const char *text, size_t len, const char *base_dir, size_t max, struct strvec *dirs,
	     struct strvec *includes)
{
	size_t at = 0;

	while (at < len) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at, body;
		const char *hash = memchr(line, '#', n);

		body = hash ? (size_t)(hash - line) : n;
		parse_line(line, body, base_dir, max, dirs, includes);
		at += n + (nl != NULL);
	}
}

/* One file and, depth first, what it includes; `seen` counts the files read. */
static void
read_conf(const char *path, int depth, size_t *seen, struct strvec *dirs)
{
	struct strvec includes = STRVEC_INIT;
	struct buf text = BUF_INIT, base = BUF_INIT;
	struct stat st;
	int rc;

	if (depth > LDCONF_DEPTH || *seen >= LDCONF_FILES || stat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size > LDCONF_FILE_MAX)
		return;
	(*seen)++;
	diag_quiet++;
	rc = read_file(&text, path);
	diag_quiet--;
	if (rc < 0 || text.len > LDCONF_FILE_MAX)
		goto out;
	buf_addstr(&base, path);
	buf_setlen(&base, strrchr(base.s, '/') ? (size_t)(strrchr(base.s, '/') - base.s) : 0);
	ldconf_parse(text.s, text.len, base.len ? base.s : "/", LDCONF_DIRS, dirs, &includes);
	for (size_t i = 0; i < includes.n && *seen < LDCONF_FILES; i++) {
		glob_t g;

		if (glob(includes.v[i], GLOB_NOSORT, NULL, &g) == 0) {
			/* glob's own order is the directory's; ldconfig sorts, and so do we. */
			struct strvec files = STRVEC_INIT;

			for (size_t j = 0; j < g.gl_pathc && j < LDCONF_FILES; j++)
				strvec_push(&files, g.gl_pathv[j]);
			strvec_sort(&files);
			for (size_t j = 0; j < files.n; j++)
				read_conf(files.v[j], depth + 1, seen, dirs);
			strvec_clear(&files);
		}
		globfree(&g);
	}
out:
	strvec_clear(&includes);
	buf_release(&text);
	buf_release(&base);
}

void
ldconf_search_dirs(const char *conf, struct strvec *dirs)
{
	static const char *const defaults[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
		"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	size_t seen = 0;

	if (conf)
		read_conf(conf, 0, &seen, dirs);
	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++)
		add_unique(dirs, defaults[i], LDCONF_DIRS + ARRAY_SIZE(defaults));
}
