#include <stdint.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/launch/launch.h"
#include "../../src/launch/admit.h"
#include "../../src/launch/remote.h"
#include "../../src/pipeline/remotecheck.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/profile/hostlist.h"
#include "t.h"

static int
capable(const char *cmd)
{
	struct strvec argv = STRVEC_INIT;
	int r;

	while (*cmd) {
		size_t n = strcspn(cmd, " ");

		strvec_push_nodup(&argv, xstrndup(cmd, n));
		cmd += n + (cmd[n] == ' ');
	}
	r = launch_remote_capable(argv.v);
	strvec_clear(&argv);
	return r;
}

/* Only host C/C++ compiles of one source go to distcc. */
static void
t_capable(void)
{
	CHECK(capable("/usr/bin/c++ -DX -I/a -O2 -o a.o -c /src/a.cpp"));
	CHECK(capable("/usr/bin/ccache /usr/bin/g++-12 -MD -MT a.o -MF a.o.d -o a.o -c a.cc"));
	CHECK(capable("x86_64-linux-gnu-gcc -c a.c -o a.o"));
	CHECK(capable("clang++ -c a.cxx"));
	CHECK(!capable("/usr/local/cuda/bin/nvcc -c ops.cu -o ops.o"));
	CHECK(!capable("/usr/bin/ccache /usr/local/cuda/bin/nvcc -c ops.cu"));
	CHECK(!capable("/usr/bin/c++ -x cu -c ops.cu"));
	CHECK(!capable("/usr/bin/c++ -shared -o libx.so a.o b.o"));   /* a link */
	CHECK(!capable("/usr/bin/c++ -c a.cpp b.cpp"));                 /* two sources */
	CHECK(!capable("/usr/bin/c++ -E a.cpp"));                       /* preprocessing */
	CHECK(!capable("/usr/local/cuda/bin/fatbinary --create=x.fatbin"));
	CHECK(!capable("/usr/local/cuda/bin/nvcc -dlink a.o -o dlink.o"));
	CHECK(!capable("/usr/bin/c++ -o a.o a.cpp"));                   /* no -c: links */
	CHECK(!capable("/usr/bin/ld -o a a.o"));
	CHECK(launch_remote_failed(116) && launch_remote_failed(100) && launch_remote_failed(127));
	CHECK(!launch_remote_failed(1) && !launch_remote_failed(0) && !launch_remote_failed(137));
}

