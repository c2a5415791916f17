#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/git.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * Fixture code the suites share (not a suite: the Makefile compiles this
 * file beside t_main.c, and only tests/unit/t_*.c files register one).
 */

void
t_put(const char *dir, const char *rel, const char *text, int exec)
{
	struct buf p = BUF_INIT;

	buf_addf(&p, "%s/%s", dir, rel);
	remove(p.s);
	if (mkdir_p_parent(p.s) < 0 || write_file_atomic(p.s, text, strlen(text)) < 0 ||
	    (exec && chmod(p.s, 0755) < 0))
		exit(1);
	buf_release(&p);
}

int
t_git_sh(const char *dir, const char *script)
{
	struct buf cmd = BUF_INIT;
	int rc;

	buf_addf(&cmd, "cd %s && export GIT_CONFIG_NOSYSTEM=1 HOME=%s GIT_AUTHOR_NAME=t "
		       "GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t "
		       "GIT_COMMITTER_EMAIL=t@example.invalid GIT_ALLOW_PROTOCOL=file && (%s) >/dev/null 2>&1",
		 dir, dir, script);
	rc = system(cmd.s);
	buf_release(&cmd);
	return rc;
}

char *
t_env_save(const char *name)
{
	return getenv(name) ? xstrdup(getenv(name)) : NULL;
}

int
t_repo_checkout(const char *dir, const char *up, struct repo_checkout_opts *o, struct repo_tree_info *ti,
		const char **err)
{
	struct buf url = BUF_INIT, work = BUF_INIT, cache = BUF_INIT;
	struct repo_tree_info own;
	int rc;

	if (up) {
		buf_addf(&url, "%s/%s", dir, up);
		o->url = url.s;
	}
	buf_addf(&work, "%s/work", dir);
	buf_addf(&cache, "%s/cache", dir);
	o->dir = work.s;
	o->cache_dir = cache.s;
	if (!ti)
		ti = &own;
	memset(ti, 0, sizeof(*ti));
	t_stderr_begin();
	rc = repo_checkout(o, ti);
	*err = t_stderr_end();
	if (ti == &own)
		repo_tree_info_release(&own);
	o->dir = o->cache_dir = NULL;
	if (up)
		o->url = NULL;
	buf_release(&url);
	buf_release(&work);
	buf_release(&cache);
	return rc;
}

void
t_env_restore(const char *name, char *old)
{
	if (old)
		setenv(name, old, 1);
	else
		unsetenv(name);
	free(old);
}

int
t_has_error(const struct wheel_report *r, const char *what)
{
	for (size_t i = 0; i < r->errors.n; i++)
		if (strstr(r->errors.v[i], what))
			return 1;
	return 0;
}

int
t_wheel_in(const char *dir, struct buf *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	while (d && (de = readdir(d)))
		if (ends_with(de->d_name, ".whl")) {
			buf_reset(out);
			buf_addf(out, "%s/%s", dir, de->d_name);
			found = 1;
		}
	if (d)
		closedir(d);
	return found;
}

int
t_rejected(const char *name, const char *rule, const struct wheel_expect *ex)
{
	struct buf d = BUF_INIT, whl = BUF_INIT;
	struct wheel_report r;
	int ok = 0, rc;

	buf_addf(&d, "%s/bad/%s", t_wheels(), name);
	t_wheel_in(d.s, &whl);
	if (whl.len) {
		t_stderr_begin();
		rc = wheel_verify(&r, whl.s, ex);
		t_stderr_end();
		if (rc == 0) {
			ok = t_has_error(&r, rule);
			if (!ok)
				fprintf(stderr, "%s: no error with '%s'\n", name, rule);
			wheel_report_release(&r);
		} else {
			/* not readable as a zip at all: refused outright, a rejection too */
			ok = !strcmp(rule, "(zip hygiene)");
		}
	}
	buf_release(&d);
	buf_release(&whl);
	return ok;
}
