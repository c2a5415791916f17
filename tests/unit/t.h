#ifndef BWBUILD_T_H
#define BWBUILD_T_H

#include <stdio.h>
#include <string.h>

/* A tiny test harness: each CHECK failure is printed and counted. */
extern int t_failures;
extern int t_checks;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		t_checks++;                                                           \
		if (!(cond)) {                                                        \
			t_failures++;                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
		}                                                                     \
	} while (0)

#define CHECK_STR(a, b)                                                               \
	do {                                                                          \
		const char *a_ = (a), *b_ = (b);                                      \
		t_checks++;                                                           \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                   \
			t_failures++;                                                 \
			fprintf(stderr, "%s:%d: CHECK_STR failed: '%s' != '%s'\n",   \
				__FILE__, __LINE__, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
		}                                                                     \
	} while (0)

void t_arch(void);
void t_profile(void);
void t_fatbin(void);
void t_record(void);
void t_zip(void);
void t_plan(void);
void t_manifest(void);
void t_compat(void);
void t_manylinux(void);
void t_knowledge(void);
void t_cmakecache(void);
void t_era(void);
void t_patch(void);
void t_sources(void);
void t_options(void);

/* Write `text` to a fresh file under tests/tmp and return its path (static). */
const char *t_write(const char *name, const char *text);

#endif
