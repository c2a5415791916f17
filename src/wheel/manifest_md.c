/*
 * A manifest as Markdown, in the style of PyTorch's compatibility tables
 * (manifest.h): the summary, the feature table with ✅/❌/⚠️, the
 * libraries' SASS/PTX and manylinux needs, the smoke runtime (one GPU, or
 * --gpu all's per-GPU columns, benchmarks and what was measured across
 * GPUs) and the problems. The manifest itself is made in manifest.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"
#include "core/util.h"
#include "wheel/manifest.h"

/* A run of '_' between two letters or digits, as in "libtorch_cuda": never emphasis. */
static int
md_intraword(const char *start, const char *p)
{
	const char *a = p, *z = p;

	while (a > start && a[-1] == '_')
		a--;
	while (*z == '_')
		z++;
	return a > start && isalnum((unsigned char)a[-1]) && isalnum((unsigned char)*z);
}

/*
 * Whether the character at `p` (in `start`, escaped to one line) could
 * begin markup: '|' ends the cell; a backslash before ASCII punctuation
 * escapes it, so "\|" once became "\\|" and split the cell; '<' and '&'
 * begin HTML and entities; '`', '*', '~', '$', '[' and ']' begin code,
 * emphasis, strikethrough, math and links, "://" and "www." autolinks,
 * '@' a mention. Each is written with a backslash before it, which
 * CommonMark allows before any ASCII punctuation: shown as it is.
 */
static int
md_special(const char *start, const char *p)
{
	unsigned char c = (unsigned char)*p;

	if (strchr("|<&`*~$[]@", c))
		return 1;
	if (c == '\\')
		return ispunct((unsigned char)p[1]);
	if (c == '_')
		return !md_intraword(start, p);
	if (c == ':')
		return p[1] == '/' && p[2] == '/';
	return c == '.' && p - start >= 3 && !strncasecmp(p - 3, "www", 3);
}

void
manifest_md_cell(struct buf *md, const char *s)
{
	struct buf esc = BUF_INIT;

	if (!s || !*s) {
		buf_addch(md, '-');
		return;
	}
	diag_name(&esc, s);
	for (const char *p = esc.s; *p; p++) {
		if (md_special(esc.s, p))
			buf_addch(md, '\\');
		buf_addch(md, *p);
	}
	buf_release(&esc);
}

/*
 * A string from a manifest for Markdown, escaped as a cell; '-' for none,
 * never NULL for %s. It lives until MD_RING more calls, enough for the
 * fields of one line; manifest_markdown releases the ring at its end.
 */
#define MD_RING 8
static struct buf md_ring[MD_RING];
static unsigned md_next;

static const char *
md_text(const char *s)
{
	struct buf *b = &md_ring[md_next++ % MD_RING];

	buf_reset(b);
	manifest_md_cell(b, s);
	return b->s;
}

static const char *
md_str(const struct json *j)
{
	return md_text(json_str(j));
}

/*
 * The Markdown of a manifest read from outside walks each list once
 * (json_items) and looks keys up through a sorted index: json_at and
 * json_get walk from the start each time, O(n^2) on 100,000 features
 * (docs/design/bounds.md).
 */
static void
md_list(struct buf *out, const struct json *arr, const char *none)
{
	const struct json **items;
	size_t i, n = json_items(arr, &items);

	if (!n)
		buf_addstr(out, none);
	for (i = 0; i < n; i++)
		buf_addf(out, "%s%s", i ? " " : "", md_str(items[i]));
	free(items);
}

static const char *
md_mark(const struct json *check)
{
	static const char *const marks[][2] = { { "ok", "✅" }, { "warn", "⚠️" }, { "skip", "➖" },
						{ "fail", "❌" } };
	const char *st = json_str(json_get(check, "status"));

	for (size_t k = 0; st && k < ARRAY_SIZE(marks); k++)
		if (!strcmp(st, marks[k][0]))
			return marks[k][1];
	return "?";
}

/* The checks of one run: ✅/⚠️/➖/❌ and the reason. */
static void
checks_markdown(const struct json *checks, struct buf *out)
{
	const struct json **items;
	size_t n = json_items(checks, &items);

	buf_addstr(out, "| Check | | Detail |\n|---|---|---|\n");
	for (size_t i = 0; i < n; i++)
		buf_addf(out, "| %s | %s | %s |\n", md_str(json_get(items[i], "name")),
			 md_mark(items[i]), md_str(json_get(items[i], "reason")));
	free(items);
}

/*
 * The entry of `arr` named `name`: at position `i` when the runs list
 * them in the same order (one probe: the usual case), else among the
 * first 64 (a manifest from outside may be large; this stays linear).
 */
