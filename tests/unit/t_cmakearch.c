#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/host/cmakearch.h"
#include "t.h"

/*
 * A tree's select_compute_arch.cmake asked of CMake (cmake -P): the
 * constructs of PyTorch v2.6.0's file (abridged, same shapes and order),
 * the newer one that takes 'f', one that keeps only 'a' of each entry,
 * one without the function, and no cmake at all.
 */
static const char v26_shape[] =
	"set(CUDA_KNOWN_GPU_ARCHITECTURES  \"Kepler\" \"Maxwell\")\n"
	"set(CUDA_ALL_GPU_ARCHITECTURES \"3.5\" \"5.0\")\n"
	"if(NOT CUDA_VERSION VERSION_LESS \"12.0\")\n"
	"  list(APPEND CUDA_ALL_GPU_ARCHITECTURES \"9.0a\")\n"
	"  list(REMOVE_ITEM CUDA_ALL_GPU_ARCHITECTURES \"3.5\")\n"
	"endif()\n"
	"if(CUDA_VERSION VERSION_GREATER \"12.6\")\n"
	"  list(APPEND CUDA_KNOWN_GPU_ARCHITECTURES \"Blackwell\")\n"
	"  list(APPEND CUDA_ALL_GPU_ARCHITECTURES \"10.0\")\n"
	"endif()\n"
	"function(CUDA_SELECT_NVCC_ARCH_FLAGS out_variable)\n"
	"  set(CUDA_ARCH_LIST \"${ARGN}\")\n"
	"  set(cuda_arch_bin)\n"
	"  foreach(arch_name ${CUDA_ARCH_LIST})\n"
	"    set(arch_bin)\n"
	"    if(arch_name MATCHES \"(.*)\\\\+PTX$\")\n"
	"      set(arch_name ${CMAKE_MATCH_1})\n"
	"    endif()\n"
	"    if(arch_name MATCHES \"^([0-9]+\\\\.[0-9]a?(\\\\([0-9]+\\\\.[0-9]\\\\))?)$\")\n"
	"      set(arch_bin ${CMAKE_MATCH_1})\n"
	"    else()\n"
	"      if(${arch_name} STREQUAL \"Hopper\")\n"
	"        set(arch_bin 9.0)\n"
	"      elseif(${arch_name} STREQUAL \"Blackwell\")\n"
	"        set(arch_bin 10.0 12.0)\n"
	"      else()\n"
	"        message(SEND_ERROR \"Found Unknown CUDA Architecture Name in "
	"CUDA_SELECT_NVCC_ARCH_FLAGS: ${arch_name} \")\n"
	"      endif()\n"
	"    endif()\n"
	"    list(APPEND cuda_arch_bin ${arch_bin})\n"
	"  endforeach()\n"
	"  string(REGEX REPLACE \"\\\\.\" \"\" cuda_arch_bin \"${cuda_arch_bin}\")\n"
	"  string(REGEX MATCHALL \"[0-9()]+a?\" cuda_arch_bin \"${cuda_arch_bin}\")\n"
	"  set(nvcc_flags \"\")\n"
	"  foreach(arch ${cuda_arch_bin})\n"
	"    list(APPEND nvcc_flags -gencode arch=compute_${arch},code=sm_${arch})\n"
	"  endforeach()\n"
	"  set(${out_variable} ${nvcc_flags} PARENT_SCOPE)\n"
	"endfunction()\n";

/* v26_shape with every "a?" as `to` (the same length), into DIR/NAME. */
static const char *
shape(const char *dir, const char *name, const char *to, int only_first)
{
	static struct buf path = BUF_INIT;
	char *t = strdup(v26_shape), *p = t;

	while ((p = strstr(p, "a?"))) {
		memcpy(p, to, 2);
		p += 2;
		if (only_first)
			break;
	}
	t_put(dir, name, t, 0);
	free(t);
	buf_reset(&path);
	buf_addf(&path, "%s/%s", dir, name);
	return path.s;
}

