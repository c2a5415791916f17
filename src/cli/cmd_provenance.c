#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "core/hash.h"
#include "core/json.h"
#include "wheel/provenance.h"
#include "core/safefile.h"
#include "core/util.h"

static const char about[] =
	"Write an in-toto Statement v1 whose predicate is SLSA Provenance v1 (the\n"
	"format of PyPI and GitHub artifact attestations) for a wheel built by bwbuild:\n"
	"the wheel's sha256 as the subject, the manifest's inputs (profile, source and\n"
	"submodule commits, patches, environment, toolchain) as the build definition.\n"
	"A wheel's manifest is looked up beside it; a manifest's wheel, when present\n"
	"beside it, must still have the sha256 the manifest records. Sign the output\n"
	"with your attestation tool (cosign attest-blob, actions/attest).\n";

/* "x.whl" -> "x.manifest.json"; "x.manifest.json" -> "x.whl" beside it. */
static void
counterpart(const char *path, struct buf *out)
{
	if (ends_with(path, ".whl"))
		buf_addf(out, "%.*s.manifest.json", (int)(strlen(path) - 4), path);
	else if (ends_with(path, ".manifest.json"))
		buf_addf(out, "%.*s.whl", (int)(strlen(path) - strlen(".manifest.json")), path);
}

static int
file_sha256(const char *path, struct buf *hex)
{
	struct buf data = BUF_INIT;
	int rc = read_file(&data, path);

	if (!rc)
		sha256_hex(hex, data.s, data.len);
	buf_release(&data);
	return rc;
}

int
cmd_provenance(int argc, char **argv, const struct command *cmd)
{
	const char *path = NULL, *out = NULL;
	const struct option options[] = {
		OPT_ARG("file", &path, "WHEEL|MANIFEST", "a wheel built by bwbuild, or its manifest"),
		OPT_STRING('o', "output", &out, "FILE",
			   "write to FILE (atomically) instead of standard output"),
		OPT_END(),
	};
	struct buf mpath = BUF_INIT, wpath = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct buf hex = BUF_INIT;
	struct json *m = NULL, *st = NULL;
	const char *sha;
	char *s;
	int ret = EXIT_OK;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	if (ends_with(path, ".whl")) {
		counterpart(path, &mpath);
		buf_addstr(&wpath, path);
	} else {
		buf_addstr(&mpath, path);
		counterpart(path, &wpath);
	}
	ret = EXIT_USAGE;
	if (!is_regular(mpath.s)) {
		error("'%s' is not there%s", mpath.s, ends_with(path, ".whl") ?
		      "; a wheel's provenance comes from the manifest bwbuild wrote beside it" : "");
		goto out;
	}
	if (read_file(&text, mpath.s) < 0)
		goto out;
	if (!(m = json_parse(text.s, text.len, &why))) {
		error("'%s' is not JSON: %s", mpath.s, why.s);
		goto out;
	}
	if (!(st = provenance_statement(m, &why))) {
		error("no provenance from '%s': %s", mpath.s, why.s);
		goto out;
	}
	sha = json_str(json_get(json_get(m, "wheel"), "sha256"));
	ret = EXIT_FAIL;
	if (wpath.len && is_regular(wpath.s)) {
		if (file_sha256(wpath.s, &hex) < 0)
			goto out;
		if (strcmp(hex.s, sha)) {
			error("'%s' has sha256 %s, but its manifest records %s; it is not the "
			      "wheel that was built", wpath.s, hex.s, sha);
			goto out;
		}
	} else if (ends_with(path, ".whl")) {
		error("cannot read '%s':", path);
		goto out;
	}
	s = json_print(st, 1);
	ret = EXIT_OK;
	if (out && write_file_atomic(out, s, strlen(s)) < 0)
		ret = EXIT_USAGE;
	else if (!out)
		fputs(s, stdout);
	free(s);
out:
	json_free(st);
	json_free(m);
	buf_release(&mpath);
	buf_release(&wpath);
	buf_release(&text);
	buf_release(&why);
	buf_release(&hex);
	return ret;
}
