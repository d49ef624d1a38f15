/* fuzz_kernelbench.c - fuzz target: KernelBench run trees
 * (ingest_kernelbench): eval_results.json in every schema,
 * generation_config.yaml, kernel files and baseline timing JSON.
 * A single-member input is run_level_1/eval_results.json. */
#include "fuzz.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	fuzz_read_input(data, size, "run_level_1/eval_results.json",
			ingest_kernelbench);
	return 0;
}
