/*
 * Reader of PyTorch's select_compute_arch.cmake (selarch.h says what it
 * takes from it), over the CMake-language lexer of cmakelex.c (its
 * grammar) with CMake's escapes: \t \n \r, \; kept as "\;", '\' newline
 * in a quoted argument a continuation, any other non-alphanumeric
 * character itself.
 *
 * Nested parentheses of a condition become "(" and ")" arguments. Command
 * names are case-insensitive, keywords (AND, NOT, STREQUAL) are not. The
 * reader is bounded: at most MAX_TEXT bytes are read, MAX_ARGS arguments
 * of MAX_ARG bytes kept per invocation, MAX_DEPTH nested if()s tracked,
 * MAX_OPS list changes and MAX_NAMES names recorded; the rest is ignored.
 * Regexes are evaluated with POSIX extended regexes after checking they
 * use only the syntax CMake's and POSIX's share (no {}, no classes).
 */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "formats/cmakelex.h"
#include "formats/selarch.h"
#include "core/util.h"

#define MAX_TEXT (1u << 20)
#define MAX_ARGS 64
#define MAX_ARG 1024
#define MAX_DEPTH 16
#define MAX_OPS 512
#define MAX_NAMES 64
#define MAX_RE 256

const char *const selarch_paths[] = {
	"cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake",
	"cmake/select_compute_arch.cmake",
	NULL,
};

struct inv {
	char name[48];
	struct strvec args;
	unsigned line;
};

static void
push_arg(struct inv *inv, struct buf *a)
{
	if (inv->args.n < MAX_ARGS)
		strvec_push(&inv->args, a->s ? a->s : "");
	buf_reset(a);
}

/* After '(': the arguments up to the matching ')'; -1 when the text ends first. */
static int
arguments(struct cmakelex *lx, struct inv *inv)
{
	struct buf a = BUF_INIT;
	unsigned depth = 1;
	int ret = -1;

	while (lx->i < lx->len) {
		int c = cmakelex_at(lx, 0);

		if (isspace(c)) {
			cmakelex_advance(lx, 1);
		} else if (c == '#') {
			cmakelex_comment(lx);
		} else if (c == '(') {
			depth++;
			cmakelex_advance(lx, 1);
			buf_addch(&a, '(');
			push_arg(inv, &a);
		} else if (c == ')') {
			cmakelex_advance(lx, 1);
			if (--depth == 0) {
				ret = 0;
				break;
			}
			buf_addch(&a, ')');
			push_arg(inv, &a);
		} else {
			cmakelex_argument(lx, &a);
			push_arg(inv, &a);
		}
	}
	buf_release(&a);
	return ret;
}

/* The next invocation into inv (args cleared first); 0 at the end of the text. */
static int
next_invocation(struct cmakelex *lx, struct inv *inv)
{
	size_t start, n;

	if (!cmakelex_command(lx, &start, &n, &inv->line))
		return 0;
	if (n >= sizeof(inv->name))
		n = sizeof(inv->name) - 1;
	memcpy(inv->name, lx->s + start, n);
	inv->name[n] = '\0';
	strvec_clear(&inv->args);
	if (arguments(lx, inv) < 0)
		return 0;
	return 1;
}

