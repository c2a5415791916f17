#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/formats/tarzst.h"
#include "t.h"

/* The tar.zst container of source bundles: what it writes, reads back and refuses. */

struct seen {
	struct buf names;
	size_t n;
	uint64_t bytes;
};

static int
collect(void *ctx, const struct tar_member *m)
{
	struct seen *s = ctx;

	buf_addf(&s->names, "%s%c%s|", m->name, m->type == TAR_SYMLINK ? '>' : m->type == TAR_DIR ?
		 '/' : ':', m->type == TAR_SYMLINK ? m->link : "");
	s->n++;
	s->bytes += m->size;
	return 0;
}

/* Write members to a file with `level` and read the whole file back into `out`. */
static void
write_sample(const char *path, int level, const char *longname, struct buf *out)
{
	struct buf why = BUF_INIT;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct tar_writer *w = tar_writer_new(fd, level, &why);

	CHECK(w != NULL);
	CHECK(tar_writer_file(w, "a.txt", 0644, 1700000000, "hello\n", 6) == 0);
	CHECK(tar_writer_file(w, "bin/run", 0755, 1700000000, "#!/bin/sh\n", 10) == 0);
	CHECK(tar_writer_symlink(w, "bin/link", "run", 1700000000) == 0);
	CHECK(tar_writer_file(w, longname, 0644, 1700000000, "", 0) == 0);
	CHECK(tar_writer_finish(w) == 0);
	tar_writer_free(w);
	close(fd);
	buf_reset(out);
	CHECK(read_file(out, path) == 0);
	buf_release(&why);
}

static void
t_roundtrip(void)
{
	struct buf data = BUF_INIT, again = BUF_INIT, why = BUF_INIT, longname = BUF_INIT;
	struct seen s = { BUF_INIT, 0, 0 };

	/* longer than ustar's 100 + 155 bytes: a pax path record */
	struct buf p1 = BUF_INIT, p2 = BUF_INIT, p3 = BUF_INIT;
	const char *dir = t_tmpdir("tarzst");

	buf_addf(&p1, "%s/plain.tar", dir);
	buf_addf(&p2, "%s/one.tar.zst", dir);
	buf_addf(&p3, "%s/two.tar.zst", dir);
	for (int i = 0; i < 30; i++)
		buf_addstr(&longname, "directory/");
	buf_addstr(&longname, "file.h");
	write_sample(p1.s, 0, longname.s, &data);
	CHECK(data.len % 512 == 0);
	CHECK(tar_read_mem((const uint8_t *)data.s, data.len, NULL, collect, &s, &why) == 0);
	CHECK(s.n == 4 && s.bytes == 16);
	CHECK(strstr(s.names.s, "a.txt:|bin/run:|bin/link>run|directory/directory/") == s.names.s);
	CHECK(strstr(s.names.s, "/file.h:|") != NULL);

	/* compressed, and the same bytes twice */
	write_sample(p2.s, 19, longname.s, &data);
	write_sample(p3.s, 19, longname.s, &again);
	CHECK(data.len == again.len && !memcmp(data.s, again.s, data.len));
	buf_reset(&s.names);
	s.n = 0;
	CHECK(tarzst_read_mem((const uint8_t *)data.s, data.len, NULL, collect, &s, &why) == 0);
	CHECK(s.n == 4);
	/* cut short: refused */
	buf_reset(&why);
	CHECK(tarzst_read_mem((const uint8_t *)data.s, data.len / 2, NULL, collect, &s, &why) < 0);
	CHECK(why.len > 0);
	buf_reset(&why);
	CHECK(tarzst_read_mem((const uint8_t *)"", 0, NULL, collect, &s, &why) < 0);
	CHECK(strstr(why.s, "empty") != NULL);
	buf_release(&data);
	buf_release(&again);
	buf_release(&why);
	buf_release(&longname);
	buf_release(&s.names);
	buf_release(&p1);
	buf_release(&p2);
	buf_release(&p3);
	remove_tree(dir);
}

/* One ustar header for `name` of `type` with `size`, checksummed, then zero blocks. */
static void
craft(struct buf *out, const char *name, char type, const char *size_octal, const char *link)
{
	char h[512];
	unsigned sum = 0;

	memset(h, 0, sizeof(h));
	memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	memcpy(h + 124, size_octal, strlen(size_octal));
	memcpy(h + 136, "00000000000", 11);
	h[156] = type;
	if (link)
		memcpy(h + 157, link, strlen(link));
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	buf_add(out, h, 512);
}

