/* trace_sniff.c - see trace.h: which trace format a file holds, from its
 * first bytes (an nsys export's SQLite header, a gzip stream named .json.gz,
 * a Chrome trace's "traceEvents" or first event), and for a JSON object
 * whose "traceEvents" comes after a long head, the Chrome reader's own
 * sniffer (trace_chrome_sniff). */
#include "trace.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../dataset/archive.h"

static int looks_chrome(const char *b, size_t n)
{
	size_t i = 0;

	while (i < n && strchr(" \t\r\n", b[i]))
		i++;
	if (i == n)
		return 0;
	/* Kineto writes "schemaVersion", "deviceProperties", then
	 * "traceEvents"; a bare array's first event carries "ph". */
	if (b[i] == '{')
		return memmem(b, n, "\"traceEvents\"", 13) != NULL;
	if (b[i] == '[')
		return memmem(b, n, "\"ph\"", 4) != NULL;
	return 0;
}

enum trace_format trace_sniff(const char *path)
{
	unsigned char head[16384];
	enum trace_format fmt = TRACE_NONE;
	struct hr_err e;
	size_t n, i = 0;
	FILE *f;

	/* Not a regular file: the archive loader says what it is. */
	hr_err_clear(&e);
	if (archive_fopen_regular(path, NULL, &f, &e))
		return TRACE_NONE;
	n = fread(head, 1, sizeof(head), f);
	while (i < n && strchr(" \t\r\n", head[i]) && head[i])
		i++;
	if (n >= 16 && !memcmp(head, "SQLite format 3", 16)) {
		fmt = TRACE_NSYS;
	} else if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
		/* A gzip file: only a name that says JSON is a trace (a
		 * .tar.gz is an archive). */
		size_t l = strlen(path);

		fmt = l > 8 && !strcasecmp(path + l - 8, ".json.gz") ?
			TRACE_CHROME : TRACE_NONE;
	} else if (looks_chrome((const char *)head, n)) {
		fmt = TRACE_CHROME;
	} else if (n == sizeof(head) && head[i] == '{') {
		/* "traceEvents" may come after metadata of any size: read
		 * the object's top-level keys until it does. */
		rewind(f);
		fmt = trace_chrome_sniff(f) ? TRACE_CHROME : TRACE_NONE;
	}
	fclose(f);
	return fmt;
}
