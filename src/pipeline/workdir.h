#ifndef BWBUILD_WORKDIR_H
#define BWBUILD_WORKDIR_H

/*
 * Whether bwbuild may use `work` as its work directory and `out` for
 * what it publishes (absolute paths; `source` the --source tree or NULL):
 * not the root or the home directory or one above it, the work directory
 * not holding the source tree, --out not inside the work directory (whose
 * dist/ bwbuild empties), and the work directory new, empty or one bwbuild
 * made (it has bwbuild's 'lock'): bwbuild deletes and rewrites what is
 * inside it. 0, or -1 after reporting what to do.
 */
int workdir_validate(const char *work, const char *out, const char *source);

/*
 * The work directory of a build: logs/, tmp/ (nvcc's intermediates) and
 * one bwbuild at a time, by an flock on <work>/lock held until exit (the
 * kernel drops it when the process dies, so a crash leaves no stale lock;
 * the holder's pid is in the file for the message). The lock is opened
 * without following a link and must be this user's regular file with one
 * name. Temporaries of killed runs are removed (remove_stale_temporaries).
 * Returns the lock's descriptor, or -1 after reporting.
 */
int workdir_open(const char *work_dir);
/*
 * The directories bwbuild writes into below the work dir checked again
 * (made when missing, refused when a link): before every step, so one
 * replaced by a link during a step (by the build's own commands) is
 * refused at the next, not written through. -1 after reporting.
 */
int workdir_check(const char *work_dir);

#endif
