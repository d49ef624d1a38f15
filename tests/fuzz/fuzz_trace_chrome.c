/* fuzz_trace_chrome.c - fuzz target: the PyTorch profiler / Kineto Chrome
 * trace reader (trace_read_chrome), plain JSON or gzip, written to a
 * file since it streams a path. */
#include "fuzz_trace.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	fuzz_trace_one(data, size, trace_read_chrome);
	return 0;
}
