#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "diag.h"
#include "launch.h"

static const char usage_text[] =
	"usage: bwbuild launch -- COMPILER ARGS...\n"
	"\n"
	"The compiler launcher bwbuild sets as CMAKE_{C,CXX,CUDA}_COMPILER_LAUNCHER.\n"
	"It starts the compile only when it is first in line, a CPU slot is free and\n"
	"the memory reserved by running compiles plus its estimate fits the budget\n"
	"(a compile larger than the whole budget runs alone); it measures the peak\n"
	"memory of the compiler's whole process tree and learns it per source file.\n"
	"Configured by " LAUNCH_ENV_DIR ", " LAUNCH_ENV_BUDGET " (bytes), " LAUNCH_ENV_SLOTS
	"\nand " LAUNCH_ENV_ROOT "; without them it runs the compiler as it is.\n"
	"Exits with the compiler's status (128+N when killed by signal N).\n";

int
cmd_launch(int argc, char **argv)
{
	int i = 1;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc) {
		error("no compiler given (usage: bwbuild launch -- COMPILER ARGS...)");
		return EXIT_USAGE;
	}
	return launch_run(argv + i);
}
