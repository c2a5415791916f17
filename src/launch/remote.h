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


/*
 * The command that compiles `argv` on `host` (a DISTCC_HOSTS entry) into
 * `out`, and the settings it runs with into `env` (NAME=VALUE): distcc
 * before the compiler, or as ccache's CCACHE_PREFIX when ccache is first;
 * one host, no fallback, no local retry, and
 * DISTCC_DIR under the launch directory `dir` (distcc needs it to exist).
 */
void launch_remote_command(char *const *argv, const char *host, const char *dir, struct strvec *out,
			   struct strvec *env);

#endif