static const struct json *
same_named(const struct json *arr, size_t i, const char *name)
{
	const struct json *j = json_at(arr, i);

	if (name && json_str(json_get(j, "name")) && !strcmp(json_str(json_get(j, "name")), name))
		return j;
	for (size_t k = 0; name && k < json_len(arr) && k < 64; k++)
		if (json_str(json_get(json_at(arr, k), "name")) &&
		    !strcmp(json_str(json_get(json_at(arr, k), "name")), name))
			return json_at(arr, k);
	return NULL;
}

/* The GPUs of a --gpu all run, then one column of marks per GPU (the detail of the first not ✅). */
static void
multi_checks_markdown(const struct json *gpus, size_t n, struct buf *out)
{
	const struct json *first = json_at(gpus, 0);
	size_t nc;

	buf_addf(out, "\n## On %zu GPU%s\n\n| GPU | Model | Capability | Driver | Result |\n"
		 "|---|---|---|---|---|\n", json_len(gpus), json_len(gpus) == 1 ? "" : "s");
	for (size_t g = 0; g < n; g++) {
		const struct json *one = json_at(gpus, g), *gpu = json_get(one, "gpu");

		buf_addf(out, "| %s | %s | %s | %s | %s |\n", md_str(json_get(one, "visible")),
			 md_str(json_get(gpu, "name")), md_str(json_get(gpu, "capability")),
			 md_str(json_get(gpu, "driver")), md_str(json_get(one, "status")));
	}
	buf_addstr(out, "\n| Check |");
	for (size_t g = 0; g < n; g++)
		buf_addf(out, " GPU %s |", md_str(json_get(json_at(gpus, g), "visible")));
	buf_addstr(out, " Detail |\n|---|");
	for (size_t g = 0; g <= n; g++)
		buf_addstr(out, "---|");
	buf_addch(out, '\n');
	nc = json_len(json_get(first, "checks"));
	for (size_t i = 0; i < nc; i++) {
		const struct json *c0 = json_at(json_get(first, "checks"), i), *detail = c0;
		const char *name = json_str(json_get(c0, "name"));

		buf_addf(out, "| %s |", md_str(json_get(c0, "name")));
		for (size_t g = 0; g < n; g++) {
			const struct json *c = same_named(json_get(json_at(gpus, g), "checks"), i, name);

			buf_addf(out, " %s |", c ? md_mark(c) : "–");
			if (c && detail == c0 && strcmp(md_str(json_get(c, "status")), "ok") &&
			    !strcmp(md_str(json_get(c0, "status")), "ok"))
				detail = c;
		}
		buf_addf(out, " %s |\n", md_str(json_get(detail, "reason")));
	}
}

/* Each GPU's benchmarks side by side. */
static void
multi_benches_markdown(const struct json *gpus, size_t n, struct buf *out)
{
	const struct json *first = json_at(gpus, 0);
	size_t nc;

	nc = json_len(json_get(first, "benchmarks"));
	if (nc) {
		buf_addstr(out, "\n| Benchmark | Shape |");
		for (size_t g = 0; g < n; g++)
			buf_addf(out, " GPU %s |", md_str(json_get(json_at(gpus, g), "visible")));
		buf_addstr(out, "\n|---|---|");
		for (size_t g = 0; g < n; g++)
			buf_addstr(out, "---|");
		buf_addch(out, '\n');
	}
	for (size_t i = 0; i < nc; i++) {
		const struct json *b0 = json_at(json_get(first, "benchmarks"), i);

		buf_addf(out, "| %s | %s |", md_str(json_get(b0, "name")), md_str(json_get(b0, "shape")));
		for (size_t g = 0; g < n; g++) {
			const struct json *b = same_named(json_get(json_at(gpus, g), "benchmarks"), i,
							  json_str(json_get(b0, "name")));
			double pct = json_number_value(json_get(b, "percent_of_peak"));

			if (!b)
				buf_addstr(out, " – |");
			else if (pct > 0)
				buf_addf(out, " %.1f %s (%.0f %%) |", json_number_value(json_get(b, "value")),
					 md_str(json_get(b, "unit")), pct);
			else
				buf_addf(out, " %.1f %s |", json_number_value(json_get(b, "value")),
					 md_str(json_get(b, "unit")));
		}
		buf_addch(out, '\n');
	}
}

