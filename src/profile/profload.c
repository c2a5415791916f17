/*
 * Finding and loading a profile (profile.h): the search path, the
 * `extends:` chain (cycles, depth, a parent found beside its child),
 * each file merged into its parent, --set KEY=VALUE on top, paths made
 * relative to the file that set them, and the profile's lifetime. The
 * YAML is read by ydoc.c, validation is profcheck.c's.
 * May include: core/, formats/, host/, profile/.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "core/suggest.h"
#include "core/util.h"
#include "profile/pnode.h"
#include "profile/profile.h"

/*
 * A bound, not a design limit: real chains are 2-4 deep (base, family,
 * machine); 64 covers any hand-made one and stops a generated one (each
 * file extending the next) before it reads thousands of files.
 */
#define MAX_EXTENDS_DEPTH 64

const char *
profile_keep_str(struct profile *p, const char *s)
{
	ALLOC_GROW(p->files, p->nfiles + 1, p->files_cap);
	p->files[p->nfiles] = xstrdup(s);
	return p->files[p->nfiles++];
}

static int
try_dir(char **out, const char *dir, const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s.yaml", dir, name);
	if (access(b.s, R_OK) == 0) {
		*out = buf_detach(&b);
		return 1;
	}
	buf_release(&b);
	return 0;
}

static int
is_path_spec(const char *spec)
{
	return strchr(spec, '/') || ends_with(spec, ".yaml") || ends_with(spec, ".yml");
}

void
profile_search_path(struct strvec *dirs)
{
	data_search_path("profiles", "BWBUILD_PROFILE_PATH", dirs);
}

/*
 * The `name:` a profile file declares at its top level ("" when none in its
 * first 64 KiB): read as text, the file is not validated here.
 */
static void
declared_name(const char *path, struct buf *name)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t read = 0;

	while (f && read < 65536 && fgets(line, sizeof(line), f)) {
		char *v = line + 5, *end;

		read += strlen(line);
		if (strncmp(line, "name:", 5))
			continue;
		v += strspn(v, " \t");
		end = v + strcspn(v, "#\r\n");
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end - v >= 2 && (*v == '"' || *v == '\'') && end[-1] == *v) {
			v++;
			end--;
		}
		buf_add(name, v, (size_t)(end - v));
		break;
	}
	if (f)
		fclose(f);
}

/*
 * A file in `dirs` that declares `name: SPEC` though its file name differs
 * (bw.yaml with name: bw-ci builds into out/bw-ci/): named in a hint, as
 * --profile takes file names. 1 when one was.
 */
static int
hint_declared(const struct strvec *dirs, const char *spec)
{
	int found = 0;

	for (size_t i = 0; i < dirs->n && !found; i++) {
		DIR *d = opendir(dirs->v[i]);
		struct dirent *de;

		while (d && !found && (de = readdir(d))) {
			struct buf path = BUF_INIT, name = BUF_INIT;

			if (de->d_name[0] != '.' && ends_with(de->d_name, ".yaml")) {
				buf_addf(&path, "%s/%s", dirs->v[i], de->d_name);
				declared_name(path.s, &name);
				if (!strcmp(name.s, spec)) {
					hint("'%s' declares 'name: %s' (its builds go to out/%s/), but "
					     "--profile takes a file's name: --profile %.*s, or the path",
					     path.s, spec, spec, (int)(strlen(de->d_name) - 5), de->d_name);
					found = 1;
				}
			}
			buf_release(&path);
			buf_release(&name);
		}
		if (d)
			closedir(d);
	}
	return found;
}

/*
 * A path that lacks its .yaml (profiles/sm120, or sm120.yml beside an
 * sm120.yaml): the file that exists is named, as a path is taken as given.
 */
static void
hint_yaml(const char *spec)
{
	struct buf p = BUF_INIT;

	if (ends_with(spec, ".yml"))
		buf_addf(&p, "%.*syaml", (int)(strlen(spec) - 3), spec);
	else if (!ends_with(spec, ".yaml"))
		buf_addf(&p, "%s.yaml", spec);
	if (p.len && access(p.s, R_OK) == 0)
		hint("did you mean '%s'? a path is read as given, with its .yaml", profile_shown(p.s));
	buf_release(&p);
}