static void
t_hostlist(void)
{
	struct remote_hosts h;
	struct buf err = BUF_INIT, out = BUF_INIT;

	CHECK(remote_hosts_parse(&h, "127.0.0.1:3632/4 # first\n10.0.0.6,mem=8G\nbob@farm1/16", &err) == 0);
	CHECK(h.n == 3);
	CHECK_STR(h.v[0].name, "127.0.0.1:3632");
	CHECK(h.v[0].slots == 4 && h.v[0].mem == 8ULL << 30);
	CHECK_STR(h.v[1].name, "10.0.0.6:3632");
	CHECK(h.v[1].slots == REMOTE_SLOTS && h.v[1].mem == 8ULL << 30);
	CHECK_STR(h.v[2].name, "bob@farm1");
	CHECK(h.v[2].port == 0 && h.v[2].slots == 16);
	CHECK(remote_hosts_slots(&h) == 22);
	remote_hosts_format(&h, &out);
	CHECK_STR(out.s, "127.0.0.1:3632/4,mem=8589934592 10.0.0.6:3632/2,mem=8589934592 "
		  "bob@farm1/16,mem=34359738368");
	remote_hosts_release(&h);
	/* The launcher reads back what the plan wrote. */
	CHECK(remote_hosts_parse(&h, out.s, &err) == 0 && h.n == 3 && h.v[2].slots == 16);
	remote_hosts_release(&h);

	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, "localhost:3632/2", &err) < 0);
	CHECK(strstr(err.s, "127.0.0.1:PORT") != NULL);
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, "a:99999", &err) < 0 && strstr(err.s, "port"));
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, "a/0", &err) < 0 && strstr(err.s, "slots"));
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, "a,lzo", &err) < 0 && strstr(err.s, "mem=SIZE"));
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, "a b a", &err) < 0 && strstr(err.s, "twice"));
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, "# nothing\n", &err) < 0 && strstr(err.s, "no host"));
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, "u@h:22", &err) < 0 && strstr(err.s, "ssh"));
	CHECK(remote_is_file("./hosts") && remote_is_file("/etc/farm") && !remote_is_file("h:1/2"));

	/*
	 * Bounded (issue 31): 80,000 hosts parsed in quadratic time, made
	 * MAX_JOBS=320004 and failed at the first compile ("Argument list too
	 * long"). 1,024 hosts of 4 slots pass; a host or a slot more, or names
	 * longer than an environment string holds, are refused.
	 */
	buf_reset(&out);
	for (int i = 0; i < REMOTE_HOSTS_MAX; i++)
		buf_addf(&out, "10.0.%d.%d/4 ", i / 256, i % 256);
	CHECK(remote_hosts_parse(&h, out.s, &err) == 0 && h.n == REMOTE_HOSTS_MAX &&
	      remote_hosts_slots(&h) == REMOTE_SLOTS_MAX);
	remote_hosts_release(&h);
	buf_addstr(&out, "10.1.0.0/1");
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, out.s, &err) < 0 && strstr(err.s, "more than 1024 hosts"));
	buf_reset(&out);
	buf_addstr(&out, "b/1024 c/1024 d/1024 a/1024 e/1");
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, out.s, &err) < 0 &&
	      strstr(err.s, "more than 4096 slots on the first 5 hosts"));
	/* The last of 1,000 hosts repeats the first: found by sorting, named once. */
	buf_reset(&out);
	for (int i = 0; i < 1000; i++)
		buf_addf(&out, "h%d ", i);
	buf_addstr(&out, "h0:3632");
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, out.s, &err) < 0);
	CHECK_STR(err.s, "'h0:3632' is listed twice");
	buf_reset(&out);
	for (int i = 0; i < 300; i++)
		buf_addf(&out, "%0250d ", i);
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, out.s, &err) < 0 && strstr(err.s, "more than 64 KiB"));
	buf_reset(&out);
	buf_addf(&out, "%0300d", 1);
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, out.s, &err) < 0 && strstr(err.s, "at most 253 bytes"));
	buf_reset(&out);
	buf_addf(&out, "%0400d", 1);
	buf_reset(&err);
	CHECK(remote_hosts_parse(&h, out.s, &err) < 0 && strstr(err.s, "longer than a host's name"));
	buf_release(&err);
	buf_release(&out);
}

#define G (1ULL << 30)
#define M (1ULL << 20)
#define W(t, b, pre) { (t), 1, 'W', (b), (pre), -1, 1, 0 }
#define X(t, b, pre, h) { (t), 1, 'X', (b), (pre), (h), 1, 0 }
#define R(t, b) { (t), 1, 'R', (b), 0, -1, 1, 0 }
#define RC(t, b, c) { (t), 1, 'R', (b), 0, -1, (c), 0 }
#define RT(t, b, c, ms) { (t), 1, 'R', (b), 0, -1, (c), (ms) }

