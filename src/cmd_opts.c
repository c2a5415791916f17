#include <string.h>

#include "build.h"
#include "cmd.h"
#include "diag.h"
#include "strvec.h"

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

int
opt_profile(int argc, char **argv, int *i, struct build_opts *o, struct strvec *sets)
{
	const char *v;
	int r;

	if (opt_flag(argv[*i], "--strict")) {
		o->r.strict = 1;
		return 1;
	}
	if ((r = opt_value(argc, argv, i, "--set", &v))) {
		if (r > 0)
			strvec_push(sets, v);
		return r;
	}
	if ((r = opt_value(argc, argv, i, "--profile", &o->r.profile)) ||
	    (r = opt_value(argc, argv, i, "--work", &o->r.work_dir)))
		return r;
	return 0;
}
