#include <string.h>

#include "cmd.h"
#include "diag.h"

int
opt_value(int argc, char **argv, int *i, const char *name, const char **out)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*out = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		error("option '%s' needs a value", name);
		return -1;
	}
	*out = argv[++*i];
	return 1;
}

int
opt_flag(const char *arg, const char *name)
{
	return !strcmp(arg, name);
}

int
opt_unknown(const char *cmd, const char *arg)
{
	if (arg[0] == '-')
		error("unknown option '%s'; see 'bwbuild %s --help'", arg, cmd);
	else
		error("unexpected argument '%s'; see 'bwbuild %s --help'", arg, cmd);
	return EXIT_USAGE;
}
