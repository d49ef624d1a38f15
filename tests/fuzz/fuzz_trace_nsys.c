/* fuzz_trace_nsys.c - fuzz target: the Nsight Systems SQLite export
 * reader (trace_read_nsys), the input being the database file's bytes,
 * written to a file (opened read-only, defensive). */
#include "fuzz_trace.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	fuzz_trace_one(data, size, trace_read_nsys);
	return 0;
}
