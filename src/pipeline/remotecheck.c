/*
 * bwbuild doctor's checks of build.remote hosts: reachable, the compiler
 * allowed, the same compiler as here (remotecheck.h). Runs distcc with the
 * one host and DISTCC_FALLBACK=0, so a probe never compiles here by mistake.
 * The doctor's, not the launcher's: it runs the launcher's remote command
 * (launch.h) once per host, outside any build.
 * May include: core/, profile/hostlist.h, launch/launch.h, pipeline/remotecheck.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launch/launch.h"
#include "pipeline/remotecheck.h"
#include "core/buf.h"
#include "core/proc.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"
#include "profile/hostlist.h"

#define CONNECT_MS 3000

/* 0 when a TCP connection to host:port opens within CONNECT_MS; else -1 with the reason. */
static int
tcp_reachable(const char *host, unsigned port, struct buf *why)
{
	struct addrinfo hints, *res = NULL, *ai;
	char service[16];
	int rc = -1, err;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%u", port);
	if ((err = getaddrinfo(host, service, &hints, &res)) != 0) {
		buf_addf(why, "cannot resolve %s: %s", host, gai_strerror(err));
		return -1;
	}
	for (ai = res; ai && rc < 0; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		struct pollfd pfd;
		socklen_t len = sizeof(err);

		if (fd < 0)
			continue;
		err = 0;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			err = errno;
			if (err == EINPROGRESS) {
				pfd.fd = fd;
				pfd.events = POLLOUT;
				err = poll(&pfd, 1, CONNECT_MS) == 1 &&
				      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 ? err : ETIMEDOUT;
			}
		}
		if (!err)
			rc = 0;
		else if (!why->len)
			buf_addf(why, "%s:%u: %s", host, port, strerror(err));
		close(fd);
	}
	freeaddrinfo(res);
	return rc;
}

void
object_compiler_id(const char *bytes, size_t n, struct buf *out)
{
	static const char *const marks[] = { "GCC: (", "clang version ", NULL };

	for (size_t m = 0; marks[m]; m++) {
		size_t k = strlen(marks[m]);

		for (size_t i = 0; i + k <= n; i++) {
			if (!memcmp(bytes + i, marks[m], k)) {
				size_t e = i;

				while (e < n && bytes[e] && bytes[e] != '\n' && e - i < 200)
					e++;
				buf_add(out, bytes + i, e - i);
				return;
			}
		}
	}
}

/* Compile the probe to `obj`, through distcc on `host` when it is not NULL; the exit status. */
static int
compile_probe(const char *cxx, const char *dir, const char *host, const char *obj, struct buf *out)
{
	struct proc p = PROC_INIT;
	char *argv[] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	struct buf src = BUF_INIT;
	int rc;

	buf_addf(&src, "%s/probe.cpp", dir);
	argv[0] = (char *)cxx;
	argv[1] = (char *)"-O2";
	argv[2] = (char *)"-c";
	argv[3] = src.s;
	argv[4] = (char *)"-o";
	argv[5] = (char *)obj;
	if (host)
		launch_remote_command(argv, host, dir, &p.args, &p.env);
	else
		for (size_t i = 0; argv[i]; i++)
			strvec_push(&p.args, argv[i]);
	rc = proc_run_capture(&p, out);
	proc_release(&p);
	buf_release(&src);
	return rc;
}

int
remote_check_host(const struct remote_host *h, const char *cxx, struct buf *detail)
{
	static const char probe[] =
		"template <class T> T twice(T x) { return x + x; }\n"
		"int probe(int x) { return twice(x) * 3; }\n";
	char tmpl[] = "/tmp/bwbuild-remote-XXXXXX";
	struct buf path = BUF_INIT, lobj = BUF_INIT, robj = BUF_INIT, out = BUF_INIT;
	struct buf a = BUF_INIT, b = BUF_INIT, ida = BUF_INIT, idb = BUF_INIT;
	int st = 0, rc;

	if (h->port && tcp_reachable(h->addr, h->port, detail) < 0) {
		buf_addstr(detail, "; start distccd there (--allow this machine's address) or drop "
			   "the host");
		return 2;
	}
	if (!mkdtemp(tmpl)) {
		buf_addf(detail, "cannot make a directory in /tmp: %s", strerror(errno));
		return 1;
	}
	buf_addf(&path, "%s/probe.cpp", tmpl);
	buf_addf(&lobj, "%s/local.o", tmpl);
	buf_addf(&robj, "%s/remote.o", tmpl);
	write_file_atomic(path.s, probe, strlen(probe));
	if (compile_probe(cxx, tmpl, NULL, lobj.s, &out) != 0) {
		buf_addf(detail, "%s cannot compile a probe here", cxx);
		st = 1;
		goto out;
	}
	buf_reset(&out);
	rc = compile_probe(cxx, tmpl, h->name, robj.s, &out);
	if (rc != 0) {
		buf_addf(detail, "distcc could not compile with %s there (exit %d%s)", cxx, rc,
			 rc == 127 ? ": no distcc here; apt-get install distcc" :
			 rc == 110 ? ": the compiler is missing there" : "");
		if (rc != 127)
			buf_addstr(detail, "; its distccd must allow the compiler (Debian: a link in "
				   "/usr/lib/distcc, update-distcc-symlinks) and this machine (--allow)");
		st = 2;
		goto out;
	}
	read_file(&a, lobj.s);
	read_file(&b, robj.s);
	object_compiler_id(a.s, a.len, &ida);
	object_compiler_id(b.s, b.len, &idb);
	if (a.len != b.len || memcmp(a.s, b.s, a.len)) {
		buf_addf(detail, "its %s makes other bytes than this one's (%s there, %s here); "
			 "install the same compiler version, or a unit's bytes depend on where it ran",
			 cxx, idb.len ? idb.s : "?", ida.len ? ida.s : "?");
		st = 2;
	} else {
		buf_addf(detail, "compiles with %s (%s), the same bytes as here", cxx,
			 ida.len ? ida.s : "?");
	}
out:
	unlink(path.s);
	unlink(lobj.s);
	unlink(robj.s);
	{
		struct buf d = BUF_INIT;

		buf_addf(&d, "%s/distcc", tmpl);
		remove_tree(d.s);
		buf_release(&d);
	}
	rmdir(tmpl);
	buf_release(&path);
	buf_release(&lobj);
	buf_release(&robj);
	buf_release(&out);
	buf_release(&a);
	buf_release(&b);
	buf_release(&ida);
	buf_release(&idb);
	return st;
}

void
remote_check_all(const char *list, void (*report)(void *ctx, int status, const char *detail),
		 void *ctx)
{
	struct remote_hosts h;
	struct buf err = BUF_INIT, detail = BUF_INIT;
	char *distcc = find_program("distcc"), *cxx = find_program("c++");

	if (!distcc) {
		report(ctx, 2, "build.remote names hosts, but there is no distcc here (apt-get install "
		       "distcc)");
	} else if (remote_hosts_parse(&h, list, &err) == 0) {
		for (size_t i = 0; i < h.n; i++) {
			struct buf one = BUF_INIT;
			int st;

			st = remote_check_host(&h.v[i], cxx ? cxx : "c++", &one);
			buf_reset(&detail);
			buf_addf(&detail, "%s: %s", h.v[i].name, one.s);
			report(ctx, st, detail.s);
			buf_release(&one);
		}
		remote_hosts_release(&h);
	}
	free(distcc);
	free(cxx);
	buf_release(&err);
	buf_release(&detail);
}
