/*
 * Source bundles: a checkout as its build reads it, in one tar.zst
 * (formats/tarzst.c), for machines that reach no repository.
 *
 * Members, in order: bwbuild-bundle.json (at most 16 MiB), then the
 * tree's files under src/, sorted by path. Regular files are 0644 or 0755,
 * symbolic links point inside the tree; owner 0 and one mtime (the
 * commit's), so one tree gives the same bytes. The metadata's tree_sha256
 * is the sha256 of one line per file, "<f|l> <mode> <sha256 of the data,
 * or the link's target> <path>\n", in member order; extraction recomputes
 * it and refuses a tree that differs, so a bundle's files are what its
 * metadata says or nothing is made.
 *
 * What is left out: a submodule, or a folder that only documents,
 * benchmarks or ports the tree, that the configured build's files never
 * name (bundle_named), each recorded with why. Their licence files stay
 * (PyTorch's third_party/build_bundled.py reads every one when the wheel
 * is made) and so do a cut submodule's top CMakeLists.txt, Makefile and
 * setup.py (setup.py's check_submodules wants one per submodule).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/hash.h"
#include "core/json.h"
#include "core/safefile.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/tarzst.h"
#include "sources/bundle.h"

#define META_MAX ((uint64_t)16 << 20)
#define SRC_PREFIX "src/"

void
bundle_cuts_release(struct bundle_cuts *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].why);
	}
	free(c->v);
	c->v = NULL;
	c->n = c->alloc = 0;
}

static int
delimiter(int c)
{
	return c == '/' || c == '"' || c == ';' || c == ' ' || c == '\n' || c == ':' || c == '$' ||
	       c == '\'' || c == ',' || c == '\0' || c == '\t' || c == ')';
}

/* `needle` in the text, followed by a delimiter or the text's end. */
static int
named_as(const char *text, size_t len, const char *needle, size_t nlen)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), needle, nlen);

		if (!hit)
			return 0;
		if (hit + nlen == end || delimiter((unsigned char)hit[nlen]))
			return 1;
		p = hit + 1;
	}
	return 0;
}

int
bundle_named(const char *text, size_t len, const char *src, const char *rel)
{
	struct buf n = BUF_INIT;
	int hit;

	buf_addf(&n, "%s/%s", src, rel);
	hit = named_as(text, len, n.s, n.len);
	buf_reset(&n);
	buf_addf(&n, "../%s", rel);
	if (!hit)
		hit = named_as(text, len, n.s, n.len);
	buf_release(&n);
	return hit;
}

/* Under the directory `dir` (relative): "dir/..." */
static int
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

static const char *
cut_of(const struct bundle_cuts *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (!c->v[i].kept && !c->v[i].inner &&
		    (under(path, c->v[i].path) || !strcmp(path, c->v[i].path)))
			return c->v[i].path;
	return NULL;
}

static void
cut_add(struct bundle_cuts *c, const char *path, int submodule, int kept, const char *why)
{
	struct bundle_cut *e;

	ALLOC_GROW(c->v, c->n + 1, c->alloc);
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	e->submodule = submodule;
	e->kept = kept;
	e->why = xstrdup(why);
}

/*
 * A folder that documents, benchmarks or ports the tree: its name says so.
 * Inside a submodule also its own tests and benchmarks, which the tree's
 * build never runs (the superproject's test/ stays: smoke runs a slice).
 */
static int
folder_candidate(const char *dir, const struct strvec *subs)
{
	static const char *const names[] = { "docs", "doc", "benchmarks", "android", "ios",
					     "examples" };
	static const char *const sub_names[] = { "test", "tests", "bench", "benchmark" };
	const char *base = path_tail(dir);

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(base, names[i]))
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(sub_names); i++)
		if (!strcmp(base, sub_names[i]))
			for (size_t j = 0; j < subs->n; j++)
				if (under(dir, subs->v[j]))
					return 1;
	return ends_with(dir, "/test/data");
}

/*
 * The candidate folders of a file list: every directory folder_candidate
 * takes, none inside a Python package (setup.py ships a package's data
 * by globs no build file names).
 */
