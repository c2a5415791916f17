#include <string.h>

#include "../../src/launch/repro.h"
#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/* Build paths mapped away in compile commands; nvcc's tmpxft pids zeroed. */

/* A command line split at spaces, for the argv the launcher would get. */
static struct strvec
argv_of(const char *line)
{
	struct strvec sv = STRVEC_INIT;
	const char *p = line;

	while (*p) {
		size_t n = strcspn(p, " ");

		strvec_push_nodup(&sv, xstrndup(p, n));
		p += n + (p[n] == ' ');
	}
	return sv;
}

static const char *
mapped(const char *line, const char *work, const char *src, int *added)
{
	static struct buf b = BUF_INIT;
	struct strvec in = argv_of(line), out = STRVEC_INIT;

	*added = repro_compile_args(in.v, work, src, &out);
	buf_reset(&b);
	strvec_join(&out, " ", &b);
	strvec_clear(&out);
	strvec_clear(&in);
	return b.s;
}

static const char *
output_of(const char *line)
{
	static struct buf b = BUF_INIT;
	struct strvec in = argv_of(line);
	const char *o = repro_nvcc_output(in.v);

	buf_reset(&b);
	buf_addstr(&b, o ? o : "(none)");
	strvec_clear(&in);
	return b.s;
}

static void
t_args(void)
{
	const char *gcc = "/usr/bin/x86_64-linux-gnu-g++-12 -c a.cpp";
	const char *nvcc = "/usr/local/cuda/bin/nvcc -c k.cu -o k.o";
	int added;

	CHECK_STR(mapped(gcc, "/w", "/s", &added),
		  "/usr/bin/x86_64-linux-gnu-g++-12 -ffile-prefix-map=/w=" REPRO_WORK_PREFIX
		  " -ffile-prefix-map=/s=" REPRO_SRC_PREFIX " -c a.cpp");
	CHECK(added == 1);
	CHECK_STR(mapped("ccache cc -c a.c", "/w", NULL, &added),
		  "ccache cc -ffile-prefix-map=/w=" REPRO_WORK_PREFIX " -c a.c");
	CHECK(added == 1);
	CHECK_STR(mapped(nvcc, NULL, "/s", &added),
		  "/usr/local/cuda/bin/nvcc -Xcompiler=-ffile-prefix-map=/s=" REPRO_SRC_PREFIX
		  " -c k.cu -o k.o");
	CHECK(added == 1);
	CHECK_STR(mapped("clang-17 -c a.c", "/w", "", &added),
		  "clang-17 -ffile-prefix-map=/w=" REPRO_WORK_PREFIX " -c a.c");
	/* Not a compiler it knows: copied as it is. */
	CHECK_STR(mapped("ld -o a.so", "/w", "/s", &added), "ld -o a.so");
	CHECK(added == 0);
	CHECK_STR(mapped("gccgo -c a.go", "/w", "/s", &added), "gccgo -c a.go");
	CHECK(added == 0);
	CHECK_STR(mapped(gcc, NULL, NULL, &added), "/usr/bin/x86_64-linux-gnu-g++-12 -c a.cpp");
	CHECK(added == 0);

	CHECK_STR(output_of(nvcc), "k.o");
	CHECK_STR(output_of("/usr/bin/ccache nvcc --output-file=x.o"), "x.o");
	CHECK_STR(output_of("nvcc --output-file y.o"), "y.o");
	CHECK_STR(output_of("nvcc -c k.cu"), "(none)");
	CHECK_STR(output_of(gcc), "(none)");
}

static void
t_scrub(void)
{
	unsigned char data[] = "x tmpxft_0001a2b3_00000000-6_k.cudafe1.cpp y "
			       "tmpxft_00000000_00000001-6_k.cudafe1.cpp "
			       "tmpxft_zz01a2b3_00000000-6_bad "
			       "tmpxft_0001A2B3_00000000-6_upper "
			       "tmpxft_0000ffff_0000000";   /* cut short at the end */
	unsigned char want[] = "x tmpxft_00000000_00000000-6_k.cudafe1.cpp y "
			       "tmpxft_00000000_00000001-6_k.cudafe1.cpp "
			       "tmpxft_zz01a2b3_00000000-6_bad "
			       "tmpxft_0001A2B3_00000000-6_upper "
			       "tmpxft_0000ffff_0000000";
	const char *dir = t_tmpdir("repro");
	char path[600];
	struct buf b = BUF_INIT, elf = BUF_INIT;

	CHECK(repro_scrub_tmpxft(data, sizeof(data) - 1) == 1);
	CHECK(!memcmp(data, want, sizeof(want)));
	CHECK(repro_scrub_tmpxft(data, sizeof(data) - 1) == 0);   /* already scrubbed */
	CHECK(repro_scrub_tmpxft(data, 5) == 0);

	/* On a file: an ELF object rewritten, anything else left alone. */
	buf_add(&elf, "\x7f" "ELF\2\1\1", 7);
	buf_addstr(&elf, "....tmpxft_00abcdef_00000002-7_a.cudafe1.cpp....");
	snprintf(path, sizeof(path), "%s/k.o", dir);
	CHECK(write_file_atomic(path, elf.s, elf.len) == 0);
	CHECK(repro_fix_object(path) == 0);
	CHECK(read_file(&b, path) == 0);
	CHECK(b.len == elf.len && strstr(b.s + 7, "tmpxft_00000000_00000002-7_a") != NULL);
	snprintf(path, sizeof(path), "%s/k.txt", dir);
	CHECK(write_file_atomic(path, elf.s + 4, elf.len - 4) == 0);
	CHECK(repro_fix_object(path) == 0);
	buf_reset(&b);
	CHECK(read_file(&b, path) == 0);
	CHECK(strstr(b.s + 3, "tmpxft_00abcdef") != NULL);
	snprintf(path, sizeof(path), "%s/none.o", dir);
	t_stderr_begin();
	CHECK(repro_fix_object(path) == -1);
	t_stderr_end();
	buf_release(&b);
	buf_release(&elf);
	remove_tree(dir);
}

void
t_repro(void)
{
	t_args();
	t_scrub();
}
