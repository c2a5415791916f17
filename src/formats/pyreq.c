/*
 * Python build requirements (pyreq.h), from bytes a source tree brings.
 *
 * pyproject.toml: a TOML subset. Lines hold a table header "[a.b]" or
 * "[[a.b]]", or "key = value", or nothing but blanks and "#" comments.
 * Keys are bare (A-Za-z0-9_-), "basic" or 'literal' parts joined by dots.
 * Values are strings ("...", '...', and their triple-quoted multi-line
 * forms), arrays ("[v, v,]", over lines, with comments), inline tables
 * ("{k = v, ...}") and scalars (numbers, booleans, dates: up to the next
 * ",]}#" or line end). Basic strings take TOML 1.0's escapes (\b \t \n
 * \f \r \" \\ \uXXXX \UXXXXXXXX); any other is an error, as in tomllib.
 * Only [build-system]'s requires (an array of strings), build-backend (a
 * string) and backend-path are kept, whether written as a table, dotted
 * keys or an inline "build-system = {...}"; everything else is read only
 * to be skipped.
 *
 * A requirement (PEP 508, the part bwbuild checks): NAME [extras]
 * [specifiers | "(" specifiers ")" | "@" URL] [";" marker]. Specifiers:
 * "OP VERSION" clauses separated by commas, OP one of ~= == != <= >= < >
 * ===, "==" and "!=" taking a trailing ".*" or a local version, "~="
 * needing two release numbers. Matching follows packaging (PEP 440): a
 * local version in the candidate is ignored except by "==" and "!=" with
 * one of their own; "<V" admits no pre-release of V, ">V" no post-release
 * or local version of V, unless V is one; "===" compares the normalized
 * text. tests/unit/t_pyreq_pep440.c holds packaging's answers.
 *
 * One file over 800 lines, on purpose for now: the TOML subset, PEP 508
 * and PEP 440 are read together by one caller and share the version
 * grammar; issue 42 may hand the reading to Python's tomllib/packaging.
 *
 * requirements.txt: one requirement a line ("\" at the end joins the next
 * line; "#" after a blank or first on the line starts a comment), or an
 * option: "-r FILE" / "--requirement FILE" includes a file; other options
 * are no requirements; paths and URLs without a name are skipped.
 *
 * A version (PEP 440): [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local],
 * case-insensitive, with the spellings PEP 440 normalizes (alpha, beta,
 * c, pre, preview, rev, r, "-N" for a post release) and a leading "v".
 *
 * Bounds: MAX_TEXT bytes a file, MAX_REQS requirements, MAX_STR bytes a
 * string, MAX_DEPTH nested arrays and tables, MAX_REL release numbers of
 * MAX_DIGITS digits each. Nothing here trusts the bytes.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/pyreq.h"

#define MAX_TEXT (1u << 20)
#define MAX_REQS 512
#define MAX_STR 4096
#define MAX_DEPTH 32
#define MAX_REL 8
#define MAX_DIGITS 18

void
pyname_normalize(const char *s, size_t n, struct buf *out)
{
	int sep = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-' || s[i] == '_' || s[i] == '.') {
			sep = 1;
			continue;
		}
		if (sep && out->len)
			buf_addch(out, '-');
		sep = 0;
		buf_addch(out, tolower((unsigned char)s[i]));
	}
}

/* ---- versions ---- */

struct pyver {
	unsigned long epoch;
	unsigned long rel[MAX_REL];
	int nrel;
	int pre;              /* 0 none, 1 a, 2 b, 3 rc */
	unsigned long pre_n;
	long post, dev;       /* -1: none */
	const char *local;    /* after '+' to the end of the text; NULL when none */
};

static int
num(const char **p, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;
	int d = 0;

	while (isdigit((unsigned char)*s) && d < MAX_DIGITS) {
		v = v * 10 + (unsigned long)(*s++ - '0');
		d++;
	}
	if (!d || isdigit((unsigned char)*s))
		return -1;
	*out = v;
	*p = s;
	return 0;
}

static int
is_sep(int c)
{
	return c == '-' || c == '_' || c == '.';
}

/* `word` (any case) at *p, after an optional separator; moves past both. */
static int
word_at(const char **p, const char *word)
{
	const char *s = *p;
	size_t n = strlen(word);

	if (is_sep(*s))
		s++;
	if (strncasecmp(s, word, n))
		return 0;
	*p = s + n;
	return 1;
}

/*
 * What follows a label: an optional separator, then an optional number
 * (PEP 440: "1.0a." is 1.0a0). Taking the separator here never costs the
 * next part one: each part may start with its own.
 */
