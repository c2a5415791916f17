#include <string.h>

#include "core/buf.h"
#include "sources/era.h"
#include "core/util.h"

/* The value of `build-backend = "..."` in pyproject.toml's text, or "". */
static void
build_backend(const char *text, struct buf *out)
{
	const char *p = text;

	while ((p = strstr(p, "build-backend"))) {
		const char *q = p + 13, *end;

		if (p != text && p[-1] != '\n') {
			p = q;
			continue;
		}
		q += strspn(q, " \t");
		if (*q != '=') {
			p = q;
			continue;
		}
		q++;
		q += strspn(q, " \t");
		if (*q != '"' && *q != '\'') {
			p = q;
			continue;
		}
		end = strchr(q + 1, *q);
		if (end && !memchr(q, '\n', (size_t)(end - q)))
			buf_add(out, q + 1, (size_t)(end - q - 1));
		return;
	}
}

enum build_era
era_detect(const char *dir, struct buf *why)
{
	struct buf p = BUF_INIT, text = BUF_INIT, backend = BUF_INIT;
	enum build_era era = ERA_UNKNOWN;

	buf_addf(&p, "%s/setup.py", dir);
	if (path_exists(p.s)) {
		buf_reset(&p);
		buf_addf(&p, "%s/cmake/EnvVarForwarding.cmake", dir);
		era = path_exists(p.s) ? ERA_SETUP_ENVFWD : ERA_SETUP_HELPERS;
		goto out;
	}
	buf_reset(&p);
	buf_addf(&p, "%s/pyproject.toml", dir);
	if (!path_exists(p.s)) {
		buf_addf(why, "'%s' has neither setup.py nor pyproject.toml; is it a PyTorch source "
			 "tree?", dir);
		goto out;
	}
	if (read_file(&text, p.s) < 0) {
		buf_addf(why, "cannot read '%s'", p.s);
		goto out;
	}
	build_backend(text.s, &backend);
	if (!strcmp(backend.s, "scikit_build_core.build"))
		era = ERA_SKBUILD;
	else
		buf_addf(why, "'%s' has no setup.py and its pyproject.toml names build-backend '%s'; "
			 "bwbuild drives setup.py trees and scikit-build-core ones "
			 "(scikit_build_core.build)", dir, backend.len ? backend.s : "(none)");
out:
	buf_release(&p);
	buf_release(&text);
	buf_release(&backend);
	return era;
}

const char *
era_name(enum build_era era)
{
	switch (era) {
	case ERA_SETUP_HELPERS: return "setup.py (tools/setup_helpers/cmake.py)";
	case ERA_SETUP_ENVFWD: return "setup.py (cmake/EnvVarForwarding.cmake)";
	case ERA_SKBUILD: return "scikit-build-core (pyproject.toml, no setup.py)";
	case ERA_EXTENSION: return "extension (setup.py on a torch: torch.utils.cpp_extension)";
	default: return "unknown";
	}
}
