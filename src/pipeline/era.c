#include <string.h>

#include "core/buf.h"
#include "pipeline/era.h"
#include "core/strvec.h"
#include "core/util.h"
#include "host/pyreqs.h"
#include "host/python.h"

static int
has_file(const char *dir, const char *file)
{
	struct buf p = BUF_INIT;
	int yes;

	buf_addf(&p, "%s/%s", dir, file);
	yes = path_exists(p.s);
	buf_release(&p);
	return yes;
}

static int
detect_envfwd(const char *dir, const char *python, struct buf *why)
{
	(void)python;
	(void)why;
	return has_file(dir, "setup.py") && has_file(dir, "cmake/EnvVarForwarding.cmake");
}

static int
detect_helpers(const char *dir, const char *python, struct buf *why)
{
	(void)python;
	(void)why;
	return has_file(dir, "setup.py");
}

/* pyproject.toml's build-backend, as the build's interpreter reads it (host/pyreqs.h). */
static int
detect_skbuild(const char *dir, const char *python, struct buf *why)
{
	struct buf p = BUF_INIT, guess = BUF_INIT;
	struct pytree t;
	int yes = 0;

	buf_addf(&p, "%s/pyproject.toml", dir);
	if (!path_exists(p.s)) {
		buf_release(&p);
		return 0;
	}
	if (!python || !*python) {
		python_guess(&guess, NULL);
		python = guess.s;
	}
	if (pytree_read(&t, python, dir, why) == 0) {
		yes = t.backend && !strcmp(t.backend, "scikit_build_core.build");
		if (!yes)
			buf_addf(why, "'%s' has no setup.py and its pyproject.toml names build-backend "
				 "'%s'; bwbuild drives setup.py trees and scikit-build-core ones "
				 "(scikit_build_core.build)", dir, t.backend ? t.backend : "(none)");
	}
	pytree_release(&t);
	buf_release(&p);
	buf_release(&guess);
	return yes;
}

static void
setup_build(const struct era_cmd *c, struct strvec *args, struct strvec *env)
{
	(void)env;
	strvec_pushl(args, c->python, "setup.py", "build", NULL);
}

static void
setup_wheel(const struct era_cmd *c, const char *dist, struct strvec *args)
{
	strvec_pushl(args, c->python, "setup.py", "bdist_wheel", "-d", dist, NULL);
}

/* Its build directory kept at <src>/build, so the cache can be read back and reused. */
static void
skbuild_build(const struct era_cmd *c, struct strvec *args, struct strvec *env)
{
	struct buf s = BUF_INIT;

	strvec_env_setf(env, "CMAKE_BUILD_PARALLEL_LEVEL", "%u", c->jobs);
	strvec_env_setf(env, "SKBUILD_BUILD_DIR", "%s/build", c->src_dir);
	buf_addf(&s, "%s/dist", c->work_dir);
	strvec_pushl(args, c->python, "-m", "build", "--wheel", "--no-isolation", "--outdir", s.s,
		     NULL);
	buf_release(&s);
}

/* In detection order: the first row to say yes wins (setup.py before pyproject.toml). */
static const struct era_ops rows[] = {
	{
		.key = "setup-envfwd",
		.name = "setup.py (cmake/EnvVarForwarding.cmake)",
		.detect = detect_envfwd,
		.configure = ERA_CONFIGURE_SETUP_PY,
		.compile_argv = setup_build,
		.wheel_argv = setup_wheel,
		.torch_tree = 1,
	},
	{
		.key = "setup-helpers",
		.name = "setup.py (tools/setup_helpers/cmake.py)",
		.detect = detect_helpers,
		.configure = ERA_CONFIGURE_SETUP_PY,
		.compile_argv = setup_build,
		.wheel_argv = setup_wheel,
		.torch_tree = 1,
	},
	{
		.key = "skbuild",
		.name = "scikit-build-core (pyproject.toml, no setup.py)",
		.detect = detect_skbuild,
		.configure = ERA_CONFIGURE_CMAKE,
		.compile_argv = skbuild_build,
		.compile_configures = 1,
		.module = "build",
		.module_user = "python3 -m build",
		.module_hint = "apt-get install python3-build",
		.torch_tree = 1,
	},
	{
		.key = "extension",
		.name = "extension (setup.py on a torch: torch.utils.cpp_extension)",
		.configure = ERA_CONFIGURE_NONE,
		.no_configure = "nothing to configure: the extension's setup.py builds in the "
				"compile step",
		.compile_argv = setup_build,
		.wheel_argv = setup_wheel,
		.smoke_against_torch = 1,
	},
};

const struct era_ops *
era_row(unsigned i)
{
	return i < sizeof(rows) / sizeof(rows[0]) ? &rows[i] : NULL;
}

const struct era_ops *
era_by_key(const char *key)
{
	for (unsigned i = 0; era_row(i); i++)
		if (!strcmp(rows[i].key, key))
			return &rows[i];
	return NULL;
}

const struct era_ops *
era_detect(const char *dir, const char *python, struct buf *why)
{
	size_t start = why->len;

	for (unsigned i = 0; era_row(i); i++) {
		const struct era_ops *r = era_row(i);

		if (!r->detect)
			continue;
		if (r->detect(dir, python, why))
			return r;
		/* A row that knew the tree but cannot drive it has said why: stop there. */
		if (why->len > start)
			return NULL;
	}
	buf_addf(why, "'%s' has neither setup.py nor pyproject.toml; is it a PyTorch source tree?",
		 dir);
	return NULL;
}
