#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/answers.h"
#include "../../src/core/buf.h"
#include "../../src/core/proc.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/* Answers kept across runs: kept, found, never taken from a place others could plant. */

static int
entries(const char *dir)
{
	struct buf cmd = BUF_INIT;
	int n = 0;
	char line[64];
	FILE *f;

	buf_addf(&cmd, "ls -A '%s' 2>/dev/null | wc -l", dir);
	f = popen(cmd.s, "r");
	if (f && fgets(line, sizeof(line), f))
		n = atoi(line);
	if (f)
		pclose(f);
	buf_release(&cmd);
	return n;
}

void
t_answers(void)
{
	const char *tmp = t_tmpdir("answers");
	struct buf dir = BUF_INIT, out = BUF_INIT, link = BUF_INIT, path = BUF_INIT;

	buf_addf(&dir, "%s/answers", tmp);
	/* Nowhere set: nothing kept, nothing found. */
	answers_keep_in(NULL);
	answers_put("q", "a", 1);
	CHECK(answers_get("q", &out) == -1);
	/* <cache>/answers, made on the first answer; found again, appended to what out holds. */
	answers_keep_in(tmp);
	CHECK(answers_get("what version", &out) == -1);
	answers_put("what version", "1.2.3\n", 6);
	CHECK(entries(dir.s) == 1);
	buf_addstr(&out, ">");
	CHECK(answers_get("what version", &out) == 0);
	CHECK(!strcmp(out.s, ">1.2.3\n"));
	CHECK(answers_get("what version?", &out) == -1);
	/* Replaced whole; no temporary left. */
	answers_put("what version", "2.0\n", 4);
	buf_reset(&out);
	CHECK(answers_get("what version", &out) == 0 && !strcmp(out.s, "2.0\n"));
	CHECK(entries(dir.s) == 1);
	/* A directory others may write, or a link, is not used. */
	chmod(dir.s, 0777);
	buf_reset(&out);
	CHECK(answers_get("what version", &out) == -1);
	chmod(dir.s, 0755);
	/* ... nor a cache others may write. */
	chmod(tmp, 0777);
	CHECK(answers_get("what version", &out) == -1);
	chmod(tmp, 0755);
	CHECK(answers_get("what version", &out) == 0);
	buf_reset(&out);
	buf_addf(&link, "%s/elsewhere", tmp);
	CHECK(rename(dir.s, link.s) == 0 && symlink(link.s, dir.s) == 0);
	CHECK(answers_get("what version", &out) == -1);
	answers_put("planted", "x", 1);
	CHECK(entries(link.s) == 1);
	CHECK(unlink(dir.s) == 0 && rename(link.s, dir.s) == 0);
	/* A binary's answer about itself is kept; a script's is not (it may read anything). */
	CHECK(answers_program_fixed("/bin/sh") == 1);
	buf_addf(&path, "%s/tool.sh", tmp);
	t_put(tmp, "tool.sh", "#!/bin/sh\necho script 1.0\n", 1);
	CHECK(answers_program_fixed(path.s) == 0);
	CHECK(answers_program_fixed(NULL) == 0);
	{
		const char *argv[] = { path.s, "--version", NULL };
		int before = entries(dir.s);

		buf_reset(&out);
		CHECK(proc_query_kept(argv, &out) == 0 && !strcmp(out.s, "script 1.0\n"));
		CHECK(entries(dir.s) == before);
	}
	{
		const char *argv[] = { "/bin/sh", "-c", "echo kept", NULL };
		int before = entries(dir.s);

		buf_reset(&out);
		CHECK(proc_query_kept(argv, &out) == 0 && !strcmp(out.s, "kept\n"));
		CHECK(entries(dir.s) == before + 1);
	}
	answers_keep_in(NULL);
	buf_release(&dir);
	buf_release(&out);
	buf_release(&link);
	buf_release(&path);
}