static int
label_num(const char **p, unsigned long *out)
{
	const char *s = *p;

	*out = 0;
	if (is_sep(*s))
		s++;
	if (isdigit((unsigned char)*s) && num(&s, out) < 0)
		return -1;
	*p = s;
	return 0;
}

static int
pre_label(const char **p)
{
	static const struct { const char *w; int kind; } labels[] = {
		{ "alpha", 1 }, { "beta", 2 }, { "preview", 3 }, { "pre", 3 }, { "rc", 3 },
		{ "a", 1 }, { "b", 2 }, { "c", 3 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(labels); i++)
		if (word_at(p, labels[i].w))
			return labels[i].kind;
	return 0;
}

/* "+local": alphanumeric segments joined by single separators, nothing after. */
static int
local_part(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return -1;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && (!is_sep(*s) || !isalnum((unsigned char)s[1])))
			return -1;
	return 0;
}

static int
suffixes(const char **p, struct pyver *v)
{
	unsigned long n;

	if ((v->pre = pre_label(p)) && label_num(p, &v->pre_n) < 0)
		return -1;
	if (**p == '-' && isdigit((unsigned char)(*p)[1])) {
		(*p)++;
		if (num(p, &n) < 0)
			return -1;
		v->post = (long)n;
	} else if (word_at(p, "post") || word_at(p, "rev") || word_at(p, "r")) {
		if (label_num(p, &n) < 0)
			return -1;
		v->post = (long)n;
	}
	if (word_at(p, "dev")) {
		if (label_num(p, &n) < 0)
			return -1;
		v->dev = (long)n;
	}
	if (**p == '+') {
		if (local_part(*p + 1) < 0)
			return -1;
		v->local = *p + 1;
		*p += strlen(*p);
	}
	return 0;
}

/*
 * Parse `s`; with `wild` a trailing ".*" right after the release numbers
 * is allowed and said there (1). -1 when not a version.
 */
static int
pyver_parse(const char *s, struct pyver *v, int *wild)
{
	const char *p = s;
	unsigned long n;

	memset(v, 0, sizeof(*v));
	v->post = v->dev = -1;
	if (wild)
		*wild = 0;
	if (*p == 'v' || *p == 'V')
		p++;
	if (num(&p, &n) < 0)
		return -1;
	if (*p == '!') {
		v->epoch = n;
		p++;
		if (num(&p, &n) < 0)
			return -1;
	}
	v->rel[v->nrel++] = n;
	while (*p == '.' && isdigit((unsigned char)p[1])) {
		p++;
		if (v->nrel == MAX_REL || num(&p, &n) < 0)
			return -1;
		v->rel[v->nrel++] = n;
	}
	if (wild && p[0] == '.' && p[1] == '*' && !p[2]) {
		*wild = 1;
		return 0;
	}
	if (suffixes(&p, v) < 0 || *p)
		return -1;
	return 0;
}

