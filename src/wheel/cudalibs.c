/*
 * Which pip package installs a CUDA library, at which version and where
 * (wheel/cudalibs.h). NVIDIA's naming, as its wheels install them: CUDA 12
 * packages are "nvidia-<component>-cu12", each into its own
 * nvidia/<component>/lib; CUDA 13's toolkit packages dropped the suffix
 * and share nvidia/cu13/lib, while cuDNN, NCCL, cuSPARSELt and NVSHMEM
 * keep "-cu13" and their own directories (measured: the dist-info RECORDs
 * of CUDA 13.0's pip packages; torch 2.11.0+cu130's RUNPATH).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/util.h"
#include "formats/elf.h"
#include "formats/record.h"
#include "profile/profile.h"
#include "profile/profview.h"
#include "wheel/cudalibs.h"

/* A RECORD larger than this is no NVIDIA package's (cuDNN's is 9 KiB). */
#define DIST_RECORD_MOST (4u << 20)
/* Directories above a library looked at for dist-info: site-packages/nvidia/cu13/lib is 3. */
#define DIST_LEVELS 4

struct cuda_row {
	const char *stem;     /* the soname before ".so" */
	const char *extra;    /* cuda-toolkit's extra that installs it (13), or NULL */
	const char *dist12, *dir12;
	const char *dist13, *dir13;
};

#define TK(stem, extra, c12, d12, c13) { stem, extra, c12, "nvidia/" d12 "/lib", c13, "nvidia/cu13/lib" }
#define OWN(stem, c12, c13, d) { stem, NULL, c12, "nvidia/" d "/lib", c13, "nvidia/" d "/lib" }

static const struct cuda_row rows[] = {
	TK("libcudart", "cudart", "nvidia-cuda-runtime-cu12", "cuda_runtime", "nvidia-cuda-runtime"),
	TK("libcublas", "cublas", "nvidia-cublas-cu12", "cublas", "nvidia-cublas"),
	TK("libcublasLt", "cublas", "nvidia-cublas-cu12", "cublas", "nvidia-cublas"),
	TK("libcufft", "cufft", "nvidia-cufft-cu12", "cufft", "nvidia-cufft"),
	TK("libcufftw", "cufft", "nvidia-cufft-cu12", "cufft", "nvidia-cufft"),
	TK("libcurand", "curand", "nvidia-curand-cu12", "curand", "nvidia-curand"),
	TK("libcusolver", "cusolver", "nvidia-cusolver-cu12", "cusolver", "nvidia-cusolver"),
	TK("libcusolverMg", "cusolver", "nvidia-cusolver-cu12", "cusolver", "nvidia-cusolver"),
	TK("libcusparse", "cusparse", "nvidia-cusparse-cu12", "cusparse", "nvidia-cusparse"),
	TK("libnvrtc", "nvrtc", "nvidia-cuda-nvrtc-cu12", "cuda_nvrtc", "nvidia-cuda-nvrtc"),
	TK("libnvrtc-builtins", "nvrtc", "nvidia-cuda-nvrtc-cu12", "cuda_nvrtc", "nvidia-cuda-nvrtc"),
	TK("libnvJitLink", "nvjitlink", "nvidia-nvjitlink-cu12", "nvjitlink", "nvidia-nvjitlink"),
	TK("libcupti", "cupti", "nvidia-cuda-cupti-cu12", "cuda_cupti", "nvidia-cuda-cupti"),
	TK("libnvperf_host", "cupti", "nvidia-cuda-cupti-cu12", "cuda_cupti", "nvidia-cuda-cupti"),
	TK("libnvToolsExt", "nvtx", "nvidia-nvtx-cu12", "nvtx", "nvidia-nvtx"),
	TK("libnvtx3interop", "nvtx", "nvidia-nvtx-cu12", "nvtx", "nvidia-nvtx"),
	TK("libcufile", "cufile", "nvidia-cufile-cu12", "cufile", "nvidia-cufile"),
	TK("libcufile_rdma", "cufile", "nvidia-cufile-cu12", "cufile", "nvidia-cufile"),
	OWN("libcudnn", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "cudnn"),
	OWN("libnccl", "nvidia-nccl-cu12", "nvidia-nccl-cu13", "nccl"),
	OWN("libcusparseLt", "nvidia-cusparselt-cu12", "nvidia-cusparselt-cu13", "cusparselt"),
	OWN("libnvshmem_host", "nvidia-nvshmem-cu12", "nvidia-nvshmem-cu13", "nvshmem"),
};

