/*
 * Where a compile runs (build.remote): which commands distcc may take to
 * another machine, which host gets one, and the distcc command and
 * settings for it. distcc itself picks nothing: it gets one host and
 * DISTCC_FALLBACK=0, so a compile never falls back to this machine behind
 * the launcher's back (outside the memory budget); a host that fails is
 * marked down by the launcher and the compile runs here instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "launch/ccache.h"
#include "launch/launch.h"
#include "launch/remote.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"


/* gcc, g++, cc, c++, clang, clang++, with a -N version or a target triple before. */
static int
host_compiler(const char *path)
{
	static const char *const names[] = { "gcc", "g++", "cc", "c++", "clang", "clang++", NULL };
	const char *b = path_tail(path);
	size_t n = strlen(b);

	/* x86_64-linux-gnu-g++-12: the name after the last triple part, the version dropped. */
	while (n && strchr("0123456789.", b[n - 1]))
		n--;
	if (n && b[n - 1] == '-')
		n--;
	for (size_t i = 0; names[i]; i++) {
		size_t k = strlen(names[i]);

		if (n >= k && !strncmp(b + n - k, names[i], k) && (n == k || b[n - k - 1] == '-'))
			return 1;
	}
	return 0;
}

static int
c_source(const char *a)
{
	return ends_with(a, ".c") || ends_with(a, ".cc") || ends_with(a, ".cpp") ||
	       ends_with(a, ".cxx") || ends_with(a, ".C") || ends_with(a, ".c++");
}

int
launch_remote_capable(char *const *argv)
{
	size_t c = 0, sources = 0;
	int compile = 0;

	if (!argv[0])
		return 0;
	if (ccache_tool(argv[0]) == CACHE_CCACHE)
		c = 1;
	if (!argv[c] || !host_compiler(argv[c]))
		return 0;
	for (size_t i = c + 1; argv[i]; i++) {
		static const char *const with_arg[] = { "-o", "-MF", "-MT", "-MQ", "-include", "-imacros",
							"-isystem", "-iquote", "-idirafter", "-I", "-D",
							"-U", "-Xpreprocessor", NULL };
		const char *a = argv[i];
		int skip = 0;

		for (size_t k = 0; with_arg[k]; k++)
			if (!strcmp(a, with_arg[k]))
				skip = 1;
		if (skip) {
			i += argv[i + 1] != NULL;
			continue;
		}
		if (!strcmp(a, "-c"))
			compile = 1;
		else if (!strcmp(a, "-E") || !strcmp(a, "-S") || !strcmp(a, "-") ||
			 !strcmp(a, "-fsyntax-only") || starts_with(a, "-x"))
			return 0; /* preprocessing, assembly, stdin, another language: here */
		else if (a[0] != '-' && (ends_with(a, ".cu") || ends_with(a, ".o") || ends_with(a, ".a") ||
					 ends_with(a, ".so")))
			return 0; /* CUDA, or a link */
		else if (a[0] != '-' && c_source(a))
			sources++;
	}
	return compile && sources == 1;
}

int
launch_remote_failed(int exit_status)
{
	return exit_status >= 100 && exit_status <= 127;
}

void
launch_remote_command(char *const *argv, const char *host, const char *dir, struct strvec *out,
		      struct strvec *env)
{
	const char *distcc = getenv(LAUNCH_ENV_DISTCC);
	struct buf b = BUF_INIT;

	if (!distcc || !*distcc)
		distcc = "distcc";
	/* ccache runs distcc only on a miss: a unit cached anywhere is never compiled again. */
	if (ccache_tool(argv[0]) == CACHE_CCACHE)
		strvec_env_set(env, "CCACHE_PREFIX", distcc);
	else
		strvec_push(out, distcc);
	for (size_t i = 0; argv[i]; i++)
		strvec_push(out, argv[i]);
	strvec_env_set(env, "DISTCC_HOSTS", host);
	/* No silent compile here when the host fails: distcc exits 116 and the launcher decides. */
	strvec_env_set(env, "DISTCC_FALLBACK", "0");
	/* A compile error is the source's: not compiled again here, outside the budget. */
	strvec_env_set(env, "DISTCC_SKIP_LOCAL_RETRY", "1");
	/*
	 * distcc's own backoff stays: with DISTCC_BACKOFF_PERIOD=0 a refused
	 * connection is retried at once, without end (distcc 3.4 aborts out
	 * of descriptors); with it, it exits 116 and the launcher marks the host down.
	 */
	buf_addf(&b, "%s/distcc", dir);
	if (mkdir_in(dir, "distcc", 1) == 0)
		strvec_env_set(env, "DISTCC_DIR", b.s);
	buf_release(&b);
}
