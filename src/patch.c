#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "git.h"
#include "hash.h"
#include "json.h"
#include "patch.h"
#include "profile.h"
#include "util.h"

/* ---- the index ---- */

static int
find_index(const char *project, struct buf *out)
{
	struct strvec dirs = STRVEC_INIT;
	size_t i;
	int found = 0;

	data_search_path("patches", "BWBUILD_PATCH_PATH", &dirs);
	for (i = 0; i < dirs.n && !found; i++) {
		buf_reset(out);
		buf_addf(out, "%s/%s/index.yaml", dirs.v[i], project);
		found = path_exists(out->s);
	}
	if (!found)
		error("no patch series '%s' (looked for %s/index.yaml in patches/, bwbuild's own "
		      "patches/ and $BWBUILD_PATCH_PATH)", project, project);
	strvec_clear(&dirs);
	return found ? 0 : -1;
}

static char *
entry_str(const struct pnode *e, const char *key)
{
	const char *s = ynode_str(ynode_get(e, key));

	return s ? xstrdup(s) : NULL;
}

/*
 * env: {NAME: VALUE}: switches the package's own build reads, such as
 * causal-conv1d's CAUSAL_CONV1D_FORCE_BUILD (else it downloads a wheel).
 */
static void
load_env(struct patch_set *ps, const struct pnode *root)
{
	const struct pnode *env = ynode_get(root, "env");

	strvec_init(&ps->env);
	for (size_t i = 0; env && i < ynode_len(env); i++) {
		const char *k = ynode_key_at(env, i), *v = ynode_str(ynode_at(env, i));

		if (!k || !v || !*k || strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(k) ||
		    (*k >= '0' && *k <= '9'))
			error_at(ynode_key_loc(env, i), "env entries are NAME: value with NAME in "
				 "capitals, digits and '_'");
		else
			strvec_pushf(&ps->env, "%s=%s", k, v);
	}
	if (env && !ynode_len(env) && ynode_str(env))
		error_at(ynode_loc(env), "'env' must be a map of NAME: value");
}

int
patch_set_load(struct patch_set *ps, const char *project)
{
	struct buf path = BUF_INIT, why = BUF_INIT;
	struct pnode *root;
	const struct pnode *list;
	int before = diag_errors;
	size_t i;

	memset(ps, 0, sizeof(*ps));
	strvec_init(&ps->env);
	ps->project = xstrdup(project);
	if (find_index(project, &path) < 0) {
		buf_release(&path);
		return -1;
	}
	ps->index = buf_detach(&path);
	root = ydoc_load(ps->index);
	if (!root)
		return -1;
	load_env(ps, root);
	list = ynode_get(root, "patches");
	if (!ynode_is_list(list)) {
		error_at(ynode_loc(list ? list : root), "'patches' must be a list of {file, sha256, "
			 "when, description}");
		ydoc_free(root);
		return -1;
	}
	ps->v = xcalloc(ynode_len(list) ? ynode_len(list) : 1, sizeof(*ps->v));
	for (i = 0; i < ynode_len(list); i++) {
		const struct pnode *e = ynode_at(list, i);
		struct patch *pt = &ps->v[ps->n];
		struct buf file = BUF_INIT, text = BUF_INIT, hex = BUF_INIT;
		char *slash;

		memset(pt, 0, sizeof(*pt));
		strvec_init(&pt->touches);
		pt->loc = *ynode_loc(e);
		pt->loc.file = ps->index; /* outlives the YAML tree */
		pt->file = entry_str(e, "file");
		pt->sha256 = entry_str(e, "sha256");
		pt->when = entry_str(e, "when");
		pt->description = entry_str(e, "description");
		ps->n++;
		if (!pt->file || strchr(pt->file, '/') || !pt->sha256) {
			error_at(&pt->loc, "each patch needs 'file' (a name in %s's directory) and "
				 "'sha256'", ps->index);
			continue;
		}
		if (pt->when && patch_when_matches(pt->when, 0, &why) < 0) {
			error_at(ynode_loc(ynode_get(e, "when")), "%s", why.s);
			buf_reset(&why);
		}
		buf_addstr(&file, ps->index);
		slash = strrchr(file.s, '/');
		buf_setlen(&file, (size_t)(slash - file.s) + 1);
		buf_addstr(&file, pt->file);
		if (read_file(&text, file.s) < 0) {
			error_at(&pt->loc, "cannot read patch '%s'", file.s);
		} else if (sha256_hex(&hex, text.s, text.len), strcmp(hex.s, pt->sha256)) {
			error_at(ynode_loc(ynode_get(e, "sha256")), "'%s' has sha256 %s, not the %s the "
				 "index records; if the change is meant, update the index", pt->file,
				 hex.s, pt->sha256);
		} else {
			pt->len = text.len;
			pt->text = buf_detach(&text);
			patch_paths(pt->text, pt->len, &pt->touches);
		}
		buf_release(&file);
		buf_release(&text);
		buf_release(&hex);
	}
	ydoc_free(root);
	buf_release(&why);
	return diag_errors > before ? -1 : 0;
}

