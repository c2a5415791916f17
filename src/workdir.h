#ifndef BWBUILD_WORKDIR_H
#define BWBUILD_WORKDIR_H

/*
 * The work directory of a build: logs/, tmp/ (nvcc's intermediates) and
 * one bwbuild at a time, by an flock on <work>/lock held until exit (the
 * kernel drops it when the process dies, so a crash leaves no stale lock;
 * the holder's pid is in the file for the message). Returns the lock's
 * descriptor, or -1 after reporting.
 */
int workdir_open(const char *work_dir);

#endif
