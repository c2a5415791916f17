/*
 * The release table (releases.h): one row per PyTorch minor release. The
 * facts and where each was read:
 *  - companions: pytorch/pytorch RELEASE.md, "Release Compatibility
 *    Matrix", and torchvision's README: a companion built against another
 *    torch fails at import (`operator torchvision::nms does not exist`);
 *  - python, cuda: the same matrix ("Stable CUDA", then "Experimental
 *    CUDA"), read for 2.7 on;
 *  - setuptools, loadtime, configure: copies of the trees. The setup.py
 *    of the 2.8 cycle already imports setuptools.command.bdist_wheel at
 *    load time; v2.8.0 itself was not read, so the need starts at 2.9,
 *    whose pyproject.toml asks setuptools>=70.1.0,<80.0;
 *  - arch forms (judged by these only where the tree's own
 *    select_compute_arch.cmake cannot be run by cmake -P: no tree yet, no
 *    cmake, or a file without CUDA_SELECT_NVCC_ARCH_FLAGS): v2.6.0's
 *    select_compute_arch.cmake (line 196) takes
 *    "^([0-9]+\.[0-9]a?(\([0-9]+\.[0-9]\))?)$": a multi-digit major and an
 *    'a' suffix, no 'f'; 'f' came with PR #157999 (July 2025), taken as
 *    torch 2.9 (unverified); older copies took a one-digit major only and
 *    9.0a failed in some (#113948), in releases not identified, so 2.4
 *    and 2.5 neither take nor refuse those;
 *  - cub: v2.6.0's cmake/Modules/FindCUB.cmake looks for cub/cub.cuh only
 *    under CUDA_TOOLKIT_INCLUDE (measured with CUDA 13.0,
 *    docs/real-pytorch.md); 2.9, the first release with CUDA 13 builds, is
 *    taken to find it; 2.7 and 2.8 were not read;
 *  - switches: MSLK was FBGEMM GenAI until the rename in 2.11 (PRs
 *    #171712 and follow-ups; torch 2.11.0+cu130 has -DUSE_MSLK and no
 *    -DUSE_FBGEMM_GENAI); FBGEMM GenAI's switch came with 2.9.
 * May include: core/, profile/releases.h.
 */
#include <string.h>

#include "core/buf.h"
#include "core/relver.h"
#include "core/util.h"
#include "profile/releases.h"

#define V(a, b) { a, b, 0, 0 }
#define CONFIGURE_ENV "CMAKE_ONLY=1 in the environment (popped), or --cmake-only"
#define BDIST_WHEEL "setuptools.command.bdist_wheel"

