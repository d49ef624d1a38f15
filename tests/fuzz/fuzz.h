/* fuzz.h - what the fuzz targets of tests/fuzz/ share.
 *
 * Each target (fuzz_<reader>.c) defines FUZZ_ENTRY, which is libFuzzer's
 * LLVMFuzzerTestOneInput unless the includer renames it: the corpus
 * replay in tests/unit/test_fuzz_corpora.c includes every target into
 * one cmocka program, so that `make check` runs each corpus under the
 * sanitizers of the gcc build without clang.
 *
 * A reader target's input is either one member (the whole input, under
 * the target's default path) or, when it starts with the line "//files",
 * several: each "//file PATH" line starts a member that runs to the next
 * such line.  Seeds are written that way by hand (see README.md).
 */
#ifndef HR_FUZZ_H
#define HR_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "../../dataset/ingest.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif


/* Cut data into the members of *fs (see above) and finish it.  HR_OK,
 * or the set's own refusal (a path twice, ...). */
int fuzz_fileset(const uint8_t *data, size_t size, const char *default_path,
		 struct afileset *fs, struct hr_err *e);

typedef int fuzz_reader(const struct afileset *fs, struct ingest_ctx *ctx,
			struct hr_err *e);

/* Run reader over fs inside a transaction of an in-memory store that is
 * rolled back afterwards, so every input meets the same empty store.
 * Aborts (a finding) when the reader fails without a message or with a
 * code that is not an input or system error. */
void fuzz_read(const struct afileset *fs, fuzz_reader *reader);

/* fuzz_fileset, then fuzz_read when the set could be made. */
void fuzz_read_input(const uint8_t *data, size_t size,
		     const char *default_path, fuzz_reader *reader);

/* The in-memory store every target writes to (one for the run), and
 * emptying what the trace targets commit to it. */
struct store *fuzz_store(void);
void fuzz_store_reset(void);

/* A new file for a target that reads paths: $TMPDIR, else /dev/shm,
 * else /tmp; path (n bytes) gets its name.  The open descriptor, or -1. */
int fuzz_temp_file(const char *tag, char *path, size_t n);

/* A refusal must say why: abort on rc without a message or of an
 * unknown code. */
void fuzz_check_error(int rc, const struct hr_err *e);

#endif
