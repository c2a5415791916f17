#ifndef BWBUILD_REMOTE_H
#define BWBUILD_REMOTE_H

struct strvec;

/* The distcc program (default: distcc on PATH). */
#define LAUNCH_ENV_DISTCC "BWBUILD_DISTCC"

/*
 * Whether distcc can compile this command elsewhere: a host C or C++
 * compiler (gcc, g++, cc, c++, clang, clang++, versioned or not, behind
 * ccache or not) compiling one C/C++ source with -c to an object. Never
 * nvcc, a .cu, a device link, fatbinary, a link or preprocessing only.
 */
int launch_remote_capable(char *const *argv);

/* distcc's own failure statuses (100-127): the host, not the source, failed. */
int launch_remote_failed(int exit_status);

#endif
