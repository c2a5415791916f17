#include "cli/cmd.h"
#include "core/diag.h"
#include "launch/launch.h"

static const char about[] =
	"The compiler launcher bwbuild sets as CMAKE_{C,CXX,CUDA}_COMPILER_LAUNCHER.\n"
	"It starts the compile only when it is first in line, a CPU slot is free and\n"
	"the memory reserved by running compiles plus its estimate fits the budget\n"
	"(a compile larger than the whole budget runs alone); it measures the peak\n"
	"memory of the compiler's whole process tree and learns it per source file.\n"
	"Configured by " LAUNCH_ENV_DIR ", " LAUNCH_ENV_BUDGET " (bytes),\n"
	LAUNCH_ENV_SLOTS " and " LAUNCH_ENV_ROOT "; without them it runs the compiler as\n"
	"it is. " LAUNCH_ENV_TABLE " names the learned table (else <dir>/peaks),\n"
	LAUNCH_ENV_SEED " the seed tables (':'-separated). CMake's probes (try-compiles,\n"
	"compiler identification) run at once and are never learned; with\n"
	LAUNCH_ENV_PHASE "=configure any other compile is refused (exit 1).\n"
	"Exits with the compiler's status (128+N when killed by signal N).\n";

int
cmd_launch(int argc, char **argv, const struct command *cmd)
{
	char **compiler = NULL;
	int ret;
	/* Everything from the compiler on is its own: never parsed as bwbuild's options. */
	const struct option options[] = {
		OPT_REST("compiler", &compiler, "COMPILER ARGS...",
			 "the compile command, run as given"),
		OPT_END(),
	};

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	return launch_run(compiler);
}
