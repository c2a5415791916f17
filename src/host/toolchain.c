#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/proc.h"
#include "host/python.h"
#include "core/strvec.h"
#include "host/toolchain.h"
#include "core/util.h"

/*
 * The program NAME's value in the build's environment, else bwbuild's own,
 * else `dflt`. An extension's CC/CXX are launcher wrappers (step.c): the
 * tool is the compiler they run, LAUNCHED_CC/LAUNCHED_CXX.
 */
static const char *
env_program(const struct strvec *env, const char *name, const char *dflt)
{
	char launched[32];
	const char *v;

	snprintf(launched, sizeof(launched), "LAUNCHED_%s", name);
	v = env ? strvec_env_get(env, launched) : NULL;
	if (!v)
		v = env ? strvec_env_get(env, name) : NULL;

	if (!v)
		v = getenv(name);
	return v && *v ? v : dflt;
}

/* Where a tool is, without running it: "gcc -m64" style values name the program first. */
static struct tool *
locate_tool(struct toolchain *tc, const char *name, const char *program)
{
	struct tool *t = &tc->tools[tc->n++];
	char *first = xstrndup(program, strcspn(program, " \t"));
	char *path = strchr(first, '/') ? (access(first, X_OK) == 0 ? xstrdup(first) : NULL)
					: find_program(first);

	free(first);
	t->name = name;
	t->path = path ? path : xstrdup("");
	t->id_path = xstrdup(t->path);
	t->identity = file_identity(t->id_path);
	return t;
}

static void add_setuptools(struct toolchain *tc, const struct strvec *env);

static void
add_tool(struct toolchain *tc, const char *name, const char *program)
{
	struct tool *t = locate_tool(tc, name, program);
	const char *argv[] = { t->path, "--version", NULL };
	struct buf out = BUF_INIT;

	if (*t->path) {
		if (proc_query_kept(argv, &out) == 0 && out.len) {
			/* nvcc's first line names no version: its "release X.Y, VX.Y.Z" line does. */
			const char *line = strstr(out.s, ", release ");

			while (line && line > out.s && line[-1] != '\n')
				line--;
			if (!line)
				line = out.s;
			t->version = xstrndup(line, strcspn(line, "\r\n"));
		}
	}
	if (!t->version)
		t->version = xstrdup("");
	buf_release(&out);
}

void
toolchain_probe(struct toolchain *tc, const struct strvec *env, const char *cuda_home,
		const char *python)
{
	struct buf nvcc = BUF_INIT;
	const char *cxx = env_program(env, "CXX", "c++");

	memset(tc, 0, sizeof(*tc));
	add_tool(tc, "cc", env_program(env, "CC", "cc"));
	add_tool(tc, "c++", cxx);
	add_tool(tc, "cudahostcxx", env_program(env, "CUDAHOSTCXX", cxx));
	buf_addf(&nvcc, "%s/bin/nvcc", cuda_home ? cuda_home : "/usr/local/cuda");
	add_tool(tc, "nvcc", nvcc.s);
	add_tool(tc, "cmake", "cmake");
	add_tool(tc, "ninja", "ninja");
	add_tool(tc, "python", python && *python ? python : "python3");
	add_setuptools(tc, env);
	buf_release(&nvcc);
}

/* setuptools makes the wheel: its version, and its __init__.py to tell an upgrade by. */
static void
add_setuptools(struct toolchain *tc, const struct strvec *env)
{
	const struct tool *py = &tc->tools[tc->n - 1];
	struct tool *t = &tc->tools[tc->n++];
	struct python_setuptools st = PYTHON_SETUPTOOLS_INIT;
	/* the build's own: a prefix first on its PYTHONPATH may bring a newer one (pyenv.h) */
	const char *path = env ? strvec_env_get(env, "PYTHONPATH") : NULL;
	int known = *py->path && python_setuptools(py->path, path, &st) == 0 && st.file.len;

	t->name = "setuptools";
	t->path = xstrdup(known ? st.file.s : "");
	t->version = xstrdup(known ? st.version.s : "");
	t->id_path = xstrdup(t->path);
	t->identity = file_identity(t->id_path);
	python_setuptools_release(&st);
}