static void
folders_of(const struct strvec *files, const struct strvec *subs, struct strvec *out)
{
	struct strvec pkgs = STRVEC_INIT;

	for (size_t i = 0; i < files->n; i++) {
		struct buf dir = BUF_INIT;
		const char *f = files->v[i];

		for (const char *s = strchr(f, '/'); s; s = strchr(s + 1, '/')) {
			buf_reset(&dir);
			buf_add(&dir, f, (size_t)(s - f));
			if (folder_candidate(dir.s, subs))
				strset_add(out, dir.s);
		}
		if (!strcmp(path_tail(f), "__init__.py") && strchr(f, '/')) {
			buf_reset(&dir);
			buf_add(&dir, f, (size_t)(strrchr(f, '/') - f));
			strset_add(&pkgs, dir.s);
		}
		buf_release(&dir);
	}
	for (size_t i = 0; i < out->n;) {
		int pkg = 0;

		for (size_t j = 0; j < pkgs.n && !pkg; j++)
			pkg = !strcmp(pkgs.v[j], out->v[i]) || under(pkgs.v[j], out->v[i]) ||
			      under(out->v[i], pkgs.v[j]);
		if (pkg) {
			free(out->v[i]);
			memmove(&out->v[i], &out->v[i + 1], (out->n - i - 1) * sizeof(char *));
			out->n--;
		} else {
			i++;
		}
	}
	strvec_clear(&pkgs);
}

void
bundle_decide(const char *src, const char *text, size_t len, const struct strvec *files,
	      const struct strvec *subs, const struct strvec *keep, struct bundle_cuts *out)
{
	static const char never[] = "the configured build (build.ninja, CMakeCache.txt, "
				    "compile_commands.json) never names it";
	struct strvec cand = STRVEC_INIT, folders = STRVEC_INIT;

	for (size_t i = 0; i < subs->n; i++)
		strvec_push(&cand, subs->v[i]);
	folders_of(files, subs, &folders);
	strvec_sort(&folders);
	for (size_t i = 0; i < cand.n + folders.n; i++) {
		int sub = i < cand.n;
		const char *p = sub ? cand.v[i] : folders.v[i - cand.n];

		if (cut_of(out, p)) {
			/*
			 * setup.py's check_submodules also wants a nested one's
			 * build file (third_party/fbgemm/third_party/asmjit's
			 * CMakeLists.txt, fbgemm left out by the cpu profile).
			 */
			if (sub) {
				cut_add(out, p, 1, 0, "inside a submodule left out");
				out->v[out->n - 1].inner = 1;
			}
			continue;
		}
		if (bundle_named(text, len, src, p))
			continue;
		if (keep && strset_has(keep, p))
			cut_add(out, p, sub, 1, "kept by --keep: the configured build here never "
				"names it");
		else
			cut_add(out, p, sub, 0, never);
	}
	strvec_clear(&cand);
	strvec_clear(&folders);
}

static int
licence_name(const char *base)
{
	static const char *const stems[] = { "license", "licence", "copying", "notice",
					     "copyright", "unlicense" };

	for (size_t i = 0; i < ARRAY_SIZE(stems); i++)
		if (!strncasecmp(base, stems[i], strlen(stems[i])))
			return 1;
	return 0;
}

int
bundle_keeps(const struct bundle_cuts *cuts, const char *rel)
{
	const char *cut = cut_of(cuts, rel), *base = path_tail(rel);
	size_t n;

	if (!cut || licence_name(base))
		return 1;
	n = strlen(cut);
	/* a cut submodule's own build file, at its top, or one of a submodule inside it */
	for (size_t i = 0; i < cuts->n; i++) {
		const char *top = cuts->v[i].path;
		size_t m = strlen(top);

		if (!cuts->v[i].submodule || !(cuts->v[i].inner ? under(rel, top) : !strcmp(top, cut)))
			continue;
		if (!strchr(rel + (cuts->v[i].inner ? m : n) + 1, '/'))
			return !strcmp(base, "CMakeLists.txt") || !strcmp(base, "Makefile") ||
			       !strcmp(base, "setup.py");
	}
	return 0;
}

/* A symbolic link's target, taken lexically from the link's directory, stays in the tree. */
static int
link_inside(const char *rel, const char *target)
{
	struct buf p = BUF_INIT, norm = BUF_INIT;
	const char *slash = strrchr(rel, '/');
	int ok;

	if (!*target || *target == '/')
		return 0;
	buf_addstr(&p, "/t/");
	if (slash)
		buf_add(&p, rel, (size_t)(slash - rel + 1));
	buf_addstr(&p, target);
	path_normalize(&norm, p.s);
	ok = !strcmp(norm.s, "/t") || starts_with(norm.s, "/t/");
	buf_release(&p);
	buf_release(&norm);
	return ok;
}

