/* fuzz_export.c - fuzz target: the canonical export: manifest, the
 * .jsonl tables and kernels/ (ingest_export).
 * A single-member input is headroom-export/manifest.json. */
#include "fuzz.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	fuzz_read_input(data, size, "headroom-export/manifest.json", ingest_export);
	return 0;
}
