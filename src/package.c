#include <dirent.h>
#include <stdio.h>

#include "diag.h"
#include "proc.h"
#include "step.h"
#include "util.h"

/*
 * The wheel step: `setup.py bdist_wheel` into <work>/dist (a
 * scikit-build-core tree made its wheel while compiling), then the one
 * wheel found there. It reaches --out only after verify (src/publish.c).
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

/*
 * setup.py's staging, build/lib.* and build/bdist.*, removed: after an
 * interrupted compile or wheel step a copy there may be cut short yet
 * newer than its source, which setup.py would take as up to date.
 */
static int
staging_reset(const char *src)
{
	struct buf dir = BUF_INIT, path = BUF_INIT;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	buf_addf(&dir, "%s/build", src);
	d = opendir(dir.s);
	while (d && (de = readdir(d))) {
		if (!starts_with(de->d_name, "lib.") && !starts_with(de->d_name, "bdist."))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir.s, de->d_name);
		if (remove_tree(path.s) < 0)
			rc = -1;
		else
			fprintf(stderr, "wheel: '%s' is made afresh: the last compile or wheel step "
				"did not finish\n", path.s);
	}
	if (d)
		closedir(d);
	buf_release(&dir);
	buf_release(&path);
	return rc;
}

int
package_run(struct build *b)
{
	struct buf dist = BUF_INIT;
	struct proc pr = PROC_INIT;
	int rc = 0;

	buf_addf(&dist, "%s/dist", b->plan.work_dir);
	if (b->era != ERA_SKBUILD) {
		rc = remove_tree(dist.s);
		/* Not in a --source tree: what is there may be the user's, not bwbuild's. */
		if (!rc && b->staging_stale && !b->plan.local_source)
			rc = staging_reset(b->plan.src_dir);
		step_env(&pr, b);
		strvec_pushl(&pr.args, b->python.s, "setup.py", "bdist_wheel", "-d", dist.s, NULL);
		pr.dir = b->plan.src_dir;
		if (!rc)
			rc = step_command("wheel", &b->plan, &pr);
	}
	if (!rc)
		rc = find_wheel(dist.s, &b->wheel);
	proc_release(&pr);
	buf_release(&dist);
	return rc;
}