void
patch_set_release(struct patch_set *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		free(ps->v[i].file);
		free(ps->v[i].sha256);
		free(ps->v[i].when);
		free(ps->v[i].description);
		free(ps->v[i].text);
		strvec_clear(&ps->v[i].touches);
	}
	free(ps->v);
	free(ps->project);
	free(ps->index);
	strvec_clear(&ps->env);
	memset(ps, 0, sizeof(*ps));
}

/* ---- versions ---- */

int
patch_when_matches(const char *when, unsigned version, struct buf *why)
{
	const char *p = when;
	int ok = 1;

	while (*p) {
		const char *op = p;
		size_t oplen = strspn(p, "<>=!");
		unsigned major, minor, v;
		int n = 0;

		p += oplen;
		if (sscanf(p, "%u.%u%n", &major, &minor, &n) != 2 || !oplen || oplen > 2 || minor > 99) {
			buf_addf(why, "'%s' is not a version range such as \">=2.9,<2.12\"", when);
			return -1;
		}
		p += n;
		if (*p == '.')
			p += 1 + strspn(p + 1, "0123456789"); /* a patch level is ignored */
		v = major * 100 + minor;
		if (!strncmp(op, ">=", 2))
			ok &= version >= v;
		else if (!strncmp(op, "<=", 2))
			ok &= version <= v;
		else if (!strncmp(op, "==", 2))
			ok &= version == v;
		else if (!strncmp(op, "!=", 2))
			ok &= version != v;
		else if (*op == '>' && oplen == 1)
			ok &= version > v;
		else if (*op == '<' && oplen == 1)
			ok &= version < v;
		else {
			buf_addf(why, "'%s': unknown comparison '%.*s'", when, (int)oplen, op);
			return -1;
		}
		p += strspn(p, " ");
		if (*p == ',')
			p++;
		p += strspn(p, " ");
	}
	return ok;
}

/* ---- reading and reversing git-format patches ---- */

void
patch_paths(const char *text, size_t len, struct strvec *out)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 6 && !strncmp(p, "+++ b/", 6)) {
			char *path = xstrndup(p + 6, n - 6);

			if (!strset_has(out, path))
				strvec_push(out, path);
			free(path);
		} else if (n > 6 && !strncmp(p, "--- a/", 6) && nl && end - (nl + 1) >= 13 &&
			   !memcmp(nl + 1, "+++ /dev/null", 13)) {
			char *path = xstrndup(p + 6, n - 6); /* a deleted file */

			if (!strset_has(out, path))
				strvec_push(out, path);
			free(path);
		}
		p += n + 1;
	}
}

/* "@@ -a,b +c,d @@ rest" -> "@@ -c,d +a,b @@ rest" */
static void
reverse_hunk_header(const char *line, size_t n, struct buf *out)
{
	const char *minus = memchr(line, '-', n), *plus, *close;

	if (!minus || !(plus = memchr(minus, '+', n - (size_t)(minus - line))) || plus < minus + 2 ||
	    !(close = memmem(plus, (size_t)(line + n - plus), " @@", 3))) {
		buf_add(out, line, n);
		return;
	}
	buf_addstr(out, "@@ -");
	buf_add(out, plus + 1, (size_t)(close - plus - 1));
	buf_addstr(out, " +");
	buf_add(out, minus + 1, (size_t)(plus - minus - 2));
	buf_add(out, close, (size_t)(line + n - close));
}

