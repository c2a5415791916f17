#ifndef BWBUILD_TOOLCHAIN_H
#define BWBUILD_TOOLCHAIN_H

#include <stddef.h>

struct strvec;
struct json;
struct buf;

/*
 * The programs that decide a build's bytes: the C, C++ and CUDA host
 * compilers (CC, CXX, CUDAHOSTCXX as the build will see them, else cc and
 * c++), nvcc, cmake, ninja and the build's python, each with the path it
 * resolves to and the first line of its --version. A program that is not
 * there is kept with path "" so its absence is recorded too.
 */
struct tool {
	const char *name;  /* "cc", "nvcc", ..., "setuptools" */
	char *path;
	char *version;
	char *id_path;     /* the file whose stat identifies this version (the program, setuptools' __init__.py) */
	char *identity;    /* "size mtime_ns inode" of id_path, "" when missing */
};

struct toolchain {
	struct tool tools[10];
	size_t n;
};

/* `env`: the build's environment on top of bwbuild's own (NAME=VALUE). */
void toolchain_probe(struct toolchain *tc, const struct strvec *env, const char *cuda_home,
		     const char *python);
void toolchain_release(struct toolchain *tc);

/*
 * The same tools located and identified (stat of their files) without
 * starting any of them; versions are taken from `known` (a previous
 * toolchain_json with identities) where path and identity match. 0 when
 * every tool was found in `known` unchanged, 1 otherwise.
 */
int toolchain_recall(struct toolchain *tc, const struct strvec *env, const char *cuda_home,
		     const char *python, const struct json *known);
/* {NAME: {path, version, id_path, identity}}: what toolchain_recall needs next time. */
struct json *toolchain_identity_json(const struct toolchain *tc);

/* "tool NAME PATH VERSION" lines, for the configure stamp. */
void toolchain_text(const struct toolchain *tc, struct buf *out);
/* {NAME: {path, version}} for the manifest. */
struct json *toolchain_json(const struct toolchain *tc);

#endif