/* One file's digest line, read from the tree. 1: gone (left out), -1 after reporting. */
static int
file_line(const char *src, const char *rel, struct buf *line, struct buf *data, unsigned *mode,
	  int *is_link)
{
	struct buf path = BUF_INIT, hex = BUF_INIT;
	struct stat st;
	int ret = -1;

	buf_addf(&path, "%s/%s", src, rel);
	buf_reset(data);
	if (lstat(path.s, &st) < 0) {
		ret = errno == ENOENT ? 1 : error("cannot read '%s':", path.s);
		goto out;
	}
	*is_link = S_ISLNK(st.st_mode);
	if (*is_link) {
		char t[PATH_MAX];
		ssize_t n = readlink(path.s, t, sizeof(t) - 1);

		if (n < 0) {
			error("cannot read the link '%s':", path.s);
			goto out;
		}
		t[n] = '\0';
		if (!link_inside(rel, t)) {
			error("'%s' links to '%s', outside the tree; a bundle holds only links "
			      "that stay inside", path.s, t);
			goto out;
		}
		buf_addstr(data, t);
		*mode = 0777;
		buf_addf(line, "l 777 %s %s\n", t, rel);
	} else if (S_ISREG(st.st_mode)) {
		if (read_file(data, path.s) < 0)
			goto out;
		*mode = st.st_mode & 0111 ? 0755 : 0644;
		sha256_hex(&hex, data->s, data->len);
		buf_addf(line, "f %o %s %s\n", *mode, hex.s, rel);
	} else {
		error("'%s' is neither a file nor a symbolic link; a bundle cannot hold it", path.s);
		goto out;
	}
	ret = 0;
out:
	buf_release(&path);
	buf_release(&hex);
	return ret;
}

/* The kept files (sorted, gone ones dropped), their bytes and digest; the cuts' sizes. */
static int
tree_digest(const char *src, struct strvec *files, struct bundle_cuts *cuts, struct buf *hex,
	    unsigned long long *bytes)
{
	struct buf line = BUF_INIT, data = BUF_INIT, p = BUF_INIT;
	struct strvec kept = STRVEC_INIT;
	struct digest d;
	uint8_t sum[DIGEST_MAX];
	int rc = 0;

	strvec_sort(files);
	digest_init(&d, "sha256");
	*bytes = 0;
	for (size_t i = 0; i < files->n && !rc; i++) {
		const char *rel = files->v[i], *cut;
		struct stat st;
		unsigned mode;
		int link = 0, r;

		if (!bundle_keeps(cuts, rel)) {
			buf_reset(&p);
			buf_addf(&p, "%s/%s", src, rel);
			cut = cut_of(cuts, rel);
			for (size_t c = 0; c < cuts->n; c++)
				if (!strcmp(cuts->v[c].path, cut) && lstat(p.s, &st) == 0) {
					cuts->v[c].files++;
					cuts->v[c].bytes += (unsigned long long)st.st_size;
				}
			continue;
		}
		buf_reset(&line);
		r = file_line(src, rel, &line, &data, &mode, &link);
		if (r < 0) {
			rc = -1;
		} else if (!r) {
			digest_update(&d, line.s, line.len);
			*bytes += data.len;
			strvec_push(&kept, rel);
		}
	}
	if (!rc) {
		strvec_clear(files);
		*files = kept;
		digest_final(&d, sum);
		hex_encode(hex, sum, 32);
	} else {
		strvec_clear(&kept);
		digest_abort(&d);
	}
	buf_release(&line);
	buf_release(&data);
	buf_release(&p);
	return rc;
}

static struct json *
cuts_json(const struct bundle_cuts *cuts)
{
	struct json *a = json_array();

	for (size_t i = 0; i < cuts->n; i++) {
		struct json *o;

		if (cuts->v[i].inner)
			continue;
		o = json_object();
		json_set(o, "path", json_string(cuts->v[i].path));
		json_set(o, "kind", json_string(cuts->v[i].submodule ? "submodule" : "folder"));
		json_set(o, "left_out", json_bool(!cuts->v[i].kept));
		json_set(o, "why", json_string(cuts->v[i].why));
		json_set(o, "files", json_number((double)cuts->v[i].files));
		json_set(o, "bytes", json_number((double)cuts->v[i].bytes));
		json_push(a, o);
	}
	return a;
}

