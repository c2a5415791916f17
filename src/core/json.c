#include <stdio.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"

/* struct json is never defined: pointers are cJSON nodes. */
#define C(j) ((cJSON *)(j))
#define CC(j) ((const cJSON *)(j))
#define J(c) ((struct json *)(c))

static struct json *
check(cJSON *c)
{
	if (!c)
		die("out of memory building JSON");
	return J(c);
}

struct json *json_object(void) { return check(cJSON_CreateObject()); }
struct json *json_array(void) { return check(cJSON_CreateArray()); }
/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, surrogates or > U+10FFFF), or 0. */
static size_t
utf8_valid(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/*
 * A JSON document is UTF-8: bytes from outside (a path, a tool's output)
 * that are not become U+FFFD, so every manifest parses.
 */
struct json *
json_string(const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	struct buf clean = BUF_INIT;
	struct json *j;
	size_t n;

	for (n = 0; u[n]; n += utf8_valid(u + n))
		if (!utf8_valid(u + n))
			break;
	if (!u[n])
		return check(cJSON_CreateString((const char *)u));
	while (*u) {
		n = utf8_valid(u);
		if (n)
			buf_add(&clean, (const char *)u, n);
		else
			buf_addstr(&clean, "\xef\xbf\xbd");
		u += n ? n : 1;
	}
	j = check(cJSON_CreateString(clean.s));
	buf_release(&clean);
	return j;
}
struct json *json_bool(int b) { return check(cJSON_CreateBool(b)); }
struct json *json_number(double n) { return check(cJSON_CreateNumber(n)); }
struct json *json_null(void) { return check(cJSON_CreateNull()); }

void
json_set(struct json *obj, const char *key, struct json *val)
{
	if (cJSON_GetObjectItemCaseSensitive(C(obj), key))
		cJSON_ReplaceItemInObjectCaseSensitive(C(obj), key, C(val));
	else if (!cJSON_AddItemToObject(C(obj), key, C(val)))
		die("out of memory building JSON");
}

void
json_merge_into(struct json *dst, struct json *src)
{
	cJSON *item;

	while (src && (item = C(src)->child)) {
		char *key = item->string;

		cJSON_DetachItemViaPointer(C(src), item);
		item->string = NULL;
		json_set(dst, key, (struct json *)item);
		cJSON_free(key);
	}
	json_free(src);
}

struct json *
json_take(struct json *obj, const char *key)
{
	return J(cJSON_DetachItemFromObjectCaseSensitive(C(obj), key));
}

struct json *
json_dup(const struct json *j)
{
	cJSON *d = j ? cJSON_Duplicate(CC(j), 1) : NULL;

	if (j && !d)
		die("out of memory copying JSON");
	return J(d);
}

void
json_push(struct json *arr, struct json *val)
{
	if (!cJSON_AddItemToArray(C(arr), C(val)))
		die("out of memory building JSON");
}

struct json *
json_string_array(char *const *v, size_t n)
{
	struct json *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_push(a, json_string(v[i]));
	return a;
}

char *
json_print(const struct json *j, int pretty)
{
	char *s = pretty ? cJSON_Print(CC(j)) : cJSON_PrintUnformatted(CC(j));
	struct buf b = BUF_INIT;

	if (!s)
		die("out of memory printing JSON");
	/*
	 * cJSON escapes the control bytes below 0x20 only; DEL, the C1
	 * controls (UTF-8 c2 80-9f) and the characters that reorder or hide
	 * text (diag_invisible: U+202E, U+200B, ...) of a name from outside
	 * would reach a terminal that shows the JSON. Outside strings cJSON
	 * writes ASCII, so these bytes are inside one, where \uXXXX means
	 * the same.
	 */
	for (const char *p = s, *run = s;; p++) {
		unsigned char c = (unsigned char)p[0], d = c ? (unsigned char)p[1] : 0;
		int c1 = c == 0xc2 && d >= 0x80 && d <= 0x9f;
		unsigned cp = c1 ? d : c;
		size_t used = c1 ? 2 : 1;

		if (c >= 0xd8 && (used = diag_invisible(p, strnlen(p, 3), &cp)) == 0)
			used = 1;
		if (c && c != 0x7f && !c1 && cp == c)
			continue;
		buf_add(&b, run, (size_t)(p - run));
		if (!c)
			break;
		buf_addf(&b, "\\u%04x", cp);
		p += used - 1;
		run = p + 1;
	}
	if (pretty)
		buf_addch(&b, '\n');
	cJSON_free(s);
	return buf_detach(&b);
}

void
json_free(struct json *j)
{
	cJSON_Delete(C(j));
}

struct json *
json_parse(const char *text, size_t len, struct buf *why)
{
	const char *end = NULL;
	cJSON *c = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	size_t off = end && end >= text ? (size_t)(end - text) : 0;

	if (!c) {
		buf_addf(why, "invalid JSON near byte %zu", off);
		return NULL;
	}
	/* cJSON stops after the first value: a second one, or junk, would pass unread. */
	while (off < len && strchr(" \t\r\n", text[off]) && text[off])
		off++;
	if (off < len) {
		buf_addf(why, "trailing bytes after the JSON value, at byte %zu", off);
		cJSON_Delete(c);
		return NULL;
	}
	return J(c);
}

const char *
json_type_name(const struct json *j)
{
	return cJSON_IsObject(CC(j)) ? "an object" : cJSON_IsArray(CC(j)) ? "an array" :
	       cJSON_IsString(CC(j)) ? "a string" : cJSON_IsNumber(CC(j)) ? "a number" :
	       cJSON_IsBool(CC(j)) ? "a boolean" : cJSON_IsNull(CC(j)) ? "null" : "nothing";
}

const struct json *
json_get(const struct json *obj, const char *key)
{
	if (!cJSON_IsObject(CC(obj)))
		return NULL;
	return J(cJSON_GetObjectItemCaseSensitive(CC(obj), key));
}

size_t
json_len(const struct json *j)
{
	return (cJSON_IsArray(CC(j)) || cJSON_IsObject(CC(j))) ? (size_t)cJSON_GetArraySize(CC(j)) : 0;
}

const struct json *
json_at(const struct json *arr, size_t i)
{
	return J(cJSON_GetArrayItem(CC(arr), (int)i));
}

size_t
json_items(const struct json *j, const struct json ***out)
{
	const cJSON *c;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!cJSON_IsArray(CC(j)) && !cJSON_IsObject(CC(j)))
		return 0;
	for (c = CC(j)->child; c; c = c->next) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = realloc(*out, cap * sizeof(**out));
			if (!*out)
				die("out of memory");
		}
		(*out)[n++] = J(c);
	}
	return n;
}

