#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "pipeline/doctor.h"
#include "core/proc.h"
#include "host/host.h"
#include "core/json.h"
#include "profile/knowledge.h"
#include "pipeline/plan.h"
#include "profile/profile.h"
#include "profile/releases.h"
#include "pipeline/resolve.h"
#include "core/util.h"

/* The toolkit version in CUDA's version.json ({"cuda": {"version": "13.0.88"}}); 0 if none. */
static unsigned
cuda_version_json(const char *path)
{
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct json *j = NULL;
	unsigned v = 0;

	if (path_exists(path) && read_file(&text, path) == 0)
		j = json_parse(text.s, text.len, &why);
	if (j)
		v = kb_parse_version(json_str(json_get(json_get(j, "cuda"), "version")));
	json_free(j);
	buf_release(&text);
	buf_release(&why);
	return v;
}

/*
 * include/cuda.h's "#define CUDA_VERSION 13000" (major*1000 + minor*10):
 * read, not run, so resolving a profile starts no process (an up-to-date
 * build must start none). 0 if none.
 */
static unsigned
cuda_version_header(const char *path)
{
	struct buf text = BUF_INIT;
	const char *d;
	unsigned v = 0;

	if (is_regular(path) && read_file(&text, path) == 0 &&
	    (d = strstr(text.s, "#define CUDA_VERSION "))) {
		unsigned long n = strtoul(d + strlen("#define CUDA_VERSION "), NULL, 10);

		if (n >= 1000 && n < 100000)
			v = (unsigned)(n / 1000 * 100 + n % 1000 / 10);
	}
	buf_release(&text);
	return v;
}

/* The toolkit's own word when it has neither: `nvcc --version`; 0 if none. */
static unsigned
cuda_version_nvcc(const char *nvcc)
{
	const char *argv[] = { nvcc, "--version", NULL };
	struct buf out = BUF_INIT;
	unsigned v = 0;

	if (access(nvcc, X_OK) == 0 && proc_query_kept(argv, &out) == 0)
		v = nvcc_version_parse(out.s ? out.s : "");
	buf_release(&out);
	return v;
}

unsigned
resolve_cuda_version(const struct profile *p)
{
	struct buf f = BUF_INIT;
	unsigned v = kb_parse_version(p->cuda_version.str);

	if (!v) {
		buf_addf(&f, "%s/version.json", resolve_cuda_home(p));
		v = cuda_version_json(f.s);
	}
	if (!v) {
		buf_reset(&f);
		buf_addf(&f, "%s/include/cuda.h", resolve_cuda_home(p));
		v = cuda_version_header(f.s);
	}
	if (!v) {
		buf_reset(&f);
		buf_addf(&f, "%s/bin/nvcc", resolve_cuda_home(p));
		v = cuda_version_nvcc(f.s);
	}
	buf_release(&f);
	return v;
}

const char *
resolve_cuda_home(const struct profile *p)
{
	const char *home = p->cuda_home.str ? p->cuda_home.str : getenv("CUDA_HOME");

	return home && *home ? home : "/usr/local/cuda";
}

/* A name becomes work/<name> and out/<name>: one plain path component, never a path. */
static int
check_name(const struct profile *p)
{
	const char *n = p->name.str;
	size_t len = n ? strlen(n) : 0;
	struct buf shown = BUF_INIT;

	if (len && len <= 64 && isalnum((unsigned char)n[0]) &&
	    strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == len)
		return 0;
	error_at(&p->name.loc, "name '%s' is not a profile name: it names the directories "
		 "work/<name> and out/<name>, so use 1 to 64 letters, digits, '.', '_' or '-', "
		 "starting with a letter or digit", n ? profile_echo(&shown, n) : "");
	buf_release(&shown);
	return -1;
}

/* An extension's cuda.archs default to those of the torch profile it builds on. */
static int
extension_archs(struct profile *p)
{
	struct profile t;
	int rc;

	/* An extension built without CUDA (on a CPU torch: torchvision's CPU ops) compiles for no arch. */
	if (!profile_is_extension(p) || p->archs_given || !p->torch.str ||
	    p->features[FEAT_CUDA] == TRI_OFF)
		return 0;
	if (!profile_torch_is_profile(p))
		return error_at(&p->torch.loc, "'torch: %s' is a wheel or directory, so there is no "
				"torch profile to take cuda.archs from; list them (bwbuild archs "
				"shows what that torch carries)", p->torch.str);
	memset(&t, 0, sizeof(t));
	rc = profile_load_set(&t, p->torch.str, NULL);
	if (rc < 0)
		error_at(&p->torch.loc, "the torch profile '%s' cannot be loaded", p->torch.str);
	else if (profile_is_extension(&t))
		rc = error_at(&p->torch.loc, "'%s' is an extension profile, not a torch one",
			      p->torch.str);
	else
		profile_inherit_archs(p, &t);
	profile_release(&t);
	return rc;
}

