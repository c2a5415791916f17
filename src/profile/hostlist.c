/*
 * build.remote's host list (hostlist.h): parsing and the canonical form the
 * launcher reads from its environment. Pure: nothing here connects.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/util.h"
#include "profile/hostlist.h"

static int
valid_name(const char *s, size_t n)
{
	return n && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") >= n;
}

static int
parse_one(struct remote_hosts *out, const char *s, size_t n, struct buf *err)
{
	char *spec, *opts, *slash, *colon, *at;
	struct remote_host h;
	unsigned long v;
	char *end;

	if (n > REMOTE_NAME_MAX + 64) {
		buf_addf(err, "'%.*s...': longer than a host's name and options can be", 64, s);
		return -1;
	}
	spec = xstrndup(s, n);
	memset(&h, 0, sizeof(h));
	h.slots = REMOTE_SLOTS;
	if ((opts = strchr(spec, ','))) {
		*opts++ = '\0';
		if (!starts_with(opts, "mem=") || parse_size(opts + 4, &h.mem) < 0 || !h.mem) {
			buf_addf(err, "'%.*s': after ',' only mem=SIZE (such as mem=16G) is known", (int)n, s);
			goto bad;
		}
	}
	if ((slash = strchr(spec, '/'))) {
		*slash++ = '\0';
		v = strtoul(slash, &end, 10);
		if (*end || !*slash || v < 1 || v > 1024) {
			buf_addf(err, "'%.*s': the slots after '/' must be a number from 1 to 1024", (int)n, s);
			goto bad;
		}
		h.slots = (unsigned)v;
	}
	at = strchr(spec, '@');
	colon = strchr(spec, ':');
	if (at && colon) {
		buf_addf(err, "'%.*s': a host over ssh (USER@HOST) takes no port", (int)n, s);
		goto bad;
	}
	if (colon) {
		*colon++ = '\0';
		v = strtoul(colon, &end, 10);
		if (*end || !*colon || v < 1 || v > 65535) {
			buf_addf(err, "'%.*s': the port after ':' must be a number from 1 to 65535", (int)n, s);
			goto bad;
		}
		h.port = (unsigned)v;
	} else if (!at) {
		h.port = REMOTE_PORT;
	}
	if (at && !valid_name(spec, (size_t)(at - spec))) {
		buf_addf(err, "'%.*s': the user before '@' has an unexpected character", (int)n, s);
		goto bad;
	}
	h.addr = xstrdup(at ? at + 1 : spec);
	if (!valid_name(h.addr, strlen(h.addr))) {
		buf_addf(err, "'%.*s': a host is a name or an IPv4 address", (int)n, s);
		free(h.addr);
		goto bad;
	}
	if (strlen(h.addr) > REMOTE_NAME_MAX) {
		buf_addf(err, "'%.*s...': a host's name has at most %d bytes", 64, s, REMOTE_NAME_MAX);
		free(h.addr);
		goto bad;
	}
	if (!strcmp(h.addr, "localhost")) {
		buf_addf(err, "'%.*s': 'localhost' means \"compile here\" to distcc, outside the memory "
			 "budget; a daemon on this machine is 127.0.0.1:PORT", (int)n, s);
		free(h.addr);
		goto bad;
	}
	{
		struct buf name = BUF_INIT;

		if (at)
			buf_addstr(&name, spec);
		else
			buf_addf(&name, "%s:%u", h.addr, h.port);
		h.name = buf_detach(&name);
	}
	if (!h.mem)
		h.mem = (uint64_t)h.slots * 2 * ((uint64_t)1 << 30);
	ALLOC_GROW(out->v, out->n + 1, out->cap);
	out->v[out->n++] = h;
	free(spec);
	return 0;
bad:
	free(spec);
	return -1;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp((*(struct remote_host *const *)a)->name, (*(struct remote_host *const *)b)->name);
}

/* The first name listed twice, or NULL. */
static const char *
listed_twice(const struct remote_hosts *h)
{
	struct remote_host **v = xmalloc((h->n ? h->n : 1) * sizeof(*v));
	const char *twice = NULL;

	for (size_t i = 0; i < h->n; i++)
		v[i] = &h->v[i];
	qsort(v, h->n, sizeof(*v), by_name);
	for (size_t i = 1; i < h->n && !twice; i++)
		if (!strcmp(v[i - 1]->name, v[i]->name))
			twice = v[i]->name;
	free(v);
	return twice;
}

int
remote_hosts_parse(struct remote_hosts *out, const char *text, struct buf *err)
{
	const char *p = text, *twice;
	size_t slots = 0, listed = 0;

	memset(out, 0, sizeof(*out));
	while (*p) {
		size_t n;

		p += strspn(p, " \t\r\n");
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		n = strcspn(p, " \t\r\n#");
		if (!n)
			continue;
		if (out->n == REMOTE_HOSTS_MAX) {
			buf_addf(err, "more than %d hosts; a build sends compiles to at most %d (list "
				 "the hosts with the most slots)", REMOTE_HOSTS_MAX, REMOTE_HOSTS_MAX);
			goto bad;
		}
		if (parse_one(out, p, n, err) < 0)
			goto bad;
		slots += out->v[out->n - 1].slots;
		if (slots > REMOTE_SLOTS_MAX) {
			buf_addf(err, "more than %d slots on the first %zu hosts; a build runs at most "
				 "%d remote compiles at once (give the hosts fewer slots, or list fewer)",
				 REMOTE_SLOTS_MAX, out->n, REMOTE_SLOTS_MAX);
			goto bad;
		}
		/* As remote_hosts_format writes it: a word of the launcher's environment. */
		listed += strlen(out->v[out->n - 1].name) + 32;
		if (listed > REMOTE_LIST_MAX) {
			buf_addf(err, "the first %zu hosts' names make more than %d KiB, more than an "
				 "environment variable may hold; use shorter names (such as addresses)",
				 out->n, REMOTE_LIST_MAX / 1024);
			goto bad;
		}
		p += n;
	}
	if (!out->n) {
		buf_addstr(err, "no host listed");
		return -1;
	}
	if ((twice = listed_twice(out))) {
		buf_addf(err, "'%s' is listed twice", twice);
		goto bad;
	}
	return 0;
bad:
	remote_hosts_release(out);
	return -1;
}

void
remote_hosts_format(const struct remote_hosts *h, struct buf *out)
{
	for (size_t i = 0; i < h->n; i++)
		buf_addf(out, "%s%s/%u,mem=%llu", i ? " " : "", h->v[i].name, h->v[i].slots,
			 (unsigned long long)h->v[i].mem);
}

unsigned
remote_hosts_slots(const struct remote_hosts *h)
{
	unsigned n = 0;

	for (size_t i = 0; i < h->n; i++)
		n += h->v[i].slots;
	return n;
}

void
remote_hosts_release(struct remote_hosts *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].addr);
	}
	free(h->v);
	memset(h, 0, sizeof(*h));
}

int
remote_is_file(const char *value)
{
	return value[0] == '/' || starts_with(value, "./") || starts_with(value, "../");
}
