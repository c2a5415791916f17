#include <stdio.h>
#include <stdlib.h>

#include "wheel/archs.h"
#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "core/json.h"
#include "core/strvec.h"

static const char about[] =
	"Which GPU targets each library really carries, as `cuobjdump --list-elf\n"
	"--list-ptx` would say, from the fatbin headers alone: per library the SASS and\n"
	"PTX targets with the number of fatbin entries for each, relocatable device code\n"
	"(__nv_relfatbin) apart. A FILE is an ELF library or a .fatbin; a DIR is searched\n"
	"for *.so and *.so.* (site-packages/torch, torch/lib); a WHEEL's libraries are\n"
	"read from inside it. Exit 1 when a library cannot be read, 2 when a path is\n"
	"not there or not a file, a directory or a wheel.\n";

static struct json *
counts_json(const struct target_counts *c)
{
	struct json *o = json_object();

	for (size_t i = 0; i < c->n; i++)
		json_set(o, c->v[i].name, json_number(c->v[i].n));
	return o;
}

static struct json *
report_json(const struct archs_report *r, int all)
{
	struct json *o = json_object(), *libs = json_array();
	struct strvec sass = STRVEC_INIT, ptx = STRVEC_INIT;

	for (size_t i = 0; i < r->n; i++) {
		const struct archs_lib *l = &r->libs[i];
		struct json *j, *rel;

		if (!l->has_cuda && !l->error && !all)
			continue;
		j = json_object();
		rel = json_object();
		json_set(j, "path", json_string(l->path));
		json_set(j, "containers", json_number(l->containers));
		json_set(j, "sass", counts_json(&l->sass));
		json_set(j, "ptx", counts_json(&l->ptx));
		json_set(rel, "containers", json_number(l->rel_containers));
		json_set(rel, "sass", counts_json(&l->rel_sass));
		json_set(rel, "ptx", counts_json(&l->rel_ptx));
		json_set(j, "relocatable", rel);
		json_set(j, "error", l->error ? json_string(l->error) : json_null());
		json_push(libs, j);
		for (size_t k = 0; k < l->sass.n; k++)
			strset_add(&sass, l->sass.v[k].name);
		for (size_t k = 0; k < l->ptx.n; k++)
			strset_add(&ptx, l->ptx.v[k].name);
	}
	json_set(o, "libraries", libs);
	json_set(o, "sass", json_string_array(sass.v, sass.n));
	json_set(o, "ptx", json_string_array(ptx.v, ptx.n));
	json_set(o, "elf_files", json_number((double)r->files));
	strvec_clear(&sass);
	strvec_clear(&ptx);
	return o;
}

static void
report_text(const struct archs_report *r, int all)
{
	struct strvec sass = STRVEC_INIT, ptx = STRVEC_INIT;
	struct buf line = BUF_INIT, esc = BUF_INIT;
	size_t cuda = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct archs_lib *l = &r->libs[i];

		if (l->error) {
			error("'%s': %s", l->path, l->error);
			continue;
		}
		if (!l->has_cuda) {
			if (all)
				diag_printf(stdout, "%s: no CUDA code\n", diag_name(&esc, l->path));
			continue;
		}
		cuda++;
		buf_reset(&line);
		target_counts_format(&l->sass, &line);
		diag_printf(stdout, "%s: %u container%s\n  SASS %s\n", diag_name(&esc, l->path),
			    l->containers, l->containers == 1 ? "" : "s", line.s);
		buf_reset(&line);
		target_counts_format(&l->ptx, &line);
		diag_printf(stdout, "  PTX  %s\n", line.s);
		if (l->rel_containers) {
			buf_reset(&line);
			target_counts_format(&l->rel_sass, &line);
			diag_printf(stdout, "  relocatable (%u container%s): SASS %s", l->rel_containers,
				    l->rel_containers == 1 ? "" : "s", line.s);
			buf_reset(&line);
			target_counts_format(&l->rel_ptx, &line);
			diag_printf(stdout, "; PTX %s\n", line.s);
		}
		for (size_t k = 0; k < l->sass.n; k++)
			strset_add(&sass, l->sass.v[k].name);
		for (size_t k = 0; k < l->ptx.n; k++)
			strset_add(&ptx, l->ptx.v[k].name);
	}
	buf_reset(&line);
	strvec_join(&sass, " ", &line);
	diag_printf(stdout, "%zu of %zu ELF files carry CUDA code; SASS %s; PTX ", cuda, r->files,
		    sass.n ? line.s : "none");
	buf_reset(&line);
	strvec_join(&ptx, " ", &line);
	diag_printf(stdout, "%s\n", ptx.n ? line.s : "none");
	buf_release(&line);
	buf_release(&esc);
	strvec_clear(&sass);
	strvec_clear(&ptx);
}

int
cmd_archs(int argc, char **argv, const struct command *cmd)
{
	struct strvec paths = STRVEC_INIT;
	unsigned threads = 0;
	int json = 0, all = 0, ret = EXIT_USAGE;
	const struct option options[] = {
		OPT_ARGS("path", &paths, "FILE|DIR|WHEEL",
			 "libraries, directories searched for them, or wheels"),
		OPT_FLAG(0, "json", &json, "print {libraries: [{path, sass: {target: entries}, "
			 "ptx, relocatable}], sass, ptx}"),
		OPT_FLAG(0, "all", &all, "list ELF files without CUDA code too"),
		OPT_UNSIGNED(0, "threads", &threads, "N", 1, 1024,
			     "read N libraries at once (default: every CPU)"),
		OPT_END(),
	};
	struct archs_report r;
	size_t failed = 0;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		goto out;
	/* A path that is not there is bad input: no "0 of 0" summary, as if there were nothing. */
	if (archs_scan(&r, paths.v, paths.n, threads) < 0) {
		archs_report_release(&r);
		goto out;
	}
	ret = EXIT_OK;
	for (size_t i = 0; i < r.n; i++)
		failed += r.libs[i].error != NULL;
	if (json) {
		struct json *j = report_json(&r, all);

		json_print_stdout(j);
		json_free(j);
		for (size_t i = 0; i < r.n; i++)
			if (r.libs[i].error)
				error("'%s': %s", r.libs[i].path, r.libs[i].error);
	} else {
		report_text(&r, all);
	}
	if (ret == EXIT_OK && failed)
		ret = EXIT_FAIL;
	archs_report_release(&r);
out:
	strvec_clear(&paths);
	return ret;
}