/* "hint: did you mean 'sm120'?": the nearest name of a profile in `dirs`. */
static void
suggest_profile(const struct strvec *dirs, const char *spec)
{
	struct strvec names = STRVEC_INIT;
	struct suggest s;

	for (size_t i = 0; i < dirs->n; i++) {
		DIR *d = opendir(dirs->v[i]);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			size_t n = strlen(de->d_name);

			if (de->d_name[0] != '.' && n > 5 && ends_with(de->d_name, ".yaml"))
				strvec_push_nodup(&names, xstrndup(de->d_name, n - 5));
		}
		if (d)
			closedir(d);
	}
	strvec_sort(&names);
	suggest_init(&s, spec);
	for (size_t i = 0; i < names.n; i++)
		suggest_add(&s, names.v[i]);
	if (suggest_best(&s))
		hint("did you mean '%s'?", suggest_best(&s));
	strvec_clear(&names);
}

int
profile_find(char **out, const char *spec)
{
	struct buf tried = BUF_INIT;
	struct strvec dirs = STRVEC_INIT;
	const char *env;
	int found = 0;
	size_t i;

	*out = NULL;
	if (!*spec)
		return error("empty profile name");
	if (is_path_spec(spec)) {
		if (access(spec, R_OK) < 0) {
			error("cannot read profile '%s':", profile_shown(spec));
			hint_yaml(spec);
			return -1;
		}
		*out = xstrdup(spec);
		return 0;
	}
	for (const char *c = spec; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("-_.", *c))
			return error("'%s' is not a profile name (letters, digits, '-', '_' and '.')",
				     profile_shown(spec));

	profile_search_path(&dirs);
	for (i = 0; i < dirs.n && !found; i++) {
		found = try_dir(out, dirs.v[i], spec);
		buf_addf(&tried, "%s%s", i ? ", " : "", dirs.v[i]);
	}
	env = getenv("BWBUILD_PROFILE_PATH");
	if (!found) {
		error("no profile named '%s' (looked in %s%s); "
		      "pass a name from there or a path to a .yaml file", profile_shown(spec), tried.s,
		      env && *env ? "" : " and $BWBUILD_PROFILE_PATH, which is unset");
		if (!hint_declared(&dirs, spec))
			suggest_profile(&dirs, spec);
	}
	strvec_clear(&dirs);
	buf_release(&tried);
	return found ? 0 : -1;
}

static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* The location apply_set gives a --set value: no file, so nothing to be beside. */
static int
from_set(const char *file)
{
	return starts_with(file, "--set ");
}

/*
 * `path` taken relative to the directory of `file` (the profile that set
 * it), made absolute; a --set value is relative to where bwbuild runs, as
 * any path on its command line is.
 */
static char *
beside(const char *file, const char *path)
{
	char *d, *abs;
	struct buf b = BUF_INIT;

	if (from_set(file))
		return path_absolute(path);
	d = dir_of(file);

	buf_addf(&b, "%s/%s", d, path);
	abs = path_absolute(b.s);
	free(d);
	buf_release(&b);
	return abs;
}

/* -1 after reporting if `real` is already on the chain or the chain is too deep. */
static int
chain_check(char **chain, const char **names, int depth, const char *real, const char *path,
	    const struct loc *from)
{
	for (int i = 0; i < depth; i++) {
		if (!strcmp(chain[i], real)) {
			struct buf cyc = BUF_INIT;

			for (int k = i; k < depth; k++)
				buf_addf(&cyc, "%s -> ", names[k]);
			buf_addstr(&cyc, path);
			error_at(from, "'extends' makes a cycle: %s", cyc.s);
			buf_release(&cyc);
			return -1;
		}
	}
	if (depth >= MAX_EXTENDS_DEPTH) {
		struct buf c = BUF_INIT;

		for (int i = 0; i < depth; i++) {
			if (i == 3 && depth > 6) {
				buf_addf(&c, "(%d more) -> ", depth - 6);
				i = depth - 3;
			}
			buf_addf(&c, "%s -> ", names[i]);
		}
		buf_addstr(&c, path);
		error_at(from, "'extends' chain is deeper than %d profiles: %s; flatten it (real "
			 "chains are 2-4 deep)", MAX_EXTENDS_DEPTH, c.s);
		buf_release(&c);
		return -1;
	}
	return 0;
}

static int
same_file(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	int same = ra && rb && !strcmp(ra, rb);

	free(ra);
	free(rb);
	return same;
}

