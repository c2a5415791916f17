#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "wheel/provenance.h"
#include "core/version.h"

#define BUILD_TYPE "https://github.com/bwbuild/bwbuild/blob/main/docs/provenance.md#buildtype-v1"

static struct json *
dup_or_null(const struct json *j)
{
	return j ? json_dup(j) : json_null();
}

static struct json *
descriptor(const char *uri, const char *name, const char *algo, const char *digest)
{
	struct json *d = json_object(), *dg = json_object();

	if (uri)
		json_set(d, "uri", json_string(uri));
	if (name)
		json_set(d, "name", json_string(name));
	json_set(dg, algo, json_string(digest));
	json_set(d, "digest", dg);
	return d;
}

static struct json *
dependencies(const struct json *in)
{
	const struct json *src = json_get(in, "source"), *subs = json_get(src, "submodules");
	const struct json *patches = json_get(in, "patches");
	const char *commit = json_str(json_get(src, "commit"));
	const char *repo = json_str(json_get(src, "repo"));
	struct json *deps = json_array();

	if (commit) {
		struct buf uri = BUF_INIT;

		/* A URI: a repository on disk is a file:// one (SPDX/pip "git+" scheme form). */
		if (!repo)
			buf_addstr(&uri, "git+file:///");
		else if (repo[0] == '/')
			buf_addf(&uri, "git+file://%s", repo);
		else if (strstr(repo, "://"))
			buf_addf(&uri, "git+%s", repo);
		else
			buf_addf(&uri, "git+ssh://%s", repo); /* git@host:path, scp style */
		json_push(deps, descriptor(uri.s, "source", "gitCommit", commit));
		buf_release(&uri);
	}
	for (size_t i = 0; i < json_len(subs); i++) {
		const struct json *s = json_at(subs, i);
		const char *path = json_str(json_get(s, "path")), *c = json_str(json_get(s, "commit"));

		if (path && c)
			json_push(deps, descriptor(NULL, path, "gitCommit", c));
	}
	for (size_t i = 0; i < json_len(patches); i++) {
		const struct json *p = json_at(patches, i);
		const char *file = json_str(json_get(p, "file")), *h = json_str(json_get(p, "sha256"));

		if (file && h)
			json_push(deps, descriptor(NULL, file, "sha256", h));
	}
	return deps;
}

struct json *
provenance_statement(const struct json *m, struct buf *why)
{
	const struct json *in = json_get(m, "inputs"), *wheel = json_get(m, "wheel");
	const char *file = json_str(json_get(wheel, "file")), *sha = json_str(json_get(wheel, "sha256"));
	const char *hash = json_str(json_get(m, "inputs_hash"));
	struct json *st, *subjects, *pred, *def, *ext, *internal, *run, *builder, *ver, *meta;

	if (!json_is_object(in) || !hash) {
		buf_addstr(why, "it has no 'inputs' (a manifest of a build by bwbuild has; one made "
			   "by 'bwbuild manifest' from a wheel does not)");
		return NULL;
	}
	if (!file || !sha) {
		buf_addstr(why, "it names no wheel file with a sha256 (an installed package has none)");
		return NULL;
	}
	st = json_object();
	subjects = json_array();
	json_set(st, "_type", json_string("https://in-toto.io/Statement/v1"));
	json_push(subjects, descriptor(NULL, file, "sha256", sha));
	json_set(st, "subject", subjects);
	json_set(st, "predicateType", json_string("https://slsa.dev/provenance/v1"));

	ext = json_object();
	json_set(ext, "profile", dup_or_null(json_get(in, "profile")));
	json_set(ext, "source", dup_or_null(json_get(in, "source")));
	internal = json_object();
	json_set(internal, "env", dup_or_null(json_get(in, "env")));
	json_set(internal, "toolchain", dup_or_null(json_get(in, "toolchain")));
	def = json_object();
	json_set(def, "buildType", json_string(BUILD_TYPE));
	json_set(def, "externalParameters", ext);
	json_set(def, "internalParameters", internal);
	json_set(def, "resolvedDependencies", dependencies(in));

	builder = json_object();
	ver = json_object();
	json_set(builder, "id", json_string("https://github.com/bwbuild/bwbuild"));
	json_set(ver, "bwbuild", json_string(BWBUILD_VERSION));
	json_set(builder, "version", ver);
	meta = json_object();
	json_set(meta, "invocationId", json_string(hash));
	run = json_object();
	json_set(run, "builder", builder);
	json_set(run, "metadata", meta);

	pred = json_object();
	json_set(pred, "buildDefinition", def);
	json_set(pred, "runDetails", run);
	json_set(st, "predicate", pred);
	return st;
}