static const struct {
	const char *name;
	int form;
} forms[] = {
	{ "pip", CUDA_LIBS_PIP },
	{ "vendor", CUDA_LIBS_VENDOR },
	{ "system", CUDA_LIBS_SYSTEM },
};

int
cuda_libs_form_parse(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++)
		if (!strcmp(word, forms[i].name))
			return forms[i].form;
	return -1;
}

const char *
cuda_libs_form_name(int form)
{
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++)
		if (forms[i].form == form)
			return forms[i].name;
	return "unset";
}

int
cuda_libs_form_of(const struct profile *p)
{
	if (p->cuda_libs.str)
		return cuda_libs_form_parse(p->cuda_libs.str);
	if (p->kind.str && strcmp(p->kind.str, "torch"))
		return CUDA_LIBS_UNSET;
	return profile_feature_on(p, FEAT_CUDA) && p->repair != TRI_OFF ? CUDA_LIBS_PIP
									  : CUDA_LIBS_UNSET;
}

void
cuda_dist_release(struct cuda_dist *d)
{
	free(d->soname);
	free(d->dist);
	free(d->version);
	free(d->dir);
	free(d->requirement);
	free(d->source);
	memset(d, 0, sizeof(*d));
}

/* The row of `soname`, matched on its stem (cuDNN's sub-libraries under libcudnn). */
static const struct cuda_row *
row_of(const char *soname)
{
	const char *so = strstr(soname, ".so");
	size_t stem = so ? (size_t)(so - soname) : strlen(soname);

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		if (strlen(rows[i].stem) == stem && !strncmp(soname, rows[i].stem, stem))
			return &rows[i];
	if (stem > 9 && !strncmp(soname, "libcudnn_", 9))
		return row_of("libcudnn.so");
	return NULL;
}

int
cuda_dist_known(const char *soname, unsigned major, const char **dist, const char **dir)
{
	const struct cuda_row *r = row_of(soname);

	if (!r || (major != 12 && major != 13))
		return -1;
	*dist = major == 12 ? r->dist12 : r->dist13;
	*dir = major == 12 ? r->dir12 : r->dir13;
	return 0;
}

/* The first number after ".so." in `soname`: "libcudnn.so.9" -> 9; 0 when it has none. */
static unsigned
soname_major(const char *soname)
{
	const char *so = strstr(soname, ".so.");

	return so && isdigit((unsigned char)so[4]) ? (unsigned)strtoul(so + 4, NULL, 10) : 0;
}

unsigned
cuda_major_of(const struct strvec *needed)
{
	static const char *const carriers[] = { "libcudart.so.", "libnvrtc.so.", "libcublas.so." };

	for (size_t k = 0; k < ARRAY_SIZE(carriers); k++)
		for (size_t i = 0; i < needed->n; i++)
			if (starts_with(needed->v[i], carriers[k]))
				return soname_major(needed->v[i]);
	return 0;
}

void
cuda_dist_index_init(struct cuda_dist_index *ix)
{
	strvec_init(&ix->roots);
	strvec_init(&ix->rows);
}

void
cuda_dist_index_release(struct cuda_dist_index *ix)
{
	strvec_clear(&ix->roots);
	strvec_clear(&ix->rows);
}

/* A package name as pip compares them: lower case, '_' and '.' as '-'. */
static void
dist_name(struct buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf_addch(out, s[i] == '_' || s[i] == '.' ? '-' : (char)tolower((unsigned char)s[i]));
}

/* "nvidia_cublas-13.1.0.3.dist-info" -> "nvidia-cublas" and "13.1.0.3"; -1 when not that shape. */
static int
split_dist_info(const char *name, struct buf *dist, struct buf *version)
{
	size_t n = strlen(name), stem;
	const char *dash;

	if (n <= 10 || strcmp(name + n - 10, ".dist-info"))
		return -1;
	stem = n - 10;
	dash = memchr(name, '-', stem);
	if (!dash || dash == name || (size_t)(dash - name) + 1 >= stem)
		return -1;
	dist_name(dist, name, (size_t)(dash - name));
	buf_add(version, dash + 1, stem - (size_t)(dash - name) - 1);
	return 0;
}

