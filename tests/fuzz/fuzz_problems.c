/* fuzz_problems.c - fuzz target: problem sets, levelN/ID_Name.py
 * (ingest_problems).
 * A single-member input is level1/1_Problem.py. */
#include "fuzz.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	fuzz_read_input(data, size, "level1/1_Problem.py", ingest_problems);
	return 0;
}
