#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "formats/elf.h"
#include "formats/elfscan.h"
#include "formats/fatbin.h"
#include "core/util.h"

struct fatbin_ctx {
	struct wheel_lib *lib;
	int rel;
	int deep;
	struct fatbin_budget *budget;
	const uint8_t *map;     /* ELFSCAN_DROP: the page-aligned mapping; NULL otherwise */
	size_t dropped;         /* bytes of `map` already given back */
	const uint8_t *region;
	size_t len;
	const char *section;
	struct strvec *errors;
	struct buf name;
	unsigned deep_failed;   /* entries failing the deep check: the first few are named */
};

static int
fatbin_cb(void *vctx, const struct fatbin_entry *e)
{
	struct fatbin_ctx *c = vctx;
	struct strvec *set;

	buf_reset(&c->name);
	fatbin_entry_name(e, &c->name);
	if (e->kind == FATBIN_PTX)
		set = c->rel ? &c->lib->rel_ptx : &c->lib->ptx;
	else
		set = c->rel ? &c->lib->rel_sass : &c->lib->sass;
	if (set->n >= FATBIN_MAX_TARGETS && !strset_has(set, c->name.s)) {
		strvec_pushf(c->errors, "'%s': %s: more than %d distinct targets (a crafted fatbin?) "
			     "(fatbin)", c->lib->path, c->section, FATBIN_MAX_TARGETS);
		return 1;
	}
	strset_add(set, c->name.s);
	strset_add(&c->lib->codecs, fatbin_codec_name(e->codec));
	c->lib->entries++;
	if (e->container + 1 > c->lib->containers)
		c->lib->containers = e->container + 1;
	if (c->deep && (e->kind == FATBIN_ELF || e->kind == FATBIN_PTX)) {
		struct buf why = BUF_INIT;

		if (fatbin_entry_check(c->region, c->len, e, c->budget, &why) < 0) {
			if (c->deep_failed++ < FATBIN_DEEP_ERRORS_LISTED)
				strvec_pushf(c->errors, "'%s': %s container %u: %s (deep)",
					     c->lib->path, c->section, e->container, why.s);
		} else
			c->lib->deep_checked++;
		buf_release(&why);
	}
	if (c->map) {
		/* Read up to this entry's payload: give the pages behind back (RSS stays small). */
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t upto = (size_t)(c->region - c->map) + (size_t)e->payload_off;

		upto -= upto % page;
		if (upto > c->dropped + ((size_t)4 << 20)) {
			madvise((void *)(c->map + c->dropped), upto - c->dropped, MADV_DONTNEED);
			c->dropped = upto;
		}
	}
	return 0;
}

/*
 * Kernel families a library exports, told by a namespace in its dynamic
 * symbol names (.dynstr). torch's CXX_FLAGS do not carry
 * -DUSE_FLASH_ATTENTION (it is set on the CUDA targets only), so for a
 * real torch these names are the evidence: torch 2.11.0+cu130's
 * libtorch_cuda.so exports 301 pytorch_flash and 119 PyTorchMemEffAttention
 * symbols (measured).
 */
static const struct {
	const char *feature, *marker;
} kernel_markers[] = {
	{ "flash_attention", "pytorch_flash" },
	{ "mem_eff_attention", "PyTorchMemEffAttention" },
};

int
elfscan_kernel_family(const char *feature)
{
	for (size_t i = 0; i < ARRAY_SIZE(kernel_markers); i++)
		if (!strcmp(kernel_markers[i].feature, feature))
			return 1;
	return 0;
}

/*
 * The std::string ABI in mangled names (.dynstr, NUL-separated): the
 * C++11 one lives in std::__cxx11 or carries an [abi:cxx11] tag, both
 * spelled "cxx11"; the old one is the substitution "Ss" in a nested name or
 * behind a const reference or pointer. libstdc++'s own names are not in a wheel.
 */
static void
find_cxx_abi(struct wheel_lib *lib, const char *p, size_t n)
{
	static const char *const old[] = { "_ZNSs", "_ZNKSs", "RKSs", "PKSs" };
	const char *end = p + n;

	while (p < end) {
		size_t len = strnlen(p, (size_t)(end - p));

		if (len > 2 && p[0] == '_' && p[1] == 'Z') {
			if (memmem(p, len, "cxx11", 5))
				lib->cxx_abi |= ELF_CXX11_ABI;
			for (size_t i = 0; i < ARRAY_SIZE(old) && !(lib->cxx_abi & ELF_OLD_ABI); i++) {
				if (memmem(p, len, old[i], strlen(old[i]))) {
					lib->cxx_abi |= ELF_OLD_ABI;
					lib->old_abi_symbol = xstrndup(p, len);
				}
			}
		}
		p += len + 1;
	}
}

