/* version.h - the tool's version (git describe), fixed at build time.
 * Stored with every source and run as provenance. */
#ifndef HR_VERSION_H
#define HR_VERSION_H

const char *hr_version(void);

#endif