static int
cmp_ul(unsigned long a, unsigned long b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_l(long a, long b)
{
	return a < b ? -1 : a > b;
}

/* The next segment of a local version at *p: its start and length; 0 at the end. */
static size_t
local_seg(const char **p, const char **seg)
{
	size_t n;

	if (!*p || !**p)
		return 0;
	*seg = *p;
	n = strcspn(*p, "-_.");
	*p += n + ((*p)[n] != '\0');
	return n;
}

static int
is_number(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Two local segments as PEP 440 orders them: numbers by value and above words; words by case-folded text. */
static int
local_seg_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	int da = is_number(a, na), db = is_number(b, nb), c;

	if (da != db)
		return da ? 1 : -1;
	if (da) {
		while (na > 1 && *a == '0')
			a++, na--;
		while (nb > 1 && *b == '0')
			b++, nb--;
		if (na != nb)
			return na < nb ? -1 : 1;
		c = memcmp(a, b, na);
		return c < 0 ? -1 : c > 0;
	}
	for (size_t i = 0; i < na && i < nb; i++) {
		c = tolower((unsigned char)a[i]) - tolower((unsigned char)b[i]);
		if (c)
			return c < 0 ? -1 : 1;
	}
	return cmp_ul(na, nb);
}

/* None sorts first; then segment by segment, a longer run after its prefix. */
static int
local_cmp(const char *a, const char *b)
{
	const char *sa = NULL, *sb = NULL;
	size_t na, nb;
	int c;

	if (!a || !b)
		return !a && !b ? 0 : a ? 1 : -1;
	for (;;) {
		na = local_seg(&a, &sa);
		nb = local_seg(&b, &sb);
		if (!na || !nb)
			return cmp_ul(na, nb);
		if ((c = local_seg_cmp(sa, na, sb, nb)))
			return c;
	}
}

/* The public version's order: local labels are not looked at. */
static int
public_order(const struct pyver *a, const struct pyver *b)
{
	int c = cmp_ul(a->epoch, b->epoch);
	long ka, kb;

	for (int i = 0; !c && i < MAX_REL; i++)
		c = cmp_ul(i < a->nrel ? a->rel[i] : 0, i < b->nrel ? b->rel[i] : 0);
	if (c)
		return c;
	/* A dev release alone sorts before the pre-releases; a final after them. */
	ka = !a->pre && a->post < 0 && a->dev >= 0 ? -1 : !a->pre ? 4 : a->pre;
	kb = !b->pre && b->post < 0 && b->dev >= 0 ? -1 : !b->pre ? 4 : b->pre;
	if ((c = cmp_l(ka, kb)) || (c = cmp_ul(a->pre_n, b->pre_n)) || (c = cmp_l(a->post, b->post)))
		return c;
	return cmp_l(a->dev < 0 ? LONG_MAX : a->dev, b->dev < 0 ? LONG_MAX : b->dev);
}

static int
pyver_order(const struct pyver *a, const struct pyver *b)
{
	int c = public_order(a, b);

	return c ? c : local_cmp(a->local, b->local);
}

int
pyver_cmp(const char *a, const char *b)
{
	struct pyver va, vb;

	if (pyver_parse(a, &va, NULL) < 0 || pyver_parse(b, &vb, NULL) < 0)
		return PYVER_UNKNOWN;
	return pyver_order(&va, &vb);
}

/* The first `n` release numbers (and the epoch) of `v` and `prefix` agree. */
static int
prefix_match(const struct pyver *v, const struct pyver *prefix, int n)
{
	if (v->epoch != prefix->epoch)
		return 0;
	for (int i = 0; i < n; i++)
		if ((i < v->nrel ? v->rel[i] : 0) != prefix->rel[i])
			return 0;
	return 1;
}

static int
is_prerelease(const struct pyver *v)
{
	return v->pre || v->dev >= 0;
}

/* PEP 440's normalized form of `v` (what "===" compares), in lower case. */
static void
pyver_format(const struct pyver *v, struct buf *out)
{
	static const char *const pre[] = { "", "a", "b", "rc" };
	const char *l = v->local, *seg;
	size_t n;

	if (v->epoch)
		buf_addf(out, "%lu!", v->epoch);
	for (int i = 0; i < v->nrel; i++)
		buf_addf(out, "%s%lu", i ? "." : "", v->rel[i]);
	if (v->pre)
		buf_addf(out, "%s%lu", pre[v->pre], v->pre_n);
	if (v->post >= 0)
		buf_addf(out, ".post%ld", v->post);
	if (v->dev >= 0)
		buf_addf(out, ".dev%ld", v->dev);
	for (int first = 1; (n = local_seg(&l, &seg)); first = 0) {
		buf_addch(out, first ? '+' : '.');
		while (n > 1 && is_number(seg, n) && *seg == '0')
			seg++, n--;
		for (size_t i = 0; i < n; i++)
			buf_addch(out, tolower((unsigned char)seg[i]));
	}
}

static int
arbitrary_match(const char *want, const struct pyver *v)
{
	struct buf s = BUF_INIT;
	int r;

	pyver_format(v, &s);
	r = !strcasecmp(s.s, want);
	buf_release(&s);
	return r;
}

enum op { OP_ARBITRARY, OP_COMPATIBLE, OP_EQ, OP_NE, OP_LE, OP_GE, OP_LT, OP_GT };

/*
 * One clause ("OP VERSION", no blanks) read into `op` and `w`: -1 with
 * the reason in `why` (may be NULL) when PEP 440 has no such clause.
 */
static int
clause_read(const char *c, enum op *op, struct pyver *w, int *wild, const char **why)
{
	static const char *const ops[] = { "===", "~=", "==", "!=", "<=", ">=", "<", ">" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops) && !starts_with(c, ops[i]); i++)
		;
	*why = "it has no operator (one of == != <= >= < > ~= ===)";
	if (i == ARRAY_SIZE(ops))
		return -1;
	*op = (enum op)i;
	c += strlen(ops[i]);
	*why = "no version follows its operator";
	if (*op == OP_ARBITRARY)
		return *c ? 0 : -1;
	*why = "its version is not a PEP 440 version";
	if (pyver_parse(c, w, *op == OP_EQ || *op == OP_NE ? wild : NULL) < 0)
		return -1;
	*why = "only == and != take a local version (+...)";
	if (w->local && *op != OP_EQ && *op != OP_NE)
		return -1;
	*why = "~= needs at least two release numbers (~=1.0, not ~=1)";
	if (*op == OP_COMPATIBLE && w->nrel < 2)
		return -1;
	return 0;
}

