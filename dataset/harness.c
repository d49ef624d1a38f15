/* harness.c - see harness.h. */
#include "harness.h"

#include <stdio.h>
#include <string.h>

const char *harness_version(const char *tag)
{
	if (tag && strstr(tag, "v0.1"))
		return "v0.1";
	if (tag && strstr(tag, "v0") && !strstr(tag, "v0."))
		return "v0";
	return NULL;
}

const char *harness_replayed(const char *tag)
{
	const char *v = harness_version(tag);

	return v ? v : "current";
}

void harness_tolerance_text(const char *tolerance, const char *used,
			    const char *precision, const char *run_opt,
			    const char *tag, char *buf, size_t n)
{
	char why[256];

	buf[0] = '\0';
	if (!tolerance || !used)
		return;
	if (run_opt)
		snprintf(why, sizeof(why), "the run's --harness %s", run_opt);
	else if (harness_version(tag))
		snprintf(why, sizeof(why), "the archive's harness tag (%s) "
			 "names KernelBench %s", tag, harness_version(tag));
	else
		snprintf(why, sizeof(why), "assumed: the archive's results "
			 "(%s) name no KernelBench version, so current's",
			 tag ? tag : "no harness tag");
	snprintf(buf, n, "atol = rtol = %s (KernelBench %s, %s): %s",
		 tolerance, used, precision ? precision : "fp32", why);
}
