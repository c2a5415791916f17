#ifndef BWBUILD_FAULT_H
#define BWBUILD_FAULT_H

/*
 * Fault injection for the recovery tests (tests/cli/faults.sh): with
 * BWBUILD_FAULT=NAME or NAME:N in the environment, bwbuild kills itself
 * with SIGKILL the Nth time (default the first) it reaches the point
 * NAME, as a power cut or the OOM killer would. Without it, nothing.
 * Every point is listed by `BWBUILD_FAULT=list bwbuild ...`, once each
 * as reached, on standard error.
 */
void fault_point(const char *name);

/*
 * The same for a file changed under a reader: with BWBUILD_FAULT=
 * truncate:NAME, the point NAME truncates `path` to half its size; with
 * regrow:NAME it overwrites the second half with zeros in place (same
 * size, never shorter: a file rewritten while it is read).
 */
void fault_truncate(const char *name, const char *path);

/*
 * The same for a system call that fails: with BWBUILD_FAULT=fail:NAME,
 * the point NAME returns 1 (the caller then fails as with EIO);
 * otherwise 0.
 */
int fault_fail(const char *name);

#endif
