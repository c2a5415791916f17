#include "cli/cmd.h"
#include "core/diag.h"

int
cmd_parse(const struct command *cmd, const char *about, const struct option *opts,
	  int argc, char **argv, int *status)
{
	const struct opt_command oc = {
		.name = cmd->name,
		.about = about,
		.required = cmd->flags & CMD_NEEDS_PROFILE ? "profile" : NULL,
		.is_default = (cmd->flags & CMD_DEFAULT) != 0,
	};

	switch (parse_options(argc, argv, &oc, opts)) {
	case PARSE_OK:
		return 0;
	case PARSE_HELP:
		*status = EXIT_OK;
		return 1;
	default:
		*status = EXIT_USAGE;
		return 1;
	}
}
