#include <string.h>

#include "../../src/formats/cmakeopts.h"
#include "../../src/core/strvec.h"
#include "t.h"

void
t_cmakeopts(void)
{
	static const char text[] =
		"# option(COMMENTED \"no\" ON)\n"
		"#[[ option(BRACKET_COMMENTED \"no\" ON) ]]\n"
		"option(BUILD_TEST \"Build C++ test binaries\" OFF)\n"
		"OPTION(USE_CUDA \"Use CUDA\" ON)\n"
		"option(USE_BARE \"no default\")\n"
		"cmake_dependent_option(\n"
		"  USE_FLASH_ATTENTION\n"
		"  \"Whether to build the flash_attention kernel.\\\n"
		"  Will be disabled if not supported\" ON\n"
		"  \"(USE_CUDA AND NOT MSVC) OR USE_ROCM\" OFF)\n"
		"cmake_dependent_option(USE_MKLDNN [=[Use \"MKLDNN\"]=] \"${CPU_INTEL}\"\n"
		"  \"CPU_INTEL OR CPU_AARCH64\" OFF) # trailing\n"
		"if(NOT USE_CUDA)\n  message(STATUS \"option(FAKE x ON)\")\nendif()\n"
		"option(USE_CUDA \"a second declaration\" OFF)\n"
		"set(X $ENV{USE_FROM_ENV})\n";
	struct cmake_options o;
	const struct cmake_option *f;

	cmakeopts_init(&o);
	cmakeopts_scan_buffer(&o, "CMakeLists.txt", text, sizeof(text) - 1);
	cmakeopts_mentions(&o, text, sizeof(text) - 1);
	CHECK(o.n == 5);
	CHECK(!cmakeopts_find(&o, "COMMENTED") && !cmakeopts_find(&o, "BRACKET_COMMENTED") &&
	      !cmakeopts_find(&o, "FAKE"));
	f = cmakeopts_find(&o, "BUILD_TEST");
	CHECK(f && !strcmp(f->def, "OFF") && !f->condition && f->line == 3);
	f = cmakeopts_find(&o, "USE_CUDA");
	CHECK(f && !strcmp(f->def, "ON") && !strcmp(f->doc, "Use CUDA"));
	f = cmakeopts_find(&o, "USE_BARE");
	CHECK(f && !strcmp(f->def, "OFF"));
	f = cmakeopts_find(&o, "USE_FLASH_ATTENTION");
	CHECK(f && f->line == 6 && !strcmp(f->def, "ON") &&
	      !strcmp(f->condition, "(USE_CUDA AND NOT MSVC) OR USE_ROCM") && !strcmp(f->forced, "OFF"));
	CHECK(f && !strcmp(f->doc, "Whether to build the flash_attention kernel.  Will be disabled if not supported"));
	f = cmakeopts_find(&o, "USE_MKLDNN");
	CHECK(f && !strcmp(f->def, "${CPU_INTEL}") && !strcmp(f->doc, "Use \"MKLDNN\"") && f->line == 11);
	CHECK(strset_has(&o.mentioned, "USE_FROM_ENV") && strset_has(&o.mentioned, "USE_ROCM") &&
	      !strset_has(&o.mentioned, "USE_"));
	cmakeopts_release(&o);

	/* not CMake: nothing found, nothing read out of bounds */
	cmakeopts_init(&o);
	cmakeopts_scan_buffer(&o, "x", "option(\"unterminated", 20);
	cmakeopts_scan_buffer(&o, "x", "option([==[x]=]", 15);
	cmakeopts_scan_buffer(&o, "x", "option(A \\", 10);
	CHECK(o.n == 0);
	cmakeopts_release(&o);
}
