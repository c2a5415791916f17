/*
 * Patches rewritten, not applied (patch.h): the reverse of a patch
 * (what undoes it) and its hunks moved to where their old lines really
 * are in a tree of another release. May include: core/, sources/patch.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/buf.h"
#include "core/diag.h"
#include "core/hash.h"
#include "sources/patch.h"
#include "core/util.h"

/* "@@ -a,b +c,d @@ rest" -> "@@ -c,d +a,b @@ rest" */
static void
reverse_hunk_header(const char *line, size_t n, struct buf *out)
{
	const char *minus = memchr(line, '-', n), *plus, *close;

	if (!minus || !(plus = memchr(minus, '+', n - (size_t)(minus - line))) || plus < minus + 2 ||
	    !(close = memmem(plus, (size_t)(line + n - plus), " @@", 3))) {
		buf_add(out, line, n);
		return;
	}
	buf_addstr(out, "@@ -");
	buf_add(out, plus + 1, (size_t)(close - plus - 1));
	buf_addstr(out, " +");
	buf_add(out, minus + 1, (size_t)(plus - minus - 2));
	buf_add(out, close, (size_t)(line + n - close));
}

/* After one block of a binary patch: its "literal N" line, its data lines and the empty line. */
static const char *
binary_block_end(const char *q, const char *end)
{
	int first = 1;

	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t n = nl ? (size_t)(nl - q) : (size_t)(end - q);

		q += n + (nl ? 1 : 0);
		if (!n && !first)
			break;
		first = 0;
	}
	return q;
}

void
patch_reverse(const char *text, size_t len, struct buf *out)
{
	const char *p = text, *end = text + len;
	int in_hunk = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n >= 11 && !strncmp(p, "diff --git ", 11)) {
			const char *b = n > 13 ? memmem(p + 13, n - 13, " b/", 3) : NULL;

			in_hunk = 0;
			if (b && !strncmp(p, "diff --git a/", 13)) {
				buf_addstr(out, "diff --git a/");
				buf_add(out, b + 3, (size_t)(p + n - b - 3));
				buf_addstr(out, " b/");
				buf_add(out, p + 13, (size_t)(b - p - 13));
			} else {
				buf_add(out, p, n);
			}
		} else if (!in_hunk && n >= 4 && !strncmp(p, "--- ", 4) && nl && end - (nl + 1) >= 4 &&
			   !memcmp(nl + 1, "+++ ", 4)) {
			/* swap the two names, keeping each side's a/ or b/ prefix */
			const char *q = nl + 1, *qnl = memchr(q, '\n', (size_t)(end - q));
			size_t qn = qnl ? (size_t)(qnl - q) : (size_t)(end - q);
			const char *oldname = p + 4, *newname = q + 4;
			size_t on = n - 4, nn = qn - 4;

			buf_addstr(out, "--- ");
			if (nn >= 2 && !strncmp(newname, "b/", 2))
				buf_addf(out, "a/%.*s", (int)(nn - 2), newname + 2);
			else
				buf_add(out, newname, nn);
			buf_addstr(out, "\n+++ ");
			if (on >= 2 && !strncmp(oldname, "a/", 2))
				buf_addf(out, "b/%.*s", (int)(on - 2), oldname + 2);
			else
				buf_add(out, oldname, on);
			p = q;
			n = qn;
			nl = qnl;
		} else if (!in_hunk && n == 16 && !strncmp(p, "GIT binary patch", 16) && nl) {
			/* the forward and the reverse block change places */
			const char *b1 = nl + 1, *b2 = binary_block_end(b1, end);
			const char *e2 = binary_block_end(b2, end);

			buf_addstr(out, "GIT binary patch\n");
			buf_add(out, b2, (size_t)(e2 - b2));
			if (e2 > b2 && (e2 - b2 < 2 || memcmp(e2 - 2, "\n\n", 2)))
				buf_addstr(out, e2[-1] == '\n' ? "\n" : "\n\n");
			buf_add(out, b1, (size_t)(b2 - b1));
			p = e2;
			continue;
		} else if (n >= 2 && !strncmp(p, "@@", 2)) {
			in_hunk = 1;
			reverse_hunk_header(p, n, out);
		} else if (!in_hunk && n > 14 && !strncmp(p, "new file mode ", 14)) {
			buf_addstr(out, "deleted file mode ");
			buf_add(out, p + 14, n - 14);
		} else if (!in_hunk && n > 18 && !strncmp(p, "deleted file mode ", 18)) {
			buf_addstr(out, "new file mode ");
			buf_add(out, p + 18, n - 18);
		} else if (!in_hunk && n > 6 && !strncmp(p, "index ", 6) && memchr(p, '.', n)) {
			const char *dots = memmem(p, n, "..", 2), *sp;

			if (dots && dots < p + n) {
				sp = memchr(dots, ' ', (size_t)(p + n - dots));
				buf_addstr(out, "index ");
				buf_add(out, dots + 2, (size_t)((sp ? sp : p + n) - dots - 2));
				buf_addstr(out, "..");
				buf_add(out, p + 6, (size_t)(dots - p - 6));
				if (sp)
					buf_add(out, sp, (size_t)(p + n - sp));
			} else {
				buf_add(out, p, n);
			}
		} else if (in_hunk && n && (*p == '+' || *p == '-')) {
			buf_addch(out, *p == '+' ? '-' : '+');
			buf_add(out, p + 1, n - 1);
		} else {
			if (in_hunk && n && *p != ' ' && *p != '\\')
				in_hunk = 0;
			buf_add(out, p, n);
		}
		if (nl)
			buf_addch(out, '\n');
		p += n + (nl ? 1 : 0);
	}
}