/* Across GPUs: its checks, the P2P matrix and the all-reduce bandwidth. */
static void
cross_markdown(const struct json *cross, struct buf *out)
{
	const struct json *p2p = json_get(cross, "p2p"), *topo = json_get(cross, "topology");
	size_t n, nc;

	if (!strcmp(md_str(json_get(cross, "status")), "skipped")) {
		/* The reason never starts a line, where "# x" or "- x" would be a heading or a list. */
		buf_addf(out, "\n### Across GPUs: skipped\n\nSkipped: %s\n",
			 md_str(json_get(cross, "reason")));
		return;
	}
	buf_addf(out, "\n### Across GPUs %s: link %s, NCCL %s\n\n", md_str(json_get(cross, "visible")),
		 md_str(json_get(cross, "link")), md_str(json_get(cross, "nccl")));
	checks_markdown(json_get(cross, "checks"), out);
	n = json_len(p2p) > 64 ? 64 : json_len(p2p);
	if (n) {
		buf_addstr(out, "\nPeer access (nvidia-smi topo -m):\n\n| from \\ to |");
		for (size_t b = 0; b < n; b++)
			buf_addf(out, " %zu |", b);
		buf_addstr(out, "\n|---|");
		for (size_t b = 0; b < n; b++)
			buf_addstr(out, "---|");
		buf_addch(out, '\n');
	}
	for (size_t a = 0; a < n; a++) {
		buf_addf(out, "| %zu |", a);
		for (size_t b = 0; b < n; b++) {
			const struct json *v = json_at(json_at(p2p, a), b);
			const char *how = json_str(json_at(json_at(topo, a), b));

			buf_addf(out, " %s%s%s%s |", a == b ? "–" : json_is_true(v) ? "✅" : "❌",
				 how ? " (" : "", how ? md_text(how) : "", how ? ")" : "");
		}
		buf_addch(out, '\n');
	}
	nc = json_len(json_get(cross, "benchmarks"));
	if (nc)
		buf_addstr(out, "\n| All-reduce | algbw | busbw | % of datasheet |\n|---|---|---|---|\n");
	for (size_t i = 0; i < nc; i++) {
		const struct json *b = json_at(json_get(cross, "benchmarks"), i);
		double pct = json_number_value(json_get(b, "percent_of_peak"));

		buf_addf(out, "| %s | %.1f GB/s | %.1f GB/s |", md_str(json_get(b, "shape")),
			 json_number_value(json_get(b, "algbw")), json_number_value(json_get(b, "value")));
		if (pct > 0)
			buf_addf(out, " %.0f %% of %.0f (%s) |\n", pct,
				 json_number_value(json_get(b, "peak")), md_str(json_get(b, "link")));
		else
			buf_addstr(out, " – |\n");
	}
}

/*
 * bwbuild smoke --gpu all: the GPUs, one column of marks per GPU (the
 * detail of the first that is not ✅), the benchmarks side by side, then
 * across GPUs: its checks, the P2P matrix and the all-reduce bandwidth.
 */
static void
runtime_markdown_multi(const struct json *rt, struct buf *out)
{
	const struct json *gpus = json_get(rt, "gpus"), *cross = json_get(rt, "cross_gpu");
	size_t n = json_len(gpus) > 64 ? 64 : json_len(gpus);

	multi_checks_markdown(gpus, n, out);
	multi_benches_markdown(gpus, n, out);
	if (json_is_object(cross))
		cross_markdown(cross, out);
}

/* bwbuild smoke's result: ✅/⚠️/➖/❌ per check, then the benchmarks. */
static void
runtime_markdown(const struct json *rt, struct buf *out)
{
	const struct json *gpu = json_get(rt, "gpu"), *checks = json_get(rt, "checks");
	const struct json *benches = json_get(rt, "benchmarks");

	if (!json_is_object(rt))
		return;
	if (json_is_array(json_get(rt, "gpus"))) {
		runtime_markdown_multi(rt, out);
		return;
	}
	if (json_str(json_get(rt, "device")) && !strcmp(json_str(json_get(rt, "device")), "cpu"))
		buf_addf(out, "\n## On the CPU: %s\n\n", md_str(json_get(rt, "device_reason")));
	else
		buf_addf(out, "\n## On the GPU: %s (%s), driver %s\n\n",
			 md_str(json_get(gpu, "name")), md_str(json_get(gpu, "capability")),
			 md_str(json_get(gpu, "driver")));
	checks_markdown(checks, out);
	const struct json **items;
	size_t n;

	n = json_items(benches, &items);
	if (n)
		buf_addstr(out, "\n| Benchmark | Shape | Value | % of peak |\n|---|---|---|---|\n");
	for (size_t i = 0; i < n; i++) {
		const struct json *b = items[i], *pct = json_get(b, "percent_of_peak");

		buf_addf(out, "| %s | %s | %.1f %s |", md_str(json_get(b, "name")),
			 md_str(json_get(b, "shape")), json_number_value(json_get(b, "value")),
			 md_str(json_get(b, "unit")));
		if (pct && json_number_value(pct) > 0)
			buf_addf(out, " %.0f %% |\n", json_number_value(pct));
		else
			buf_addstr(out, " – |\n");
	}
	free(items);
}

