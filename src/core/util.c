#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/hash.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *
xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		die("allocation size overflow");
	return xrealloc(p, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

int
mkdir_p(const char *path)
{
	struct buf b = BUF_INIT;
	size_t i;
	int ret = 0;

	buf_addstr(&b, path);
	for (i = 1; i <= b.len; i++) {
		if (b.s[i] != '/' && b.s[i] != '\0')
			continue;
		b.s[i] = '\0';
		if (mkdir(b.s, 0777) < 0 && errno != EEXIST) {
			ret = error("cannot create directory '%s':", b.s);
			break;
		}
		if (i < b.len)
			b.s[i] = '/';
	}
	if (!ret && !is_dir(path))
		ret = error("'%s' exists and is not a directory", path);
	buf_release(&b);
	return ret;
}

void
path_normalize(struct buf *out, const char *path)
{
	struct strvec parts = STRVEC_INIT;
	const char *p = path;
	int absolute = *path == '/';
	size_t i;

	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n == 2 && !strncmp(p, "..", 2)) {
			if (parts.n && strcmp(parts.v[parts.n - 1], "..")) {
				free(parts.v[--parts.n]);
				parts.v[parts.n] = NULL;
			} else if (!absolute) {
				strvec_push(&parts, "..");
			}
		} else if (!(n == 1 && *p == '.')) {
			strvec_push_nodup(&parts, xstrndup(p, n));
		}
		p += n;
	}
	if (absolute)
		buf_addch(out, '/');
	for (i = 0; i < parts.n; i++)
		buf_addf(out, "%s%s", i ? "/" : "", parts.v[i]);
	if (!absolute && !parts.n)
		buf_addch(out, '.');
	strvec_clear(&parts);
}

int
mkdir_p_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ret;

	if (!slash || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	ret = mkdir_p(dir);
	free(dir);
	return ret;
}

int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
read_file(struct buf *out, const char *path)
{
	char chunk[65536];
	/* O_NONBLOCK: a FIFO must be refused below, not waited on in open(). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	size_t total = 0;

	if (fd < 0)
		return error("cannot open '%s':", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error("'%s' is not a regular file", path);
	}
	if ((uint64_t)st.st_size > READ_FILE_MAX) {
		close(fd);
		return error("'%s' is %llu bytes, more than bwbuild reads (%llu)", path,
			     (unsigned long long)st.st_size, (unsigned long long)READ_FILE_MAX);
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return error("cannot read '%s':", path);
		}
		if (!n)
			break;
		total += (size_t)n;
		if (total > READ_FILE_MAX) {
			close(fd);
			return error("'%s' grew past %llu bytes while being read", path,
				     (unsigned long long)READ_FILE_MAX);
		}
		buf_add(out, chunk, (size_t)n);
	}
	close(fd);
	return 0;
}

int
sha256_file(const char *path, struct buf *hex)
{
	char chunk[1 << 16];
	uint8_t md[DIGEST_MAX];
	struct digest d;
	int fd = open_regular(path, O_RDONLY, 0);
	ssize_t n;

	if (fd < 0)
		return -1;
	if (digest_init(&d, "sha256") < 0) {
		close(fd);
		return -1;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			digest_abort(&d);
			close(fd);
			errno = e;
			return -1;
		}
		digest_update(&d, chunk, (size_t)n);
	}
	close(fd);
	digest_final(&d, md);
	hex_encode(hex, md, 32);
	return 0;
}

int
is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *
text_cut(struct buf *b, const char *s, size_t most)
{
	size_t len = strlen(s), n = most;

	buf_reset(b);
	if (len <= most) {
		buf_add(b, s, len);
		return b->s;
	}
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--; /* not inside a UTF-8 character */
	buf_add(b, s, n);
	buf_addf(b, "\u2026(%zu bytes)", len);
	return b->s;
}

