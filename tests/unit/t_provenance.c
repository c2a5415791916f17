#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/version.h"
#include "../../src/wheel/provenance.h"
#include "t.h"

/* The in-toto statement from a build's manifest: subject, parameters, dependencies. */

static struct json *
parse(const char *text)
{
	struct buf why = BUF_INIT;
	struct json *j = json_parse(text, strlen(text), &why);

	buf_release(&why);
	return j;
}

static const struct json *
dep(const struct json *st, size_t i)
{
	return json_at(json_get(json_get(json_get(st, "predicate"), "buildDefinition"),
				"resolvedDependencies"), i);
}

static const char *
dep_uri(const char *repo)
{
	static struct buf uri = BUF_INIT;
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct json *m, *st;

	buf_addf(&text, "{\"wheel\": {\"file\": \"w.whl\", \"sha256\": \"00\"}, \"inputs_hash\": \"h\","
			" \"inputs\": {\"source\": {%s%s%s \"commit\": \"c0ffee\"}}}",
		 repo ? "\"repo\": \"" : "", repo ? repo : "", repo ? "\"," : "");
	m = parse(text.s);
	st = provenance_statement(m, &why);
	buf_reset(&uri);
	buf_addstr(&uri, st ? json_str(json_get(dep(st, 0), "uri")) : "(none)");
	json_free(st);
	json_free(m);
	buf_release(&text);
	buf_release(&why);
	return uri.s;
}

void
t_provenance(void)
{
	struct buf why = BUF_INIT;
	struct json *m, *st;
	const struct json *def, *run, *sub;

	m = parse("{\"wheel\": {\"file\": \"torch-2.6.0-cp311-cp311-linux_x86_64.whl\", \"sha256\": \"ab12\"},"
		  " \"inputs_hash\": \"feed\","
		  " \"inputs\": {\"profile\": {\"name\": \"b200\"},"
		  "  \"source\": {\"repo\": \"https://github.com/pytorch/pytorch\", \"commit\": \"1eba9b3\","
		  "    \"submodules\": [{\"path\": \"third_party/cutlass\", \"commit\": \"beef\"}, {\"path\": \"x\"}]},"
		  "  \"patches\": [{\"file\": \"0001-fix.patch\", \"sha256\": \"9f\"}, {\"file\": \"no-hash\"}],"
		  "  \"env\": {\"USE_CUDA\": \"1\"}}}");
	st = provenance_statement(m, &why);
	CHECK(st != NULL);
	CHECK_STR(json_str(json_get(st, "_type")), "https://in-toto.io/Statement/v1");
	CHECK_STR(json_str(json_get(st, "predicateType")), "https://slsa.dev/provenance/v1");
	sub = json_at(json_get(st, "subject"), 0);
	CHECK_STR(json_str(json_get(sub, "name")), "torch-2.6.0-cp311-cp311-linux_x86_64.whl");
	CHECK_STR(json_str(json_get(json_get(sub, "digest"), "sha256")), "ab12");
	def = json_get(json_get(st, "predicate"), "buildDefinition");
	CHECK_STR(json_str(json_get(json_get(json_get(def, "externalParameters"), "profile"), "name")),
		  "b200");
	CHECK_STR(json_str(json_get(json_get(json_get(def, "internalParameters"), "env"), "USE_CUDA")),
		  "1");
	/* No toolchain in the inputs: null, not left out. */
	CHECK(json_get(json_get(def, "internalParameters"), "toolchain") != NULL);
	CHECK(!json_is_object(json_get(json_get(def, "internalParameters"), "toolchain")));
	CHECK(json_len(json_get(def, "resolvedDependencies")) == 3);
	CHECK_STR(json_str(json_get(dep(st, 0), "uri")), "git+https://github.com/pytorch/pytorch");
	CHECK_STR(json_str(json_get(json_get(dep(st, 0), "digest"), "gitCommit")), "1eba9b3");
	CHECK_STR(json_str(json_get(dep(st, 1), "name")), "third_party/cutlass");
	CHECK_STR(json_str(json_get(json_get(dep(st, 2), "digest"), "sha256")), "9f");
	run = json_get(json_get(st, "predicate"), "runDetails");
	CHECK_STR(json_str(json_get(json_get(run, "metadata"), "invocationId")), "feed");
	CHECK_STR(json_str(json_get(json_get(json_get(run, "builder"), "version"), "bwbuild")),
		  BWBUILD_VERSION);
	json_free(st);
	json_free(m);

	/* The source as a URI, whatever form the repository was named in. */
	CHECK_STR(dep_uri("/srv/git/pytorch.git"), "git+file:///srv/git/pytorch.git");
	CHECK_STR(dep_uri("git@github.com:pytorch/pytorch"), "git+ssh://git@github.com:pytorch/pytorch");
	CHECK_STR(dep_uri(NULL), "git+file:///");

	/* A manifest of `bwbuild manifest` (no inputs), and one of an installed package (no file). */
	m = parse("{\"wheel\": {\"file\": \"w.whl\", \"sha256\": \"00\"}}");
	CHECK(provenance_statement(m, &why) == NULL);
	CHECK(strstr(why.s, "it has no 'inputs'") != NULL);
	json_free(m);
	buf_reset(&why);
	m = parse("{\"wheel\": {\"path\": \"/site/torch\"}, \"inputs\": {}, \"inputs_hash\": \"h\"}");
	CHECK(provenance_statement(m, &why) == NULL);
	CHECK(strstr(why.s, "names no wheel file with a sha256") != NULL);
	json_free(m);
	buf_release(&why);
}