/* One clause against `v`: 1, 0, or -1 unreadable. */
static int
clause_match(const char *c, const struct pyver *v)
{
	const char *why;
	struct pyver w;
	enum op op;
	int wild = 0, r;

	if (clause_read(c, &op, &w, &wild, &why) < 0)
		return -1;
	switch (op) {
	case OP_ARBITRARY:
		return arbitrary_match(c + 3, v);
	case OP_EQ:
	case OP_NE:
		/* a local version in the clause is compared; one only in `v` is not */
		r = wild ? prefix_match(v, &w, w.nrel) :
			   w.local ? pyver_order(v, &w) == 0 : public_order(v, &w) == 0;
		return op == OP_EQ ? r : !r;
	case OP_COMPATIBLE:
		return public_order(v, &w) >= 0 && prefix_match(v, &w, w.nrel - 1);
	case OP_LE:
		return public_order(v, &w) <= 0;
	case OP_GE:
		return public_order(v, &w) >= 0;
	case OP_LT:
		/* "<2.0" admits no pre-release of 2.0 unless it names one itself */
		return public_order(v, &w) < 0 &&
		       !(!is_prerelease(&w) && is_prerelease(v) && prefix_match(v, &w, MAX_REL));
	case OP_GT:
		/* ">1.0" admits no post-release of 1.0 unless it names one, nor 1.0+local */
		return public_order(v, &w) > 0 &&
		       !(w.post < 0 && v->post >= 0 && prefix_match(v, &w, MAX_REL)) &&
		       !(v->local && prefix_match(v, &w, MAX_REL));
	}
	return -1;
}

/* Each clause of `spec` in turn (blank ones skipped, as packaging does): `fn`'s first non-1 answer. */
static int
each_clause(const char *spec, int (*fn)(const char *c, void *arg), void *arg)
{
	int r;

	for (const char *p = spec; *p;) {
		size_t n = strcspn(p, ",");
		char *c = xstrndup(p, n);

		r = *c ? fn(c, arg) : 1;
		free(c);
		if (r != 1)
			return r;
		p += n + (p[n] == ',');
	}
	return 1;
}

static int
clause_match_fn(const char *c, void *v)
{
	return clause_match(c, v);
}

int
pyspec_match(const char *spec, const char *version)
{
	struct pyver v;
	int r;

	if (pyver_parse(version, &v, NULL) < 0)
		return -1;
	/* a clause that cannot be read makes the whole spec unreadable, wherever it is */
	if ((r = each_clause(spec, clause_match_fn, &v)) == 0 && pyspec_check(spec, NULL) < 0)
		return -1;
	return r;
}

struct check_arg {
	struct buf *why;
};

static int
clause_check_fn(const char *c, void *arg)
{
	struct check_arg *a = arg;
	const char *why;
	struct pyver w;
	enum op op;
	int wild = 0;

	if (clause_read(c, &op, &w, &wild, &why) == 0)
		return 1;
	if (a->why)
		buf_addf(a->why, "'%s' is no version specifier: %s", c, why);
	return -1;
}

int
pyspec_check(const char *spec, struct buf *why)
{
	struct check_arg a = { why };

	return each_clause(spec, clause_check_fn, &a) == 1 ? 0 : -1;
}

/* ---- requirements ---- */

static int
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void
pyreqs_release(struct pyreqs *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].spec);
		free(r->v[i].marker);
		free(r->v[i].text);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

const struct pyreq *
pyreqs_find(const struct pyreqs *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return &r->v[i];
	return NULL;
}

/* The specifier text from s to end without blanks into out; -1 when it is none. */
static int
spec_text(const char *s, const char *end, struct buf *out)
{
	for (; s < end; s++)
		if (!is_blank(*s))
			buf_addch(out, *s);
	return out->len && !strchr("<>=!~", out->s[0]) ? -1 : 0;
}