int
path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *
path_absolute(const char *path)
{
	struct buf b = BUF_INIT;
	char *cwd;

	if (path[0] == '/')
		return xstrdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		die("cannot get the working directory:");
	buf_addstr(&b, cwd);
	free(cwd);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (strcmp(path, "."))
		buf_addf(&b, "/%s", path);
	return buf_detach(&b);
}

double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
source_date_epoch(long long *epoch)
{
	const char *v = getenv("SOURCE_DATE_EPOCH");
	long long t = 0;
	const char *p;

	if (!v || !*v)
		return 0;
	for (p = v; *p >= '0' && *p <= '9' && t <= 253402300799LL; p++)
		t = t * 10 + (*p - '0');
	if (*p || t > 253402300799LL)
		return error("SOURCE_DATE_EPOCH is '%s', not a number of seconds since 1970 "
			     "(0 to 253402300799); unset it or give one, e.g. "
			     "SOURCE_DATE_EPOCH=$(git log -1 --format=%%ct)", v);
	*epoch = t;
	return 1;
}

int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;
	uint64_t mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v >= 0)) /* NaN too: "nan" is a number to strtod */
		return -1;
	while (*end == ' ')
		end++;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 't': case 'T': mul = 1ULL << 40; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (mul > 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (mul > 1 && (*end == 'b' || *end == 'B'))
		end++;
	if (*end)
		return -1;
	if (v * (double)mul >= 18446744073709551615.0)
		return -1;
	*out = (uint64_t)(v * (double)mul);
	return 0;
}

void
format_size(struct buf *b, uint64_t bytes)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	if (u)
		buf_addf(b, "%.1f %s", v, units[u]);
	else
		buf_addf(b, "%llu B", (unsigned long long)bytes);
}

const char *
path_tail(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int
starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !memcmp(s + a - b, suffix, b);
}

/* A program on PATH (or a path), or NULL. */
char *
find_program(const char *name)
{
	const char *path = getenv("PATH");
	struct buf b = BUF_INIT;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	while (path && *path) {
		size_t n = strcspn(path, ":");

		buf_reset(&b);
		buf_addf(&b, "%.*s/%s", (int)n, n ? path : ".", name);
		if (access(b.s, X_OK) == 0)
			return buf_detach(&b);
		path += n + (path[n] == ':');
	}
	buf_release(&b);
	return NULL;
}

void
data_search_path(const char *subdir, const char *env_name, struct strvec *dirs)
{
	const char *env = getenv(env_name);
	char *exe = realpath("/proc/self/exe", NULL), *slash;

	strvec_push(dirs, subdir);
	if (exe && (slash = strrchr(exe, '/'))) {
		*slash = '\0';
		strvec_pushf(dirs, "%s/../%s", exe, subdir);
		strvec_pushf(dirs, "%s/../share/bwbuild/%s", exe, subdir);
	}
	free(exe);
	if (env && *env) {
		char *copy = xstrdup(env), *save = NULL, *tok;

		for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
			strvec_push(dirs, tok);
		free(copy);
	}
}

int
data_find(const char *subdir, const char *env_name, const char *name, int last_wins,
	  struct buf *out)
{
	struct strvec dirs = STRVEC_INIT;
	int rc = -1;

	data_search_path(subdir, env_name, &dirs);
	for (size_t k = 0; k < dirs.n && rc < 0; k++) {
		size_t i = last_wins ? dirs.n - 1 - k : k;

		buf_reset(out);
		buf_addf(out, "%s/%s", dirs.v[i], name);
		if (is_regular(out->s))
			rc = 0;
	}
	if (rc < 0) {
		buf_reset(out);
		buf_addf(out, "%s/%s", subdir, name);
	}
	strvec_clear(&dirs);
	return rc;
}

char *
file_identity(const char *path)
{
	struct stat st;
	struct buf b = BUF_INIT;

	if (path && *path && stat(path, &st) == 0)
		buf_addf(&b, "%lld %lld%09ld %llu", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			 st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
	else
		buf_addstr(&b, "");
	return buf_detach(&b);
}