/* Oldest first; a field left out is not known for that release (NULL, "", 0). */
static const struct torch_release rows[] = {
	{
		.torch = V(2, 4), .era = "setup-helpers",
		.torchvision = V(0, 19), .torchaudio = V(2, 4),
		.arch_forms = "", .arch_forms_refused = "f", .cub = RELEASE_CUB_LOST,
		.evidence = "release matrix (companions)",
	},
	{
		.torch = V(2, 5), .era = "setup-helpers",
		.torchvision = V(0, 20), .torchaudio = V(2, 5),
		.arch_forms = "", .arch_forms_refused = "f", .cub = RELEASE_CUB_LOST,
		.evidence = "release matrix (companions)",
	},
	{
		.torch = V(2, 6), .era = "setup-helpers",
		.torchvision = V(0, 21), .torchaudio = V(2, 6),
		.arch_forms = "aM", .arch_forms_refused = "f", .cub = RELEASE_CUB_LOST,
		.evidence = "release matrix (companions); the real v2.6.0 tree (arch forms, "
			    "FindCUB.cmake)",
	},
	{
		.torch = V(2, 7), .era = "setup-helpers",
		.torchvision = V(0, 22), .torchaudio = V(2, 7),
		.python = "3.9-3.13", .cuda = "11.8, 12.6 (12.8 experimental)", .cuda_blackwell = 1208,
		.arch_forms = "aM", .arch_forms_refused = "", .cub = RELEASE_CUB_UNVERIFIED,
		.configure = "the argument --cmake-only (no CMAKE_ONLY)",
		.evidence = "release matrix; setup.py of a v2.7.1 copy; pyproject.toml as v2.6.0's",
	},
	{
		.torch = V(2, 8), .era = "setup-helpers",
		.torchvision = V(0, 23), .torchaudio = V(2, 8),
		.python = "3.9-3.13", .cuda = "12.6, 12.8 (12.9 experimental)", .cuda_blackwell = 1208,
		.arch_forms = "aM", .arch_forms_refused = "", .cub = RELEASE_CUB_UNVERIFIED,
		.configure = CONFIGURE_ENV,
		.evidence = "release matrix; setup.py of the 2.8 cycle (Python >= 3.9)",
	},
	{
		.torch = V(2, 9), .era = "setup-helpers",
		.torchvision = V(0, 24), .torchaudio = V(2, 9),
		.python = "3.10-3.14", .cuda = "12.6, 12.8 (13.0 experimental)", .cuda_blackwell = 1208,
		.arch_forms = "faM", .arch_forms_refused = "", .cub = RELEASE_CUB_FINDS,
		.switches = { "USE_FBGEMM_GENAI" },
		.setuptools = ">=70.1", .loadtime = BDIST_WHEEL, .configure = CONFIGURE_ENV,
		.evidence = "release matrix; pyproject.toml 'setuptools>=70.1.0,<80.0' (rewritten by "
			    "nixpkgs' torch 2.9.0)",
	},
	{
		.torch = V(2, 10), .era = "setup-helpers",
		.torchvision = V(0, 25), .torchaudio = V(2, 10),
		.python = "3.10-3.14", .cuda = "12.6, 12.8 (13.0 experimental)", .cuda_blackwell = 1208,
		.arch_forms = "faM", .arch_forms_refused = "", .cub = RELEASE_CUB_FINDS,
		.switches = { "USE_FBGEMM_GENAI" },
		.setuptools = ">=70.1", .loadtime = BDIST_WHEEL, .configure = CONFIGURE_ENV,
		.evidence = "release matrix; setup.py of the 2.10 cycle (Python >= 3.10)",
	},
	{
		.torch = V(2, 11), .era = "setup-helpers",
		.torchvision = V(0, 26), .torchaudio = V(2, 11),
		.python = "3.10-3.14", .cuda = "12.6, 12.8, 13.0", .cuda_blackwell = 1208,
		.arch_forms = "faM", .arch_forms_refused = "", .cub = RELEASE_CUB_FINDS,
		.switches = { "USE_MSLK" }, .renamed = { "USE_FBGEMM_GENAI", "USE_MSLK" },
		.setuptools = ">=70.1", .loadtime = BDIST_WHEEL, .configure = CONFIGURE_ENV,
		.evidence = "release matrix; the official 2.11.0+cu130 wheel, made by setuptools 81.0.0",
	},
	{
		.torch = V(2, 12), .era = "setup-helpers",
		.torchvision = V(0, 27), .torchaudio = V(2, 12),
		.python = "3.10-3.14", .cuda = "12.6, 13.0, 13.2", .cuda_blackwell = 1300,
		.arch_forms = "faM", .arch_forms_refused = "", .cub = RELEASE_CUB_FINDS,
		.switches = { "USE_MSLK" },
		.setuptools = ">=70.1", .loadtime = BDIST_WHEEL, .configure = CONFIGURE_ENV,
		.provisional = "no 2.12 tree or wheel was read; Python, companions, setuptools and "
			       "configure are 2.11's carried on, the era 'probably' setup-helpers",
		.evidence = "the release matrix of release/2.12 (PyTorch PR #182849): CUDA 12.6, 13.0, "
			    "13.2, 12.8 removed (docs/design/pytorch.md §10)",
	},
};

static const struct {
	char kind;
	const char *why;
} form_why[] = {
	{ 'f', "v2.6.0's numeric form takes an 'a' suffix only; 'f' came with PyTorch PR #157999 "
	       "(July 2025), taken as torch 2.9" },
	{ 'a', "v2.6.0's numeric form takes 'X.Ya'; older releases rejected 9.0a (PyTorch issue "
	       "#113948)" },
	{ 'M', "v2.6.0's numeric form takes a multi-digit major; older copies of the file took "
	       "one digit" },
};

const struct torch_release *
release_rows(size_t *n)
{
	*n = ARRAY_SIZE(rows);
	return rows;
}

const struct torch_release *
release_find(const struct relver *v)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		if (relver_cmp(&rows[i].torch, v) == 0)
			return &rows[i];
	return NULL;
}

const struct torch_release *
release_nearest(const struct relver *v)
{
	const struct torch_release *r = release_find(v);

	if (r)
		return r;
	return relver_cmp(v, &rows[0].torch) < 0 ? &rows[0] : &rows[ARRAY_SIZE(rows) - 1];
}

void
release_span(struct buf *out)
{
	relver_format(&rows[0].torch, 0, out);
	buf_addstr(out, " to ");
	relver_format(&rows[ARRAY_SIZE(rows) - 1].torch, 0, out);
}

const char *
release_arch_form_why(char kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(form_why); i++)
		if (form_why[i].kind == kind)
			return form_why[i].why;
	return "";
}

/* The first line of <src>/version.txt as a version. */
static int
version_txt(const char *src, struct relver *v)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int ok;

	buf_addf(&path, "%s/version.txt", src);
	ok = is_regular(path.s) && read_file(&text, path.s) == 0 &&
	     relver_parse(text.s, v, NULL) == 0;
	buf_release(&path);
	buf_release(&text);
	return ok;
}

const char *
tree_version(const char *ref, const char *src, struct relver *out)
{
	struct relver r;
	int have_ref = ref && relver_parse(ref, &r, NULL) == 0;

	memset(out, 0, sizeof(*out));
	if (src && version_txt(src, out)) {
		if (have_ref && r.has_patch && r.major == out->major && r.minor == out->minor) {
			out->patch = r.patch;
			out->has_patch = 1;
		}
		return "version.txt";
	}
	if (!have_ref)
		return NULL;
	*out = r;
	return "source.ref";
}