/* "12.6", "12.6.0" -> 1206; 0 when not such a version. */
static unsigned
version_of(const char *s)
{
	unsigned long major, minor;
	char *end;

	if (!isdigit((unsigned char)*s))
		return 0;
	major = strtoul(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return 0;
	minor = strtoul(end + 1, &end, 10);
	if (*end == '.' && end[1] == '0' && !end[2])
		end += 2;
	if (*end || !major || major > 99 || minor > 99)
		return 0;
	return (unsigned)(major * 100 + minor);
}

static int
is_cuda_version_var(const char *v)
{
	static const char *const names[] = { "CUDA_VERSION", "${CUDA_VERSION}",
					     "CMAKE_CUDA_COMPILER_VERSION",
					     "${CMAKE_CUDA_COMPILER_VERSION}", "CUDAToolkit_VERSION",
					     "${CUDAToolkit_VERSION}", NULL };

	for (size_t i = 0; names[i]; i++)
		if (!strcmp(v, names[i]))
			return 1;
	return 0;
}

/* An if()'s arguments as an AND of CUDA-version literals; -1 when it is something else. */
static int
parse_condition(const struct strvec *args, struct selarch_lit *lits, size_t *nlits)
{
	static const struct { const char *op; int cmp; } ops[] = {
		{ "VERSION_LESS", -1 }, { "VERSION_EQUAL", 0 }, { "VERSION_GREATER", 1 },
		{ "VERSION_LESS_EQUAL", -2 }, { "VERSION_GREATER_EQUAL", 2 },
	};
	size_t i = 0;

	*nlits = 0;
	if (!args->n)
		return -1;
	while (i < args->n) {
		struct selarch_lit l = { 0, 0, 0 };
		size_t k;

		if (!strcmp(args->v[i], "NOT")) {
			l.negate = 1;
			i++;
		}
		if (i + 3 > args->n || !is_cuda_version_var(args->v[i]))
			return -1;
		for (k = 0; k < ARRAY_SIZE(ops); k++)
			if (!strcmp(args->v[i + 1], ops[k].op))
				break;
		if (k == ARRAY_SIZE(ops) || !(l.ver = version_of(args->v[i + 2])))
			return -1;
		l.cmp = ops[k].cmp;
		if (*nlits >= SELARCH_MAX_LITS)
			return -1;
		lits[(*nlits)++] = l;
		i += 3;
		if (i < args->n) {
			if (strcmp(args->v[i], "AND") || i + 1 == args->n)
				return -1;
			i++;
		}
	}
	return 0;
}

struct frame {
	struct selarch_lit prior[SELARCH_MAX_LITS], cur[SELARCH_MAX_LITS];
	size_t nprior, ncur;
	int prior_unknown, cur_unknown;
	struct buf text; /* the branch's condition as written */
};

struct state {
	struct frame f[MAX_DEPTH];
	size_t depth;     /* frames in use */
	size_t overflow;  /* if()s nested beyond MAX_DEPTH */
	unsigned fn;      /* inside function()/macro() */
	int in_select;    /* inside CUDA_SELECT_NVCC_ARCH_FLAGS */
	long cur_name;    /* names[] index of the branch being read, -1 */
};

static void
join_args(const struct strvec *args, struct buf *out)
{
	buf_reset(out);
	strvec_join(args, " ", out);
	if (!out->s)
		buf_addstr(out, "");
}

static void
branch(struct frame *f, const struct strvec *args)
{
	f->cur_unknown = args ? parse_condition(args, f->cur, &f->ncur) < 0 : 0;
	if (!args)
		f->ncur = 0;
	if (args) {
		join_args(args, &f->text);
	} else {
		struct buf t = BUF_INIT;

		buf_addf(&t, "NOT (%s)", f->text.s ? f->text.s : "");
		buf_release(&f->text);
		f->text = t;
	}
}

/* else/elseif: the branch just ended is false from here on. */
static void
close_branch(struct frame *f)
{
	if (f->cur_unknown || f->ncur != 1 || f->nprior >= SELARCH_MAX_LITS) {
		f->prior_unknown = 1;
		return;
	}
	f->prior[f->nprior] = f->cur[0];
	f->prior[f->nprior].negate = !f->cur[0].negate;
	f->nprior++;
}

static void
add_op(struct selarch *sa, const struct state *st, enum selarch_list list, int remove, int clear,
       const struct strvec *args, size_t first, unsigned line)
{
	struct selarch_op *op;
	struct buf cond = BUF_INIT;

	if (sa->nops >= MAX_OPS)
		return;
	ALLOC_GROW(sa->ops, sa->nops + 1, sa->ops_alloc);
	op = &sa->ops[sa->nops++];
	memset(op, 0, sizeof(*op));
	strvec_init(&op->items);
	op->list = list;
	op->remove = remove;
	op->clear = clear;
	op->line = line;
	for (size_t i = first; i < args->n && op->items.n < 64; i++)
		strvec_push(&op->items, args->v[i]);
	op->unknown = st->overflow > 0;
	for (size_t d = 0; d < st->depth; d++) {
		const struct frame *f = &st->f[d];

		if (f->prior_unknown || f->cur_unknown) {
			op->unknown = 1;
		} else {
			for (size_t k = 0; k < f->nprior && op->nlits < SELARCH_MAX_LITS; k++)
				op->lits[op->nlits++] = f->prior[k];
			for (size_t k = 0; k < f->ncur; k++) {
				if (op->nlits >= SELARCH_MAX_LITS) {
					op->unknown = 1;
					break;
				}
				op->lits[op->nlits++] = f->cur[k];
			}
		}
		buf_addf(&cond, "%s%s", cond.len ? " AND " : "", f->text.s ? f->text.s : "");
	}
	op->cond = buf_detach(&cond);
}

static long
list_of(const char *name)
{
	if (!strcmp(name, "CUDA_KNOWN_GPU_ARCHITECTURES"))
		return SELARCH_KNOWN;
	if (!strcmp(name, "CUDA_COMMON_GPU_ARCHITECTURES"))
		return SELARCH_COMMON;
	if (!strcmp(name, "CUDA_ALL_GPU_ARCHITECTURES"))
		return SELARCH_ALL;
	return -1;
}

static int
mentions_arch_name(const char *a)
{
	return strstr(a, "arch_name") != NULL;
}

/* Inside CUDA_SELECT_NVCC_ARCH_FLAGS: the numeric form, the names, the suffix-keeping MATCHALL. */
static void
select_function(struct selarch *sa, struct state *st, const struct inv *inv, int is_if)
{
	const struct strvec *a = &inv->args;

	if (is_if && a->n == 3 && mentions_arch_name(a->v[0]) && !strcmp(a->v[1], "MATCHES") &&
	    a->v[2][0] == '^' && !sa->numeric_re) {
		sa->numeric_re = xstrdup(a->v[2]);
		sa->numeric_line = inv->line;
	}
	if (is_if && a->n == 3 && mentions_arch_name(a->v[0]) && !strcmp(a->v[1], "STREQUAL") &&
	    sa->nnames < MAX_NAMES) {
		struct selarch_name *nm;

		ALLOC_GROW(sa->names, sa->nnames + 1, sa->names_alloc);
		nm = &sa->names[sa->nnames];
		nm->name = xstrdup(a->v[2]);
		strvec_init(&nm->bin);
		nm->line = inv->line;
		st->cur_name = (long)sa->nnames++;
		return;
	}
	if (is_if)
		st->cur_name = -1;
	if (!strcasecmp(inv->name, "set") && a->n >= 2 && !strcmp(a->v[0], "arch_bin") &&
	    st->cur_name >= 0) {
		struct selarch_name *nm = &sa->names[st->cur_name];

		for (size_t i = 1; i < a->n && nm->bin.n < 16; i++)
			strvec_push(&nm->bin, a->v[i]);
	}
	if (!strcasecmp(inv->name, "string") && a->n >= 4 && !strcmp(a->v[0], "REGEX") &&
	    !strcmp(a->v[1], "MATCHALL") && !strcmp(a->v[3], "cuda_arch_bin") && !sa->bin_re) {
		sa->bin_re = xstrdup(a->v[2]);
		sa->bin_line = inv->line;
	}
}

static void
conditional(struct state *st, const struct inv *inv)
{
	const char *n = inv->name;
	struct frame *f = st->depth ? &st->f[st->depth - 1] : NULL;

	if (!strcasecmp(n, "if")) {
		if (st->overflow || st->depth == MAX_DEPTH) {
			st->overflow++;
			return;
		}
		f = &st->f[st->depth++];
		memset(f, 0, sizeof(*f));
		buf_init(&f->text);
		branch(f, &inv->args);
	} else if (!strcasecmp(n, "elseif") || !strcasecmp(n, "else")) {
		if (st->overflow || !f)
			return;
		close_branch(f);
		branch(f, strcasecmp(n, "else") ? &inv->args : NULL);
	} else if (!strcasecmp(n, "endif")) {
		if (st->overflow) {
			st->overflow--;
		} else if (f) {
			buf_release(&f->text);
			st->depth--;
		}
	}
}

int
selarch_parse(struct selarch *sa, const char *text, size_t len)
{
	struct cmakelex sc = { text, len > MAX_TEXT ? MAX_TEXT : len, 0, 1, MAX_ARG, 1 };
	struct inv inv = { "", STRVEC_INIT, 0 };
	struct state st;

	memset(sa, 0, sizeof(*sa));
	memset(&st, 0, sizeof(st));
	st.cur_name = -1;
	while (next_invocation(&sc, &inv)) {
		const char *n = inv.name;
		const struct strvec *a = &inv.args;
		int is_if = !strcasecmp(n, "if") || !strcasecmp(n, "elseif");
		long list;

		if (!strcasecmp(n, "function") || !strcasecmp(n, "macro")) {
			st.fn++;
			st.in_select = a->n && !strcasecmp(a->v[0], "CUDA_SELECT_NVCC_ARCH_FLAGS");
			st.cur_name = -1;
		} else if (!strcasecmp(n, "endfunction") || !strcasecmp(n, "endmacro")) {
			if (st.fn)
				st.fn--;
			st.in_select = 0;
		}
		if (st.in_select)
			select_function(sa, &st, &inv, is_if);
		if (st.in_select && (!strcasecmp(n, "else") || !strcasecmp(n, "endif")))
			st.cur_name = -1;
		conditional(&st, &inv);
		if (st.fn)
			continue;
		if (!strcasecmp(n, "set") && a->n >= 1 && (list = list_of(a->v[0])) >= 0)
			add_op(sa, &st, (enum selarch_list)list, 0, 1, a, 1, inv.line);
		else if (!strcasecmp(n, "list") && a->n >= 2 && (list = list_of(a->v[1])) >= 0 &&
			 (!strcmp(a->v[0], "APPEND") || !strcmp(a->v[0], "REMOVE_ITEM")))
			add_op(sa, &st, (enum selarch_list)list, !strcmp(a->v[0], "REMOVE_ITEM"), 0, a,
			       2, inv.line);
	}
	for (size_t d = 0; d < st.depth; d++)
		buf_release(&st.f[d].text);
	strvec_clear(&inv.args);
	return sa->numeric_re ? 0 : -1;
}

void
selarch_release(struct selarch *sa)
{
	for (size_t i = 0; i < sa->nnames; i++) {
		free(sa->names[i].name);
		strvec_clear(&sa->names[i].bin);
	}
	for (size_t i = 0; i < sa->nops; i++) {
		strvec_clear(&sa->ops[i].items);
		free(sa->ops[i].cond);
	}
	free(sa->names);
	free(sa->ops);
	free(sa->numeric_re);
	free(sa->bin_re);
	memset(sa, 0, sizeof(*sa));
}

/* Only the syntax CMake's regex and POSIX ERE read alike, and short. */
static int
regex_evaluable(const char *re)
{
	size_t n = strlen(re);

	if (!n || n > MAX_RE)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)re[i];

		if (c < 0x20 || c > 0x7e || c == '{' || c == '}')
			return 0;
		if (c == '[' && re[i + 1] == ':')
			return 0;
		if (c == '[' && re[i + 1] == '^' && re[i + 2] == ':')
			return 0;
		if (c == '\\') {
			if (!re[i + 1] || !strchr(".()[]*+?^$|\\-", re[i + 1]))
				return 0;
			i++;
		}
	}
	return 1;
}

