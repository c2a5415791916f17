#ifndef BWBUILD_LDCONF_H
#define BWBUILD_LDCONF_H

#include <stddef.h>

struct strvec;

/*
 * One ld.so.conf file (glibc's ldconfig(8) format): directories, one or
 * more a line, separated by blanks, ':' or ','; '#' starts a comment;
 * "include PATTERN..." names more files (glob patterns, relative ones to
 * the including file's directory); "hwcap ..." lines are obsolete and
 * skipped. Each directory must be absolute: others are skipped, as
 * ldconfig does. The directories go into `dirs` (duplicates dropped) and
 * the include patterns, made absolute against `base_dir`, into `includes`.
 * At most `max` directories and as many includes are taken, so the result
 * stays proportional to what the caller uses, whatever the text claims.
 */
void ldconf_parse(const char *text, size_t len, const char *base_dir, size_t max,
		  struct strvec *dirs, struct strvec *includes);

/*
 * The directories the dynamic loader searches after RUNPATH and
 * LD_LIBRARY_PATH: those of `conf` (normally /etc/ld.so.conf) and its
 * includes (depth 4, 64 files, 256 directories, 4096 directory entries
 * looked at by the include patterns, the first 64 KiB of each file at
 * most, each bound said on stderr when reached; a file included again is
 * not read again), then the defaults (/lib64, /usr/lib64, /lib, /usr/lib and their
 * x86_64-linux-gnu and aarch64-linux-gnu multiarch directories).
 */
void ldconf_search_dirs(const char *conf, struct strvec *dirs);

#endif