/* Every nvidia/.../lib/<file> row of one dist-info's RECORD into the index. */
static void
read_dist_info(struct cuda_dist_index *ix, const char *root, const char *name)
{
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT, dist = BUF_INIT, ver = BUF_INIT;
	struct record_row *rec = NULL;
	size_t n = 0;

	buf_addf(&path, "%s/%s/RECORD", root, name);
	if (split_dist_info(name, &dist, &ver) < 0 || strncmp(dist.s, "nvidia-", 7) ||
	    read_file(&text, path.s) < 0 || text.len > DIST_RECORD_MOST ||
	    record_parse_max(text.s, text.len, 100000, &rec, &n, &why) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *p = rec[i].fields[0], *slash = p ? strrchr(p, '/') : NULL;

		/* Only a file of a "nvidia/<x>/lib" directory: names without tabs, as pip writes them. */
		if (!slash || !starts_with(p, "nvidia/") || slash - p < 11 ||
		    strncmp(slash - 4, "/lib", 4) || strchr(p, '\t') || !strstr(slash, ".so"))
			continue;
		strvec_pushf(&ix->rows, "%s\t%s\t%s\t%.*s\t%s/%s", slash + 1, dist.s, ver.s,
			     (int)(slash - p), p, root, name);
	}
out:
	record_free(rec, n);
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	buf_release(&dist);
	buf_release(&ver);
}

/* The *.dist-info directories of `root` into the index, once per root. */
static void
index_root(struct cuda_dist_index *ix, const char *root)
{
	struct dirent *de;
	DIR *d;

	if (strset_has(&ix->roots, root))
		return;
	strset_add(&ix->roots, root);
	d = opendir(root);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (ends_with(de->d_name, ".dist-info"))
			read_dist_info(ix, root, de->d_name);
	closedir(d);
}

/* The index row for `soname`: its fields into `f` (5 of them); -1 when none. */
static int
index_row(const struct cuda_dist_index *ix, const char *soname, struct strvec *f)
{
	size_t n = strlen(soname);

	for (size_t i = 0; i < ix->rows.n; i++) {
		const char *r = ix->rows.v[i];

		if (strncmp(r, soname, n) || r[n] != '\t')
			continue;
		for (const char *p = r; *p;) {
			size_t k = strcspn(p, "\t");
			struct buf b = BUF_INIT;

			buf_add(&b, p, k);
			strvec_push(f, b.s);
			buf_release(&b);
			p += k + (p[k] == '\t');
		}
		return f->n == 5 ? 0 : -1;
	}
	return -1;
}

int
cuda_dist_find(struct cuda_dist_index *ix, const char *soname, const char *file,
	       unsigned major, struct cuda_dist *out, struct buf *why)
{
	struct strvec f = STRVEC_INIT;
	struct buf dir = BUF_INIT, sub = BUF_INIT;
	const char *dist, *dirname;
	unsigned m;

	memset(out, 0, sizeof(*out));
	/* A library found on this machine: the dist-info of the package it came from, if any. */
	if (file && strrchr(file, '/')) {
		buf_add(&dir, file, (size_t)(strrchr(file, '/') - file));
		for (int level = 0; level < DIST_LEVELS && dir.len > 1; level++) {
			char *up = strrchr(dir.s, '/');

			buf_setlen(&dir, up && up != dir.s ? (size_t)(up - dir.s) : 1);
			buf_reset(&sub);
			buf_addf(&sub, "%s/dist-info", dir.s);
			index_root(ix, dir.s);
			index_root(ix, sub.s);
		}
	}
	buf_release(&dir);
	buf_release(&sub);
	out->soname = xstrdup(soname);
	if (index_row(ix, soname, &f) == 0) {
		out->dist = xstrdup(f.v[1]);
		out->version = xstrdup(f.v[2]);
		out->dir = xstrdup(f.v[3]);
		out->source = xstrdup(f.v[4]);
		strvec_clear(&f);
		buf_reset(&dir);
		buf_addf(&dir, "%s==%s; platform_system == \"Linux\"", out->dist, out->version);
		out->requirement = buf_detach(&dir);
		return 0;
	}
	strvec_clear(&f);
	if (cuda_dist_known(soname, major, &dist, &dirname) < 0) {
		buf_addf(why, "no pip package of NVIDIA's is known to install '%s' for CUDA %u (no "
			 "dist-info beside %s lists it)", soname, major, file ? file : "it");
		cuda_dist_release(out);
		return -1;
	}
	m = soname_major(soname);
	out->dist = xstrdup(dist);
	out->dir = xstrdup(dirname);
	out->source = xstrdup("NVIDIA's naming");
	if (m)
		buf_addf(&dir, "%s>=%u,<%u; platform_system == \"Linux\"", dist, m, m + 1);
	else
		buf_addf(&dir, "%s; platform_system == \"Linux\"", dist);
	out->requirement = buf_detach(&dir);
	return 0;
}