static int
write_members(struct tar_writer *w, const char *src, const struct strvec *files,
	      const char *meta, long long mtime)
{
	struct buf line = BUF_INIT, data = BUF_INIT, name = BUF_INIT;
	int rc = tar_writer_file(w, BUNDLE_META, 0644, mtime, meta, strlen(meta));

	for (size_t i = 0; i < files->n && !rc; i++) {
		unsigned mode;
		int link = 0;

		buf_reset(&line);
		buf_reset(&name);
		buf_addf(&name, SRC_PREFIX "%s", files->v[i]);
		if (file_line(src, files->v[i], &line, &data, &mode, &link) != 0) {
			rc = error("'%s/%s' changed while the bundle was written; run the same "
				   "command again", src, files->v[i]);
			break;
		}
		rc = link ? tar_writer_symlink(w, name.s, data.s, mtime)
			  : tar_writer_file(w, name.s, mode, mtime, data.s, data.len);
	}
	if (!rc)
		rc = tar_writer_finish(w);
	buf_release(&line);
	buf_release(&data);
	buf_release(&name);
	return rc;
}

int
bundle_write(const char *out, const char *src, struct strvec *files,
	     const struct bundle_cuts *cuts_in, struct json *meta, long long mtime)
{
	struct bundle_cuts cuts = *cuts_in;
	struct buf hex = BUF_INIT, tmp = BUF_INIT, why = BUF_INIT;
	struct tar_writer *w = NULL;
	unsigned long long bytes;
	char *text = NULL;
	int fd = -1, rc = -1;

	if (tree_digest(src, files, &cuts, &hex, &bytes) < 0)
		goto out;
	json_set(meta, "format", json_string(BUNDLE_FORMAT));
	json_set(meta, "files", json_number((double)files->n));
	json_set(meta, "bytes", json_number((double)bytes));
	json_set(meta, "tree_sha256", json_string(hex.s));
	json_set(meta, "left_out", cuts_json(&cuts));
	text = json_print(meta, 1);
	buf_addf(&tmp, "%s.tmp.%ld.", out, (long)getpid());
	random_token(&tmp);
	if ((fd = create_new(tmp.s, 0644)) < 0)
		goto out;
	if (!(w = tar_writer_new(fd, 19, &why)) || write_members(w, src, files, text, mtime) < 0) {
		if (why.len)
			error("cannot write '%s': %s", tmp.s, why.s);
		goto fail;
	}
	if (fsync(fd) < 0 && errno != EINVAL) {
		error("cannot sync '%s':", tmp.s);
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		error("cannot close '%s':", tmp.s);
		goto fail;
	}
	fd = -1;
	if (rename(tmp.s, out) < 0) {
		error("cannot rename '%s' to '%s':", tmp.s, out);
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	unlink(tmp.s);
out:
	if (fd >= 0)
		close(fd);
	tar_writer_free(w);
	free(text);
	buf_release(&hex);
	buf_release(&tmp);
	buf_release(&why);
	return rc;
}

const char *
bundle_meta_problem(const struct json *meta)
{
	static const char *const strings[] = { "format", "repo", "ref", "commit", "tree_sha256",
					       "profile" };
	const struct json *subs = json_get(meta, "submodules"), *files = json_get(meta, "files");

	if (!json_is_object(meta))
		return "its metadata is not a JSON object";
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		if (!json_str(json_get(meta, strings[i])))
			return "its metadata lacks a string it needs (format, repo, ref, commit, "
			       "tree_sha256, profile)";
	if (strcmp(json_str(json_get(meta, "format")), BUNDLE_FORMAT))
		return "its format is not " BUNDLE_FORMAT;
	if (strlen(json_str(json_get(meta, "commit"))) != 40 ||
	    strspn(json_str(json_get(meta, "commit")), "0123456789abcdef") != 40)
		return "its commit is not a 40-digit id";
	if (!files || json_number_value(files) < 0 || json_number_value(files) > 1e7)
		return "its file count is missing or out of range";
	if (subs && !json_is_array(subs))
		return "its submodules are not a list";
	for (size_t i = 0; subs && i < json_len(subs); i++) {
		const struct json *s = json_at(subs, i);

		if (!json_str(json_get(s, "path")) || !json_str(json_get(s, "commit")) ||
		    !json_str(json_get(s, "url")))
			return "a submodule lacks its path, url or commit";
	}
	if (!json_is_array(json_get(meta, "patches")) || !json_is_array(json_get(meta, "changes")))
		return "its patches or changes are not lists";
	return NULL;
}

/* ---- extraction ---- */

/* The first member, bwbuild-bundle.json, parsed and checked into *meta; -1 after reporting. */
static int
meta_take(const char *file, const struct tar_member *m, struct json **meta)
{
	struct buf why = BUF_INIT;
	const char *problem;

	if (strcmp(m->name, BUNDLE_META) || m->type != TAR_FILE || m->size > META_MAX)
		return error("'%s' is no bwbuild bundle: it does not begin with %s", file,
			     BUNDLE_META);
	*meta = json_parse((const char *)m->data, (size_t)m->size, &why);
	problem = *meta ? bundle_meta_problem(*meta) : why.s;
	if (problem)
		error("'%s' is no bwbuild bundle bwbuild reads: %s", file, problem);
	buf_release(&why);
	return problem ? -1 : 0;
}

struct extract {
	const char *file;
	int root;            /* the temporary directory, opened */
	struct json *meta;
	struct digest d;
	size_t files;
	int first;
};

/* The directory fd of `rel`'s parent below `root`, each level made (0755) or opened, never a link. */
static int
parent_dir(int root, const char *rel, const char **base)
{
	const char *p = rel, *slash;
	int fd = dup(root);

	while (fd >= 0 && (slash = strchr(p, '/'))) {
		char *comp = xstrndup(p, (size_t)(slash - p));
		int next;

		if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST)
			next = -1;
		else
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		free(comp);
		close(fd);
		fd = next;
		p = slash + 1;
	}
	*base = p;
	return fd;
}

