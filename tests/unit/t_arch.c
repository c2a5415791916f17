#include "../../src/profile/arch.h"
#include "../../src/core/buf.h"
#include "t.h"

static void
ok(const char *text, int major, int minor, char variant, int ptx)
{
	struct buf why = BUF_INIT;
	struct arch a;

	CHECK(arch_parse(&a, text, &why) == 0);
	CHECK(a.major == major && a.minor == minor && a.variant == variant && a.ptx == ptx);
	buf_release(&why);
}

static void
bad(const char *text, const char *want)
{
	struct buf why = BUF_INIT;
	struct arch a;

	CHECK(arch_parse(&a, text, &why) < 0);
	CHECK_STR(why.s, want);
	buf_release(&why);
}

void
t_arch(void)
{
	struct buf b = BUF_INIT;
	struct arch a = { 12, 0, 'a', 1 };

	ok("8.0", 8, 0, 0, 0);
	ok("12.0+PTX", 12, 0, 0, 1);
	ok("10.0a", 10, 0, 'a', 0);
	ok("12.0f+PTX", 12, 0, 'f', 1);
	bad("sm_120", "'sm_120' is not a TORCH_CUDA_ARCH_LIST entry; did you mean '12.0'?");
	bad("120", "'120' is not a TORCH_CUDA_ARCH_LIST entry; did you mean '12.0'?");
	bad("compute_120", "'compute_120' is not a TORCH_CUDA_ARCH_LIST entry; did you mean '12.0+PTX'?");
	bad("sm_100a", "'sm_100a' is not a TORCH_CUDA_ARCH_LIST entry; did you mean '10.0a'?");
	bad("12", "'12' has no minor version; did you mean '12.0'?");
	bad("12.0.0", "'12.0.0' has too many components; did you mean '12.0'?");
	bad("8.0,9.0", "'8.0,9.0' contains a comma; TORCH_CUDA_ARCH_LIST entries are separated by ';' (list them as separate items)");
	bad("12.0x", "'12.0x' has an unknown suffix 'x'; allowed are 'a', 'f' and '+PTX' (as in '12.0+PTX')");
	bad("12.10", "'12.10': the minor version is a single digit (as in '12.0')");
	bad("Blackwell", "'Blackwell' is not a TORCH_CUDA_ARCH_LIST entry (expected X.Y, X.Ya, X.Yf, optionally with +PTX, as in '12.0+PTX')");
	bad("", "empty arch entry");

	arch_sass_name(&a, &b);
	CHECK_STR(b.s, "sm_120a");
	buf_reset(&b);
	arch_ptx_name(&a, &b);
	CHECK_STR(b.s, "compute_120a");
	buf_reset(&b);
	arch_format(&a, &b);
	CHECK_STR(b.s, "12.0a+PTX");
	buf_release(&b);
}
