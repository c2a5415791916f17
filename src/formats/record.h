#ifndef BWBUILD_RECORD_H
#define BWBUILD_RECORD_H

#include <stddef.h>

struct buf;

/*
 * A wheel's RECORD: CSV as Python's csv.reader reads it (',' delimiter,
 * '"' quoting with "" for a quote, \n or \r\n line ends). Each row should
 * be path,hash,size; the parser keeps whatever fields it finds so the
 * verifier can name a row with the wrong count.
 */
struct record_row {
	char *fields[3];
	size_t nfields;  /* as found; only the first 3 kept */
	int line;
};

int record_parse(const char *data, size_t len, struct record_row **rows, size_t *n,
		 struct buf *why);
/*
 * The same, refusing more than `max_rows` rows: memory stays proportional
 * to what the caller can use (a wheel's members), not to what the text
 * claims (8 M rows of ",\n" in 16 MB).
 */
int record_parse_max(const char *data, size_t len, size_t max_rows, struct record_row **rows,
		     size_t *n, struct buf *why);
void record_free(struct record_row *rows, size_t n);

/*
 * A wheel's WHEEL file: "Key: value" lines as bdist_wheel writes them
 * (mail-header style, without continuation lines). The fields in file
 * order, keys as written; a value loses the blanks after the ':' and a
 * trailing CR. Lines without a ':' are skipped. What the keys mean
 * (Wheel-Version, Root-Is-Purelib, Tag, Build) is the verifier's.
 */
struct wheel_field {
	char *key;
	char *value;
};

struct wheel_file {
	struct wheel_field *fields;
	size_t n, cap;
};

void wheel_file_parse(struct wheel_file *out, const char *text);
void wheel_file_release(struct wheel_file *wf);

#endif
