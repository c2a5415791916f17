#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "proc.h"
#include "python.h"
#include "util.h"

int
python_imports(const char *py, const char *modules)
{
	struct proc p = PROC_INIT;
	struct buf code = BUF_INIT;
	int st;

	buf_addf(&code, "import %s", modules);
	strvec_push(&p.args, py);
	strvec_push(&p.args, "-c");
	strvec_push(&p.args, code.s);
	p.quiet = 1;
	st = proc_run(&p);
	proc_release(&p);
	buf_release(&code);
	return st == 0;
}

static int
can_build_wheels(const char *py)
{
	return python_imports(py, "setuptools, wheel");
}

static int
try_candidate(struct buf *out, const char *py, struct buf *why)
{
	if (access(py, X_OK) < 0) {
		buf_addf(why, "  %s: not executable\n", py);
		return 0;
	}
	if (!can_build_wheels(py)) {
		buf_addf(why, "  %s: cannot import setuptools and wheel\n", py);
		return 0;
	}
	buf_reset(out);
	buf_addstr(out, py);
	return 1;
}

int
python_find(struct buf *out, const char *preferred, struct buf *why)
{
	const char *path = getenv("PATH");
	char *copy, *tok, *save = NULL;
	int found = 0;

	if (preferred)
		return try_candidate(out, preferred, why) ? 0 : -1;
	copy = xstrdup(path ? path : "/usr/bin:/bin");
	for (tok = strtok_r(copy, ":", &save); tok && !found; tok = strtok_r(NULL, ":", &save)) {
		struct buf c = BUF_INIT;

		buf_addf(&c, "%s/python3", *tok ? tok : ".");
		if (access(c.s, X_OK) == 0)
			found = try_candidate(out, c.s, why);
		buf_release(&c);
	}
	free(copy);
	if (!found)
		found = try_candidate(out, "/usr/bin/python3", why);
	return found ? 0 : -1;
}
