#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/sources/era.h"
#include "../../src/core/util.h"
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

void
t_era(void)
{
	const char *d = t_path("era");
	struct buf why = BUF_INIT;

	remove_tree(d);
	mkdir_p(t_path("era/cmake"));
	CHECK(era_detect(d, &why) == ERA_UNKNOWN && strstr(why.s, "neither setup.py nor pyproject.toml"));
	put(d, "pyproject.toml", "[build-system]\n  build-backend = 'hatchling.build'\n");
	buf_reset(&why);
	CHECK(era_detect(d, &why) == ERA_UNKNOWN && strstr(why.s, "'(none)'"));
	put(d, "pyproject.toml", "[build-system]\nrequires = [\"scikit-build-core>=0.11\"]\n"
				 "build-backend = \"scikit_build_core.build\"\n");
	CHECK(era_detect(d, &why) == ERA_SKBUILD);
	put(d, "pyproject.toml", "[build-system]\nbuild-backend='setuptools.build_meta'\n");
	buf_reset(&why);
	CHECK(era_detect(d, &why) == ERA_UNKNOWN && strstr(why.s, "'setuptools.build_meta'"));
	put(d, "setup.py", "");
	CHECK(era_detect(d, &why) == ERA_SETUP_HELPERS);   /* setup.py wins over pyproject.toml */
	put(d, "cmake/EnvVarForwarding.cmake", "");
	CHECK(era_detect(d, &why) == ERA_SETUP_ENVFWD);
	CHECK(!strcmp(era_name(ERA_SKBUILD), "scikit-build-core (pyproject.toml, no setup.py)"));
	buf_release(&why);
}
