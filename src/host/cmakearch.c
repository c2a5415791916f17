/*
 * A tree's select_compute_arch.cmake asked through `cmake -P`
 * (cmakearch.h). data/helpers/selarch.cmake includes the file and calls
 * CUDA_SELECT_NVCC_ARCH_FLAGS per entry, catching its message(SEND_ERROR)
 * per entry; it answers one "bwarch:KIND\t..." line per fact on stderr,
 * read here (other lines, CMake's own, are left). The entries are
 * profile values that reach CMake as one -D list in argv, never a shell;
 * the profile's arch grammar (profile/arch.c) admits no ';'. May include:
 * core/, host/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/answers.h"
#include "core/buf.h"
#include "core/proc.h"
#include "core/strvec.h"
#include "core/util.h"
#include "host/cmakearch.h"

#define ANSWER_TIMEOUT 60

const char *const cmakearch_paths[] = {
	"cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake",
	"cmake/select_compute_arch.cmake",
	NULL,
};

static int
driver_path(struct buf *out)
{
	return data_find("data/helpers", "BWBUILD_HELPERS_PATH", "selarch.cmake", 0, out);
}

/* The tab-separated field k of `line` (n bytes) into out. */
static void
field(const char *line, size_t n, int k, struct buf *out)
{
	const char *p = line, *end = line + n;

	const char *t;

	buf_reset(out);
	while (k-- > 0 && p < end) {
		t = memchr(p, '\t', (size_t)(end - p));
		p = t ? t + 1 : end;
	}
	t = memchr(p, '\t', (size_t)(end - p));
	buf_add(out, p, (size_t)((t ? t : end) - p));
}

static void
words(const char *s, struct strvec *out)
{
	while (*s) {
		size_t n = strcspn(s, " ");

		if (n)
			strvec_pushf(out, "%.*s", (int)n, s);
		s += n + (s[n] == ' ');
	}
}

int
cmakearch_parse(struct cmakearch *r, const char *out)
{
	struct buf a = BUF_INIT, b = BUF_INIT, c = BUF_INIT;
	int answered = 0;

	for (const char *l = out; *l;) {
		size_t n = strcspn(l, "\n");

		if (n > 7 && !strncmp(l, "bwarch:", 7)) {
			const char *k = l + 7;
			size_t kn = n - 7;

			field(k, kn, 1, &a);
			field(k, kn, 2, &b);
			field(k, kn, 3, &c);
			if (!strncmp(k, "nofunc", 6)) {
				answered = 1;
			} else if (!strncmp(k, "lists\t", 6)) {
				answered = 1;
				r->has_function = 1;
				words(a.s, &r->all);
				words(b.s, &r->known);
			} else if (!strncmp(k, "from\t", 5)) {
				unsigned maj = 0, min = 0;

				if (sscanf(b.s, "%u.%u", &maj, &min) == 2)
					r->name_from = maj * 100 + min;
			} else if (!strncmp(k, "entry\t", 6)) {
				struct cmakearch_entry *e;

				ALLOC_GROW(r->v, r->n + 1, r->alloc);
				e = &r->v[r->n++];
				e->entry = xstrdup(a.s);
				e->flags = xstrdup(b.s);
				e->error = xstrdup(c.s);
			}
		}
		l += n + (l[n] == '\n');
	}
	buf_release(&a);
	buf_release(&b);
	buf_release(&c);
	return answered;
}

/*
 * The question a kept answer is filed under (answers.h): this cmake (a
 * binary: path and file identity), the contents of the tree's file and of
 * the driver, and the arguments. 0; -1 when the answer may not be kept:
 * a cmake that is a script, an unreadable file, or an "Auto" entry
 * (select_compute_arch.cmake then asks the GPUs of this machine).
 */
