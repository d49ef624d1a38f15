/* fuzz_archive.c - fuzz target: the archive reader from memory
 * (archive_load_memory: tar/zip under every compression, the entry rules
 * and caps), with caps small enough that a bomb is refused quickly. */
#include "fuzz.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct archive_limits lim;
	struct afileset fs;
	struct hr_err e;
	int rc;

	archive_limits_default(&lim);
	lim.max_entry_bytes = 1 << 20;
	lim.max_total_bytes = 4 << 20;
	lim.max_entries = 2000;
	hr_err_clear(&e);
	rc = archive_load_memory("fuzz.tar", data, size, &lim, &fs, &e);
	fuzz_check_error(rc, &e);
	/* What was kept obeys the rules the loader promises. */
	for (size_t i = 0; rc == HR_OK && i < fs.n; i++)
		if (!fs.files[i].path[0] || fs.files[i].path[0] == '/' ||
		    fs.files[i].len > lim.max_entry_bytes ||
		    fs.files[i].data[fs.files[i].len] != '\0')
			__builtin_trap();
	afileset_free(&fs);
	return 0;
}
