/*
 * The long pole's command: how many of the idle cores a CUDA compile
 * could use, and the nvcc flags that use them (pole.h). Which compile
 * gets them is admit.c's (launch_pole_cores); launch.c runs it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/strvec.h"
#include "core/util.h"
#include "launch/ccache.h"
#include "launch/launch.h"
#include "launch/peaks.h"
#include "launch/pole.h"

/* Where nvcc is in the command (0, or 1 behind ccache), or -1 when it is not nvcc. */
static int
nvcc_at(char *const *argv)
{
	int at = ccache_tool(argv[0]) == CACHE_CCACHE ? 1 : 0;

	return argv[0] && argv[at] && !strcmp(path_tail(argv[at]), "nvcc") ? at : -1;
}

unsigned
launch_pole_want(char *const *argv, const char *times, const char *key, const char *pkey, unsigned slots,
	  unsigned *gencodes)
{
	const char *split = getenv(LAUNCH_ENV_SPLIT);
	int at = nvcc_at(argv);
	uint64_t plain, pole;
	int own_threads = 0;

	*gencodes = 0;
	if (at < 0)
		return 1;
	for (size_t i = (size_t)at + 1; argv[i]; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-gencode") || !strcmp(a, "--generate-code") ||
		    starts_with(a, "-gencode=") || starts_with(a, "--generate-code="))
			(*gencodes)++;
		else if (!strcmp(a, "-t") || starts_with(a, "--threads"))
			own_threads = 1;
		else if (starts_with(a, "-split-compile") || starts_with(a, "--split-compile"))
			return 1;
	}
	/* Its own --threads stands: launch_pole_args then adds no --threads of its own. */
	if (own_threads)
		*gencodes = 1;
	plain = peaks_get(times, key);
	pole = peaks_get(times, pkey);
	if (plain && pole && pole * 10 >= plain * 9)
		return 1;
	if (split && !strcmp(split, "on"))
		return slots;
	return *gencodes > 1 ? *gencodes : 1;
}

void
launch_pole_args(char *const *argv, unsigned cores, unsigned gencodes, struct strvec *out, struct buf *said)
{
	const char *split = getenv(LAUNCH_ENV_SPLIT);
	unsigned threads = gencodes > 1 ? (gencodes < cores ? gencodes : cores) : 1;
	unsigned parts = split && !strcmp(split, "on") ? cores / threads : 1;
	int at = nvcc_at(argv);

	for (int i = 0; argv[i]; i++) {
		strvec_push(out, argv[i]);
		if (i != at)
			continue;
		if (threads > 1) {
			strvec_pushf(out, "--threads=%u", threads);
			buf_addf(said, " --threads=%u", threads);
		}
		if (parts > 1) {
			strvec_pushf(out, "--split-compile=%u", parts);
			buf_addf(said, " --split-compile=%u", parts);
		}
	}
}