/* The member's directory as components ("torch/lib/x.so" -> torch, lib). */
static void
member_dirs(const char *member, struct strvec *out)
{
	for (const char *p = member, *s; (s = strchr(p, '/')); p = s + 1) {
		struct buf b = BUF_INIT;

		buf_add(&b, p, (size_t)(s - p));
		strvec_push(out, b.s);
		buf_release(&b);
	}
}

/* One RUNPATH entry resolved against the member's directory into `out` ("nvidia/cu13/lib"); -1 when not $ORIGIN's or it climbs out. */
static int
resolve_entry(const char *member, const char *e, size_t n, struct buf *out)
{
	struct strvec parts = STRVEC_INIT;
	size_t skip = elf_origin_len(e, n);
	int rc = 0;

	if (!skip)
		return -1;
	member_dirs(member, &parts);
	for (const char *p = e + skip; p < e + n && !rc;) {
		size_t k;

		p += *p == '/';
		k = strcspn(p, "/:");
		if (p + k > e + n)
			k = (size_t)(e + n - p);
		if (!k || (k == 1 && *p == '.')) {
			/* "a//b", "./": nothing */
		} else if (k == 2 && !strncmp(p, "..", 2)) {
			if (!parts.n)
				rc = -1;
			else {
				free(parts.v[--parts.n]);
				parts.v[parts.n] = NULL;
			}
		} else {
			struct buf b = BUF_INIT;

			buf_add(&b, p, k);
			strvec_push(&parts, b.s);
			buf_release(&b);
		}
		p += k;
	}
	if (!rc)
		strvec_join(&parts, "/", out);
	strvec_clear(&parts);
	return rc;
}

int
runpath_reaches(const char *member, const char *runpath, const char *dir, struct buf *found)
{
	for (const char *p = runpath ? runpath : ""; *p;) {
		size_t n = strcspn(p, ":");
		struct buf at = BUF_INIT;
		int hit = 0;

		if (n && resolve_entry(member, p, n, &at) == 0)
			hit = dir ? !strcmp(at.s, dir) : starts_with(at.s, "nvidia/");
		if (hit && found)
			buf_addstr(found, at.s);
		buf_release(&at);
		if (hit)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

void
runpath_entry_for(const char *member, const char *dir, struct buf *out)
{
	buf_addstr(out, "$ORIGIN");
	for (const char *p = member; (p = strchr(p, '/')); p++)
		buf_addstr(out, "/..");
	buf_addf(out, "/%s", dir);
}

void
requirement_name(const char *req, struct buf *out, struct strvec *extras)
{
	const char *p = req + strspn(req, " \t");
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '-' || p[n] == '_' || p[n] == '.')
		n++;
	dist_name(out, p, n);
	p += n;
	p += strspn(p, " \t");
	if (*p != '[' || !extras)
		return;
	for (p++; *p && *p != ']';) {
		size_t k;
		struct buf b = BUF_INIT;

		p += strspn(p, " \t,");
		k = strcspn(p, " \t,]");
		if (k) {
			buf_add(&b, p, k);
			strvec_push(extras, b.s);
		}
		buf_release(&b);
		p += k;
	}
}

int
requires_cuda_lib(const struct strvec *reqs, const char *soname, unsigned major)
{
	const struct cuda_row *r = row_of(soname);
	const char *dist, *dir;
	int hit = 0;

	if (!r || cuda_dist_known(soname, major, &dist, &dir) < 0)
		return 0;
	for (size_t i = 0; i < reqs->n && !hit; i++) {
		struct buf name = BUF_INIT;
		struct strvec extras = STRVEC_INIT;

		requirement_name(reqs->v[i], &name, &extras);
		hit = !strcmp(name.s ? name.s : "", dist) ||
		      (r->extra && major >= 13 && !strcmp(name.s ? name.s : "", "cuda-toolkit") &&
		       strset_has(&extras, r->extra));
		buf_release(&name);
		strvec_clear(&extras);
	}
	return hit;
}