void
manifest_markdown(const struct json *m, struct buf *out)
{
	const struct json *wheel = json_get(m, "wheel"), *features = json_get(m, "features");
	const struct json *libs = json_get(m, "libraries"), *profile = json_get(m, "profile");
	const struct json *requested = json_get(profile, "features"), *v = json_get(m, "verify");
	const struct json *vp = json_get(m, "version_py"), *archs = json_get(m, "archs");
	const struct json **items;
	struct json_index asked_ix, feat_ix, eff_ix;
	size_t i, n;

	buf_addf(out, "# %s %s", json_str(json_get(wheel, "name")) ?
		 md_str(json_get(wheel, "name")) : "?",
		 json_str(json_get(wheel, "version")) ? md_str(json_get(wheel, "version")) : "?");
	/* Several profiles' tables on one page (a CI summary) say whose each is. */
	if (json_str(json_get(profile, "name")))
		buf_addf(out, " (profile %s)", md_str(json_get(profile, "name")));
	buf_addstr(out, "\n\n");
	buf_addf(out, "- file: %s\n", md_str(json_get(wheel, "file")));
	if (json_str(json_get(vp, "cuda")))
		buf_addf(out, "- CUDA: %s\n", md_str(json_get(vp, "cuda")));
	if (json_str(json_get(vp, "git_version")))
		buf_addf(out, "- commit: %s\n", md_str(json_get(vp, "git_version")));
	buf_addf(out, "- manylinux: %s\n", json_str(json_get(wheel, "manylinux")) ?
		 md_str(json_get(wheel, "manylinux")) : "none");
	buf_addstr(out, "- SASS: ");
	md_list(out, json_get(archs, "sass"), "none");
	buf_addstr(out, "\n- PTX: ");
	md_list(out, json_get(archs, "ptx"), "none");
	buf_addf(out, "\n- verify: %s\n\n", json_is_true(json_get(v, "ok")) ? "✅ clean" :
		 "❌ failed");

	buf_addstr(out, requested ? "| Feature | Compiled in | Profile asked |\n|---|---|---|\n" :
				    "| Feature | Compiled in |\n|---|---|\n");
	n = json_items(features, &items);
	json_index_build(&asked_ix, requested);
	json_index_build(&feat_ix, features);
	json_index_build(&eff_ix, json_get(m, "features_effective"));
	for (i = 0; i < n; i++) {
		const char *k = json_member_key(items[i]);
		const struct json *want = json_index_get(&asked_ix, k);
		const struct json *eff = json_index_get(&eff_ix, k);
		int on = json_is_true(json_index_get(&feat_ix, k));

		/* effective null: the tree declares no such option, which is not "off". */
		if (eff && json_get(eff, "effective") && !json_is_bool(json_get(eff, "effective")))
			buf_addf(out, "| %s | ➖ not in this tree (no %s) |", md_text(k),
				 md_str(json_get(eff, "option")));
		else
			buf_addf(out, "| %s | %s |", md_text(k), on ? "✅" : "❌");
		if (requested) {
			const char *w = json_str(want);
			int asked = w ? !strcmp(w, "on") : json_is_true(want);

			if (!want)
				buf_addstr(out, " – |");
			else
				buf_addf(out, " %s%s |", asked ? "on" : "off",
					 asked != on ? " ⚠️ differs" : "");
		}
		buf_addch(out, '\n');
	}
	free(items);
	json_index_release(&asked_ix);
	json_index_release(&feat_ix);
	json_index_release(&eff_ix);
	if (!n)
		buf_addstr(out, requested ? "| ⚠️ no build-settings header found | | |\n" :
					    "| ⚠️ no build-settings header found | |\n");

	buf_addstr(out, "\n| Library | SASS | PTX | manylinux | Needs |\n|---|---|---|---|---|\n");
	n = json_items(libs, &items);
	for (i = 0; i < n; i++) {
		const struct json *l = items[i], *ml = json_get(l, "manylinux");

		buf_addf(out, "| %s | ", md_str(json_get(l, "path")));
		md_list(out, json_get(l, "sass"), "–");
		buf_addstr(out, " | ");
		md_list(out, json_get(l, "ptx"), "–");
		buf_addf(out, " | %s | ", json_str(json_get(ml, "policy")) ?
			 md_str(json_get(ml, "policy")) : "❌");
		md_list(out, json_get(l, "needed"), "–");
		buf_addstr(out, " |\n");
	}
	free(items);
	runtime_markdown(json_get(m, "runtime"), out);
	n = json_items(json_get(v, "errors"), &items);
	if (n)
		buf_addstr(out, "\n## Problems\n\n");
	for (i = 0; i < n; i++)
		buf_addf(out, "- ❌ %s\n", md_str(items[i]));
	free(items);
	for (i = 0; i < MD_RING; i++)
		buf_release(&md_ring[i]);
}