int
pyreq_parse(const char *s, size_t n, unsigned line, struct pyreqs *out, struct buf *why)
{
	const char *end = s + n, *p, *semi;
	struct buf name = BUF_INIT, spec = BUF_INIT, bad = BUF_INIT;
	struct pyreq r = { 0 };
	int rc = -1;

	while (s < end && is_blank(*s))
		s++;
	while (end > s && is_blank(end[-1]))
		end--;
	/* a NUL would end the text each later reader sees: what follows it would go unread */
	if (memchr(s, '\0', (size_t)(end - s))) {
		buf_addf(why, "'%.*s' holds a NUL byte", (int)strnlen(s, (size_t)(end - s)), s);
		goto out;
	}
	p = s;
	while (p < end && (isalnum((unsigned char)*p) || (p > s && strchr("-_.", *p))))
		p++;
	if (p == s) {
		buf_addf(why, "'%.*s' names no distribution", (int)(end - s), s);
		goto out;
	}
	pyname_normalize(s, (size_t)(p - s), &name);
	while (p < end && is_blank(*p))
		p++;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (!close) {
			buf_addf(why, "'%.*s': '[' without ']'", (int)(end - s), s);
			goto out;
		}
		p = close + 1;
	}
	semi = memchr(p, ';', (size_t)(end - p));
	if (p < end && *p != '@') {
		const char *se = semi ? semi : end, *q = p;

		while (q < se && is_blank(*q))
			q++;
		if (q < se && *q == '(') {
			const char *close = memchr(q, ')', (size_t)(se - q));

			if (!close) {
				buf_addf(why, "'%.*s': '(' without ')'", (int)(end - s), s);
				goto out;
			}
			q++;
			se = close;
		}
		if (spec_text(q, se, &spec) < 0) {
			buf_addf(why, "'%.*s': '%s' is no version specifier", (int)(end - s), s, spec.s);
			goto out;
		}
		if (pyspec_check(spec.s, &bad) < 0) {
			buf_addf(why, "'%.*s': %s", (int)(end - s), s, bad.s);
			goto out;
		}
	}
	r.url = p < end && *p == '@';
	if (r.url)
		semi = NULL;
	if (semi) {
		const char *m = semi + 1, *me = end;

		while (m < me && is_blank(*m))
			m++;
		if (m < me)
			r.marker = xstrndup(m, (size_t)(me - m));
	}
	if (out->n >= MAX_REQS) {
		buf_addf(why, "more than %d requirements", MAX_REQS);
		free(r.marker);
		goto out;
	}
	r.name = buf_detach(&name);
	r.spec = buf_detach(&spec);
	r.text = xstrndup(s, (size_t)(end - s));
	r.line = line;
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	out->v[out->n++] = r;
	rc = 0;
out:
	buf_release(&name);
	buf_release(&spec);
	buf_release(&bad);
	return rc;
}

/* ---- requirements.txt ---- */

/* An option line of requirements.txt: the FILE of "-r FILE" into includes, nothing for the others. */
static void
requirements_option(const char *l, struct strvec *includes)
{
	const char *arg = NULL;

	if (!strncmp(l, "-r", 2) && (is_blank(l[2]) || l[2] == '='))
		arg = l + 3;
	else if (!strncmp(l, "--requirement", 13) && (is_blank(l[13]) || l[13] == '='))
		arg = l + 14;
	if (!arg)
		return;
	while (is_blank(*arg))
		arg++;
	if (*arg)
		strvec_pushf(includes, "%.*s", (int)strcspn(arg, " \t"), arg);
}

/* The next logical line (continued by a final backslash) from *p into out; its first line number. */
static unsigned
logical_line(const char **p, const char *end, unsigned *line, struct buf *out)
{
	unsigned first = *line;

	buf_reset(out);
	while (*p < end) {
		const char *nl = memchr(*p, '\n', (size_t)(end - *p)), *le = nl ? nl : end;
		size_t k = (size_t)(le - *p);
		int cont;

		while (k && (*p)[k - 1] == '\r')
			k--;
		cont = k && (*p)[k - 1] == '\\';
		buf_add(out, *p, cont ? k - 1 : k);
		*p = nl ? nl + 1 : end;
		(*line)++;
		if (!cont || out->len > MAX_STR)
			break;
	}
	return first;
}

int
requirements_txt_parse(const char *text, size_t len, struct pyreqs *out,
		       struct strvec *includes, struct buf *why)
{
	const char *p = text, *end = text + len;
	struct buf l = BUF_INIT;
	unsigned line = 1;
	int rc = 0;

	if (len > MAX_TEXT) {
		buf_addstr(why, "larger than 1 MiB");
		return -1;
	}
	while (p < end && !rc) {
		unsigned at = logical_line(&p, end, &line, &l);
		char *c = l.s, *hash;
		size_t k;

		/* C strings below would end there and drop the rest of the line unread */
		if (memchr(l.s, '\0', l.len)) {
			buf_addf(why, "line %u holds a NUL byte; a requirements file is text", at);
			rc = -1;
			break;
		}
		for (hash = strchr(c, '#'); hash; hash = strchr(hash + 1, '#'))
			if (hash == c || is_blank(hash[-1])) {
				*hash = '\0';
				break;
			}
		while (is_blank(*c))
			c++;
		k = strlen(c);
		while (k && is_blank(c[k - 1]))
			c[--k] = '\0';
		if (!*c)
			continue;
		if (*c == '-') {
			requirements_option(c, includes);
			continue;
		}
		/* a path or URL to install from: no name to check */
		if (*c == '.' || *c == '/' || (strstr(c, "://") && !strchr(c, '@')))
			continue;
		/* per-requirement options: --hash=..., --config-settings */
		if ((hash = strstr(c, " --")) || (hash = strstr(c, "\t--")))
			*hash = '\0';
		if (pyreq_parse(c, strlen(c), at, out, why) < 0) {
			buf_addf(why, " (line %u)", at);
			rc = -1;
		}
	}
	buf_release(&l);
	return rc;
}