void
patch_reverse(const char *text, size_t len, struct buf *out)
{
	const char *p = text, *end = text + len;
	int in_hunk = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n >= 11 && !strncmp(p, "diff --git ", 11)) {
			const char *b = n > 13 ? memmem(p + 13, n - 13, " b/", 3) : NULL;

			in_hunk = 0;
			if (b && !strncmp(p, "diff --git a/", 13)) {
				buf_addstr(out, "diff --git a/");
				buf_add(out, b + 3, (size_t)(p + n - b - 3));
				buf_addstr(out, " b/");
				buf_add(out, p + 13, (size_t)(b - p - 13));
			} else {
				buf_add(out, p, n);
			}
		} else if (!in_hunk && n >= 4 && !strncmp(p, "--- ", 4) && nl && end - (nl + 1) >= 4 &&
			   !memcmp(nl + 1, "+++ ", 4)) {
			/* swap the two names, keeping each side's a/ or b/ prefix */
			const char *q = nl + 1, *qnl = memchr(q, '\n', (size_t)(end - q));
			size_t qn = qnl ? (size_t)(qnl - q) : (size_t)(end - q);
			const char *oldname = p + 4, *newname = q + 4;
			size_t on = n - 4, nn = qn - 4;

			buf_addstr(out, "--- ");
			if (nn >= 2 && !strncmp(newname, "b/", 2))
				buf_addf(out, "a/%.*s", (int)(nn - 2), newname + 2);
			else
				buf_add(out, newname, nn);
			buf_addstr(out, "\n+++ ");
			if (on >= 2 && !strncmp(oldname, "a/", 2))
				buf_addf(out, "b/%.*s", (int)(on - 2), oldname + 2);
			else
				buf_add(out, oldname, on);
			p = q;
			n = qn;
			nl = qnl;
		} else if (n >= 2 && !strncmp(p, "@@", 2)) {
			in_hunk = 1;
			reverse_hunk_header(p, n, out);
		} else if (!in_hunk && n > 14 && !strncmp(p, "new file mode ", 14)) {
			buf_addstr(out, "deleted file mode ");
			buf_add(out, p + 14, n - 14);
		} else if (!in_hunk && n > 18 && !strncmp(p, "deleted file mode ", 18)) {
			buf_addstr(out, "new file mode ");
			buf_add(out, p + 18, n - 18);
		} else if (!in_hunk && n > 6 && !strncmp(p, "index ", 6) && memchr(p, '.', n)) {
			const char *dots = memmem(p, n, "..", 2), *sp;

			if (dots && dots < p + n) {
				sp = memchr(dots, ' ', (size_t)(p + n - dots));
				buf_addstr(out, "index ");
				buf_add(out, dots + 2, (size_t)((sp ? sp : p + n) - dots - 2));
				buf_addstr(out, "..");
				buf_add(out, p + 6, (size_t)(dots - p - 6));
				if (sp)
					buf_add(out, sp, (size_t)(p + n - sp));
			} else {
				buf_add(out, p, n);
			}
		} else if (in_hunk && n && (*p == '+' || *p == '-')) {
			buf_addch(out, *p == '+' ? '-' : '+');
			buf_add(out, p + 1, n - 1);
		} else {
			if (in_hunk && n && *p != ' ' && *p != '\\')
				in_hunk = 0;
			buf_add(out, p, n);
		}
		if (nl)
			buf_addch(out, '\n');
		p += n + (nl ? 1 : 0);
	}
}


/* ---- moving hunks to where their lines are (git apply wants exact line numbers) ---- */

/* The file's lines as offsets; n lines. */
static size_t
split_lines(const char *text, size_t len, const char ***lines, size_t **lens)
{
	size_t n = 0, cap = 0, i = 0;

	*lines = NULL;
	*lens = NULL;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;

		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			*lines = xreallocarray(*lines, cap, sizeof(**lines));
			*lens = xreallocarray(*lens, cap, sizeof(**lens));
		}
		(*lines)[n] = text + i;
		(*lens)[n] = l;
		n++;
		i += l + 1;
	}
	return n;
}

/*
 * Rewrite each hunk header so its old side starts where its context and
 * removed lines really are in the file under `src` (the match nearest the
 * stated line), as GNU patch does with an offset; no fuzz: every line must
 * match. Hunks that match nowhere are left for git apply to report.
 */