char *
profile_torch_shown(const struct profile *p)
{
	struct strvec dirs = STRVEC_INIT;
	const char *t = p->torch.str, *base;
	char *name, *found = NULL;

	if (!t || !profile_torch_is_profile(p) || !is_path_spec(t))
		return t ? xstrdup(t) : NULL;
	base = strrchr(t, '/') ? strrchr(t, '/') + 1 : t;
	name = xstrndup(base, strlen(base) - (ends_with(base, ".yaml") ? 5 :
					      ends_with(base, ".yml") ? 4 : 0));
	/* The first on the search path, as --profile NAME takes it; a shadowed file keeps its path. */
	profile_search_path(&dirs);
	for (size_t i = 0; i < dirs.n && !found; i++)
		try_dir(&found, dirs.v[i], name);
	if (!found || !same_file(found, t)) {
		free(name);
		name = xstrdup(t);
	}
	free(found);
	strvec_clear(&dirs);
	return name;
}

/* The first profile named ext->str on the search path that is not `self`; -1 after reporting. */
static int
find_other(char **out, const char *self, const struct pnode *ext)
{
	struct strvec dirs = STRVEC_INIT;
	int found = 0;

	profile_search_path(&dirs);
	for (size_t i = 0; i < dirs.n && !found; i++) {
		if (try_dir(out, dirs.v[i], ext->str) && same_file(*out, self)) {
			free(*out);
			*out = NULL;
		} else {
			found = *out != NULL;
		}
	}
	strvec_clear(&dirs);
	if (!found)
		return error_at(&ext->loc, "'extends: %s' names this file itself, and no other "
				"profile named '%s' is on the search path; extend another profile or "
				"give a path", profile_shown(ext->str), profile_shown(ext->str));
	return 0;
}

/*
 * The file that `extends: SPEC` in `path` names: a path relative to `path`,
 * an absolute path, or a name looked up beside `path` and then on the
 * search path (beside itself, a file's own name means the next one on the
 * search path: a local sm120.yaml extends the shipped sm120). -1 after
 * reporting.
 */
static int
parent_path(char **out, const char *path, const struct pnode *ext)
{
	char *d;

	if (is_path_spec(ext->str) && ext->str[0] != '/') {
		struct buf b = BUF_INIT;

		d = dir_of(path);
		buf_addf(&b, "%s/%s", d, ext->str);
		free(d);
		*out = buf_detach(&b);
		return 0;
	}
	if (is_path_spec(ext->str)) {
		*out = xstrdup(ext->str);
		return 0;
	}
	d = dir_of(path);
	if (try_dir(out, d, ext->str)) {
		free(d);
		if (!same_file(*out, path))
			return 0;
		/* A local sm120.yaml with 'extends: sm120' means the one on the search path. */
		free(*out);
		*out = NULL;
		return find_other(out, path, ext);
	}
	free(d);
	if (profile_find(out, ext->str) < 0) {
		note_at(&ext->loc, "extended here");
		return -1;
	}
	return 0;
}

/*
 * Load `path` and everything it extends; `chain` holds the real paths on
 * the way down, to detect cycles. Returns the merged tree or NULL.
 */
static struct pnode *
load_chain(struct profile *p, const char *path, char **chain, const char **names, int depth,
	   const struct loc *from)
{
	struct buf text = BUF_INIT;
	struct pnode *n, *parent = NULL;
	const struct pnode *ext;
	const char *file;
	char *real, *ppath;
	size_t idx;

	real = realpath(path, NULL);
	if (!real) {
		if (from)
			error_at(from, "cannot read profile '%s': %s", profile_shown(path), strerror(errno));
		else
			error("cannot read profile '%s':", path);
		return NULL;
	}
	if (chain_check(chain, names, depth, real, path, from) < 0 || read_file(&text, path) < 0) {
		free(real);
		return NULL;
	}
	chain[depth] = real;
	file = profile_keep_str(p, path);
	names[depth] = file;
	n = pnode_parse(file, text.s, text.len);
	buf_release(&text);
	if (!n || !(ext = pnode_map_get(n, "extends", &idx))) {
		free(real);
		return n;
	}
	if (ext->kind != PN_SCALAR || !*ext->str) {
		error_at(&ext->loc, "'extends' takes one profile name or path");
	} else if (parent_path(&ppath, path, ext) == 0) {
		parent = load_chain(p, ppath, chain, names, depth + 1, &ext->loc);
		free(ppath);
	}
	if (parent) {
		pnode_map_remove(n, idx);
		pnode_merge(parent, n);
	} else {
		pnode_free(n);
	}
	free(real);
	return parent;
}