/* ---- pyproject.toml ---- */

struct toml {
	const char *s;
	size_t n, i;
	unsigned line;
	int depth;
	struct buf *why;
};

static int
peek(const struct toml *t, size_t k)
{
	return t->i + k < t->n ? (unsigned char)t->s[t->i + k] : -1;
}

static int
fail(struct toml *t, const char *what)
{
	buf_addf(t->why, "line %u: %s", t->line, what);
	return -1;
}

static void
skip_ws(struct toml *t)
{
	while (peek(t, 0) == ' ' || peek(t, 0) == '\t')
		t->i++;
}

static void
skip_comment(struct toml *t)
{
	if (peek(t, 0) == '#')
		while (t->i < t->n && t->s[t->i] != '\n')
			t->i++;
}

static int
newline(struct toml *t)
{
	if (peek(t, 0) == '\r' && peek(t, 1) == '\n')
		t->i++;
	if (peek(t, 0) != '\n')
		return 0;
	t->i++;
	t->line++;
	return 1;
}

/* Blanks, comments and line ends (between array items, before a key). */
static void
skip_blank_lines(struct toml *t)
{
	for (;;) {
		skip_ws(t);
		skip_comment(t);
		if (!newline(t))
			return;
	}
}

static int
end_of_line(struct toml *t)
{
	skip_ws(t);
	skip_comment(t);
	if (t->i >= t->n || newline(t))
		return 0;
	return fail(t, "expected the end of the line");
}

/* `cp` as UTF-8. */
static void
add_utf8(struct buf *out, unsigned long cp)
{
	if (cp < 0x80) {
		buf_addch(out, (int)cp);
	} else if (cp < 0x800) {
		buf_addch(out, (int)(0xc0 | cp >> 6));
		buf_addch(out, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addch(out, (int)(0xe0 | cp >> 12));
		buf_addch(out, (int)(0x80 | (cp >> 6 & 0x3f)));
		buf_addch(out, (int)(0x80 | (cp & 0x3f)));
	} else {
		buf_addch(out, (int)(0xf0 | cp >> 18));
		buf_addch(out, (int)(0x80 | (cp >> 12 & 0x3f)));
		buf_addch(out, (int)(0x80 | (cp >> 6 & 0x3f)));
		buf_addch(out, (int)(0x80 | (cp & 0x3f)));
	}
}

/*
 * The escape "\e" of a basic string, its letter already read (t->i is
 * past it), into `out` (may be NULL): TOML 1.0's list, \uXXXX and
 * \UXXXXXXXX as UTF-8; any other is an error, as tomllib says.
 */
static int
escape(struct toml *t, int e, struct buf *out)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	const char *hit = e > 0 ? strchr(from, e) : NULL;
	unsigned long cp = 0;
	int digits = e == 'u' ? 4 : e == 'U' ? 8 : 0;

	if (out && out->len >= MAX_STR)
		return fail(t, "a string longer than 4096 bytes");
	if (hit) {
		if (out)
			buf_addch(out, to[hit - from]);
		return 0;
	}
	if (!digits)
		return fail(t, "an escape TOML does not have in a string (\\b \\t \\n \\f \\r "
			       "\\\" \\\\ \\uXXXX \\UXXXXXXXX)");
	for (int k = 0; k < digits; k++) {
		int c = peek(t, 0);

		if (c < 0 || !isxdigit(c))
			return fail(t, "\\u or \\U without its hex digits in a string");
		cp = cp * 16 + (unsigned long)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
		t->i++;
	}
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(t, "an escape for no Unicode character in a string");
	if (out)
		add_utf8(out, cp);
	return 0;
}