int
patch_relocate(const char *text_in, size_t len, const char *src, struct buf *out)
{
	char *copy = xstrndup(text_in, len); /* hunk numbers are parsed with strtoul */
	const char *text = copy, *p = text, *end = text + len;
	struct buf file = BUF_INIT, content = BUF_INIT;
	const char **flines = NULL;
	size_t *flens = NULL, nf = 0;
	long delta = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 6 && !strncmp(p, "--- a/", 6)) {
			buf_reset(&file);
			buf_addf(&file, "%s/%.*s", src, (int)(n - 6), p + 6);
			buf_reset(&content);
			free(flines);
			free(flens);
			flines = NULL;
			flens = NULL;
			nf = 0;
			delta = 0;
			if (path_exists(file.s) && !is_dir(file.s) && read_file(&content, file.s) == 0)
				nf = split_lines(content.s, content.len, &flines, &flens);
		} else if (n > 4 && !strncmp(p, "@@ -", 4) && nf) {
			unsigned long a, b = 1, c, d = 1;
			const char *q = p + 4, *tail, *h;
			size_t want = 0, k, best = (size_t)-1;
			long bestdist = 0;

			a = strtoul(q, (char **)&q, 10);
			if (*q == ',')
				b = strtoul(q + 1, (char **)&q, 10);
			if (*q == ' ' && q[1] == '+') {
				c = strtoul(q + 2, (char **)&q, 10);
				if (*q == ',')
					d = strtoul(q + 1, (char **)&q, 10);
			} else {
				c = a;
			}
			tail = q < p + n ? memmem(q, (size_t)(p + n - q), "@@", 2) : NULL;
			/* the hunk's old lines: ' ' and '-' lines that follow */
			h = nl ? nl + 1 : end;
			for (k = 0; k <= nf && b; k++) {
				const char *hp = h;
				size_t line = k, matched = 0;

				while (hp < end && matched < b) {
					const char *hnl = memchr(hp, '\n', (size_t)(end - hp));
					size_t hn = hnl ? (size_t)(hnl - hp) : (size_t)(end - hp);

					if (hn && (*hp == ' ' || *hp == '-')) {
						if (line >= nf || flens[line] != hn - 1 ||
						    memcmp(flines[line], hp + 1, hn - 1))
							break;
						line++;
						matched++;
					} else if (!hn || (*hp != '+' && *hp != '\\')) {
						break;
					}
					hp += hn + 1;
				}
				if (matched == b) {
					long dist = (long)k + 1 - (long)a;

					if (dist < 0)
						dist = -dist;
					if (best == (size_t)-1 || dist < bestdist) {
						best = k;
						bestdist = dist;
					}
				}
			}
			if (best != (size_t)-1) {
				delta = (long)best + 1 - (long)a;
				want = 1;
			}
			if (want && tail && tail < p + n) {
				buf_addf(out, "@@ -%lu,%lu +%ld,%lu ", (unsigned long)(best + 1), b,
					 (long)c + delta, d);
				buf_add(out, tail, (size_t)(p + n - tail));
				buf_addch(out, '\n');
				p += n + (nl ? 1 : 0);
				continue;
			}
		}
		buf_add(out, p, n);
		if (nl)
			buf_addch(out, '\n');
		p += n + (nl ? 1 : 0);
	}
	free(flines);
	free(flens);
	free(copy);
	buf_release(&file);
	buf_release(&content);
	return 0;
}

/* ---- applying ---- */

/* Apply text (relocated to where its lines are) forwards or in reverse; check only or for real. */
static int
apply(const struct patch *pt, const char *src, int reverse, int check_only, struct buf *why)
{
	struct buf rev = BUF_INIT, moved = BUF_INIT;
	int rc;

	if (reverse)
		patch_reverse(pt->text, pt->len, &rev);
	else
		buf_add(&rev, pt->text, pt->len);
	patch_relocate(rev.s, rev.len, src, &moved);
	rc = repo_apply_text(src, moved.s, moved.len, check_only, why);
	buf_release(&rev);
	buf_release(&moved);
	return rc;
}

static int
is_applied(const struct patch *pt, const char *src)
{
	struct buf why = BUF_INIT;
	int applied = apply(pt, src, 1, 1, &why) == 0;

	buf_release(&why);
	return applied;
}

static int
unapply(const struct patch *pt, const char *src, struct buf *why)
{
	return apply(pt, src, 1, 0, why);
}

int
patch_selected(const struct patch *pt, unsigned version)
{
	struct buf why = BUF_INIT;
	int m = !pt->when || patch_when_matches(pt->when, version, &why) == 1;

	buf_release(&why);
	return m;
}