static int resolve_kb(struct profile *p, const struct resolve_opts *o);

/*
 * cuda.version says which toolkit the profile is meant for; the one at
 * cuda.home is the one that builds. Read from its files (no process
 * started, as an up-to-date build starts none) and said when they differ:
 * a warning, an error under --strict (-1 then).
 */
static int
check_toolkit_version(const struct profile *p, unsigned declared, int strict)
{
	struct buf from = BUF_INIT;
	const char *home = resolve_cuda_home(p);
	unsigned have;
	int rc = 0;

	buf_addf(&from, "%s/version.json", home);
	have = cuda_version_json(from.s);
	if (!have) {
		buf_reset(&from);
		buf_addf(&from, "%s/include/cuda.h", home);
		have = cuda_version_header(from.s);
	}
	if (have && declared && have != declared && p->features[FEAT_CUDA] != TRI_OFF) {
		struct buf msg = BUF_INIT;

		buf_addf(&msg, "the profile says cuda.version %u.%u but the toolkit at '%s' is CUDA "
			 "%u.%u (%s), and that one builds: the archs were checked for %u.%u; set "
			 "cuda.home to a CUDA %u.%u toolkit, or cuda.version to \"%u.%u\"",
			 declared / 100, declared % 100, home, have / 100, have % 100, from.s,
			 declared / 100, declared % 100, declared / 100, declared % 100, have / 100,
			 have % 100);
		if (strict)
			rc = error_at(&p->cuda_version.loc, "%s", msg.s);
		else
			warning_at(&p->cuda_version.loc, "%s", msg.s);
		buf_release(&msg);
	}
	buf_release(&from);
	return rc;
}

int
resolve_profile(struct profile *p, const struct resolve_opts *o)
{
	int rc;

	/*
	 * Every problem of the profile in one run, sorted by file and line:
	 * a profile that loaded but failed validation is still checked
	 * against the knowledge base (validation leaves out what it refused).
	 */
	diag_collect_begin();
	rc = profile_load_set(p, o->profile, o->sets);
	/* The name is set once validation ran: before it, the file could not be read or merged. */
	if (rc == 0 || p->name.str) {
		if (check_name(p) < 0)
			rc = -1;
		if (extension_archs(p) < 0 || resolve_kb(p, o) < 0)
			rc = -1;
	}
	diag_collect_end();
	return rc;
}

/* The CUDA version the archs are judged against and the knowledge base's checks. */
static int
resolve_kb(struct profile *p, const struct resolve_opts *o)
{
	struct kb_context kc = { 0, NULL, { 0, 0, 0, 0 }, NULL, NULL };
	struct buf from = BUF_INIT;
	int rc, rc_toolkit = 0;

	if (p->cuda_version.str) {
		kc.cuda = kb_parse_version(p->cuda_version.str);
		kc.cuda_from = "cuda.version";
		if (check_toolkit_version(p, kc.cuda, o->strict) < 0)
			rc_toolkit = -1;
	} else {
		buf_addf(&from, "%s/version.json", resolve_cuda_home(p));
		kc.cuda = cuda_version_json(from.s);
		if (!kc.cuda) {
			buf_reset(&from);
			buf_addf(&from, "%s/include/cuda.h", resolve_cuda_home(p));
			kc.cuda = cuda_version_header(from.s);
		}
		if (!kc.cuda) {
			buf_reset(&from);
			buf_addf(&from, "%s/bin/nvcc", resolve_cuda_home(p));
			kc.cuda = cuda_version_nvcc(from.s);
			buf_addstr(&from, " --version");
		}
		kc.cuda_from = from.s;
		/* Never silently: without a version the CUDA <-> arch rules cannot run. */
		if (!kc.cuda && p->features[FEAT_CUDA] != TRI_OFF) {
			if (o->strict) {
				error("no CUDA version found (no %s/version.json, no nvcc there), so the "
				      "CUDA <-> arch rules cannot be checked; set cuda.version or cuda.home",
				      resolve_cuda_home(p));
				buf_release(&from);
				return -1;
			}
			warning("no CUDA version found (no %s/version.json, no nvcc there): the CUDA "
				"<-> arch rules were not checked; set cuda.version or cuda.home",
				resolve_cuda_home(p));
		}
	}
	/* An extension's ref is its own release, not torch's; its torch is checked at the build. */
	if (!profile_is_extension(p))
		tree_version(p->source_ref.str, NULL, &kc.torch);
	kc.torch_from = "source.ref";
	kc.src_dir = o->source_dir;
	rc = kb_check(p, &kc, o->strict);
	buf_release(&from);
	return rc < 0 ? rc : rc_toolkit;
}