/* Which host a compile goes to: slots, memory, down hosts, first come first served, local room. */
static void
t_pick(void)
{
	struct remote_host hosts[2] = {
		{ NULL, NULL, 3632, 2, 4 * G, 0 },
		{ NULL, NULL, 3633, 1, 4 * G, 0 },
	};
	/* The most free slots wins; a compile not capable (pre 0) never goes. */
	struct launch_entry a[] = { W(1, 2 * G, 512 * M), W(2, 2 * G, 0) };
	struct launch_entry b[] = { X(1, 2 * G, 512 * M, 0), W(2, 2 * G, 512 * M) };
	/* Host 0 full on slots, host 1 full on memory beside a running one; both busy. */
	struct launch_entry c[] = { X(1, G, 512 * M, 0), X(2, G, 512 * M, 0), X(3, 3 * G, 512 * M, 1),
				    W(4, 2 * G, 512 * M) };
	/* A unit larger than a host's whole budget goes there when it is idle. */
	struct launch_entry d[] = { W(1, 9 * G, 512 * M) };
	/* The older capable one goes first. */
	struct launch_entry e[] = { W(1, 2 * G, 512 * M), W(2, 2 * G, 512 * M) };
	/* Local memory: the preprocessing must fit here beside what runs. */
	struct launch_entry f[] = { R(1, 3 * G), W(2, G, 512 * M) };

	CHECK(launch_remote_pick(a, 2, 1, 8 * G, hosts, 2, 100) == 0);
	CHECK(launch_remote_pick(a, 2, 2, 8 * G, hosts, 2, 100) == -1);
	CHECK(launch_remote_pick(b, 2, 2, 8 * G, hosts, 2, 100) == 0); /* 1 free vs 1 free: first */
	CHECK(launch_remote_pick(c, 4, 4, 8 * G, hosts, 2, 100) == -1);
	CHECK(launch_remote_pick(d, 1, 1, 8 * G, hosts, 2, 100) == 0);
	CHECK(launch_remote_pick(e, 2, 2, 8 * G, hosts, 2, 100) == -1);
	CHECK(launch_remote_pick(e, 2, 1, 8 * G, hosts, 2, 100) == 0);
	CHECK(launch_remote_pick(f, 2, 2, 3 * G, hosts, 2, 100) == -1);
	CHECK(launch_remote_pick(f, 2, 2, 4 * G, hosts, 2, 100) == 0);
	/* Down until 200: host 0 is skipped at 100, used again at 200. */
	hosts[0].down_until = 200;
	CHECK(launch_remote_pick(a, 2, 1, 8 * G, hosts, 2, 100) == 1);
	hosts[1].down_until = 200;
	CHECK(launch_remote_pick(a, 2, 1, 8 * G, hosts, 2, 100) == -1);
	CHECK(launch_remote_pick(a, 2, 1, 8 * G, hosts, 2, 200) == 0);
	/* A remote compile holds no slot here, only its preprocessing. */
	{
		struct launch_entry g[] = { X(1, 6 * G, 512 * M, 0), R(2, G), W(3, 2 * G, 0) };

		CHECK(launch_may_start(g, 3, 3, 4 * G, 2));
		CHECK(!launch_may_start(g, 3, 3, 3 * G, 2));
	}
}

/* The long pole: idle slots to a CUDA unit only while nothing waits, within the budget. */
static void
t_pole(void)
{
	/* Alone on 16 slots: up to what it can use (3 gencodes), or all of them. */
	struct launch_entry a[] = { R(1, 3 * G) };
	/* Something waits: nothing extra. */
	struct launch_entry b[] = { R(1, 3 * G), W(2, G, 0) };
	/* Another long pole holds 10 cores, expected to end first: 6 are idle (its own included). */
	struct launch_entry c[] = { RT(1, 30 * G, 10, 60000), RT(2, 3 * G, 1, 90000) };
	/* Arrived together, times unknown (an extension's first build): none is the pole. */
	struct launch_entry burst[] = { R(1, 3 * G), R(2, 3 * G), R(3, 3 * G), R(4, G) };
	/* Learned: the backward unit takes longest; the cores are its alone. */
	struct launch_entry learned[] = { RT(1, 3 * G, 1, 30000), RT(2, 3 * G, 1, 200000),
					  RT(3, 3 * G, 1, 20000), RT(4, G, 1, 0) };
	/* Two expected to take as long: neither. */
	struct launch_entry tie[] = { RT(1, 3 * G, 1, 5000), RT(2, 3 * G, 1, 5000) };
	/* A remote unit holds no slot here, only its preprocessing. */
	struct launch_entry d[] = { X(1, 2 * G, 512 * M, 0), R(2, 3 * G) };

	CHECK(launch_pole_cores(a, 1, 1, 64 * G, 16, 3, 3 * G) == 3);
	CHECK(launch_pole_cores(a, 1, 1, 64 * G, 16, 16, 3 * G) == 16);
	CHECK(launch_pole_cores(a, 1, 1, 10 * G, 16, 16, 3 * G) == 3);  /* memory: 3 x 3 GiB */
	CHECK(launch_pole_cores(a, 1, 1, 64 * G, 16, 1, 3 * G) == 1);   /* nothing to use them for */
	CHECK(launch_pole_cores(b, 2, 1, 64 * G, 16, 16, 3 * G) == 1);
	CHECK(launch_pole_cores(c, 2, 2, 64 * G, 16, 16, 3 * G) == 6);
	CHECK(launch_pole_cores(d, 2, 2, 64 * G, 4, 16, 3 * G) == 4);
	CHECK(launch_pole_cores(a, 1, 1, 64 * G, 1, 16, 3 * G) == 1);   /* one slot */
	CHECK(launch_pole_cores(c, 2, 1, 64 * G, 16, 16, 3 * G) == 1);  /* the other ends last */
	for (unsigned long t = 1; t <= 4; t++)
		CHECK(launch_pole_cores(burst, 4, t, 64 * G, 16, 16, 3 * G) == 1);
	CHECK(launch_pole_cores(learned, 4, 2, 64 * G, 16, 16, 3 * G) == 13);
	CHECK(launch_pole_cores(learned, 4, 1, 64 * G, 16, 16, 3 * G) == 1);
	CHECK(launch_pole_cores(learned, 4, 4, 64 * G, 16, 16, G) == 1);
	CHECK(launch_pole_cores(tie, 2, 1, 64 * G, 16, 16, 3 * G) == 1);
	CHECK(launch_pole_cores(tie, 2, 2, 64 * G, 16, 16, 3 * G) == 1);
	/* A long pole's cores count as running for admission. */
	CHECK(!launch_may_start((struct launch_entry[]){ RC(1, 3 * G, 4), W(2, G, 0) }, 2, 2, 64 * G, 4));
	CHECK(launch_may_start((struct launch_entry[]){ RC(1, 3 * G, 3), W(2, G, 0) }, 2, 2, 64 * G, 4));
}