static int
is_url(const char *s)
{
	const char *colon = strchr(s, ':');

	if (strstr(s, "://"))
		return 1;
	/* scp-like "host:path", not "C:" nor a path containing ':' after '/'. */
	return colon && colon - s > 1 && !memchr(s, '/', (size_t)(colon - s));
}

/*
 * Apply one --set KEY=VALUE (dotted key) on top of the merged profile, as
 * one more file would be merged: maps merged, anything else replaced.
 */
static int
apply_set(struct profile *p, const char *spec)
{
	const char *eq = strchr(spec, '=');
	struct buf b = BUF_INIT;
	struct loc loc;
	struct pnode *node;
	char *key, *dot;

	buf_addf(&b, "--set %s", spec);
	loc.file = profile_keep_str(p, b.s);
	loc.line = 1;
	loc.col = 1;
	buf_release(&b);
	/* Only the key is checked: the value is anything (-I../inc, a=b). */
	if (!eq || eq == spec || eq[-1] == '.' || spec[0] == '.' ||
	    memmem(spec, (size_t)(eq - spec), "..", 2)) {
		error("--set '%s' is not KEY=VALUE with a dotted key (e.g. "
		      "--set features.flash_attention=off)", spec);
		return -1;
	}
	/* Columns in KEY=VALUE: the value's, and each key component's. */
	node = xcalloc(1, sizeof(*node));
	node->kind = PN_SCALAR;
	node->str = xstrdup(eq + 1);
	node->loc = loc;
	node->loc.col = (int)(eq - spec) + 2;
	node->text_col = node->loc.col;
	key = xstrndup(spec, (size_t)(eq - spec));
	/* Wrap the value in one map per key component, innermost first. */
	for (;;) {
		struct pnode *m = xcalloc(1, sizeof(*m));

		dot = strrchr(key, '.');
		m->kind = PN_MAP;
		m->loc = loc;
		m->n = m->cap = 1;
		m->items = xcalloc(1, sizeof(*m->items));
		m->keys = xcalloc(1, sizeof(*m->keys));
		m->keylocs = xcalloc(1, sizeof(*m->keylocs));
		m->items[0] = node;
		m->keys[0] = xstrdup(dot ? dot + 1 : key);
		m->keylocs[0] = loc;
		m->keylocs[0].col = dot ? (int)(dot - key) + 2 : 1;
		node = m;
		if (!dot)
			break;
		*dot = '\0';
	}
	free(key);
	pnode_merge(p->root, node);
	return 0;
}

/*
 * build.python_path goes first on the build's PYTHONPATH, so what it holds
 * runs in the build: an existing directory that only this user or root
 * can write, as pyenv.c asks of the prefixes it finds itself.
 */