static int
extract_member(void *ctx, const struct tar_member *m)
{
	struct extract *x = ctx;
	struct buf line = BUF_INIT, hex = BUF_INIT;
	const char *rel, *base;
	int dir, fd, rc = -1;

	if (x->first) {
		x->first = 0;
		return meta_take(x->file, m, &x->meta);
	}
	if (strncmp(m->name, SRC_PREFIX, strlen(SRC_PREFIX)) && strcmp(m->name, "src"))
		return error("'%s': member '%s' is not a file of the tree (src/...)", x->file,
			     m->name);
	rel = m->name + (m->name[3] ? strlen(SRC_PREFIX) : 3);
	/* the tree's own git metadata is never taken from a bundle: bundle_extract writes HEAD */
	if (!strcmp(rel, ".git") || starts_with(rel, ".git/") || strstr(rel, "/.git/") ||
	    ends_with(rel, "/.git"))
		return error("'%s': member '%s' is git metadata; a bundle holds only the tree",
			     x->file, m->name);
	if (m->type == TAR_SYMLINK && !link_inside(rel, m->link))
		return error("'%s': member '%s' links outside the tree", x->file, m->name);
	if (m->type == TAR_DIR) {
		/* a tar made by hand names its directories: made, not counted (the digest is of files) */
		struct buf sub = BUF_INIT;

		buf_addf(&sub, "%s%s_", rel, *rel ? "/" : "");
		dir = parent_dir(x->root, sub.s, &base);
		buf_release(&sub);
		if (dir < 0)
			return error("'%s': cannot make the directory '%s':", x->file, m->name);
		close(dir);
		return 0;
	}
	if ((dir = parent_dir(x->root, rel, &base)) < 0)
		return error("'%s': cannot make the directories of '%s':", x->file, m->name);
	if (m->type == TAR_SYMLINK) {
		if (symlinkat(m->link, dir, base) < 0)
			error("'%s': cannot make the link '%s':", x->file, m->name);
		else
			rc = 0;
		buf_addf(&line, "l 777 %s %s\n", m->link, rel);
	} else {
		unsigned mode = m->mode & 0111 ? 0755 : 0644;

		fd = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 || write_all(fd, m->data, (size_t)m->size) < 0)
			error("'%s': cannot write '%s'%s", x->file, m->name,
			      fd < 0 && errno == EEXIST ? " (named twice)" : ":");
		else
			rc = 0;
		if (fd >= 0 && close(fd) < 0)
			rc = -1;
		sha256_hex(&hex, m->data, (size_t)m->size);
		buf_addf(&line, "f %o %s %s\n", mode, hex.s, rel);
	}
	close(dir);
	digest_update(&x->d, line.s, line.len);
	x->files++;
	buf_release(&line);
	buf_release(&hex);
	return rc;
}