/* distcc's command: one host, no fallback, before the compiler or as ccache's prefix. */
static void
t_command(void)
{
	char c0[] = "/usr/bin/c++", c1[] = "-c", c2[] = "a.cpp", cc0[] = "/usr/bin/ccache";
	char *cc[] = { c0, c1, c2, NULL };
	char *viacc[] = { cc0, c0, c1, c2, NULL };
	struct strvec out = STRVEC_INIT, env = STRVEC_INIT;
	const char *dir = t_tmpdir("remote-cmd");

	launch_remote_command(cc, "127.0.0.1:3632", dir, &out, &env);
	CHECK(out.n == 4 && !strcmp(out.v[0], "distcc") && !strcmp(out.v[1], "/usr/bin/c++"));
	CHECK(strvec_env_find(&env, "DISTCC_HOSTS", 12) >= 0);
	CHECK_STR(env.v[strvec_env_find(&env, "DISTCC_HOSTS", 12)], "DISTCC_HOSTS=127.0.0.1:3632");
	CHECK_STR(env.v[strvec_env_find(&env, "DISTCC_FALLBACK", 15)], "DISTCC_FALLBACK=0");
	CHECK(strvec_env_find(&env, "CCACHE_PREFIX", 13) < 0);
	strvec_clear(&out);
	strvec_clear(&env);
	launch_remote_command(viacc, "h:1", dir, &out, &env);
	CHECK(out.n == 4 && !strcmp(out.v[0], "/usr/bin/ccache"));
	CHECK_STR(env.v[strvec_env_find(&env, "CCACHE_PREFIX", 13)], "CCACHE_PREFIX=distcc");
	strvec_clear(&out);
	strvec_clear(&env);
}

/* The compiler named in an object's .comment, for doctor's "versions disagree". */
static void
t_compiler_id(void)
{
	static const char obj[] = "\177ELF....\0GCC: (Debian 12.2.0-14) 12.2.0\0.symtab";
	static const char clang[] = "xx\0clang version 14.0.6\0";
	struct buf id = BUF_INIT;

	object_compiler_id(obj, sizeof(obj), &id);
	CHECK_STR(id.s, "GCC: (Debian 12.2.0-14) 12.2.0");
	buf_reset(&id);
	object_compiler_id(clang, sizeof(clang), &id);
	CHECK_STR(id.s, "clang version 14.0.6");
	buf_reset(&id);
	object_compiler_id("none", 4, &id);
	CHECK(id.len == 0);
	buf_release(&id);
}

void
t_remote(void)
{
	t_compiler_id();
	t_pole();
	t_capable();
	t_hostlist();
	t_pick();
	t_command();
}
