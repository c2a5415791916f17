#ifndef BWBUILD_JSON_H
#define BWBUILD_JSON_H

#include <stddef.h>

/*
 * A small JSON API over cJSON; the only file that includes cJSON.h is
 * json.c. Values are built bottom-up: json_set()/json_push() take
 * ownership of the value they are given. Object keys keep insertion order.
 */
struct json;
struct buf;

struct json *json_object(void);
struct json *json_array(void);
struct json *json_string(const char *s);
struct json *json_bool(int b);
struct json *json_number(double n);
struct json *json_null(void);
void json_set(struct json *obj, const char *key, struct json *val);
void json_push(struct json *arr, struct json *val);
/* Move every member of object `src` into `dst` (replacing same keys); frees `src`. */
void json_merge_into(struct json *dst, struct json *src);
/* Detach obj[key] and hand it to the caller (NULL when absent). */
struct json *json_take(struct json *obj, const char *key);
/* A deep copy (NULL for NULL). */
struct json *json_dup(const struct json *j);
/* Array of strings from a NULL-terminated vector or a counted list. */
struct json *json_string_array(char *const *v, size_t n);
/* Serialise; pretty output ends with a newline. Caller frees. */
char *json_print(const struct json *j, int pretty);
/* Pretty-print to standard output (the --json of the commands). */
void json_print_stdout(const struct json *j);
void json_free(struct json *j);

/* Parse one value, white space after it; NULL with a reason in `why` on bad input or anything more. */
struct json *json_parse(const char *text, size_t len, struct buf *why);
const struct json *json_get(const struct json *obj, const char *key);
size_t json_len(const struct json *j);
const struct json *json_at(const struct json *arr, size_t i);
/*
 * The members of an array or object in order, in one pass (json_at and
 * json_key_at walk from the start each time: O(n) each). Caller frees the
 * array; NULL and 0 for anything else or an empty one.
 */
size_t json_items(const struct json *j, const struct json ***out);
/* The key of an object's member (from json_items), or NULL. */
const char *json_member_key(const struct json *member);

/*
 * A list's members sorted by a string key, for O(log n) lookups where
 * json_get walks the list (a crafted manifest may have 100,000 keys).
 */
struct json_index_ent {
	const char *key;
	const struct json *member;
	size_t at;               /* position in the list: the first of equal keys wins */
};
struct json_index {
	struct json_index_ent *v;
	size_t n;
};

/* An object's members by their keys. */
void json_index_build(struct json_index *ix, const struct json *obj);
/*
 * The members of an array or object by the member itself when `field` is
 * NULL (strings of an array), by the member's key when `field` is "", else
 * by the string `field` of each member; members without one are left out.
 */
void json_index_by(struct json_index *ix, const struct json *list, const char *field);
/* The first member with `key` (the one json_get finds), or NULL. */
const struct json_index_ent *json_index_find(const struct json_index *ix, const char *key);
const struct json *json_index_get(const struct json_index *ix, const char *key);
void json_index_release(struct json_index *ix);
/* Key of the i-th member of an object. */
const char *json_key_at(const struct json *obj, size_t i);
const char *json_str(const struct json *j); /* NULL if not a string */
double json_number_value(const struct json *j); /* 0 if not a number */
int json_is_bool(const struct json *j);
int json_is_true(const struct json *j);
int json_is_object(const struct json *j);
int json_is_array(const struct json *j);
int json_equal(const struct json *a, const struct json *b);
/* "an object", "an array", "a string", "a number", "a boolean", "null": for messages. */
const char *json_type_name(const struct json *j);

#endif