static int
kept_question(const struct strvec *args, const char *file, const char *script, struct buf *q)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	char *id;
	int rc = -1;

	buf_reset(q);
	for (size_t i = 1; i < args->n; i++) {
		const char *e = args->v[i];

		if (!starts_with(e, "-DBW_ENTRIES="))
			continue;
		for (e += 13; *e; e += strcspn(e, ";"), e += *e == ';')
			if (strcspn(e, ";") == 4 && !strncasecmp(e, "auto", 4))
				return -1;
	}
	if (!answers_program_fixed(args->v[0]) || sha256_file(file, &a) < 0 ||
	    sha256_file(script, &b) < 0)
		goto out;
	id = file_identity(args->v[0]);
	buf_addf(q, "select_compute_arch\n%s\n%s\n%s\n%s", args->v[0], id, a.s, b.s);
	free(id);
	/* The tree's file by its contents, not by the work directory it is in. */
	for (size_t i = 1; i < args->n; i++)
		if (!starts_with(args->v[i], "-DBW_FILE="))
			buf_addf(q, "\n%s", args->v[i]);
	rc = 0;
out:
	buf_release(&a);
	buf_release(&b);
	return rc;
}

int
cmakearch_run(struct cmakearch *r, const char *file, unsigned cuda,
	      const struct strvec *entries, const char *name, struct buf *why)
{
	struct proc p = PROC_INIT;
	struct buf script = BUF_INIT, out = BUF_INIT, list = BUF_INIT, question = BUF_INIT;
	char *cmake = find_program("cmake");
	int st, answered = 0, rc = -1;

	if (!cmake) {
		buf_addstr(why, "no cmake on PATH, which runs the tree's select_compute_arch.cmake "
			   "(cmake -P); scripts/deps.sh installs it (apt-get install cmake)");
		goto out;
	}
	if (driver_path(&script) < 0) {
		buf_addstr(why, "bwbuild's data/helpers/selarch.cmake is not installed (looked beside "
			   "the binary and in $BWBUILD_HELPERS_PATH)");
		goto out;
	}
	strvec_join(entries, ";", &list);
	strvec_pushl(&p.args, cmake, NULL);
	strvec_pushf(&p.args, "-DBW_FILE=%s", file);
	if (cuda)
		strvec_pushf(&p.args, "-DBW_CUDA=%u.%u", cuda / 100, cuda % 100);
	strvec_pushf(&p.args, "-DBW_ENTRIES=%s", list.s);
	if (name)
		strvec_pushf(&p.args, "-DBW_NAME=%s", name);
	strvec_pushl(&p.args, "-P", script.s, NULL);
	if (kept_question(&p.args, file, script.s, &question) == 0 &&
	    answers_get(question.s, &out) == 0) {
		if (cmakearch_parse(r, out.s)) {
			rc = 0;
			goto out;
		}
		cmakearch_release(r);
		buf_reset(&out);
	}
	/* the tree's CMake runs here: a loop in it must not hang a plan */
	p.silence_timeout = ANSWER_TIMEOUT;
	st = proc_run_capture(&p, &out);
	answered = cmakearch_parse(r, out.s);
	if (answered && !p.timed_out && question.len)
		answers_put(question.s, out.s, out.len);
	if (p.timed_out) {
		buf_addf(why, "%s -P %s said nothing for %d s and was stopped", cmake, script.s,
			 ANSWER_TIMEOUT);
	} else if (strstr(out.s, "or higher is required")) {
		buf_addf(why, "%s is older than 3.12, which runs the tree's select_compute_arch.cmake "
			 "for bwbuild (cmake -P); scripts/deps.sh installs a newer one", cmake);
	} else if (!answered) {
		buf_rtrim(&out);
		buf_addf(why, "%s -P %s gave no answer (exit %d)%s%.*s", cmake, script.s, st,
			 out.len ? ": " : "", (int)(out.len > 300 ? 300 : out.len), out.s);
	} else {
		rc = 0;
	}
out:
	proc_release(&p);
	buf_release(&script);
	buf_release(&out);
	buf_release(&list);
	buf_release(&question);
	free(cmake);
	return rc;
}

const struct cmakearch_entry *
cmakearch_find(const struct cmakearch *r, const char *entry)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].entry, entry))
			return &r->v[i];
	return NULL;
}

void
cmakearch_release(struct cmakearch *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].entry);
		free(r->v[i].flags);
		free(r->v[i].error);
	}
	free(r->v);
	strvec_clear(&r->all);
	strvec_clear(&r->known);
	memset(r, 0, sizeof(*r));
	strvec_init(&r->all);
	strvec_init(&r->known);
}