/* A string at t->i (basic, literal, or either's multi-line form) into `out` (may be NULL). */
static int
read_string(struct toml *t, struct buf *out)
{
	int q = peek(t, 0), multi = peek(t, 1) == q && peek(t, 2) == q;

	t->i += multi ? 3 : 1;
	if (multi)
		newline(t);
	for (;;) {
		int c = peek(t, 0);

		if (c < 0 || c == 0)
			return fail(t, c < 0 ? "a string does not end" : "a NUL byte in a string");
		if (c == q && (!multi || (peek(t, 1) == q && peek(t, 2) == q))) {
			t->i += multi ? 3 : 1;
			/* up to two more quotes belong to the string ("""a"""" is a"), as TOML says */
			while (multi && peek(t, 0) == q)
				t->i++;
			return 0;
		}
		if (c == '\n' || (c == '\r' && peek(t, 1) == '\n')) {
			if (!multi)
				return fail(t, "a line ends inside a string");
			newline(t);
			if (out)
				buf_addch(out, '\n');
			continue;
		}
		if (c == '\\' && q == '"') {
			int e = peek(t, 1);

			t->i += 2;
			if (e < 0)
				return fail(t, "a string does not end");
			if (e == '\n' || e == '\r' || e == ' ' || e == '\t') {
				/* a line-ending backslash: blanks and line ends up to the next text go */
				t->i--;
				for (;;) {
					if (peek(t, 0) == ' ' || peek(t, 0) == '\t')
						t->i++;
					else if (!newline(t))
						break;
				}
				continue;
			}
			if (escape(t, e, out) < 0)
				return -1;
			continue;
		}
		if (out) {
			if (out->len >= MAX_STR)
				return fail(t, "a string longer than 4096 bytes");
			buf_addch(out, c);
		}
		t->i++;
	}
}

static int
is_bare(int c)
{
	return c >= 0 && (isalnum(c) || c == '_' || c == '-');
}

/* A dotted key into `key` ("build-system.requires"). */
static int
read_key(struct toml *t, struct buf *key)
{
	buf_reset(key);
	for (;;) {
		skip_ws(t);
		if (peek(t, 0) == '"' || peek(t, 0) == '\'') {
			if (read_string(t, key) < 0)
				return -1;
		} else if (is_bare(peek(t, 0))) {
			while (is_bare(peek(t, 0)))
				buf_addch(key, t->s[t->i++]);
		} else {
			return fail(t, "expected a key");
		}
		skip_ws(t);
		if (peek(t, 0) != '.')
			return 0;
		t->i++;
		buf_addch(key, '.');
	}
}

static int skip_value(struct toml *t);

/* An array or inline table, from its opening bracket. */
static int
skip_container(struct toml *t, int close)
{
	struct buf key = BUF_INIT;
	int rc = 0;

	if (++t->depth > MAX_DEPTH)
		return fail(t, "arrays or tables nested too deep");
	t->i++;
	for (;;) {
		skip_blank_lines(t);
		if (peek(t, 0) == close) {
			t->i++;
			break;
		}
		if (close == '}') {
			if (read_key(t, &key) < 0) {
				rc = -1;
				break;
			}
			skip_ws(t);
			if (peek(t, 0) != '=') {
				rc = fail(t, "expected '=' in an inline table");
				break;
			}
			t->i++;
		}
		if (skip_value(t) < 0) {
			rc = -1;
			break;
		}
		skip_blank_lines(t);
		if (peek(t, 0) == ',') {
			t->i++;
			continue;
		}
		if (peek(t, 0) != close) {
			rc = fail(t, close == ']' ? "expected ',' or ']' in an array" :
					       "expected ',' or '}' in an inline table");
			break;
		}
	}
	t->depth--;
	buf_release(&key);
	return rc;
}

static int
skip_value(struct toml *t)
{
	size_t start;

	skip_ws(t);
	switch (peek(t, 0)) {
	case '"':
	case '\'':
		return read_string(t, NULL);
	case '[':
		return skip_container(t, ']');
	case '{':
		return skip_container(t, '}');
	}
	start = t->i;
	while (t->i < t->n && !strchr(",]}#\n\r", t->s[t->i]))
		t->i++;
	return t->i == start ? fail(t, "a key without a value") : 0;
}

static int
read_requires(struct toml *t, struct pyproject_build *b)
{
	struct buf s = BUF_INIT, bad = BUF_INIT;
	int rc = 0;

	if (b->requires.n)
		return fail(t, "[build-system] requires is given twice");
	skip_ws(t);
	if (peek(t, 0) != '[')
		return fail(t, "[build-system] requires must be an array of requirement strings");
	t->i++;
	for (;;) {
		unsigned at;

		skip_blank_lines(t);
		if (peek(t, 0) == ']') {
			t->i++;
			break;
		}
		if (peek(t, 0) != '"' && peek(t, 0) != '\'') {
			rc = fail(t, "[build-system] requires must be an array of requirement strings");
			break;
		}
		at = t->line;
		buf_reset(&s);
		if (read_string(t, &s) < 0) {
			rc = -1;
			break;
		}
		buf_reset(&bad);
		if (pyreq_parse(s.s, s.len, at, &b->requires, &bad) < 0) {
			t->line = at;
			rc = fail(t, bad.s);
			break;
		}
		skip_blank_lines(t);
		if (peek(t, 0) == ',')
			t->i++;
		else if (peek(t, 0) != ']') {
			rc = fail(t, "expected ',' or ']' in requires");
			break;
		}
	}
	buf_release(&s);
	buf_release(&bad);
	return rc;
}

