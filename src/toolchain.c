#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "proc.h"
#include "strvec.h"
#include "toolchain.h"
#include "util.h"

/* The program NAME's value in the build's environment, else bwbuild's own, else `dflt`. */
static const char *
env_program(const struct strvec *env, const char *name, const char *dflt)
{
	const char *v = env ? strvec_env_get(env, name) : NULL;

	if (!v)
		v = getenv(name);
	return v && *v ? v : dflt;
}

static void
add_tool(struct toolchain *tc, const char *name, const char *program)
{
	struct tool *t = &tc->tools[tc->n++];
	struct proc p = PROC_INIT;
	struct buf out = BUF_INIT;
	char *path;

	/* "gcc -m64" style values: the program is the first word. */
	{
		char *first = xstrndup(program, strcspn(program, " \t"));

		path = strchr(first, '/') ? (access(first, X_OK) == 0 ? xstrdup(first) : NULL)
					  : find_program(first);
		free(first);
	}
	t->name = name;
	t->path = path ? path : xstrdup("");
	if (path) {
		strvec_push(&p.args, path);
		strvec_push(&p.args, "--version");
		if (proc_run_capture(&p, &out) == 0 && out.len) {
			/* nvcc's first line names no version: its "release X.Y, VX.Y.Z" line does. */
			const char *line = strstr(out.s, ", release ");

			while (line && line > out.s && line[-1] != '\n')
				line--;
			if (!line)
				line = out.s;
			t->version = xstrndup(line, strcspn(line, "\r\n"));
		}
		proc_release(&p);
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
	buf_release(&nvcc);
}

void
toolchain_release(struct toolchain *tc)
{
	for (size_t i = 0; i < tc->n; i++) {
		free(tc->tools[i].path);
		free(tc->tools[i].version);
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
