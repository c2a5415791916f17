#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "util.h"
#include "workdir.h"

int
workdir_open(const char *work_dir)
{
	struct buf path = BUF_INIT, holder = BUF_INIT;
	int fd = -1;

	buf_addf(&path, "%s/logs", work_dir);
	if (mkdir_p(path.s) < 0)
		goto out;
	buf_reset(&path);
	buf_addf(&path, "%s/tmp", work_dir);
	if (mkdir_p(path.s) < 0)
		goto out;
	buf_reset(&path);
	buf_addf(&path, "%s/lock", work_dir);
	fd = open(path.s, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		error("cannot create '%s':", path.s);
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		read_file(&holder, path.s);
		error("work directory '%s' is in use by another bwbuild (pid %.*s); wait for it to "
		      "finish or use another --work", work_dir,
		      (int)strcspn(holder.s ? holder.s : "?", "\n"), holder.s ? holder.s : "?");
		close(fd);
		fd = -1;
		goto out;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%ld\n", (long)getpid());
out:
	buf_release(&path);
	buf_release(&holder);
	return fd;
}