/* ---- moving hunks to where their lines are (git apply wants exact line numbers) ---- */

/* The file's lines as offsets; n lines. */
static size_t
split_lines(const char *text, size_t len, const char ***lines, size_t **lens)
{
	size_t n = 0, cap = 0, i = 0;

	*lines = NULL;
	*lens = NULL;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;

		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			*lines = xreallocarray(*lines, cap, sizeof(**lines));
			*lens = xreallocarray(*lens, cap, sizeof(**lens));
		}
		(*lines)[n] = text + i;
		(*lens)[n] = l;
		n++;
		i += l + 1;
	}
	return n;
}

static uint64_t
line_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * The 0-based file line nearest the stated `a` (1-based; on a tie the
 * earlier) where the hunk at `h` has all its `b` old lines (' ' and '-'),
 * or (size_t)-1. KMP over line hashes finds every place in one pass, each
 * candidate checked byte for byte nearest first: time linear in the file
 * and the hunk (a file of one repeated line is no worse), not their product.
 */
static size_t
nearest_match(const char *h, const char *end, size_t b, unsigned long a, const char **flines,
	      const size_t *flens, const uint64_t *fhash, size_t nf)
{
	const char **pl;
	size_t *plen, *fail, m = 0, q = 0, *cand = NULL, ncand = 0, candcap = 0, best = (size_t)-1;
	uint64_t *ph;

	/* a hunk cannot hold more lines than the text, nor match more than the file has */
	if (b > nf || b > (size_t)(end - h))
		return best;
	if (a > nf + 1)
		a = nf + 1; /* the same order of distances, no overflow */
	pl = xcalloc(b, sizeof(*pl));
	plen = xcalloc(b, sizeof(*plen));
	fail = xcalloc(b, sizeof(*fail));
	ph = xcalloc(b, sizeof(*ph));
	while (h < end && m < b) {
		const char *hnl = memchr(h, '\n', (size_t)(end - h));
		size_t hn = hnl ? (size_t)(hnl - h) : (size_t)(end - h);

		if (hn && (*h == ' ' || *h == '-')) {
			pl[m] = h + 1;
			plen[m] = hn - 1;
			ph[m] = line_hash(h + 1, hn - 1);
			m++;
		} else if (!hn || (*h != '+' && *h != '\\')) {
			break;
		}
		h += hn + 1;
	}
	if (m == b) {
		for (size_t i = 1, k = 0; i < m; i++) {
			while (k && ph[i] != ph[k])
				k = fail[k - 1];
			if (ph[i] == ph[k])
				k++;
			fail[i] = k;
		}
		for (size_t i = 0; i < nf; i++) {
			while (q && fhash[i] != ph[q])
				q = fail[q - 1];
			if (fhash[i] == ph[q])
				q++;
			if (q == m) {
				ALLOC_GROW(cand, ncand + 1, candcap);
				cand[ncand++] = i + 1 - m;
				q = fail[q - 1];
			}
		}
	}
	while (best == (size_t)-1 && ncand) {
		size_t pick = 0, k;
		int same = 1;

		for (size_t c = 1; c < ncand; c++) {
			long dc = labs((long)cand[c] + 1 - (long)a), dp = labs((long)cand[pick] + 1 - (long)a);

			if (dc < dp || (dc == dp && cand[c] < cand[pick]))
				pick = c;
		}
		k = cand[pick];
		for (size_t l = 0; l < m && same; l++)
			same = flens[k + l] == plen[l] && !memcmp(flines[k + l], pl[l], plen[l]);
		if (same)
			best = k;
		else
			cand[pick] = cand[--ncand]; /* a hash collision: the next nearest */
	}
	free(pl);
	free(plen);
	free(fail);
	free(ph);
	free(cand);
	return best;
}

/*
 * Rewrite each hunk header so its old side starts where its context and
 * removed lines really are in the file under `src` (the match nearest the
 * stated line), as GNU patch does with an offset; no fuzz: every line must
 * match. Hunks that match nowhere are left for git apply to report.
 */