const char *
json_member_key(const struct json *member)
{
	return member ? CC(member)->string : NULL;
}

/* By key, then by position: the first of equal keys first, as json_get finds it. */
static int
by_member_key(const void *a, const void *b)
{
	const struct json_index_ent *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->at < y->at ? -1 : x->at > y->at;
}

void
json_index_by(struct json_index *ix, const struct json *list, const char *field)
{
	const struct json **v;
	size_t n = json_items(list, &v);

	ix->v = calloc(n ? n : 1, sizeof(*ix->v));
	if (!ix->v)
		die("out of memory");
	ix->n = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = !field ? json_str(v[i]) : !*field ? CC(v[i])->string :
			json_str(json_get(v[i], field));

		if (!k)
			continue;
		ix->v[ix->n].key = k;
		ix->v[ix->n].member = v[i];
		ix->v[ix->n].at = i;
		ix->n++;
	}
	free(v);
	if (ix->n)
		qsort(ix->v, ix->n, sizeof(*ix->v), by_member_key);
}

void
json_index_build(struct json_index *ix, const struct json *obj)
{
	json_index_by(ix, cJSON_IsObject(CC(obj)) ? obj : NULL, "");
}

const struct json_index_ent *
json_index_find(const struct json_index *ix, const char *key)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix->v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && !strcmp(ix->v[lo].key, key) ? &ix->v[lo] : NULL;
}

const struct json *
json_index_get(const struct json_index *ix, const char *key)
{
	const struct json_index_ent *e = json_index_find(ix, key);

	return e ? e->member : NULL;
}

void
json_index_release(struct json_index *ix)
{
	free(ix->v);
	ix->v = NULL;
	ix->n = 0;
}

const char *
json_key_at(const struct json *obj, size_t i)
{
	const cJSON *c = cJSON_GetArrayItem(CC(obj), (int)i);

	return c ? c->string : NULL;
}

const char *
json_str(const struct json *j)
{
	return cJSON_IsString(CC(j)) ? CC(j)->valuestring : NULL;
}

int json_is_bool(const struct json *j) { return cJSON_IsBool(CC(j)); }
int json_is_true(const struct json *j) { return cJSON_IsTrue(CC(j)); }
int json_is_object(const struct json *j) { return cJSON_IsObject(CC(j)); }
int json_is_array(const struct json *j) { return cJSON_IsArray(CC(j)); }

int
json_equal(const struct json *a, const struct json *b)
{
	return cJSON_Compare(CC(a), CC(b), 1);
}

double
json_number_value(const struct json *j)
{
	return j && cJSON_IsNumber(C(j)) ? cJSON_GetNumberValue(C(j)) : 0;
}

void
json_print_stdout(const struct json *j)
{
	char *s = json_print(j, 1);

	fputs(s, stdout); /* json_print leaves no control byte outside its escapes */
	free(s);
}