static const char *
refusal(const struct buf *t, const struct tar_limits *lim)
{
	static struct buf why = BUF_INIT;
	struct seen s = { BUF_INIT, 0, 0 };

	buf_reset(&why);
	if (tar_read_mem((const uint8_t *)t->s, t->len, lim, collect, &s, &why) == 0)
		buf_addstr(&why, "(accepted)");
	buf_release(&s.names);
	return why.s;
}

static void
t_hostile(void)
{
	static const char zeros[1024];
	struct tar_limits small = tar_limits_default;
	struct buf t = BUF_INIT;
	const char *why;

	craft(&t, "../escape", '0', "00000000000", NULL);
	buf_add(&t, zeros, 1024);
	why = refusal(&t, NULL);
	CHECK(strstr(why, "'../escape' is not a relative, normalized path") != NULL);

	buf_reset(&t);
	craft(&t, "/etc/passwd", '0', "00000000000", NULL);
	buf_add(&t, zeros, 1024);
	CHECK(strstr(refusal(&t, NULL), "not a relative") != NULL);

	buf_reset(&t);
	craft(&t, "a/./b", '0', "00000000000", NULL);
	buf_add(&t, zeros, 1024);
	CHECK(strstr(refusal(&t, NULL), "not a relative") != NULL);

	buf_reset(&t);
	craft(&t, "esc\033]0;x", '0', "00000000000", NULL);
	buf_add(&t, zeros, 1024);
	why = refusal(&t, NULL);
	CHECK(strstr(why, "not a relative") != NULL && !strchr(why, '\033'));

	buf_reset(&t);
	craft(&t, "hard", '1', "00000000000", "a.txt");
	buf_add(&t, zeros, 1024);
	CHECK(strstr(refusal(&t, NULL), "type '1'") != NULL);

	buf_reset(&t);
	craft(&t, "dev", '3', "00000000000", NULL);
	buf_add(&t, zeros, 1024);
	CHECK(strstr(refusal(&t, NULL), "type '3'") != NULL);

	/* a size past the member limit is refused before a byte of it is held */
	buf_reset(&t);
	craft(&t, "big", '0', "77777777777", NULL);
	small.member = 1 << 20;
	CHECK(strstr(refusal(&t, &small), "over the limit") != NULL);

	buf_reset(&t);
	craft(&t, "a", '0', "00000000000", NULL);
	craft(&t, "b", '0', "00000000000", NULL);
	buf_add(&t, zeros, 1024);
	small = tar_limits_default;
	small.members = 1;
	CHECK(strstr(refusal(&t, &small), "more than 1 members") != NULL);

	/* a bad checksum, a missing end, data after the end */
	buf_reset(&t);
	craft(&t, "a", '0', "00000000000", NULL);
	t.s[0] = 'b';
	buf_add(&t, zeros, 1024);
	CHECK(strstr(refusal(&t, NULL), "not a ustar header") != NULL);
	buf_reset(&t);
	craft(&t, "a", '0', "00000000000", NULL);
	CHECK(strstr(refusal(&t, NULL), "cut short") != NULL);
	buf_reset(&t);
	craft(&t, "a", '0', "00000000000", NULL);
	buf_add(&t, zeros, 1024);
	buf_addstr(&t, "junk");
	CHECK(strstr(refusal(&t, NULL), "data after the end") != NULL);

	/* a symbolic link without a target; a pax header over 64 KiB */
	buf_reset(&t);
	craft(&t, "l", '2', "00000000000", NULL);
	buf_add(&t, zeros, 1024);
	CHECK(strstr(refusal(&t, NULL), "no target") != NULL);
	buf_reset(&t);
	craft(&t, "PaxHeaders/x", 'x', "00000400000", NULL);
	CHECK(strstr(refusal(&t, NULL), "pax header of 131072 bytes") != NULL);
	buf_release(&t);

	CHECK(tar_name_ok("a/b.c", 5));
	CHECK(!tar_name_ok("a//b", 4));
	CHECK(!tar_name_ok("a/", 2));
	CHECK(!tar_name_ok("", 0));
	CHECK(!tar_name_ok("a/../b", 6));
}

void
t_tarzst(void)
{
	t_roundtrip();
	t_hostile();
}
