/*
 * The patch series of a project (patch.h): finding and loading
 * patches/<project>/index.yaml (hashes, env, each patch checked by
 * patch_check), and which patches a release selects (`when`). The YAML
 * reader is profile/ydoc.h, a tree's release profile/releases.h.
 * May include: core/, profile/ydoc.h, profile/releases.h, sources/patch.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "core/buf.h"
#include "core/diag.h"
#include "core/hash.h"
#include "core/json.h"
#include "core/relver.h"
#include "profile/releases.h"
#include "sources/patch.h"
#include "profile/ydoc.h"
#include "core/util.h"

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
	const struct relver zero = { 0, 0, 0, 0 };
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
		int bad;

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
		if (pt->when && patch_when_matches(pt->when, &zero, &why) < 0) {
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
		} else if ((bad = patch_check(text.s, text.len, &pt->targets, &pt->ntargets, &why))) {
			struct loc at = { file.s, bad, 0 };

			error_at(&at, "refusing patch '%s': %s", pt->file, why.s);
			note_at(&pt->loc, "listed here");
			buf_reset(&why);
		} else {
			pt->len = text.len;
			pt->text = buf_detach(&text);
			pt->path = xstrdup(file.s);
			/* the checked headers: a binary patch has no ---/+++ lines */
			for (size_t k = 0; k < pt->ntargets; k++)
				strvec_push(&pt->touches, pt->targets[k].path);
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
		free(ps->v[i].path);
		strvec_clear(&ps->v[i].touches);
		patch_targets_free(ps->v[i].targets, ps->v[i].ntargets);
	}
	free(ps->v);
	free(ps->project);
	free(ps->index);
	strvec_clear(&ps->env);
	memset(ps, 0, sizeof(*ps));
}

/* ---- versions ---- */

int
patch_when_matches(const char *when, const struct relver *version, struct buf *why)
{
	const char *p = when;
	int ok = 1;

	while (*p) {
		const char *op = p, *end;
		size_t oplen = strspn(p, "<>=!");
		struct relver bound;
		int c;

		p += oplen;
		p += strspn(p, " ");
		if (!oplen || oplen > 2 || *p == 'v' || relver_parse(p, &bound, &end) < 0) {
			buf_addf(why, "'%s' is not a version range such as \">=2.9,<2.12\"", when);
			return -1;
		}
		p = end;
		c = relver_cmp(version, &bound);
		if (!strncmp(op, ">=", 2))
			ok &= c >= 0;
		else if (!strncmp(op, "<=", 2))
			ok &= c <= 0;
		else if (!strncmp(op, "==", 2))
			ok &= c == 0;
		else if (!strncmp(op, "!=", 2))
			ok &= c != 0;
		else if (*op == '>' && oplen == 1)
			ok &= c > 0;
		else if (*op == '<' && oplen == 1)
			ok &= c < 0;
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

int
patch_selected(const struct patch *pt, const struct relver *version)
{
	struct buf why = BUF_INIT;
	int m = !pt->when || patch_when_matches(pt->when, version, &why) == 1;

	buf_release(&why);
	return m;
}

struct relver
patch_release_for(const char *ref, const char *src)
{
	struct relver v;

	tree_version(ref, src, &v);
	return v;
}

struct json *
patch_selected_json(const struct patch_set *ps, const struct relver *version, const char *status)
{
	struct json *a = json_array();

	for (size_t i = 0; i < ps->n; i++) {
		struct json *o;

		if (!patch_selected(&ps->v[i], version))
			continue;
		o = json_object();
		json_set(o, "file", json_string(ps->v[i].file));
		json_set(o, "sha256", json_string(ps->v[i].sha256));
		if (status)
			json_set(o, "status", json_string(status));
		json_push(a, o);
	}
	return a;
}