void
toolchain_release(struct toolchain *tc)
{
	for (size_t i = 0; i < tc->n; i++) {
		free(tc->tools[i].path);
		free(tc->tools[i].version);
		free(tc->tools[i].id_path);
		free(tc->tools[i].identity);
	}
	memset(tc, 0, sizeof(*tc));
}

void
toolchain_text(const struct toolchain *tc, struct buf *out)
{
	for (size_t i = 0; i < tc->n; i++)
		buf_addf(out, "tool %s %s %s\n", tc->tools[i].name,
			 *tc->tools[i].path ? tc->tools[i].path : "(none)", tc->tools[i].version);
}

struct json *
toolchain_json(const struct toolchain *tc)
{
	struct json *o = json_object();

	for (size_t i = 0; i < tc->n; i++) {
		struct json *t = json_object();

		json_set(t, "path", *tc->tools[i].path ? json_string(tc->tools[i].path) : json_null());
		json_set(t, "version", json_string(tc->tools[i].version));
		json_set(o, tc->tools[i].name, t);
	}
	return o;
}

struct json *
toolchain_identity_json(const struct toolchain *tc)
{
	struct json *o = json_object();

	for (size_t i = 0; i < tc->n; i++) {
		struct json *t = json_object();

		json_set(t, "path", json_string(tc->tools[i].path));
		json_set(t, "version", json_string(tc->tools[i].version));
		json_set(t, "id_path", json_string(tc->tools[i].id_path));
		json_set(t, "identity", json_string(tc->tools[i].identity));
		json_set(o, tc->tools[i].name, t);
	}
	return o;
}

/* A tool as `known` has it, if its path and identity are unchanged; 0 when they are. */
static int
recall(struct tool *t, const struct json *known)
{
	const struct json *k = json_get(known, t->name);
	const char *path = json_str(json_get(k, "path")), *id = json_str(json_get(k, "identity"));
	const char *version = json_str(json_get(k, "version"));

	t->version = xstrdup(version ? version : "");
	return path && id && version && !strcmp(path, t->path) && !strcmp(id, t->identity) ? 0 : 1;
}

int
toolchain_recall(struct toolchain *tc, const struct strvec *env, const char *cuda_home,
		 const char *python, const struct json *known)
{
	struct buf nvcc = BUF_INIT;
	const char *cxx = env_program(env, "CXX", "c++");
	const struct json *st = json_get(known, "setuptools");
	struct tool *t;
	int changed = 0;

	memset(tc, 0, sizeof(*tc));
	buf_addf(&nvcc, "%s/bin/nvcc", cuda_home ? cuda_home : "/usr/local/cuda");
	changed |= recall(locate_tool(tc, "cc", env_program(env, "CC", "cc")), known);
	changed |= recall(locate_tool(tc, "c++", cxx), known);
	changed |= recall(locate_tool(tc, "cudahostcxx", env_program(env, "CUDAHOSTCXX", cxx)), known);
	changed |= recall(locate_tool(tc, "nvcc", nvcc.s), known);
	changed |= recall(locate_tool(tc, "cmake", "cmake"), known);
	changed |= recall(locate_tool(tc, "ninja", "ninja"), known);
	changed |= recall(locate_tool(tc, "python", python && *python ? python : "python3"), known);
	/* setuptools is where it was last time, if its __init__.py is unchanged. */
	t = &tc->tools[tc->n++];
	t->name = "setuptools";
	t->path = xstrdup(json_str(json_get(st, "path")) ? json_str(json_get(st, "path")) : "");
	t->id_path = xstrdup(t->path);
	t->identity = file_identity(t->id_path);
	changed |= recall(t, known) || !*t->path;
	buf_release(&nvcc);
	return changed;
}
