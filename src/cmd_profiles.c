#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "diag.h"
#include "json.h"
#include "profile.h"
#include "strvec.h"
#include "util.h"

static const char usage_text[] =
	"usage: bwbuild profiles [--json]\n"
	"\n"
	"List the profiles 'bwbuild --profile NAME' can find, in search order:\n"
	"profiles/ here, bwbuild's own profiles/, then each directory of\n"
	"$BWBUILD_PROFILE_PATH. A name found twice is taken from the first place;\n"
	"later ones are marked shadowed. Each is loaded and validated.\n";

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
cmd_profiles(int argc, char **argv)
{
	struct strvec dirs = STRVEC_INIT, seen = STRVEC_INIT;
	struct json *list = json_array();
	int json = 0, i;
	size_t d;

	for (i = 1; i < argc; i++) {
		if (opt_flag(argv[i], "--help") || opt_flag(argv[i], "-h")) {
			fputs(usage_text, stdout);
			json_free(list);
			return EXIT_OK;
		}
		if (opt_flag(argv[i], "--json")) {
			json = 1;
			continue;
		}
		json_free(list);
		return opt_unknown("profiles", argv[i]);
	}
	profile_search_path(&dirs);
	for (d = 0; d < dirs.n; d++) {
		struct strvec files = STRVEC_INIT;
		struct dirent *de;
		char *real = realpath(dirs.v[d], NULL);
		DIR *dir = real ? opendir(real) : NULL;
		size_t k;

		/* The same directory reached twice (profiles/ here is bwbuild's own) is listed once. */
		if (!dir || strset_has(&seen, real)) {
			if (dir)
				closedir(dir);
			free(real);
			continue;
		}
		strvec_push(&seen, real);
		while ((de = readdir(dir)))
			if (ends_with(de->d_name, ".yaml") && de->d_name[0] != '.')
				strvec_push(&files, de->d_name);
		closedir(dir);
		qsort(files.v, files.n, sizeof(*files.v), by_name);
		for (k = 0; k < files.n; k++) {
			struct buf path = BUF_INIT, name = BUF_INIT;
			struct profile p;
			struct json *o = json_object();
			int ok, shadowed;
			size_t q;

			buf_addf(&path, "%s/%s", real, files.v[k]);
			buf_add(&name, files.v[k], strlen(files.v[k]) - 5);
			shadowed = 0;
			for (q = 0; q < json_len(list); q++)
				if (!strcmp(json_str(json_get(json_at(list, q), "name")), name.s))
					shadowed = 1;
			diag_quiet++;
			ok = profile_load(&p, path.s) == 0;
			diag_quiet--;
			json_set(o, "name", json_string(name.s));
			json_set(o, "path", json_string(path.s));
			json_set(o, "description", ok && p.description.str ?
						   json_string(p.description.str) : json_null());
			json_set(o, "valid", json_bool(ok));
			json_set(o, "shadowed", json_bool(shadowed));
			if (!json)
				printf("%-16s %s%s%s\n%-16s   %s\n", name.s,
				       ok && p.description.str ? p.description.str : "",
				       ok ? "" : "(invalid: run 'bwbuild plan --profile' on it)",
				       shadowed ? " [shadowed]" : "", "", path.s);
			json_push(list, o);
			profile_release(&p);
			buf_release(&path);
			buf_release(&name);
		}
		strvec_clear(&files);
		free(real);
	}
	if (json) {
		json_print_stdout(list);
	}
	json_free(list);
	strvec_clear(&dirs);
	strvec_clear(&seen);
	return EXIT_OK;
}