/* `given`, else <base>/<profile name>, as an absolute path. */
static char *
default_dir(const char *given, const char *base, const struct profile *p)
{
	struct buf b = BUF_INIT;
	char *abs;

	if (given)
		return path_absolute(given);
	buf_addf(&b, "%s/%s", base, p->name.str);
	abs = path_absolute(b.s);
	buf_release(&b);
	return abs;
}

/*
 * A shell's MAX_JOBS=8 or TORCH_CUDA_ARCH_LIST the plan sets otherwise:
 * said once, naming the value replaced, so a setting the user made is
 * never dropped without a word.
 */
static void
say_replaced(const struct plan *pl, char *const *env)
{
	for (; env && *env; env++) {
		size_t n = strcspn(*env, "=");
		const char *how;
		char *name;
		long at;

		if (!(*env)[n] || !env_changes_build(*env) ||
		    (at = strvec_env_find(&pl->env, *env, n)) < 0 ||
		    !strcmp(pl->env.v[at] + n + 1, *env + n + 1))
			continue;
		name = xstrndup(*env, n);
		if (!strcmp(name, "MAX_JOBS"))
			how = "bwbuild sets it from build.jobs and the memory budget; choose it with "
			      "build.jobs in the profile";
		else if (!strcmp(name, "TORCH_CUDA_ARCH_LIST"))
			how = "bwbuild sets it from cuda.archs; choose them in the profile or with "
			      "--set 'cuda.archs=...'";
		else
			how = "the profile sets it; change it there";
		warning("this shell's %s is replaced by %s (%s)", *env, pl->env.v[at], how);
		free(name);
	}
}

int
resolve_plan(struct plan *pl, const struct profile *p, const struct resolve_opts *o)
{
	struct plan_opts po;
	struct host h;
	char *work, *out, *self, *ccache = NULL, *src = NULL, *bundle = NULL;
	struct buf arch_source = BUF_INIT;
	int ret = -1;

	memset(pl, 0, sizeof(*pl));
	if (o->source_dir && !is_dir(o->source_dir))
		return error("--source '%s' is not a directory", o->source_dir);
	if (o->bundle && o->source_dir)
		return error("--bundle and --source both name the tree to build; give one");
	if (o->bundle && !is_regular(o->bundle))
		return error("--bundle '%s' is not a file; give the file 'bwbuild bundle' wrote",
			     o->bundle);
	host_probe(&h);
	work = default_dir(o->work_dir, "work", p);
	out = default_dir(o->out_dir, "out", p);
	if (o->source_dir)
		src = path_absolute(o->source_dir);
	self = realpath("/proc/self/exe", NULL);
	if (p->cache.str && !strcmp(p->cache.str, "ccache")) {
		ccache = find_program("ccache");
		if (!ccache)
			ccache = xstrdup("ccache");
	}
	memset(&po, 0, sizeof(po));
	po.work_dir = work;
	po.src_dir = src;
	po.bundle = bundle = o->bundle ? path_absolute(o->bundle) : NULL;
	po.out_dir = out;
	po.cuda_home = resolve_cuda_home(p);
	po.mem_budget = o->mem_budget;
	po.self_exe = self;
	po.ccache = ccache;
	po.env = environ;
	/* What judges the archs of a torch tree (an extension's are its torch's) */
	if (!profile_is_extension(p) && p->features[FEAT_CUDA] != TRI_OFF && p->narchs) {
		struct relver torch;

		tree_version(p->source_ref.str, NULL, &torch);
		kb_arch_source(src, &torch, "source.ref", resolve_cuda_version(p), &arch_source);
		po.arch_source = arch_source.s;
	}
	ret = plan_make(pl, p, &h, &po);
	if (ret == 0)
		say_replaced(pl, environ);
	buf_release(&arch_source);
	free(src);
	free(bundle);
	free(self);
	free(ccache);
	free(work);
	free(out);
	return ret;
}
