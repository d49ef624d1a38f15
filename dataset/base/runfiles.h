/* runfiles.h - where the files headroom runs with are: the replay worker
 * and the libraries it loads, and the data it ships (claims ledger and
 * roles, leaderboard maps, gnuplot scripts).
 *
 * Owns: the one rule for finding them.  They live in two folders under one
 * prefix, the layout of `make install`:
 *
 *	PREFIX/libexec/headroom/  worker.py, hrworker/, profile_worker.py,
 *	                          libhrverify.so,
 *	                          libhrverify_cuda.so, libhrrand.so,
 *	                          slurm-replay.sh
 *	PREFIX/share/headroom/    claims.json, roles.json, maps/, figures/,
 *	                          static-rules.conf
 *
 * PREFIX is $HEADROOM_PREFIX when set and not empty, else the prefix
 * compiled in (build/prefix.c: the tree's build/ folder for ./headroom,
 * whose `make` links that layout to the sources; PREFIX for an installed
 * copy), as git's exec-path is GIT_EXEC_PATH or the compiled-in one.
 * Never the working directory: headroom run inside an untrusted tree must
 * not run that tree's worker.  Must not: print, read anything but the
 * environment variable and the file system.
 */
#ifndef HR_RUNFILES_H
#define HR_RUNFILES_H

#include <stddef.h>

enum runfiles_dir { RUNFILES_LIBEXEC, RUNFILES_SHARE };

/* The prefix compiled in (generated into build/prefix.c by make). */
const char *runfiles_builtin_prefix(void);

/* $HEADROOM_PREFIX when set and not empty, else the compiled-in one. */
const char *runfiles_prefix(void);

/* PREFIX/libexec/headroom/NAME or PREFIX/share/headroom/NAME into buf (NAME
 * "" gives the folder itself).  Returns 0, or -1 when it does not fit. */
int runfiles_path(enum runfiles_dir d, const char *name, char *buf,
		  size_t n);

/* The same path resolved (realpath, malloc'd) when it can be read, else
 * NULL; the caller names runfiles_path's path in its error. */
char *runfiles_find(enum runfiles_dir d, const char *name);

#endif