static void
selection_text(const struct patch_set *ps, unsigned version, struct buf *out)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (patch_selected(&ps->v[i], version))
			buf_addf(out, "%s %s\n", ps->v[i].sha256, ps->v[i].file);
}

int
patches_apply(const struct patch_set *ps, unsigned version, const char *src, const char *record,
	      struct json *out)
{
	struct buf why = BUF_INIT, rec = BUF_INIT;
	size_t i, j, done = 0;
	size_t *applied_now = xcalloc(ps->n ? ps->n : 1, sizeof(*applied_now));
	int ret = 0;

	for (i = 0; i < ps->n; i++) {
		const struct patch *pt = &ps->v[i];
		struct json *o;
		const char *status;

		if (!patch_selected(pt, version))
			continue;
		if (is_applied(pt, src)) {
			status = "already applied";
		} else if (apply(pt, src, 0, 1, &why) < 0 || apply(pt, src, 0, 0, &why) < 0) {
			error_at(&pt->loc, "patch '%s' does not apply to this tree: %s", pt->file, why.s);
			for (j = done; j > 0; j--) {
				buf_reset(&why);
				if (unapply(&ps->v[applied_now[j - 1]], src, &why) < 0)
					error("cannot undo patch '%s': %s", ps->v[applied_now[j - 1]].file,
					      why.s);
			}
			if (done)
				note("the %zu patch%s applied before it %s undone; the tree is as it was",
				     done, done == 1 ? "" : "es", done == 1 ? "was" : "were");
			ret = -1;
			break;
		} else {
			applied_now[done++] = i;
			status = "applied";
		}
		fprintf(stderr, "fetch: patch %s: %s\n", pt->file, status);
		o = json_object();
		json_set(o, "file", json_string(pt->file));
		json_set(o, "sha256", json_string(pt->sha256));
		json_set(o, "status", json_string(status));
		json_push(out, o);
		buf_reset(&why);
	}
	if (!ret) {
		selection_text(ps, version, &rec);
		ret = write_file_atomic(record, rec.s, rec.len);
	}
	free(applied_now);
	buf_release(&why);
	buf_release(&rec);
	return ret;
}

int
patches_before_checkout(const struct patch_set *ps, unsigned version, const char *src,
			const char *record, const char *commit)
{
	struct buf have = BUF_INIT, want = BUF_INIT, head = BUF_INIT, why = BUF_INIT;
	struct strvec changed = STRVEC_INIT, touched = STRVEC_INIT;
	int ret = 0;
	size_t i, j;

	if (!path_exists(record) || read_file(&have, record) < 0)
		goto out;
	selection_text(ps, version, &want);
	for (i = 0; i < ps->n; i++)
		if (patch_selected(&ps->v[i], version))
			for (j = 0; j < ps->v[i].touches.n; j++)
				strvec_push(&touched, ps->v[i].touches.v[j]);
	if (commit && repo_head_commit(src, &head) == 0 && !strcmp(head.s, commit) &&
	    !strcmp(have.s, want.s) && repo_changed_paths(src, &changed) == 0) {
		int clean = 1;

		for (i = 0; i < changed.n && clean; i++)
			clean = strset_has(&touched, changed.v[i]);
		for (i = 0; i < ps->n && clean; i++)
			if (patch_selected(&ps->v[i], version))
				clean = is_applied(&ps->v[i], src);
		if (clean) {
			ret = 1;
			goto out;
		}
	}
	/* Undo what the record says is applied, newest first. */
	for (i = ps->n; i > 0; i--) {
		const struct patch *pt = &ps->v[i - 1];
		struct buf line = BUF_INIT;

		buf_addf(&line, "%s %s\n", pt->sha256, pt->file);
		if (strstr(have.s, line.s) && is_applied(pt, src)) {
			buf_reset(&why);
			if (unapply(pt, src, &why) < 0) {
				error("cannot undo patch '%s' before checking out: %s", pt->file, why.s);
				ret = -1;
			} else {
				fprintf(stderr, "fetch: patch %s: undone\n", pt->file);
			}
		}
		buf_release(&line);
	}
	if (!ret)
		unlink(record);
out:
	buf_release(&have);
	buf_release(&want);
	buf_release(&head);
	buf_release(&why);
	strvec_clear(&changed);
	strvec_clear(&touched);
	return ret;
}
