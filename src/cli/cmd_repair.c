#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "core/safefile.h"
#include "core/util.h"
#include "wheel/cudalibs.h"
#include "wheel/repair.h"

static const char about[] =
	"Make a wheel carry the shared libraries it needs from this machine, as\n"
	"auditwheel repair does (the build's repair step does the same): each library\n"
	"a member needs that is neither in the wheel nor on the manylinux or CUDA\n"
	"allow-lists is copied into <package>.libs/ under a soname made unique by its\n"
	"sha256, with what it needs in turn, and the members that need it get DT_NEEDED\n"
	"and a $ORIGIN-relative RUNPATH rewritten by patchelf. Libraries are looked up\n"
	"as the loader would (RUNPATH, LD_LIBRARY_PATH, /etc/ld.so.conf, the default\n"
	"directories). The repaired wheel (same file name) goes into DIR; a wheel that\n"
	"needs nothing is copied there as it is. Check it with 'bwbuild verify'.\n";

/* A scratch directory of this run's own, under $TMPDIR. */
static int
make_scratch(struct buf *dir)
{
	const char *tmp = getenv("TMPDIR");

	buf_addf(dir, "%s/bwbuild-repair.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir->s))
		return error("cannot make a temporary directory '%s':", dir->s);
	return 0;
}

int
cmd_repair(int argc, char **argv, const struct command *cmd)
{
	const char *wheel = NULL, *dir = "wheelhouse", *form = "pip";
	struct strvec requires = STRVEC_INIT;
	unsigned cuda = 0;
	const struct option options[] = {
		OPT_ARG("wheel", &wheel, "WHEEL", "the wheel to repair"),
		OPT_STRING('w', "wheel-dir", &dir, "DIR",
			   "where the repaired wheel goes (default: wheelhouse)"),
		OPT_STRING(0, "cuda-libs", &form, "FORM",
			   "CUDA's libraries: pip (Requires-Dist on nvidia-* and RUNPATH into "
			   "site-packages/nvidia; the default), vendor (copied in) or system"),
		OPT_UNSIGNED(0, "cuda", &cuda, "12|13", 12, 13,
			     "the CUDA major the wheel was built with (default: from the sonames "
			     "its libraries need)"),
		OPT_LIST(0, "require", &requires, "REQ",
			 "one more Requires-Dist value, such as 'triton==3.2.0' (repeatable)"),
		OPT_END(),
	};
	struct repair_opts o = { .ldconf = "/etc/ld.so.conf", .epoch = 315532800 };
	struct repair_result res;
	struct buf scratch = BUF_INIT, out = BUF_INIT, why = BUF_INIT, copy = BUF_INIT;
	struct buf name = BUF_INIT;
	int ret = EXIT_OK;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	ret = EXIT_USAGE;
	if (!is_regular(wheel)) {
		error("'%s' is not a file; give the path of a .whl", wheel);
		goto out;
	}
	if (source_date_epoch(&o.epoch) < 0)
		goto out;
	o.cuda_libs = cuda_libs_form_parse(form);
	if (o.cuda_libs < 0) {
		error("--cuda-libs is pip, vendor or system, not '%s'", form);
		goto out;
	}
	o.cuda_major = cuda;
	o.requires = &requires;
	o.ld_library_path = getenv("LD_LIBRARY_PATH");
	if (mkdir_p(dir) < 0 || make_scratch(&scratch) < 0)
		goto out;
	o.scratch = scratch.s;
	ret = EXIT_FAIL;
	if (wheel_repair(wheel, dir, &o, &res, &out, &why) < 0) {
		error("cannot repair '%s': %s", wheel, why.s);
		repair_result_release(&res);
		goto out;
	}
	for (size_t i = 0; i < res.n; i++) {
		struct buf e[3] = { BUF_INIT, BUF_INIT, BUF_INIT };

		diag_printf(stdout, "%s: from %s as %s\n", diag_name(&e[0], res.libs[i].soname),
			    diag_name(&e[1], res.libs[i].from), diag_name(&e[2], res.libs[i].member));
		for (size_t k = 0; k < ARRAY_SIZE(e); k++)
			buf_release(&e[k]);
	}
	for (size_t i = 0; i < res.ncuda; i++) {
		struct buf e = BUF_INIT;

		diag_printf(stdout, "%s: Requires-Dist %s, RUNPATH into %s (%s)\n",
			    diag_name(&e, res.cuda[i].soname), res.cuda[i].requirement, res.cuda[i].dir,
			    res.cuda[i].source);
		buf_release(&e);
	}
	for (size_t i = res.ncuda; i < res.requires.n; i++)
		diag_printf(stdout, "Requires-Dist %s\n", res.requires.v[i]);
	if (!res.rewritten) {
		char *a, *b;
		int same;

		buf_addf(&copy, "%s/%s", dir, path_tail(wheel));
		a = realpath(wheel, NULL);
		b = realpath(copy.s, NULL);
		same = a && b && !strcmp(a, b);
		free(a);
		free(b);
		/* Already where it goes: copying it onto itself would empty it. */
		if (!same && copy_file(wheel, copy.s) < 0)
			goto out;
		buf_reset(&out);
		buf_addstr(&out, copy.s);
		printf("nothing to copy in: every library the wheel needs is in it or on the "
		       "manylinux/CUDA allow-lists\n");
	}
	/* The path comes from the command line: a newline in it would forge a line (F2). */
	diag_printf(stdout, "wheel: %s\n", diag_name(&name, out.s));
	repair_result_release(&res);
	ret = EXIT_OK;
out:
	if (scratch.len)
		remove_tree(scratch.s);
	buf_release(&scratch);
	buf_release(&out);
	buf_release(&why);
	buf_release(&copy);
	buf_release(&name);
	strvec_clear(&requires);
	return ret;
}
