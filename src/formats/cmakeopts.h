#ifndef BWBUILD_CMAKEOPTS_H
#define BWBUILD_CMAKEOPTS_H

#include <stddef.h>

#include "core/strvec.h"

/*
 * Option discovery: the switches a source tree really has, read from its
 * CMake files (option() and cmake_dependent_option() calls), and every
 * USE_* name its build files mention at all. A profile feature is checked
 * against the first, a forwarded USE_* cmake entry against the second.
 */
struct cmake_option {
	char *name;
	char *doc;
	char *def;       /* the default as written ("ON", "${CPU_INTEL}"); "OFF" when omitted */
	char *condition; /* cmake_dependent_option's condition; NULL for option() */
	char *forced;    /* its value when the condition is false; NULL for option() */
	char *file;      /* relative to the tree */
	unsigned line;
};

struct cmake_options {
	struct cmake_option *v;
	size_t n, alloc;
	struct strvec mentioned; /* sorted set of USE_* names in any scanned file */
	size_t files;            /* files scanned */
};

void cmakeopts_init(struct cmake_options *o);

/*
 * Scan one CMake file's text: every option()/cmake_dependent_option() call
 * is appended (a later declaration of the same name does not replace the
 * first, as CMake's cache keeps the first). Never fails: text that is not
 * valid CMake ends the scan where it stops making sense.
 */
void cmakeopts_scan_buffer(struct cmake_options *o, const char *file, const char *text, size_t len);
/* Add every USE_[A-Z0-9_]+ token in `text` to `o->mentioned`. */
void cmakeopts_mentions(struct cmake_options *o, const char *text, size_t len);
/*
 * Initialise and scan a tree: every CMakeLists.txt and *.cmake outside third_party/,
 * build/ and dot-directories, plus setup.py, pyproject.toml and
 * tools/setup_helpers/ (mentions only). -1 after reporting when `src`
 * cannot be read.
 */
int cmakeopts_scan_tree(struct cmake_options *o, const char *src);
const struct cmake_option *cmakeopts_find(const struct cmake_options *o, const char *name);
void cmakeopts_release(struct cmake_options *o);

#endif
