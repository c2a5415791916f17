/*
 * The build environment a tree asks for checked against b->python
 * (python_env_check, step.h): the compile step's check and the fetch of a
 * tree call it, so it is neither's. pyenv.c says what the tree asks for.
 * May include: core/, profile/, pipeline/pyenv.h, pipeline/step.h.
 */
#include "core/buf.h"
#include "core/diag.h"
#include "pipeline/pyenv.h"
#include "pipeline/step.h"
#include "profile/profile.h"

int
python_env_check(struct build *b, const char *src)
{
	const struct profile *p = &b->profile;
	struct pyenv e = PYENV_INIT;
	int rc = 0;

	if (pyenv_for(&e, p, b->python.s, src) < 0) {
		rc = p->python_path.str && e.n ? error_at(&p->python_path.loc, "%s", e.error.s) :
						 error("%s", e.error.s);
		goto out;
	}
	buf_reset(&b->pythonpath);
	/* What the tree asks of it met alone: it still needs its prefix to build wheels. */
	buf_addstr(&b->pythonpath, e.pythonpath.len ? e.pythonpath.s : b->wheel_prefix.s);
	if (e.pythonpath.len)
		note("python: %s with PYTHONPATH=%s (%s), for %s", b->python.s, e.pythonpath.s,
		     e.have.s, pyenv_first_hard(&e));
	for (size_t i = 0; i < e.soft.n; i++)
		note("python: %s has %s; not needed to start the build, which goes on",
		     b->python.s, e.soft.v[i]);
out:
	pyenv_release(&e);
	return rc;
}