int
patch_relocate(const char *text_in, size_t len, const char *src, struct buf *out)
{
	char *copy = xstrndup(text_in, len); /* hunk numbers are parsed with strtoul */
	const char *text = copy, *p = text, *end = text + len;
	struct buf file = BUF_INIT, content = BUF_INIT;
	const char **flines = NULL;
	size_t *flens = NULL, nf = 0;
	uint64_t *fhash = NULL;
	long delta = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 6 && !strncmp(p, "--- a/", 6)) {
			buf_reset(&file);
			buf_addf(&file, "%s/%.*s", src, (int)(n - 6), p + 6);
			buf_reset(&content);
			free(flines);
			free(flens);
			free(fhash);
			flines = NULL;
			flens = NULL;
			fhash = NULL;
			nf = 0;
			delta = 0;
			if (path_exists(file.s) && !is_dir(file.s) && read_file(&content, file.s) == 0) {
				nf = split_lines(content.s, content.len, &flines, &flens);
				fhash = xcalloc(nf ? nf : 1, sizeof(*fhash));
				for (size_t k = 0; k < nf; k++)
					fhash[k] = line_hash(flines[k], flens[k]);
			}
		} else if (n > 4 && !strncmp(p, "@@ -", 4) && nf) {
			unsigned long a, b = 1, c, d = 1;
			const char *q = p + 4, *tail, *h = nl ? nl + 1 : end;
			size_t want = 0, best = (size_t)-1;

			a = strtoul(q, (char **)&q, 10);
			if (*q == ',')
				b = strtoul(q + 1, (char **)&q, 10);
			if (*q == ' ' && q[1] == '+') {
				c = strtoul(q + 2, (char **)&q, 10);
				if (*q == ',')
					d = strtoul(q + 1, (char **)&q, 10);
			} else {
				c = a;
			}
			tail = q < p + n ? memmem(q, (size_t)(p + n - q), "@@", 2) : NULL;
			/* numbers past any file are left for git apply to refuse */
			if (b && a < (1UL << 40) && c < (1UL << 40) && d <= len)
				best = nearest_match(h, end, b, a, flines, flens, fhash, nf);
			if (best != (size_t)-1) {
				delta = (long)best + 1 - (long)a;
				want = 1;
			}
			if (want && tail && tail < p + n) {
				buf_addf(out, "@@ -%lu,%lu +%ld,%lu ", (unsigned long)(best + 1), b,
					 (long)c + delta, d);
				buf_add(out, tail, (size_t)(p + n - tail));
				buf_addch(out, '\n');
				p += n + (nl ? 1 : 0);
				continue;
			}
		}
		buf_add(out, p, n);
		if (nl)
			buf_addch(out, '\n');
		p += n + (nl ? 1 : 0);
	}
	free(flines);
	free(flens);
	free(fhash);
	free(copy);
	buf_release(&file);
	buf_release(&content);
	return 0;
}

/* The file `rel` under `src` split into lines for nearest_match; -1 when it cannot be read. */
static int
load_lines(const char *src, const char *rel, size_t n, struct buf *content, const char ***lines,
	   size_t **lens, uint64_t **hash, size_t *nf)
{
	struct buf file = BUF_INIT;
	int rc = -1;

	free(*lines);
	free(*lens);
	free(*hash);
	*lines = NULL;
	*lens = NULL;
	*hash = NULL;
	*nf = 0;
	buf_reset(content);
	buf_addf(&file, "%s/%.*s", src, (int)n, rel);
	if (is_regular(file.s) && read_file(content, file.s) == 0) {
		*nf = split_lines(content->s, content->len, lines, lens);
		*hash = xcalloc(*nf ? *nf : 1, sizeof(**hash));
		for (size_t k = 0; k < *nf; k++)
			(*hash)[k] = line_hash((*lines)[k], (*lens)[k]);
		rc = 0;
	}
	buf_release(&file);
	return rc;
}

int
patch_lines_found(const char *text, size_t len, const char *src, struct buf *why)
{
	const char *p = text, *end = text + len;
	struct buf content = BUF_INIT, file = BUF_INIT;
	const char **flines = NULL;
	size_t *flens = NULL, nf = 0;
	uint64_t *fhash = NULL;
	int found = 1, creating = 0;

	while (p < end && found == 1) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *next = nl ? nl + 1 : end;
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n >= 16 && !strncmp(p, "GIT binary patch", 16)) {
			found = -1;
		} else if (n >= 13 && !strncmp(p, "--- /dev/null", 13)) {
			creating = 1;
		} else if (n > 6 && !strncmp(p, "--- a/", 6)) {
			creating = 0;
			buf_reset(&file);
			buf_add(&file, p + 6, n - 6);
			if (load_lines(src, p + 6, n - 6, &content, &flines, &flens, &fhash, &nf) < 0)
				found = 0;
		} else if (n > 6 && !strncmp(p, "+++ b/", 6) && creating) {
			buf_reset(&file);
			buf_add(&file, p + 6, n - 6);
			buf_reset(&content);
			buf_addf(&content, "%s/%s", src, file.s);
			found = !path_exists(content.s);
		} else if (n > 4 && !strncmp(p, "@@ -", 4) && !creating) {
			char *q;
			unsigned long a = strtoul(p + 4, &q, 10), b = 1;

			if (*q == ',')
				b = strtoul(q + 1, NULL, 10);
			if (b && nearest_match(next, end, b, a, flines, flens, fhash, nf) == (size_t)-1)
				found = 0;
		}
		p = next;
	}
	if (!found)
		buf_addf(why, "'%s' is not as the patch expects", file.s);
	free(flines);
	free(flens);
	free(fhash);
	buf_release(&content);
	buf_release(&file);
	return found;
}
