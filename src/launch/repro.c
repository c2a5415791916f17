#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "launch/ccache.h"
#include "launch/repro.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"


/* gcc, g++, cc, c++, clang, clang++, with a target prefix or version suffix (x86_64-linux-gnu-g++-12). */
static int
is_gcc_like(const char *path)
{
	static const char *const drivers[] = { "clang++", "clang", "gcc", "g++", "c++", "cc", NULL };
	const char *name = path_tail(path);

	for (size_t i = 0; drivers[i]; i++) {
		const char *hit = strstr(name, drivers[i]);
		size_t n = strlen(drivers[i]);

		if (!hit || (hit != name && hit[-1] != '-'))
			continue;
		hit += n;
		if (*hit == '-')
			hit++;
		while ((*hit >= '0' && *hit <= '9') || *hit == '.')
			hit++;
		if (!*hit)
			return 1;
	}
	return 0;
}

int
repro_prefix_maps(const char *work_dir, const char *src_dir, const char *via, struct strvec *out)
{
	size_t n = out->n;

	/* gcc: the last matching map wins, so the narrower source tree comes last. */
	if (work_dir && *work_dir)
		strvec_pushf(out, "%s-ffile-prefix-map=%s=%s", via, work_dir, REPRO_WORK_PREFIX);
	if (src_dir && *src_dir)
		strvec_pushf(out, "%s-ffile-prefix-map=%s=%s", via, src_dir, REPRO_SRC_PREFIX);
	return out->n > n;
}

int
repro_compile_args(char *const *argv, const char *work_dir, const char *src_dir,
		   struct strvec *out)
{
	size_t c = ccache_tool(argv[0]) != CACHE_NONE && argv[1] ? 1 : 0, i;
	int nvcc = argv[0] && !strcmp(path_tail(argv[c]), "nvcc");
	int added = 0;

	for (i = 0; argv[i]; i++) {
		strvec_push(out, argv[i]);
		if (i != c || !(nvcc || is_gcc_like(argv[c])))
			continue;
		added = repro_prefix_maps(work_dir, src_dir, nvcc ? "-Xcompiler=" : "", out);
	}
	return added;
}

const char *
repro_nvcc_output(char *const *argv)
{
	size_t c = ccache_tool(argv[0]) != CACHE_NONE && argv[1] ? 1 : 0;

	if (!argv[0] || strcmp(path_tail(argv[c]), "nvcc"))
		return NULL;
	for (size_t i = c + 1; argv[i]; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output-file")) && argv[i + 1])
			return argv[i + 1];
		if (starts_with(argv[i], "--output-file="))
			return argv[i] + strlen("--output-file=");
	}
	return NULL;
}

static int
is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int
all_hex(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_hex(p[i]))
			return 0;
	return 1;
}

size_t
repro_scrub_tmpxft(unsigned char *data, size_t len)
{
	static const char mark[] = "tmpxft_";
	const size_t mlen = sizeof(mark) - 1, need = mlen + 8 + 1 + 8 + 1;
	size_t i = 0, n = 0;

	while (i + need <= len) {
		unsigned char *hit = memmem(data + i, len - i, mark, mlen), *pid;

		if (!hit || (size_t)(hit - data) + need > len)
			break;
		pid = hit + mlen;
		if (all_hex(pid, 8) && pid[8] == '_' && all_hex(pid + 9, 8) && pid[17] == '-') {
			if (memcmp(pid, "00000000", 8)) {
				memset(pid, '0', 8);
				n++;
			}
		}
		i = (size_t)(hit - data) + mlen;
	}
	return n;
}

int
repro_fix_object(const char *path)
{
	struct buf data = BUF_INIT;
	int rc = 0;

	if (read_file(&data, path) < 0)
		return -1;
	if (data.len >= 4 && !memcmp(data.s, "\x7f" "ELF", 4) &&
	    repro_scrub_tmpxft((unsigned char *)data.s, data.len)) {
		/* An intermediate the next compile rewrites anyway: renamed, not fsynced. */
		struct buf tmp = BUF_INIT;
		int fd;

		buf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
		fd = open_regular(tmp.s, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd >= 0 && write_all(fd, data.s, data.len) < 0) {
			close(fd);
			fd = -1;
		}
		if (fd < 0 || close(fd) < 0 || rename(tmp.s, path) < 0) {
			rc = error("cannot rewrite '%s':", path);
			unlink(tmp.s);
		}
		buf_release(&tmp);
	}
	buf_release(&data);
	return rc;
}
