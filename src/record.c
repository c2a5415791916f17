/*
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
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "record.h"
#include "util.h"

int
record_parse(const char *data, size_t len, struct record_row **rows_out, size_t *n_out,
	     struct buf *why)
{
	struct record_row *rows = NULL;
	size_t n = 0, cap = 0, i = 0;
	struct buf field = BUF_INIT;
	int line = 1;

	while (i < len) {
		struct record_row row;
		int end_of_row = 0;

		memset(&row, 0, sizeof(row));
		row.line = line;
		if (data[i] == '\n' || (data[i] == '\r' && i + 1 < len && data[i + 1] == '\n')) {
			i += data[i] == '\r' ? 2 : 1;
			line++;
			continue;
		}
		while (!end_of_row) {
			buf_reset(&field);
			if (i < len && data[i] == '"') {
				i++;
				for (;;) {
					if (i >= len) {
						buf_addf(why, "line %d: unterminated quoted field", row.line);
						goto fail;
					}
					if (data[i] == '"') {
						if (i + 1 < len && data[i + 1] == '"') {
							buf_addch(&field, '"');
							i += 2;
							continue;
						}
						i++;
						break;
					}
					if (data[i] == '\0') {
						buf_addf(why, "line %d: NUL byte", line);
						goto fail;
					}
					if (data[i] == '\n')
						line++;
					buf_addch(&field, data[i++]);
				}
				if (i < len && data[i] != ',' && data[i] != '\n' && data[i] != '\r') {
					buf_addf(why, "line %d: text after a closing quote", line);
					goto fail;
				}
			} else {
				while (i < len && data[i] != ',' && data[i] != '\n' && data[i] != '\r') {
					if (data[i] == '"' || data[i] == '\0') {
						buf_addf(why, "line %d: %s inside an unquoted field", line,
							 data[i] ? "quote" : "NUL byte");
						goto fail;
					}
					buf_addch(&field, data[i++]);
				}
			}
			if (row.nfields < 3)
				row.fields[row.nfields] = xstrndup(field.s, field.len);
			row.nfields++;
			if (i >= len) {
				end_of_row = 1;
			} else if (data[i] == ',') {
				i++;
				if (i >= len) {
					/* "a,b," then EOF: one more empty field. */
					if (row.nfields < 3)
						row.fields[row.nfields] = xstrdup("");
					row.nfields++;
					end_of_row = 1;
				}
			} else if (data[i] == '\n') {
				i++;
				line++;
				end_of_row = 1;
			} else if (data[i] == '\r') {
				if (i + 1 < len && data[i + 1] == '\n')
					i++;
				i++;
				line++;
				end_of_row = 1;
			}
		}
		ALLOC_GROW(rows, n + 1, cap);
		rows[n++] = row;
		continue;
fail:
		for (size_t k = 0; k < 3 && k < row.nfields; k++)
			free(row.fields[k]);
		record_free(rows, n);
		buf_release(&field);
		return -1;
	}
	buf_release(&field);
	*rows_out = rows;
	*n_out = n;
	return 0;
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
