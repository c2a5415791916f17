#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "t.h"

int t_failures;
int t_checks;

const char *
t_write(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	mkdir("tests/tmp", 0777);
	mkdir("tests/tmp/unit", 0777);
	snprintf(path, sizeof(path), "tests/tmp/unit/%s", name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	return path;
}

int
main(void)
{
	t_arch();
	t_profile();
	t_fatbin();
	t_record();
	t_zip();
	t_plan();
	t_manifest();
	t_compat();
	t_manylinux();
	t_knowledge();
	t_cmakecache();
	t_era();
	t_patch();
	t_sources();
	t_options();
	printf("unit: %d checks, %d failed\n", t_checks, t_failures);
	return t_failures ? 1 : 0;
}
