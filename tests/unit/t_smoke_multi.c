#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/wheel/smoke.h"
#include "t.h"

/*
 * `bwbuild smoke --gpu 0,1`: a probe run per GPU (a fake probe on the
 * probe path answers with the CUDA_VISIBLE_DEVICES it was given), then the
 * cross-GPU probe once with all of them; the entries a user may write.
 */

static struct buf dir = BUF_INIT;

static const char probe[] =
	"import json, os, sys\n"
	"def emit(**kw):\n"
	"    print('@bwbuild ' + json.dumps(kw), flush=True)\n"
	"emit(info={'visible': os.environ.get('CUDA_VISIBLE_DEVICES', '')})\n"
	"emit(start='import')\n"
	"emit(check='import', status='ok', reason='', seconds=0.1)\n";

/* --gpu as people write it: one index is the single-GPU run, anything else a list. */
static void
t_gpus_parse(void)
{
	struct strvec set = STRVEC_INIT, list = STRVEC_INIT;
	struct smoke_request rq = { .gpu = -1 };
	struct json *r;
	struct buf why = BUF_INIT;
	const char *multi = "{\"gpus\":[{\"checks\":[{\"status\":\"fail\"},{\"status\":\"ok\"}]},"
			    "{\"checks\":[{\"status\":\"fail\"}]}],"
			    "\"cross_gpu\":{\"checks\":[{\"status\":\"fail\"},{\"status\":\"warn\"}]}}";

	strvec_push(&set, "1");
	CHECK(smoke_gpus_parse(&set, &rq, &list) == 0 && rq.gpu == 1 && list.n == 0 && !rq.all_gpus);
	strvec_clear(&set);
	rq.gpu = -1;
	strvec_pushl(&set, "0,GPU-4a2b", "2", NULL);
	CHECK(smoke_gpus_parse(&set, &rq, &list) == 0 && rq.gpu == -1 && list.n == 3);
	CHECK(!strcmp(list.v[1], "GPU-4a2b"));
	strvec_clear(&set);
	strvec_clear(&list);
	strvec_push(&set, "all");
	CHECK(smoke_gpus_parse(&set, &rq, &list) == 0 && rq.all_gpus && list.n == 0);
	strvec_clear(&set);
	strvec_push(&set, "0,x;y");
	t_stderr_begin();
	CHECK(smoke_gpus_parse(&set, &rq, &list) == -1);
	CHECK(strstr(t_stderr_end(), "--gpu 'x;y' is not a GPU") != NULL);
	strvec_clear(&set);
	strvec_clear(&list);

	r = json_parse(multi, strlen(multi), &why);
	CHECK(r && smoke_multi_failed(r) == 3);
	json_free(r);
	buf_release(&why);
}

void
t_smoke_multi(void)
{
	char *abs = path_absolute(t_tmpdir("smoke-multi"));
	char *old = t_env_save("BWBUILD_PROBE_PATH");
	struct smoke_request rq;
	struct strvec gpus = STRVEC_INIT;
	struct json *res = NULL;
	struct smoke_result sr;
	const char *e;
	int rc;

	buf_addstr(&dir, abs);
	free(abs);
	CHECK(smoke_gpu_entry_ok("0") && smoke_gpu_entry_ok("GPU-8f3e2a1b-0c4d") &&
	      smoke_gpu_entry_ok("MIG-GPU-1/2/0"));
	CHECK(!smoke_gpu_entry_ok("") && !smoke_gpu_entry_ok("0;rm") && !smoke_gpu_entry_ok("a b"));

	t_wheels();
	t_put(dir.s, "probes/smoke-tiny.py", probe, 0);
	t_put(dir.s, "probes/multi-tiny.py", probe, 0);
	buf_addstr(&dir, "/probes");
	setenv("BWBUILD_PROBE_PATH", dir.s, 1);
	memset(&rq, 0, sizeof(rq));
	rq.target = t_wheel("good/tiny-1.0-py3-none-any.whl");
	rq.timeout = 30;
	rq.quick = 1;
	rq.gpu = -1;
	strvec_pushl(&gpus, "0", "1", "0", NULL);            /* a GPU named twice is one */
	rq.gpus = &gpus;
	t_stderr_begin();
	smoke_result_init(&sr);
	rc = smoke_target_multi(&rq, &sr, &res);
	e = t_stderr_end();
	CHECK(rc >= 0);
	if (rc < 0)
		fprintf(stderr, "t_smoke_multi: %s\n", e);
	CHECK(res != NULL);
	if (res) {
		const struct json *per = json_get(res, "gpus");

		CHECK(json_len(per) == 2);
		CHECK_STR(json_str(json_get(json_at(per, 0), "visible")), "0");
		CHECK_STR(json_str(json_get(json_at(per, 1), "visible")), "1");
		CHECK(json_get(res, "cross_gpu") != NULL);
		CHECK(json_str(json_get(res, "status")) != NULL);
		json_free(res);
	}

	/* An entry no GPU is named by: refused before anything runs. */
	strvec_clear(&gpus);
	strvec_push(&gpus, "0;reboot");
	t_stderr_begin();
	CHECK(smoke_target_multi(&rq, &sr, &res) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "error: --gpu '0;reboot' is not a GPU such as 0, GPU-<uuid> or all") != NULL);
	CHECK(res == NULL);

	smoke_result_release(&sr);
	t_env_restore("BWBUILD_PROBE_PATH", old);
	buf_setlen(&dir, dir.len - strlen("/probes"));
	remove_tree(dir.s);
	buf_release(&dir);
	strvec_clear(&gpus);
	t_gpus_parse();
}
