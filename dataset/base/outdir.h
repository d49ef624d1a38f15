/* outdir.h - the folder a command writes its outputs into (--out DIR).
 *
 * Owns: creating it with its parents.  Must not: print, remove anything.
 */
#ifndef HR_OUTDIR_H
#define HR_OUTDIR_H

#include "err.h"

/* mkdir -p path (mode 0777 before umask); an existing folder is fine. */
int outdir_create(const char *path, struct hr_err *e);

#endif
