/*
 * The two .dist-info files the verifier reads: RECORD and WHEEL (its
 * "Key: value" lines, at the end of this file).
 *
 * RECORD parser. Grammar (the subset of RFC 4180 Python's csv module
 * accepts with its default dialect):
 *
 *	record  = *(row EOL) [row]
 *	row     = field *("," field)
 *	field   = quoted / bare
 *	quoted  = '"' *(any but '"' / '""') '"'
 *	bare    = *(any but ',' '"' CR LF)
 *	EOL     = LF / CRLF
 *
 * Empty lines are skipped, as csv.reader does. A NUL byte is an error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "formats/record.h"
#include "core/util.h"

/* A quoted field from data[*i] (its opening quote) into `field`; *line counts its newlines. */
static int
quoted_field(const char *data, size_t len, size_t *i, int *line, int row_line, struct buf *field,
	     struct buf *why)
{
	size_t at = *i + 1;

	for (;;) {
		if (at >= len) {
			buf_addf(why, "line %d: unterminated quoted field", row_line);
			return -1;
		}
		if (data[at] == '"') {
			if (at + 1 < len && data[at + 1] == '"') {
				buf_addch(field, '"');
				at += 2;
				continue;
			}
			at++;
			break;
		}
		if (data[at] == '\0') {
			buf_addf(why, "line %d: NUL byte", *line);
			return -1;
		}
		if (data[at] == '\n')
			(*line)++;
		buf_addch(field, data[at++]);
	}
	*i = at;
	if (at < len && data[at] != ',' && data[at] != '\n' && data[at] != '\r') {
		buf_addf(why, "line %d: text after a closing quote", *line);
		return -1;
	}
	return 0;
}

/* An unquoted field from data[*i] into `field`, up to ',' or the end of the line. */
static int
bare_field(const char *data, size_t len, size_t *i, int line, struct buf *field, struct buf *why)
{
	while (*i < len && data[*i] != ',' && data[*i] != '\n' && data[*i] != '\r') {
		if (data[*i] == '"' || data[*i] == '\0') {
			buf_addf(why, "line %d: %s inside an unquoted field", line,
				 data[*i] ? "quote" : "NUL byte");
			return -1;
		}
		buf_addch(field, data[(*i)++]);
	}
	return 0;
}

static void
add_field(struct record_row *row, const char *s, size_t n)
{
	if (row->nfields < 3)
		row->fields[row->nfields] = xstrndup(s, n);
	row->nfields++;
}

/* One row from data[*i]; *i moves past its line end. */
static int
parse_row(const char *data, size_t len, size_t *i, int *line, struct record_row *row,
	  struct buf *field, struct buf *why)
{
	for (;;) {
		int rc;

		buf_reset(field);
		if (*i < len && data[*i] == '"')
			rc = quoted_field(data, len, i, line, row->line, field, why);
		else
			rc = bare_field(data, len, i, *line, field, why);
		if (rc < 0)
			return -1;
		add_field(row, field->s, field->len);
		if (*i >= len)
			return 0;
		if (data[*i] == ',') {
			(*i)++;
			if (*i >= len) {
				/* "a,b," then EOF: one more empty field. */
				add_field(row, "", 0);
				return 0;
			}
			continue;
		}
		if (data[*i] == '\r' && *i + 1 < len && data[*i + 1] == '\n')
			(*i)++;
		(*i)++;
		(*line)++;
		return 0;
	}
}

int
record_parse(const char *data, size_t len, struct record_row **rows_out, size_t *n_out,
	     struct buf *why)
{
	return record_parse_max(data, len, SIZE_MAX, rows_out, n_out, why);
}

int
record_parse_max(const char *data, size_t len, size_t max_rows, struct record_row **rows_out,
		 size_t *n_out, struct buf *why)
{
	struct record_row *rows = NULL;
	size_t n = 0, cap = 0, i = 0;
	struct buf field = BUF_INIT;
	int line = 1;

	while (i < len) {
		struct record_row row;

		memset(&row, 0, sizeof(row));
		row.line = line;
		if (data[i] == '\n' || (data[i] == '\r' && i + 1 < len && data[i + 1] == '\n')) {
			i += data[i] == '\r' ? 2 : 1;
			line++;
			continue;
		}
		if (n >= max_rows) {
			buf_addf(why, "line %d: more than %zu rows (more than the archive can hold; "
				 "is it crafted?)", line, max_rows);
			record_free(rows, n);
			buf_release(&field);
			return -1;
		}
		if (parse_row(data, len, &i, &line, &row, &field, why) < 0) {
			for (size_t k = 0; k < 3 && k < row.nfields; k++)
				free(row.fields[k]);
			record_free(rows, n);
			buf_release(&field);
			return -1;
		}
		ALLOC_GROW(rows, n + 1, cap);
		rows[n++] = row;
	}
	buf_release(&field);
	*rows_out = rows;
	*n_out = n;
	return 0;
}

void
wheel_file_parse(struct wheel_file *out, const char *text)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *colon = memchr(p, ':', len), *val;
		size_t vlen;

		if (colon) {
			for (val = colon + 1; *val == ' '; val++)
				;
			vlen = len - (size_t)(val - p);
			if (vlen && val[vlen - 1] == '\r')
				vlen--;
			ALLOC_GROW(out->fields, out->n + 1, out->cap);
			out->fields[out->n].key = xstrndup(p, (size_t)(colon - p));
			out->fields[out->n].value = xstrndup(val, vlen);
			out->n++;
		}
		p += len + (nl ? 1 : 0);
	}
}

void
wheel_file_release(struct wheel_file *wf)
{
	for (size_t i = 0; i < wf->n; i++) {
		free(wf->fields[i].key);
		free(wf->fields[i].value);
	}
	free(wf->fields);
	memset(wf, 0, sizeof(*wf));
}

void
record_free(struct record_row *rows, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 3; k++)
			free(rows[i].fields[k]);
	free(rows);
}
