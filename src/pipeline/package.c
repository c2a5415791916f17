#include <dirent.h>
#include <stdio.h>

#include "pipeline/configure.h"
#include "core/diag.h"
#include "core/proc.h"
#include "pipeline/step.h"
#include "core/safefile.h"
#include "core/util.h"

/*
 * The wheel step: `setup.py bdist_wheel` into <work>/dist (a
 * scikit-build-core tree made its wheel while compiling), then the one
 * wheel found there. It reaches --out only after verify (src/pipeline/publish.c).
 */

/* The one .whl in dir into `out` (its path); -1 after reporting. */
static int
find_wheel(const char *dir, struct buf *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return error("cannot open '%s':", dir);
	while ((de = readdir(d))) {
		if (!ends_with(de->d_name, ".whl"))
			continue;
		n++;
		buf_reset(out);
		buf_addf(out, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n != 1)
		return error("expected one wheel in '%s', found %d", dir, n);
	return 0;
}

int
package_run(struct build *b)
{
	struct buf dist = BUF_INIT;
	struct proc pr = PROC_INIT;
	int rc = 0;

	buf_addf(&dist, "%s/dist", b->plan.work_dir);
	if (b->era->wheel_argv) {
		const struct era_cmd c = { b->python.s, b->plan.src_dir, b->plan.work_dir,
					   b->plan.jobs.jobs };

		rc = remove_tree(dist.s);
		/* Not in a --source tree: what is there may be the user's, not bwbuild's. */
		if (!rc && b->staging_stale && !b->plan.local_source)
			rc = setuptools_staging_remove(b->plan.src_dir, STEP_WHEEL);
		step_env(&pr, b);
		b->era->wheel_argv(&c, dist.s, &pr.args);
		pr.dir = b->plan.src_dir;
		if (!rc)
			rc = step_command(STEP_WHEEL, &b->plan, &pr);
	}
	if (!rc)
		rc = find_wheel(dist.s, &b->wheel);
	proc_release(&pr);
	buf_release(&dist);
	return rc;
}