/* regexec of `re` on `s`: the match's end if it starts at 0, else -1; -2 when not evaluable. */
static long
match_prefix(const char *re, const char *s, int whole_needed)
{
	regex_t rx;
	regmatch_t m[1];
	long ret = -1;

	if (!regex_evaluable(re) || regcomp(&rx, re, REG_EXTENDED) != 0)
		return -2;
	if (regexec(&rx, s, 1, m, 0) == 0) {
		if (!whole_needed)
			ret = m[0].rm_eo;
		else if (m[0].rm_so == 0)
			ret = m[0].rm_eo;
	}
	regfree(&rx);
	return ret;
}

int
selarch_accepts(const struct selarch *sa, const char *entry, struct buf *why)
{
	long r;

	if (!sa->numeric_re)
		return -1;
	for (size_t i = 0; i < sa->nnames; i++)
		if (!strcmp(sa->names[i].name, entry))
			return 1;
	r = match_prefix(sa->numeric_re, entry, 0);
	if (r == -2)
		return -1;
	if (r >= 0)
		return 1;
	if (why)
		buf_addf(why, "its numeric form is '%s' (line %u)", sa->numeric_re, sa->numeric_line);
	return 0;
}

int
selarch_keeps(const struct selarch *sa, const char *digits)
{
	long r;

	if (!sa->bin_re)
		return -1;
	r = match_prefix(sa->bin_re, digits, 1);
	if (r == -2)
		return -1;
	return r == (long)strlen(digits);
}