static int build_inline(struct toml *t, struct pyproject_build *b);

/* The value of the key `full` (dotted from the top): kept when [build-system] has it, else skipped. */
static int
build_value(struct toml *t, const char *full, struct pyproject_build *b)
{
	struct buf s = BUF_INIT;
	int rc;

	if (starts_with(full, "build-system."))
		b->has_table = 1;
	skip_ws(t);
	if (!strcmp(full, "build-system") && peek(t, 0) == '{')
		return build_inline(t, b);
	if (!strcmp(full, "build-system.requires"))
		return read_requires(t, b);
	if (!strcmp(full, "build-system.build-backend")) {
		if (peek(t, 0) != '"' && peek(t, 0) != '\'')
			return fail(t, "[build-system] build-backend must be a string");
		if ((rc = read_string(t, &s)) == 0) {
			free(b->backend);
			b->backend = buf_detach(&s);
			b->backend_line = t->line;
		}
		buf_release(&s);
		return rc;
	}
	b->backend_path |= !strcmp(full, "build-system.backend-path");
	return skip_value(t);
}

/* "build-system = { requires = [...], build-backend = "..." }": its keys as the table's. */
static int
build_inline(struct toml *t, struct pyproject_build *b)
{
	struct buf key = BUF_INIT, full = BUF_INIT;
	int rc = 0;

	b->has_table = 1;
	t->i++;
	skip_ws(t);
	while (!rc && peek(t, 0) != '}') {
		if (read_key(t, &key) < 0) {
			rc = -1;
			break;
		}
		skip_ws(t);
		if (peek(t, 0) != '=') {
			rc = fail(t, "expected '=' in an inline table");
			break;
		}
		t->i++;
		buf_reset(&full);
		buf_addf(&full, "build-system.%s", key.s);
		if ((rc = build_value(t, full.s, b)) < 0)
			break;
		skip_ws(t);
		if (peek(t, 0) == ',')
			t->i++;
		else if (peek(t, 0) != '}')
			rc = fail(t, "expected ',' or '}' in an inline table");
		skip_ws(t);
	}
	if (!rc)
		t->i++;
	buf_release(&key);
	buf_release(&full);
	return rc;
}

/* "key = value" of the table `table` (or a dotted key at the top). */
static int
key_value(struct toml *t, const struct buf *table, struct pyproject_build *b)
{
	struct buf key = BUF_INIT, full = BUF_INIT;
	int rc = -1;

	if (read_key(t, &key) < 0)
		goto out;
	skip_ws(t);
	if (peek(t, 0) != '=') {
		fail(t, "expected '=' after a key");
		goto out;
	}
	t->i++;
	buf_addf(&full, "%s%s%s", table->s, table->len ? "." : "", key.s);
	rc = build_value(t, full.s, b);
	if (!rc)
		rc = end_of_line(t);
out:
	buf_release(&key);
	buf_release(&full);
	return rc;
}

/* A "[table]" or "[[array]]" header into `table`. */
static int
header(struct toml *t, struct buf *table, struct pyproject_build *b)
{
	int array = peek(t, 1) == '[';

	t->i += array ? 2 : 1;
	if (read_key(t, table) < 0)
		return -1;
	if (peek(t, 0) != ']' || (array && peek(t, 1) != ']'))
		return fail(t, array ? "expected ']]'" : "expected ']'");
	t->i += array ? 2 : 1;
	if (!strcmp(table->s, "build-system"))
		b->has_table = 1;
	return end_of_line(t);
}

int
pyproject_build_parse(const char *text, size_t len, struct pyproject_build *out, struct buf *why)
{
	struct toml t = { .s = text, .n = len, .line = 1, .why = why };
	struct buf table = BUF_INIT;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (len > MAX_TEXT) {
		buf_addstr(why, "larger than 1 MiB");
		return -1;
	}
	for (;;) {
		skip_blank_lines(&t);
		if (t.i >= t.n)
			break;
		if (peek(&t, 0) == '[')
			rc = header(&t, &table, out);
		else
			rc = key_value(&t, &table, out);
		if (rc < 0)
			break;
	}
	buf_release(&table);
	if (rc < 0)
		pyproject_build_release(out);
	return rc;
}

void
pyproject_build_release(struct pyproject_build *b)
{
	pyreqs_release(&b->requires);
	free(b->backend);
	memset(b, 0, sizeof(*b));
}
