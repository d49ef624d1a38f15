/* trace.h - profiler traces: what the readers keep of one, and storing it.
 *
 * Owns: struct trace (GPU activities summed per (kind, name), the
 * intervals behind the busy time, the trace's self-description), the
 * busy-time union, the readers' entry points (trace_chrome.c: PyTorch
 * profiler / Kineto Chrome JSON, plain or gzip; trace_nsys.c: Nsight
 * Systems SQLite export), and writing a trace into the store's profile
 * tables (migration 4 of store.c) in one transaction keyed by the file's
 * SHA-256.  Readers stream: memory grows with the number of distinct
 * kernel names and of GPU activities (24 bytes each), never with the size
 * of the file.  Must not: classify kernels (kclass.h does, at report
 * time), print, or write anything before the whole trace has been read.
 */
#ifndef HR_TRACE_H
#define HR_TRACE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "../dataset/digest.h"
#include "../dataset/base/err.h"
#include "../dataset/store.h"

/* Timestamps beyond +-4e18 ns (the year 2096 since the epoch) are refused,
 * so that start + duration never overflows. */
#define TRACE_MAX_TS_NS 4000000000000000000LL

enum trace_kind { TRACE_KERNEL, TRACE_MEMCPY, TRACE_MEMSET, TRACE_NKINDS };

/* One (kind, name) of a trace, summed over its calls. */
struct trace_name {
	char *name;             /* owned */
	enum trace_kind kind;
	int64_t calls, total_ns, max_ns;
};

/* One activity's span on one device (the Chrome trace's pid, nsys's
 * deviceId; strings hashed). */
struct trace_interval {
	int64_t device, start_ns, end_ns;
};

enum trace_format { TRACE_NONE, TRACE_CHROME, TRACE_NSYS };

struct trace {
	enum trace_format format;
	char sha256[HR_SHA256_HEX];  /* of the file's bytes as stored */
	/* The trace's description of itself (Chrome traces: top-level
	 * "headroom_workload", "headroom_domain", "headroom_stack" keys the
	 * profile command adds; "deviceProperties"[0].name); owned, NULL
	 * when absent. */
	char *workload, *domain, *stack, *device;
	/* Hash table of names: slots[cap], NULL = empty. */
	struct trace_name **slots;
	size_t nnames, cap;
	struct trace_interval *iv;   /* owned, niv of ivcap */
	size_t niv, ivcap;
	int64_t activities;          /* GPU activities kept */
	int64_t kernel_ns;           /* sum of their durations */
	int64_t first_ns, last_ns;   /* earliest start, latest end */
	int64_t skipped_cpu;         /* events that are not GPU activities */
};

void trace_init(struct trace *t);
void trace_release(struct trace *t);

/* Record one GPU activity: name (len bytes, not NUL-terminated) of kind,
 * on device, from start_ns lasting dur_ns (>= 0).  0, or one of
 * TRACE_ADD_* (negative); trace_add_error says what it means.  The name
 * must be UTF-8 without NUL; the per-name and total sums are checked. */
enum {
	TRACE_ADD_NOMEM = -1, TRACE_ADD_NUL = -2, TRACE_ADD_UTF8 = -3,
	TRACE_ADD_OVERFLOW = -4,
};
int trace_add(struct trace *t, enum trace_kind kind, const char *name,
	      size_t len, int64_t device, int64_t start_ns, int64_t dur_ns);
const char *trace_add_error(int rc);

/* The busy time in ns: per device the union of its activities' intervals
 * across its streams, summed over the devices (two GPUs busy at once count
 * twice); -1 when that sum overflows.  Sorts t->iv in place. */
int64_t trace_busy_ns(struct trace *t);

/* A device key for a device named by a string (a Chrome trace's pid such
 * as "GPU 1"): the number it holds when it is one, else a hash of the
 * string kept apart from small numbers. */
int64_t trace_device_key(const char *s, size_t n);

/* Which reader a file is for, from its first bytes: SQLite files are
 * nsys exports, gzip or JSON files whose start looks like a Chrome trace
 * (an object with a top-level "traceEvents" key anywhere, or an array
 * whose first element has "ph") are Chrome traces; TRACE_NONE otherwise
 * (and for unreadable files or ones that are not regular files, which the
 * archive loader then reports). */
enum trace_format trace_sniff(const char *path);

/* From the start of f: a JSON object with a top-level "traceEvents" key,
 * read as far as that key (linear in the bytes before it). */
int trace_chrome_sniff(FILE *f);

/* The readers.  Errors are HR_INPUT naming the file and the byte offset
 * (of the uncompressed JSON for a gzip trace), or HR_SYSTEM. */
int trace_read_chrome(const char *path, struct trace *t, struct hr_err *e);
int trace_read_nsys(const char *path, struct trace *t, struct hr_err *e);

/* What to store the trace as; NULL fields fall back to the trace's own
 * description, then (workload) to the file's base name. */
struct trace_meta {
	const char *source_name, *path;
	const char *workload, *domain, *stack;
};

/* One row of the profile table, and writing one (or one profile_kernel
 * row) inside the caller's transaction: the one place their SQL is
 * written (trace_store and the export reader use it).  A row the schema
 * refuses (a duplicate name, a bad kind) is HR_INPUT, a failed write
 * HR_SYSTEM. */
struct trace_profile_row {
	int64_t source_id;
	/* NULL where the column allows it (not workload, format). */
	const char *workload, *domain, *stack, *format, *device;
	const char *notes_json;
	int64_t activities, kernel_ns, busy_ns, span_ns;
};
int trace_insert_profile(struct store *s, const struct trace_profile_row *p,
			 int64_t *id, struct hr_err *e);
int trace_insert_kernel(struct store *s, int64_t profile_id,
			const char *kind, const char *name, int64_t calls,
			int64_t total_ns, int64_t max_ns, struct hr_err *e);

/* Store t as a source (kind "profile-chrome" / "profile-nsys", t->sha256)
 * with its profile rows, in one transaction.  When that file was stored
 * before, *existed = 1 and nothing changes. */
int trace_store(struct store *s, struct trace *t, const struct trace_meta *m,
		int64_t *source_id, int *existed, struct hr_err *e);

#endif
