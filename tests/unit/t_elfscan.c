#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/formats/elf.h"
#include "../../src/formats/elfscan.h"
#include "t.h"

/*
 * One library's story: CUDA targets from the fixture k.so, what the loader
 * needs, its manylinux policy, and from a library compiled here, the kernel
 * families and the std::string ABI its symbol names tell.
 */

static void
t_fixture(void)
{
	struct buf so = BUF_INIT, t = BUF_INIT;
	struct strvec errors = STRVEC_INIT;
	struct wheel_lib lib;

	CHECK(read_file(&so, "tests/fixtures/bin/k.so") == 0);
	memset(&lib, 0, sizeof(lib));
	elfscan(&lib, "plat/lib/k.so", (const uint8_t *)so.s, so.len, ELFSCAN_DEEP, NULL, &errors);
	CHECK(errors.n == 0);
	CHECK_STR(lib.path, "plat/lib/k.so");
	CHECK(lib.has_fatbin && lib.containers == 2);
	strvec_join(&lib.sass, " ", &t);
	CHECK_STR(t.s, "sm_80 sm_120");
	buf_reset(&t);
	strvec_join(&lib.ptx, " ", &t);
	CHECK_STR(t.s, "compute_120");
	CHECK(lib.rel_sass.n == 0 && lib.deep_checked == lib.entries && lib.entries > 0);
	CHECK(lib.machine == 62);                    /* EM_X86_64 */
	buf_reset(&t);
	strvec_join(&lib.needed, " ", &t);
	CHECK_STR(t.s, "libcudart.so.13 libstdc++.so.6 libgcc_s.so.1 libc.so.6");
	CHECK(lib.runpath == NULL);
	CHECK(lib.ml.min_glibc > 0 && lib.ml.glibc[0] == '2');
	CHECK(lib.kernels.n == 0);
	wheel_lib_release(&lib);

	/* Cut short: an error that names the library, nothing read past the end. */
	memset(&lib, 0, sizeof(lib));
	elfscan(&lib, "plat/lib/k.so", (const uint8_t *)so.s, 200, 0, NULL, &errors);
	CHECK(errors.n >= 1 && strstr(errors.v[0], "plat/lib/k.so") != NULL);
	wheel_lib_release(&lib);
	strvec_clear(&errors);
	buf_release(&so);
	buf_release(&t);
}

static void
t_symbols(void)
{
	const char *dir = t_tmpdir("elfscan");
	static const char src[] =
		"void a(void) __asm__(\"_ZN13pytorch_flash3fwdEv\");\n"
		"void a(void) {}\n"
		"void b(void) __asm__(\"_ZN2at6native22PyTorchMemEffAttention3fwdEv\");\n"
		"void b(void) {}\n"
		"void c(void) __asm__(\"_ZN3c106detail4nameB5cxx11Ev\");\n"
		"void c(void) {}\n"
		"void d(void) __asm__(\"_ZN3c104warnERKSs\");\n"
		"void d(void) {}\n";
	struct buf path = BUF_INIT, cmd = BUF_INIT, so = BUF_INIT;
	struct strvec errors = STRVEC_INIT;
	struct wheel_lib lib;

	buf_addf(&path, "%s/k.c", dir);
	CHECK(write_file_atomic(path.s, src, strlen(src)) == 0);
	buf_addf(&cmd, "cc -shared -fPIC -Wl,-soname,libk.so.1 -Wl,-rpath,'$ORIGIN/../lib' "
		       "-Wl,--enable-new-dtags -o %s/libk.so %s", dir, path.s);
	CHECK(system(cmd.s) == 0);
	buf_reset(&path);
	buf_addf(&path, "%s/libk.so", dir);
	CHECK(read_file(&so, path.s) == 0);
	memset(&lib, 0, sizeof(lib));
	elfscan(&lib, "k/libk.so", (const uint8_t *)so.s, so.len, 0, NULL, &errors);
	CHECK(errors.n == 0);
	CHECK(!lib.has_fatbin && lib.sass.n == 0);
	CHECK_STR(lib.soname, "libk.so.1");
	CHECK_STR(lib.runpath, "$ORIGIN/../lib");
	CHECK(strset_has(&lib.kernels, "flash_attention"));
	CHECK(strset_has(&lib.kernels, "mem_eff_attention"));
	CHECK(lib.cxx_abi == (ELF_CXX11_ABI | ELF_OLD_ABI));
	CHECK_STR(lib.old_abi_symbol, "_ZN3c104warnERKSs");
	wheel_lib_release(&lib);

	CHECK(elfscan_kernel_family("flash_attention"));
	CHECK(elfscan_kernel_family("mem_eff_attention"));
	CHECK(!elfscan_kernel_family("cudnn"));
	strvec_clear(&errors);
	buf_release(&path);
	buf_release(&cmd);
	buf_release(&so);
	remove_tree(dir);
}

void
t_elfscan(void)
{
	t_fixture();
	t_symbols();
}