static void
check_python_path(const struct pvalue *v)
{
	const char *fix = "name the site directory of a prefix, such as one "
			  "scripts/python-prefix.sh makes";
	struct stat st;

	if (stat(v->str, &st) < 0) {
		error_at(&v->loc, "'build.python_path' is '%s', which %s; %s", v->str,
			 errno == ENOENT ? "does not exist" : strerror(errno), fix);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		error_at(&v->loc, "'build.python_path' is '%s', which is not a directory; %s",
			 v->str, fix);
		return;
	}
	if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		error_at(&v->loc, "'build.python_path' is '%s', which %s (mode %04o, owner uid %u), "
			 "and what it holds runs in the build; name a directory only you or root can "
			 "write, such as the site directory scripts/python-prefix.sh makes", v->str,
			 st.st_mode & (S_IWGRP | S_IWOTH) ? "others can write" : "another user owns",
			 (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
}

int
profile_load(struct profile *p, const char *spec)
{
	return profile_load_set(p, spec, NULL);
}

int
profile_load_set(struct profile *p, const char *spec, const struct strvec *sets)
{
	char *chain[MAX_EXTENDS_DEPTH + 1] = { 0 };
	const char *names[MAX_EXTENDS_DEPTH + 1] = { 0 };
	int before = diag_errors;
	char *path;

	memset(p, 0, sizeof(*p));
	if (profile_find(&path, spec) < 0)
		return -1;
	p->path = profile_keep_str(p, path);
	free(path);
	p->root = load_chain(p, p->path, chain, names, 0, NULL);
	if (!p->root)
		return -1;
	for (size_t i = 0; sets && i < sets->n; i++)
		if (apply_set(p, sets->v[i]) < 0)
			return -1;
	profile_validate(p);
	/*
	 * A name inherited through 'extends:' would send a variant's builds to
	 * its parent's work/, out/, wheel label and manifest: a file that names
	 * nothing itself is named after itself.
	 */
	if (p->name.str && p->name.loc.file && strcmp(p->name.loc.file, p->path) &&
	    !from_set(p->name.loc.file))
		memset(&p->name, 0, sizeof(p->name));
	if (!p->name.str) {
		const char *base = strrchr(p->path, '/');
		char *name = xstrdup(base ? base + 1 : p->path);
		char *dot = strrchr(name, '.');

		if (dot)
			*dot = '\0';
		p->name.str = profile_keep_str(p, name);
		free(name);
	}
	/* A torch given as a path (not a profile name): relative to the file that set it. */
	if (p->torch.str && p->torch.str[0] != '/' &&
	    (strchr(p->torch.str, '/') || ends_with(p->torch.str, ".yaml") ||
	     ends_with(p->torch.str, ".yml") || ends_with(p->torch.str, ".whl"))) {
		char *abs = beside(p->torch.loc.file, p->torch.str);

		p->torch.str = profile_keep_str(p, abs);
		free(abs);
	}
	/*
	 * A torch given as a profile name: first beside the file that set it,
	 * as 'extends:' is, then on the search path (never the directory
	 * bwbuild happens to run in, before the file's own).
	 */
	if (p->torch.str && p->torch.loc.file && !is_path_spec(p->torch.str) &&
	    !ends_with(p->torch.str, ".whl")) {
		char *d = dir_of(p->torch.loc.file), *beside = NULL;

		if (try_dir(&beside, d, p->torch.str) && !same_file(beside, p->torch.loc.file)) {
			char *abs = realpath(beside, NULL);

			if (!abs)
				abs = path_absolute(beside);

			p->torch.str = profile_keep_str(p, abs);
			free(abs);
		}
		free(beside);
		free(d);
	}
	if (p->source_repo.str && !is_url(p->source_repo.str) && p->source_repo.str[0] != '/') {
		/* Relative to the file that set it, like an #include. */
		char *abs = beside(p->source_repo.loc.file, p->source_repo.str);

		p->repo_abs = realpath(abs, NULL);
		if (!p->repo_abs) {
			/* not here (a build from a bundle): the same name realpath gives, links aside */
			struct buf norm = BUF_INIT;

			path_normalize(&norm, abs);
			p->repo_abs = buf_detach(&norm);
		}
		free(abs);
		p->source_repo.str = p->repo_abs;
	}
	if (p->source_mirrors.str && *p->source_mirrors.str && p->source_mirrors.str[0] != '/') {
		/* relative to the file that set it, like source.repo */
		char *abs = beside(p->source_mirrors.loc.file, p->source_mirrors.str);

		p->source_mirrors.str = profile_keep_str(p, abs);
		free(abs);
	}
	if (p->python_path.str && *p->python_path.str) {
		char *abs = beside(p->python_path.loc.file, p->python_path.str);
		struct buf norm = BUF_INIT;

		path_normalize(&norm, abs);
		p->python_path.str = profile_keep_str(p, norm.s);
		free(abs);
		buf_release(&norm);
		/* "" stays: none, not even a prefix bwbuild would find by itself */
		check_python_path(&p->python_path);
	}
	return diag_errors > before ? -1 : 0;
}

void
profile_release(struct profile *p)
{
	size_t i;

	pnode_free(p->root);
	for (i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p->archs);
	free(p->cmake);
	free(p->runtime_env);
	free(p->build_env);
	for (i = 0; i < p->nexceptions; i++)
		free(p->exceptions[i].missing);
	free(p->exceptions);
	free(p->submodules_exclude);
	free(p->repo_abs);
	memset(p, 0, sizeof(*p));
}

void
profile_arch_list(const struct profile *p, struct buf *out)
{
	size_t i;

	for (i = 0; i < p->narchs; i++) {
		if (i)
			buf_addch(out, ';');
		arch_format(&p->archs[i].arch, out);
	}
}
