#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/pipeline/era.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/host/python.h"
#include "t.h"

static void
put(const char *dir, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Every row can be driven: a unique key, a name, a compile command; NONE says why. */
static void
t_era_rows(void)
{
	unsigned n = 0;

	for (const struct era_ops *r; (r = era_row(n)); n++) {
		CHECK(r->key && *r->key && r->name && *r->name && r->compile_argv);
		CHECK(era_by_key(r->key) == r);
		CHECK(r->configure != ERA_CONFIGURE_NONE || (r->no_configure && *r->no_configure));
		CHECK(!r->module || (r->module_user && r->module_hint));
	}
	CHECK(n == 4);
	/* Chosen by kind, never detected: the extension row. */
	CHECK(era_by_key("extension")->detect == NULL && era_by_key("extension")->smoke_against_torch);
}

/* The rows' commands, as the compile and wheel steps run them. */
static void
t_era_argv(void)
{
	const struct era_cmd c = { "py", "/s", "/w", 6 };
	struct strvec a = STRVEC_INIT, e = STRVEC_INIT;
	const struct era_ops *sk = era_by_key("skbuild"), *su = era_by_key("setup-helpers");

	sk->compile_argv(&c, &a, &e);
	CHECK(a.n == 7 && !strcmp(a.v[0], "py") && !strcmp(a.v[6], "/w/dist"));
	CHECK(!strcmp(strvec_env_get(&e, "CMAKE_BUILD_PARALLEL_LEVEL"), "6") &&
	      !strcmp(strvec_env_get(&e, "SKBUILD_BUILD_DIR"), "/s/build"));
	CHECK(sk->wheel_argv == NULL && sk->compile_configures && !su->compile_configures);
	strvec_clear(&a);
	strvec_clear(&e);
	su->compile_argv(&c, &a, &e);
	CHECK(a.n == 3 && !strcmp(a.v[1], "setup.py") && !strcmp(a.v[2], "build") && e.n == 0);
	strvec_clear(&a);
	su->wheel_argv(&c, "/w/dist", &a);
	CHECK(a.n == 5 && !strcmp(a.v[2], "bdist_wheel") && !strcmp(a.v[4], "/w/dist"));
	strvec_clear(&a);
}

void
t_era(void)
{
	const char *d = t_path("era");
	struct buf why = BUF_INIT, py = BUF_INIT;

	remove_tree(d);
	mkdir_p(t_path("era/cmake"));
	python_guess(&py, NULL);
	CHECK(era_detect(d, py.s, &why) == NULL && strstr(why.s, "neither setup.py nor pyproject.toml"));
	/* read by tomllib: an indented key is a key (the hand-written reader saw none) */
	put(d, "pyproject.toml", "[build-system]\n  build-backend = 'hatchling.build'\n");
	buf_reset(&why);
	CHECK(era_detect(d, py.s, &why) == NULL && strstr(why.s, "'hatchling.build'"));
	put(d, "pyproject.toml", "[project]\nname = 'x'\n");
	buf_reset(&why);
	CHECK(era_detect(d, py.s, &why) == NULL && strstr(why.s, "'(none)'"));
	put(d, "pyproject.toml", "[build-system]\nrequires = [\"scikit-build-core>=0.11\"]\n"
				 "build-backend = \"scikit_build_core.build\"\n");
	CHECK(era_detect(d, py.s, &why) == era_by_key("skbuild"));
	/* an inline table and a quoted key, as TOML allows */
	put(d, "pyproject.toml", "build-system = { \"build-backend\" = 'scikit_build_core.build' }\n");
	CHECK(era_detect(d, py.s, &why) == era_by_key("skbuild"));
	/* no python asked: the one python_guess finds reads it */
	CHECK(era_detect(d, NULL, &why) == era_by_key("skbuild"));
	put(d, "pyproject.toml", "[build-system]\nbuild-backend='setuptools.build_meta'\n");
	buf_reset(&why);
	CHECK(era_detect(d, py.s, &why) == NULL && strstr(why.s, "'setuptools.build_meta'"));
	/* not TOML: what tomllib says, where */
	put(d, "pyproject.toml", "[build-system]\nbuild-backend = \n");
	buf_reset(&why);
	CHECK(era_detect(d, py.s, &why) == NULL && strstr(why.s, "pyproject.toml: Invalid value"));
	put(d, "setup.py", "");
	CHECK(era_detect(d, py.s, &why) == era_by_key("setup-helpers"));   /* setup.py wins over pyproject.toml */
	put(d, "cmake/EnvVarForwarding.cmake", "");
	CHECK(era_detect(d, py.s, &why) == era_by_key("setup-envfwd"));
	CHECK(!strcmp(era_by_key("skbuild")->name, "scikit-build-core (pyproject.toml, no setup.py)"));
	CHECK(era_by_key("no-such") == NULL);
	buf_release(&why);
	buf_release(&py);
	t_era_rows();
	t_era_argv();
}
