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
 *
 * Bounds of one walk (ldconf_search_dirs), each said when reached: the
 * first 64 KiB of a file (to a line end), LDCONF_FILES files, include
 * depth LDCONF_DEPTH, LDCONF_ENTRIES directory entries looked at by all
 * include patterns together; a file already read (a cycle) is not read
 * again.
 */
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/ldconf.h"

#define LDCONF_DEPTH 4
#define LDCONF_FILES 64
#define LDCONF_DIRS 256
#define LDCONF_FILE_MAX (64 << 10)
#define LDCONF_ENTRIES 4096

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

/* What one ld.so.conf and all it includes may cost, and what it has cost. */
struct walk {
	size_t files;       /* files read */
	size_t entries;     /* directory entries the include patterns looked at */
	struct strvec read; /* "dev:ino" of each file read: a cycle reads each once */
	int said_files, said_entries;
	struct strvec *dirs;
};

static int
has_magic(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/*
 * The paths matching `pattern`, as glob(3) finds them but
 * bounded: each directory entry looked at counts against LDCONF_ENTRIES
 * for the whole walk, so "include /[*]/[*]/[*]/[*]" costs that many
 * entries, not a walk of the file system. Literal parts are joined
 * without looking; read_conf's stat decides whether they are there.
 */
static void
pattern_paths(struct walk *w, const char *pattern, struct strvec *out)
{
	struct strvec cur = STRVEC_INIT, next = STRVEC_INIT;
	const char *p = pattern, *root = *pattern == '/' ? "/" : "";

	strvec_push(&cur, "");
	while (*p && cur.n) {
		size_t n;
		char *comp;

		while (*p == '/')
			p++;
		if (!(n = strcspn(p, "/")))
			break;
		comp = xstrndup(p, n);
		p += n;
		for (size_t i = 0; i < cur.n; i++) {
			DIR *d;
			struct dirent *de;

			/* "" is the start: the root, or where a relative pattern starts */
			const char *at = *cur.v[i] ? cur.v[i] : root, *sep = *cur.v[i] ? "/" : "";

			if (!has_magic(comp)) {
				strvec_pushf(&next, "%s%s%s", at, sep, comp);
				continue;
			}
			if (!(d = opendir(*at ? at : ".")))
				continue;
			while ((de = readdir(d)) && w->entries < LDCONF_ENTRIES) {
				w->entries++;
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
				    fnmatch(comp, de->d_name, FNM_PERIOD) == 0)
					strvec_pushf(&next, "%s%s%s", at, sep, de->d_name);
			}
			closedir(d);
		}
		free(comp);
		strvec_clear(&cur);
		cur = next;
		strvec_init(&next);
	}
	/* glob's own order is the directory's; ldconfig sorts, and so do we. */
	strvec_sort(&cur);
	for (size_t i = 0; i < cur.n; i++)
		strvec_push(out, cur.v[i]);
	strvec_clear(&cur);
}

/*
 * The first LDCONF_FILE_MAX bytes of `fd` into `text`, cut after the
 * last whole line when there is more, which is said: ldconfig reads it
 * all, so directories past the cut are not searched here.
 */
static void
read_bounded(int fd, const char *path, off_t size, struct buf *text)
{
	char chunk[8192];
	ssize_t k;

	while (text->len <= LDCONF_FILE_MAX) {
		size_t room = LDCONF_FILE_MAX + 1 - text->len;

		if ((k = read(fd, chunk, room < sizeof(chunk) ? room : sizeof(chunk))) <= 0)
			break;
		buf_add(text, chunk, (size_t)k);
	}
	if (text->len > LDCONF_FILE_MAX) {
		char *nl = memrchr(text->s, '\n', LDCONF_FILE_MAX);

		buf_setlen(text, nl ? (size_t)(nl - text->s) + 1 : 0);
		warning("'%s' is %lld bytes; bwbuild reads the loader's directories from its first "
			"%d KiB only (%zu bytes, to the end of a line), so a library found only in a "
			"directory named after that is not found", path, (long long)size,
			LDCONF_FILE_MAX >> 10, text->len);
	}
}

static void read_conf(struct walk *w, const char *path, int depth);

/* The files of one include pattern, each read in turn. */
static void
include_files(struct walk *w, const char *pattern, const char *from, int depth)
{
	struct strvec files = STRVEC_INIT;

	pattern_paths(w, pattern, &files);
	if (w->entries >= LDCONF_ENTRIES && !w->said_entries++)
		warning("the include patterns of '%s' looked at %d directory entries, bwbuild's bound; "
			"files they match past that are not read", from, LDCONF_ENTRIES);
	for (size_t j = 0; j < files.n; j++)
		read_conf(w, files.v[j], depth + 1);
	strvec_clear(&files);
}

/* One file and, depth first, what it includes. */
static void
read_conf(struct walk *w, const char *path, int depth)
{
	struct strvec includes = STRVEC_INIT;
	struct buf text = BUF_INIT, base = BUF_INIT, id = BUF_INIT;
	struct stat st;
	int fd = -1;

	/* not blocking: a FIFO put where a file was must not hang the repair */
	if (depth > LDCONF_DEPTH ||
	    (fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0 ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	buf_addf(&id, "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	if (strset_has(&w->read, id.s))
		goto out; /* read already: an include of itself, or of an ancestor */
	if (w->files >= LDCONF_FILES) {
		if (!w->said_files++)
			warning("the ld.so.conf files name more than %d files; the rest, from '%s' on, "
				"are not read", LDCONF_FILES, path);
		goto out;
	}
	strset_add(&w->read, id.s);
	w->files++;
	read_bounded(fd, path, st.st_size, &text);
	buf_addstr(&base, path);
	buf_setlen(&base, strrchr(base.s, '/') ? (size_t)(strrchr(base.s, '/') - base.s) : 0);
	ldconf_parse(text.s, text.len, base.len ? base.s : "/", LDCONF_DIRS, w->dirs, &includes);
	for (size_t i = 0; i < includes.n && w->files < LDCONF_FILES; i++)
		include_files(w, includes.v[i], path, depth);
out:
	if (fd >= 0)
		close(fd);
	strvec_clear(&includes);
	buf_release(&text);
	buf_release(&base);
	buf_release(&id);
}

void
ldconf_search_dirs(const char *conf, struct strvec *dirs)
{
	static const char *const defaults[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
		"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	struct walk w = { .dirs = dirs };

	strvec_init(&w.read);
	if (conf)
		read_conf(&w, conf, 0);
	strvec_clear(&w.read);
	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++)
		add_unique(dirs, defaults[i], LDCONF_DIRS + ARRAY_SIZE(defaults));
}