/* `dest`/.git: HEAD names the commit, so the tree's own scripts read it (git rev-parse HEAD). */
static int
write_head(int root, const char *commit)
{
	struct buf head = BUF_INIT;
	int fd, rc = -1;

	buf_addf(&head, "%s\n", commit);
	if (mkdirat(root, ".git", 0755) == 0 && mkdirat(root, ".git/objects", 0755) == 0 &&
	    mkdirat(root, ".git/refs", 0755) == 0 &&
	    (fd = openat(root, ".git/HEAD", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 0644)) >= 0) {
		rc = write_all(fd, head.s, head.len);
		if (close(fd) < 0)
			rc = -1;
	}
	buf_release(&head);
	return rc;
}

static int
extract_check(struct extract *x, const char *file)
{
	uint8_t sum[DIGEST_MAX];
	struct buf hex = BUF_INIT;
	const char *want = json_str(json_get(x->meta, "tree_sha256"));
	int rc = 0;

	digest_final(&x->d, sum);
	hex_encode(&hex, sum, 32);
	if ((double)x->files != json_number_value(json_get(x->meta, "files")) || strcmp(hex.s, want))
		rc = error("'%s' holds %zu files with digest %.12s, where its metadata says %.0f "
			   "with %.12s; the bundle is damaged or was altered: make it again",
			   file, x->files, hex.s, json_number_value(json_get(x->meta, "files")),
			   want);
	else if (write_head(x->root, json_str(json_get(x->meta, "commit"))) < 0)
		rc = error("cannot write the extracted tree's .git/HEAD:");
	buf_release(&hex);
	return rc;
}

int
bundle_extract(const char *file, const char *dest, const struct tar_limits *lim,
	       struct json **meta)
{
	struct extract x = { .file = file, .root = -1, .first = 1 };
	struct buf tmp = BUF_INIT, why = BUF_INIT;
	struct stat st;
	int fd, rc = -1;

	*meta = NULL;
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return error("cannot open the bundle '%s':", file);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error("'%s' is not a regular file; give the file 'bwbuild bundle' wrote",
			     file);
	}
	buf_addf(&tmp, "%s.tmp.%ld.", dest, (long)getpid());
	random_token(&tmp);
	if (mkdir(tmp.s, 0755) < 0) {
		error("cannot make '%s':", tmp.s);
		goto out;
	}
	x.root = open(tmp.s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	digest_init(&x.d, "sha256");
	if (x.root < 0) {
		error("cannot open '%s':", tmp.s);
		digest_abort(&x.d);
	} else if (tarzst_read_fd(fd, lim, extract_member, &x, &why) != 0) {
		if (why.len)
			error("'%s' cannot be read: %s", file, why.s);
		digest_abort(&x.d);
	} else if (x.first) {
		error("'%s' is no bwbuild bundle: it holds nothing", file);
		digest_abort(&x.d);
	} else if (extract_check(&x, file) == 0) {
		if (rename(tmp.s, dest) < 0)
			error("cannot rename '%s' to '%s':", tmp.s, dest);
		else
			rc = 0;
	}
	if (rc)
		remove_tree(tmp.s);
out:
	if (x.root >= 0)
		close(x.root);
	close(fd);
	if (rc)
		json_free(x.meta);
	else
		*meta = x.meta;
	buf_release(&tmp);
	buf_release(&why);
	return rc;
}

struct meta_only {
	const char *file;
	struct json *meta;
};

static int
meta_member(void *ctx, const struct tar_member *m)
{
	struct meta_only *mo = ctx;

	/* 1 stops the read after the first member */
	return meta_take(mo->file, m, &mo->meta) < 0 ? -1 : 1;
}

int
bundle_read_meta(const char *file, struct json **meta)
{
	struct meta_only mo = { file, NULL };
	struct buf why = BUF_INIT;
	int fd = open(file, O_RDONLY | O_CLOEXEC), rc;

	*meta = NULL;
	if (fd < 0)
		return error("cannot open the bundle '%s':", file);
	rc = tarzst_read_fd(fd, NULL, meta_member, &mo, &why);
	close(fd);
	if (rc == 1 && mo.meta) {
		*meta = mo.meta;
		rc = 0;
	} else {
		if (why.len)
			error("'%s' cannot be read: %s", file, why.s);
		json_free(mo.meta);
		rc = -1;
	}
	buf_release(&why);
	return rc;
}