static const struct cmakearch_entry *
ask(struct cmakearch *r, const char *file, unsigned cuda, const char *entry)
{
	struct strvec e = STRVEC_INIT;
	struct buf why = BUF_INIT;
	const struct cmakearch_entry *a = NULL;

	cmakearch_release(r);
	strvec_pushl(&e, entry, "Blackwell", NULL);
	if (cmakearch_run(r, file, cuda, &e, "Blackwell", &why) == 0)
		a = cmakearch_find(r, entry);
	else
		fprintf(stderr, "cmakearch_run: %s\n", why.s);
	strvec_clear(&e);
	buf_release(&why);
	return a;
}

void
t_cmakearch(void)
{
	const char *dir = t_tmpdir("cmakearch");
	struct cmakearch r = CMAKEARCH_INIT;
	struct buf b = BUF_INIT, why = BUF_INIT;
	struct strvec e = STRVEC_INIT;
	const struct cmakearch_entry *a;
	const char *v26, *f;

	v26 = shape(dir, "v26.cmake", "a?", 0);
	/* v2.6.0 takes 12.0 and 'a' (any numeric X.Y), not 'f': CMake's own words */
	a = ask(&r, v26, 1300, "12.0a");
	CHECK(a && !*a->error && !strcmp(a->flags, "-gencode arch=compute_120a,code=sm_120a"));
	a = ask(&r, v26, 1300, "10.0f");
	CHECK(a && !strcmp(a->error, "Found Unknown CUDA Architecture Name in "
				     "CUDA_SELECT_NVCC_ARCH_FLAGS: 10.0f"));
	a = ask(&r, v26, 1300, "9.0(8.6)");
	CHECK(a && !*a->error);
	/* the lists follow CUDA: Blackwell known for CUDA > 12.6; 3.5 gone from 12.0 on */
	CHECK(r.has_function && r.name_from == 1207);
	strvec_join(&r.all, " ", &b);
	CHECK_STR(b.s, "5.0 9.0a 10.0");
	buf_reset(&b);
	strvec_join(&r.known, " ", &b);
	CHECK_STR(b.s, "Kepler Maxwell Blackwell");
	a = ask(&r, v26, 1108, "Blackwell");
	CHECK(a && !strcmp(a->flags, "-gencode arch=compute_100,code=sm_100 "
				     "-gencode arch=compute_120,code=sm_120"));
	buf_reset(&b);
	strvec_join(&r.all, " ", &b);
	CHECK_STR(b.s, "3.5 5.0");

	/* the newer shape takes 'f' and keeps it; a half-updated one drops it */
	f = shape(dir, "new.cmake", "f?", 0);
	a = ask(&r, f, 1300, "10.0f");
	CHECK(a && !*a->error && strstr(a->flags, "code=sm_100f"));
	f = shape(dir, "half.cmake", "f?", 1);
	a = ask(&r, f, 1300, "10.0f");
	CHECK(a && !*a->error && !strcmp(a->flags, "-gencode arch=compute_100,code=sm_100"));

	/* a file without the function: no answer per entry, and said */
	t_put(dir, "nofunc.cmake", "set(CUDA_ALL_GPU_ARCHITECTURES \"8.0\")\n", 0);
	buf_reset(&b);
	buf_addf(&b, "%s/nofunc.cmake", dir);
	CHECK(ask(&r, b.s, 1300, "12.0") == NULL && !r.has_function && r.n == 0);

	/* no cmake: the reason, and how to get one */
	{
		char *old = t_env_save("PATH");

		cmakearch_release(&r);
		setenv("PATH", dir, 1);
		strvec_push(&e, "12.0");
		CHECK(cmakearch_run(&r, f, 1300, &e, NULL, &why) < 0);
		CHECK(strstr(why.s, "no cmake on PATH") && strstr(why.s, "apt-get install cmake"));
		t_env_restore("PATH", old);
	}
	cmakearch_release(&r);
	strvec_clear(&e);
	buf_release(&b);
	buf_release(&why);
}
