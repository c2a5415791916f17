/*
 * bwbuild-launch: `bwbuild launch` as a program of its own, the one CMake
 * runs in front of every compiler. bwbuild itself loads two dozen shared
 * libraries (libgit2 and what it brings) before main: a third of a
 * launch's CPU when it ran thousands of times a build (issue 43). This one
 * is linked statically from the launcher's objects alone.
 * usage: bwbuild-launch [--] COMPILER ARGS...
 */
#include <stdio.h>
#include <string.h>

#include "launch/launch.h"

int
main(int argc, char **argv)
{
	argv++;
	if (argc > 1 && !strcmp(*argv, "--"))
		argv++;
	if (!*argv) {
		fputs("usage: bwbuild-launch [--] COMPILER ARGS...\n", stderr);
		return 129;
	}
	return launch_run(argv);
}