static int
lit_true(const struct selarch_lit *l, unsigned cuda)
{
	int c = cuda < l->ver ? -1 : cuda > l->ver ? 1 : 0, t;

	switch (l->cmp) {
	case -1: t = c < 0; break;
	case 1: t = c > 0; break;
	case -2: t = c <= 0; break;
	case 2: t = c >= 0; break;
	default: t = c == 0;
	}
	return l->negate ? !t : t;
}

/* 1 applies, 0 does not, -1 unknown. */
static int
op_applies(const struct selarch_op *op, unsigned cuda)
{
	if (op->unknown)
		return -1;
	for (size_t i = 0; i < op->nlits; i++)
		if (!lit_true(&op->lits[i], cuda))
			return 0;
	return 1;
}

static void
remove_item(struct strvec *sv, const char *item)
{
	size_t k = 0;

	for (size_t i = 0; i < sv->n; i++) {
		if (!strcmp(sv->v[i], item))
			free(sv->v[i]);
		else
			sv->v[k++] = sv->v[i];
	}
	sv->n = k;
	sv->v[k] = NULL;
}

void
selarch_lists(const struct selarch *sa, unsigned cuda, enum selarch_list which,
	      struct strvec *out, size_t *uncertain)
{
	for (size_t i = 0; i < sa->nops; i++) {
		const struct selarch_op *op = &sa->ops[i];
		int ap;

		if (op->list != which)
			continue;
		ap = op_applies(op, cuda);
		if (ap < 0 && uncertain)
			(*uncertain)++;
		if (ap <= 0)
			continue;
		if (op->clear)
			strvec_clear(out);
		for (size_t k = 0; k < op->items.n; k++) {
			if (op->remove)
				remove_item(out, op->items.v[k]);
			else
				strvec_push(out, op->items.v[k]);
		}
	}
}

const struct selarch_name *
selarch_name_of(const struct selarch *sa, const char *arch)
{
	for (size_t i = 0; i < sa->nnames; i++)
		for (size_t k = 0; k < sa->names[i].bin.n; k++)
			if (!strcmp(sa->names[i].bin.v[k], arch))
				return &sa->names[i];
	return NULL;
}

const struct selarch_op *
selarch_added_by(const struct selarch *sa, unsigned cuda, enum selarch_list which, const char *item)
{
	for (size_t i = 0; i < sa->nops; i++) {
		const struct selarch_op *op = &sa->ops[i];

		if (op->list != which || op->remove || op_applies(op, cuda) != 1)
			continue;
		for (size_t k = 0; k < op->items.n; k++)
			if (!strcmp(op->items.v[k], item))
				return op;
	}
	return NULL;
}
