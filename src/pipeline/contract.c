/*
 * The configure contract of a tree (configure.h): how its setup.py is
 * told to configure without building (CMAKE_ONLY where setup.py reads the
 * variable, else --cmake-only, or cmake itself for a scikit-build-core
 * tree), read from the tree's own Python files, and the command that
 * follows from it. Pure: reads files,
 * runs nothing. May include: core/, sources/, pipeline/configure.h,
 * launch/launch.h.
 */
#include <string.h>

#include "core/buf.h"
#include "core/strvec.h"
#include "core/util.h"
#include "pipeline/configure.h"
#include "launch/launch.h"

/* `text` without its comment lines (a '#' first on the line), so a comment naming a flag is no read of it. */
static void
strip_comment_lines(const char *text, struct buf *out)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		const char *q = p + strspn(p, " \t");

		if (*q != '#')
			buf_add(out, p, n + (p[n] == '\n'));
		p += n + (p[n] == '\n');
	}
}

/* Whether `text` has the string literal "LIT" or 'LIT', optionally right after `before`. */
static int
has_literal(const char *text, const char *before, const char *lit)
{
	struct buf b = BUF_INIT;
	int hit = 0;

	for (int q = 0; q < 2 && !hit; q++) {
		buf_reset(&b);
		buf_addf(&b, "%s%c%s%c", before, q ? '\'' : '"', lit, q ? '\'' : '"');
		hit = strstr(text, b.s) != NULL;
	}
	buf_release(&b);
	return hit;
}

/* CMAKE_ONLY read from the environment: os.environ.pop/get, os.getenv, environ[...], a flag helper. */
static int
reads_env(const char *text)
{
	static const char *const calls[] = { "pop(", "get(", "getenv(", "environ[", "env_flag(", NULL };
	struct buf b = BUF_INIT;
	int hit = 0;

	for (size_t i = 0; calls[i] && !hit; i++) {
		hit = has_literal(text, calls[i], "CMAKE_ONLY");
		/* the same with a blank after the parenthesis: os.environ.pop( "CMAKE_ONLY") */
		buf_reset(&b);
		buf_addf(&b, "%s ", calls[i]);
		hit = hit || has_literal(text, b.s, "CMAKE_ONLY");
	}
	buf_release(&b);
	return hit;
}

void
configure_contract_parse(const char *setup_py, const char *cmake_py, struct configure_contract *c)
{
	struct buf s = BUF_INIT, m = BUF_INIT;

	strip_comment_lines(setup_py ? setup_py : "", &s);
	strip_comment_lines(cmake_py ? cmake_py : "", &m);
	memset(c, 0, sizeof(*c));
	/*
	 * The variable where setup.py reads it, as the trees from 2.8 on
	 * document (their header: "CMAKE_ONLY=1  run cmake and stop"); the
	 * argument only where it is the only way (v2.6.0, v2.7.x).
	 */
	if (reads_env(s.s))
		c->only = CONFIGURE_ONLY_ENV;
	else if (has_literal(s.s, "", "--cmake-only"))
		c->only = CONFIGURE_ONLY_ARG;
	c->pops_env = has_literal(s.s, "pop(", "CMAKE_ONLY") || has_literal(s.s, "environ[", "CMAKE_ONLY]");
	c->forwards_cmake = has_literal(m.s, "", "CMAKE_");
	buf_release(&s);
	buf_release(&m);
}

int
configure_contract_read(const char *src_dir, const struct era_ops *era, struct configure_contract *c,
			struct buf *why)
{
	static const char *const helpers[] = { "tools/setup_helpers/env.py",
					       "tools/setup_helpers/build.py", NULL };
	struct buf setup = BUF_INIT, cmake = BUF_INIT, path = BUF_INIT;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (era->configure == ERA_CONFIGURE_CMAKE) {
		c->only = CONFIGURE_ONLY_CMAKE;
		return 0;
	}
	buf_addf(&path, "%s/setup.py", src_dir);
	if (read_file(&setup, path.s) < 0) {
		buf_addf(why, "cannot read '%s'", path.s);
		rc = -1;
		goto out;
	}
	/* Where later trees parse their flags: read with setup.py. */
	for (size_t i = 0; helpers[i]; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", src_dir, helpers[i]);
		if (path_exists(path.s))
			read_file(&setup, path.s);
	}
	buf_reset(&path);
	buf_addf(&path, "%s/tools/setup_helpers/cmake.py", src_dir);
	if (path_exists(path.s))
		read_file(&cmake, path.s);
	configure_contract_parse(setup.s, cmake.s, c);
	if (c->only == CONFIGURE_ONLY_UNKNOWN) {
		buf_addf(why, "'%s/setup.py' reads neither the argument --cmake-only nor the environment "
			 "variable CMAKE_ONLY, so it cannot be told to configure without building; "
			 "bwbuild runs no full build in the configure step", src_dir);
		rc = -1;
	}
out:
	buf_release(&setup);
	buf_release(&cmake);
	buf_release(&path);
	return rc;
}

void
configure_command(const struct configure_contract *c, const char *python, const char *src_dir,
		  const struct strvec *cmake, struct strvec *args, struct strvec *env)
{
	strvec_env_set(env, LAUNCH_ENV_PHASE, "configure");
	if (c->only == CONFIGURE_ONLY_CMAKE) {
		/* docs/design/pytorch.md §3, era C: what scikit-build-core runs first, in its pinned build-dir. */
		strvec_pushl(args, "cmake", "-S", src_dir, "-B", NULL);
		strvec_pushf(args, "%s/build", src_dir);
		strvec_pushl(args, "-G", "Ninja", NULL);
		/*
		 * The switches travel in the environment, which EnvVarForwarding
		 * reads here and again in scikit-build-core's configure; CMake's
		 * own CMAKE_* values (the read-back hook, needed at project()) as -D.
		 */
		for (size_t i = 0; i < cmake->n; i++)
			if (starts_with(cmake->v[i], "CMAKE_"))
				strvec_pushf(args, "-D%s", cmake->v[i]);
		/* scikit-build-core's default build type, so its own configure changes nothing. */
		if (strvec_env_find(cmake, "CMAKE_BUILD_TYPE", strlen("CMAKE_BUILD_TYPE")) < 0)
			strvec_push(args, "-DCMAKE_BUILD_TYPE=Release");
		return;
	}
	strvec_pushl(args, python, "setup.py", "build", NULL);
	if (c->only == CONFIGURE_ONLY_ARG)
		strvec_push(args, "--cmake-only");
	else
		strvec_env_set(env, "CMAKE_ONLY", "1");
}
