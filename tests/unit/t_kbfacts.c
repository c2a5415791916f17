#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/relver.h"
#include "../../src/profile/knowledge.h"
#include "t.h"

static int
companion(const char *project, const char *version, const char *torch, struct buf *why)
{
	struct relver v, t;

	relver_parse(version, &v, NULL);
	relver_parse(torch, &t, NULL);
	return kb_companion_check(project, &v, &t, why);
}

/* The knowledge base's facts: GPU datasheet peaks by device name, companion releases by torch. */

void
t_kbfacts(void)
{
	struct buf why = BUF_INIT;

	/* The first row whose name part the device name holds: PCIe before the plain H100. */
	CHECK(kb_gpu_peak("NVIDIA H100 PCIe", "fp16") == 756);
	CHECK(kb_gpu_peak("NVIDIA H100 80GB HBM3", "fp16") == 989.5);
	CHECK(kb_gpu_peak("NVIDIA H100 NVL", "bytes") == 3900);
	CHECK(kb_gpu_peak("NVIDIA H200", "bytes") == 4800);
	CHECK(kb_gpu_peak("NVIDIA B200", "fp8") == 4500);
	CHECK(kb_gpu_peak("NVIDIA GeForce RTX 5090", "tf32") == 104.8);
	CHECK(kb_gpu_peak("NVIDIA RTX PRO 6000 Blackwell Server Edition", "bf16") == 503.8);
	CHECK(kb_gpu_peak("NVIDIA B200", "fp32") == 80);
	CHECK(kb_gpu_peak("NVIDIA B200", "int4") == 0);      /* a dtype without a peak */
	CHECK(kb_gpu_peak("NVIDIA A100-SXM4-80GB", "fp16") == 0);
	CHECK(kb_gpu_peak(NULL, "fp16") == 0 && kb_gpu_peak("NVIDIA B200", NULL) == 0);

	CHECK(kb_companion("torchvision") && kb_companion("torchaudio"));
	CHECK(!kb_companion("torch") && !kb_companion("xformers"));
	CHECK(companion("xformers", "0.30", "2.7", &why) == 0 && why.len == 0);
	/* torchaudio follows torch's number. */
	CHECK(companion("torchvision", "0.22", "2.7", &why) == 0);
	CHECK(companion("torchaudio", "2.11", "2.11.1", &why) == 0);
	CHECK(why.len == 0);
	CHECK(companion("torchvision", "0.23", "2.7", &why) == -1);
	CHECK_STR(why.s, "torchvision 0.23 is released for torch 2.8, not 2.7; torch 2.7 goes with "
			 "torchvision 0.22 (tag v0.22.0)");
	buf_reset(&why);
	CHECK(companion("torchaudio", "2.8", "2.13", &why) == -1);
	CHECK_STR(why.s, "torchaudio 2.8 is released for torch 2.8, not 2.13");
	buf_reset(&why);
	/* The pair of the real v2.6.0 build (torchvision 0.21.0, torchaudio 2.6.0). */
	CHECK(companion("torchvision", "0.21.0a0", "2.6.0+cu130", &why) == 0);
	CHECK(companion("torchaudio", "2.6.0", "2.6.0", &why) == 0);
	CHECK(companion("torchvision", "0.22", "2.6", &why) == -1);
	CHECK_STR(why.s, "torchvision 0.22 is released for torch 2.7, not 2.6; torch 2.6 goes with "
			 "torchvision 0.21 (tag v0.21.0)");
	buf_reset(&why);
	/* Outside the table: the span in the note is the table's (t_releases checks it is derived). */
	CHECK(companion("torchvision", "0.18", "2.3", &why) == 1);
	CHECK(strstr(why.s, "bwbuild knows the torchvision releases for torch 2.4 to ") == why.s);
	CHECK(strstr(why.s, " only; torchvision 0.18 with torch 2.3 is not checked") != NULL);
	buf_release(&why);
}