static void
find_kernels(struct wheel_lib *lib, const struct elf *elf)
{
	const struct elf_section *s = elf_section_by_name(elf, ".dynstr");
	size_t i;

	if (!s || s->type == SHT_NOBITS_)
		return;
	for (i = 0; i < ARRAY_SIZE(kernel_markers); i++)
		if (memmem(elf->data + s->offset, (size_t)s->size, kernel_markers[i].marker,
			   strlen(kernel_markers[i].marker)))
			strvec_push(&lib->kernels, kernel_markers[i].feature);
	find_cxx_abi(lib, (const char *)elf->data + s->offset, (size_t)s->size);
}

void
elfscan(struct wheel_lib *lib, const char *path, const uint8_t *data, size_t len, int deep,
	struct fatbin_budget *budget, struct strvec *errors)
{
	static const char *const sections[] = { ".nv_fatbin", "__nv_relfatbin" };
	struct buf why = BUF_INIT;
	struct elf_dynamic dyn;
	struct elf elf;
	size_t i;

	memset(lib, 0, sizeof(*lib));
	lib->path = xstrdup(path);
	strvec_init(&lib->sass);
	strvec_init(&lib->ptx);
	strvec_init(&lib->rel_sass);
	strvec_init(&lib->rel_ptx);
	strvec_init(&lib->codecs);
	strvec_init(&lib->needed);
	strvec_init(&lib->kernels);
	if (elf_open(&elf, data, len, &why) < 0) {
		strvec_pushf(errors, "'%s': cannot read ELF: %s (elf)", path, why.s);
		buf_release(&why);
		return;
	}
	lib->machine = elf.machine;
	find_kernels(lib, &elf);
	for (i = 0; i < ARRAY_SIZE(sections); i++) {
		const struct elf_section *s = elf_section_by_name(&elf, sections[i]);
		struct fatbin_ctx fc = { lib, (int)i, deep & ELFSCAN_DEEP, budget,
					 deep & ELFSCAN_DROP ? data : NULL, 0, NULL, 0, sections[i],
					 errors, BUF_INIT, 0 };

		if (!s || s->type == SHT_NOBITS_)
			continue;
		if (!i)
			lib->has_fatbin = 1;
		fc.region = data + s->offset;
		fc.len = (size_t)s->size;
		if (fatbin_walk(fc.region, fc.len, fatbin_cb, &fc, &why) < 0) {
			strvec_pushf(errors, "'%s': %s: %s (fatbin)", path, sections[i], why.s);
			buf_reset(&why);
		}
		if (fc.deep_failed > FATBIN_DEEP_ERRORS_LISTED)
			strvec_pushf(errors, "'%s': %s: and %u more entries fail the deep check (deep)",
				     path, sections[i], fc.deep_failed - FATBIN_DEEP_ERRORS_LISTED);
		buf_release(&fc.name);
	}
	if (elf_dynamic_read(&elf, &dyn, &why) < 0) {
		strvec_pushf(errors, "'%s': %s (elf)", path, why.s);
	} else {
		for (i = 0; i < dyn.needed.n; i++)
			strvec_push(&lib->needed, dyn.needed.v[i]);
		if (dyn.soname)
			lib->soname = xstrdup(dyn.soname);
		if (dyn.runpath || dyn.rpath)
			lib->runpath = xstrdup(dyn.runpath ? dyn.runpath : dyn.rpath);
		manylinux_assess(&dyn, elf.machine, &lib->ml);
	}
	elf_dynamic_release(&dyn);
	elf_release(&elf);
	buf_release(&why);
}

void
wheel_lib_release(struct wheel_lib *lib)
{
	free(lib->path);
	strvec_clear(&lib->sass);
	strvec_clear(&lib->ptx);
	strvec_clear(&lib->rel_sass);
	strvec_clear(&lib->rel_ptx);
	strvec_clear(&lib->codecs);
	strvec_clear(&lib->needed);
	strvec_clear(&lib->kernels);
	free(lib->soname);
	free(lib->runpath);
	free(lib->old_abi_symbol);
	memset(lib, 0, sizeof(*lib));
}
