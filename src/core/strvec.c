#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/strvec.h"
#include "core/util.h"

char *strvec_empty[1];

void
strvec_init(struct strvec *sv)
{
	sv->v = strvec_empty;
	sv->n = 0;
	sv->cap = 0;
}

void
strvec_push_nodup(struct strvec *sv, char *s)
{
	if (!sv->cap)
		sv->v = NULL;
	ALLOC_GROW(sv->v, sv->n + 2, sv->cap);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void
strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	strvec_push_nodup(sv, buf_detach(&b));
}

void
strvec_clear(struct strvec *sv)
{
	size_t i;

	if (sv->cap) {
		for (i = 0; i < sv->n; i++)
			free(sv->v[i]);
		free(sv->v);
	}
	strvec_init(sv);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
strvec_sort(struct strvec *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
}

long
strvec_env_find(const struct strvec *sv, const char *name, size_t namelen)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strncmp(sv->v[i], name, namelen) && sv->v[i][namelen] == '=')
			return (long)i;
	return -1;
}

void
strvec_env_set(struct strvec *sv, const char *name, const char *value)
{
	long i = strvec_env_find(sv, name, strlen(name));
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s=%s", name, value);
	if (i < 0) {
		strvec_push_nodup(sv, buf_detach(&b));
		return;
	}
	free(sv->v[i]);
	sv->v[i] = buf_detach(&b);
}

void
strvec_env_setf(struct strvec *sv, const char *name, const char *fmt, ...)
{
	struct buf v = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&v, fmt, ap);
	va_end(ap);
	strvec_env_set(sv, name, v.s);
	buf_release(&v);
}

void
strvec_env_prepend_path(struct strvec *sv, const char *name, const char *dir)
{
	const char *old = getenv(name);
	struct buf v = BUF_INIT;

	buf_addf(&v, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
	strvec_env_set(sv, name, v.s);
	buf_release(&v);
}

const char *
strvec_env_get(const struct strvec *sv, const char *name)
{
	size_t len = strlen(name);
	long i = strvec_env_find(sv, name, len);

	return i < 0 ? NULL : sv->v[i] + len + 1;
}

void
strvec_join(const struct strvec *sv, const char *sep, struct buf *out)
{
	size_t i;

	for (i = 0; i < sv->n; i++) {
		if (i)
			buf_addstr(out, sep);
		buf_addstr(out, sv->v[i]);
	}
}

int
natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

void
strset_add(struct strvec *set, const char *s)
{
	size_t pos;
	char *added;

	for (pos = 0; pos < set->n; pos++) {
		int c = natcmp(set->v[pos], s);

		if (!c)
			return;
		if (c > 0)
			break;
	}
	strvec_push(set, s);
	added = set->v[set->n - 1];
	memmove(&set->v[pos + 1], &set->v[pos], (set->n - 1 - pos) * sizeof(char *));
	set->v[pos] = added;
}

int
strset_has(const struct strvec *set, const char *s)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->v[i], s))
			return 1;
	return 0;
}

void
strvec_pushl(struct strvec *sv, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}
