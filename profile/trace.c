/* trace.c - see trace.h: the per-name sums, the busy union and storing a
 * trace (sniffing a file's format: trace_sniff.c). */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../dataset/archive.h"
#include "../dataset/base/text.h"
#include "../dataset/base/version.h"

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->first_ns = INT64_MAX;
	t->last_ns = INT64_MIN;
}

void trace_release(struct trace *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slots[i])
			free(t->slots[i]->name);
		free(t->slots[i]);
	}
	free(t->slots);
	free(t->iv);
	free(t->workload);
	free(t->domain);
	free(t->stack);
	free(t->device);
	trace_init(t);
}

/* FNV-1a over the kind and the name. */
static uint64_t name_hash(enum trace_kind kind, const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static struct trace_name **slot_for(struct trace_name **slots, size_t cap,
				    enum trace_kind kind, const char *name,
				    size_t len)
{
	size_t i = (size_t)name_hash(kind, name, len) & (cap - 1);

	while (slots[i] && (slots[i]->kind != kind ||
			    strlen(slots[i]->name) != len ||
			    memcmp(slots[i]->name, name, len)))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow_names(struct trace *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	struct trace_name **n = calloc(cap, sizeof(*n));

	if (!n)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		struct trace_name *x = t->slots[i];

		if (x)
			*slot_for(n, cap, x->kind, x->name,
				  strlen(x->name)) = x;
	}
	free(t->slots);
	t->slots = n;
	t->cap = cap;
	return 0;
}

static int cmp_iv(const void *a, const void *b)
{
	const struct trace_interval *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

/* Sort (by device, then start) and merge overlapping or touching
 * intervals of one device in place: each device's union is unchanged, and
 * overlapping streams need fewer slots. */
static void merge_iv(struct trace *t)
{
	size_t w = 0;

	if (t->niv < 2)
		return;
	qsort(t->iv, t->niv, sizeof(*t->iv), cmp_iv);
	for (size_t r = 1; r < t->niv; r++) {
		if (t->iv[r].device == t->iv[w].device &&
		    t->iv[r].start_ns <= t->iv[w].end_ns) {
			if (t->iv[r].end_ns > t->iv[w].end_ns)
				t->iv[w].end_ns = t->iv[r].end_ns;
		} else {
			t->iv[++w] = t->iv[r];
		}
	}
	t->niv = w + 1;
}

static int add_interval(struct trace *t, int64_t device, int64_t start,
			int64_t end)
{
	if (t->niv == t->ivcap) {
		size_t before = t->niv;
		struct trace_interval *n;

		/* Merging first keeps memory near the union's size when
		 * streams overlap; grow only when it freed little. */
		if (t->niv >= 65536)
			merge_iv(t);
		if (t->niv > before - before / 4 || !t->ivcap) {
			size_t cap = t->ivcap ? 2 * t->ivcap : 4096;

			if (!(n = realloc(t->iv, cap * sizeof(*n))))
				return -1;
			t->iv = n;
			t->ivcap = cap;
		}
	}
	t->iv[t->niv].device = device;
	t->iv[t->niv].start_ns = start;
	t->iv[t->niv].end_ns = end;
	t->niv++;
	return 0;
}

int trace_add(struct trace *t, enum trace_kind kind, const char *name,
	      size_t len, int64_t device, int64_t start_ns, int64_t dur_ns)
{
	struct trace_name **sl, *x;
	int64_t total, sum;

	/* A NUL would cut the name in the store (and make two names one);
	 * the store keeps text, so the name must be UTF-8 too. */
	if (memchr(name, '\0', len))
		return TRACE_ADD_NUL;
	if (text_utf8_invalid_at(name, len) != len)
		return TRACE_ADD_UTF8;
	if (2 * (t->nnames + 1) > t->cap && grow_names(t))
		return TRACE_ADD_NOMEM;
	sl = slot_for(t->slots, t->cap, kind, name, len);
	x = *sl;
	/* Checked sums: the caller bounds each duration, not their count. */
	if (__builtin_add_overflow(t->kernel_ns, dur_ns, &sum) ||
	    (x && __builtin_add_overflow(x->total_ns, dur_ns, &total)))
		return TRACE_ADD_OVERFLOW;
	if (!x) {
		if (!(x = calloc(1, sizeof(*x))) ||
		    !(x->name = strndup(name, len))) {
			free(x);
			return TRACE_ADD_NOMEM;
		}
		x->kind = kind;
		*sl = x;
		t->nnames++;
		total = dur_ns;
	}
	x->calls++;
	x->total_ns = total;
	if (dur_ns > x->max_ns)
		x->max_ns = dur_ns;
	t->activities++;
	t->kernel_ns = sum;
	if (start_ns < t->first_ns)
		t->first_ns = start_ns;
	if (start_ns + dur_ns > t->last_ns)
		t->last_ns = start_ns + dur_ns;
	return add_interval(t, device, start_ns, start_ns + dur_ns) ?
		TRACE_ADD_NOMEM : 0;
}

const char *trace_add_error(int rc)
{
	switch (rc) {
	case TRACE_ADD_NUL:
		return "a NUL character in its name";
	case TRACE_ADD_UTF8:
		return "a name that is not valid UTF-8";
	case TRACE_ADD_OVERFLOW:
		return "the sum of activity durations overflows 64-bit "
		       "nanoseconds";
	default:
		return "out of memory";
	}
}

int64_t trace_device_key(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;  /* FNV-1a, 64-bit */
	int64_t v = 0;
	size_t i = 0;

	for (; i < n && i < 18 && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');
	if (i == n && n > 0)
		return v;
	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return (int64_t)((h >> 2) | (1ULL << 62));  /* in [2^62, 2^63) */
}

int64_t trace_busy_ns(struct trace *t)
{
	int64_t busy = 0;

	merge_iv(t);
	for (size_t i = 0; i < t->niv; i++)
		if (__builtin_add_overflow(busy, t->iv[i].end_ns -
					   t->iv[i].start_ns, &busy))
			return -1;
	return busy;
}

/* --- storing ------------------------------------------------------------- */

static const char *const kind_name[TRACE_NKINDS] = {
	[TRACE_KERNEL] = "kernel", [TRACE_MEMCPY] = "memcpy",
	[TRACE_MEMSET] = "memset",
};

static int cmp_name(const void *a, const void *b)
{
	const struct trace_name *x = *(const struct trace_name *const *)a;
	const struct trace_name *y = *(const struct trace_name *const *)b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A failed step: the schema's refusal is the input's fault. */
static int step_err(sqlite3 *db, const char *table, struct hr_err *e)
{
	if ((sqlite3_errcode(db) & 0xff) == SQLITE_CONSTRAINT)
		return hr_errf(e, HR_INPUT, "%s: refused by the store: %s",
			       table, sqlite3_errmsg(db));
	return store_db_err(db, table, e);
}

int trace_insert_profile(struct store *s, const struct trace_profile_row *p,
			 int64_t *id, struct hr_err *e)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	const char *text[6] = { p->workload, p->domain, p->stack, p->format,
				p->device, p->notes_json };
	const int64_t num[4] = { p->activities, p->kernel_ns, p->busy_ns,
				 p->span_ns };

	if (sqlite3_prepare_v2(db, "INSERT INTO profile(source_id, workload,"
			       " domain, stack, format, device, notes_json,"
			       " activities, kernel_ns, busy_ns, span_ns)"
			       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
			       " ?10, ?11)", -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, "profile", e);
	sqlite3_bind_int64(st, 1, p->source_id);
	for (int i = 0; i < 6; i++)
		sqlite3_bind_text(st, 2 + i, text[i], -1, SQLITE_STATIC);
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(st, 8 + i, num[i]);
	if (sqlite3_step(st) != SQLITE_DONE)
		step_err(db, "profile", e);
	else
		*id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(st);
	return e->code;
}

int trace_insert_kernel(struct store *s, int64_t profile_id,
			const char *kind, const char *name, int64_t calls,
			int64_t total_ns, int64_t max_ns, struct hr_err *e)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;

	/* Prepared per row: a trace has thousands of names at most, and a
	 * prepare costs microseconds. */
	if (sqlite3_prepare_v2(db, "INSERT INTO profile_kernel(profile_id,"
			       " kind, name, calls, total_ns, max_ns)"
			       " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st,
			       NULL) != SQLITE_OK)
		return store_db_err(db, "profile_kernel", e);
	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, calls);
	sqlite3_bind_int64(st, 5, total_ns);
	sqlite3_bind_int64(st, 6, max_ns);
	if (sqlite3_step(st) != SQLITE_DONE)
		step_err(db, "profile_kernel", e);
	sqlite3_finalize(st);
	return e->code;
}

static int store_rows(struct store *s, struct trace *t, int64_t source_id,
		      const char *workload, const struct trace_meta *m,
		      struct hr_err *e)
{
	struct trace_name **v = NULL;
	int64_t pid, busy = trace_busy_ns(t);
	size_t k = 0;
	char notes[160];
	struct trace_profile_row row = {
		.source_id = source_id, .workload = workload,
		.domain = m->domain ? m->domain : t->domain,
		.stack = m->stack ? m->stack : t->stack,
		.format = t->format == TRACE_NSYS ? "nsys" : "chrome",
		.device = t->device, .notes_json = notes,
		.activities = t->activities, .kernel_ns = t->kernel_ns,
		.busy_ns = busy,
		.span_ns = t->activities ? t->last_ns - t->first_ns : 0,
	};

	if (busy < 0)
		return hr_errf(e, HR_INPUT, "%s: the busy time summed over "
			       "devices overflows 64-bit nanoseconds", m->path);
	snprintf(notes, sizeof(notes), "{\"cpu_events_skipped\":%lld,"
		 "\"names\":%zu}", (long long)t->skipped_cpu, t->nnames);
	if (trace_insert_profile(s, &row, &pid, e))
		return e->code;
	/* Sorted, so the same trace gives the same rowids. */
	if (!(v = malloc((t->nnames ? t->nnames : 1) * sizeof(*v))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i])
			v[k++] = t->slots[i];
	qsort(v, k, sizeof(*v), cmp_name);
	for (size_t i = 0; i < k && e->code == HR_OK; i++)
		trace_insert_kernel(s, pid, kind_name[v[i]->kind], v[i]->name,
				    v[i]->calls, v[i]->total_ns, v[i]->max_ns,
				    e);
	free(v);
	return e->code;
}

int trace_store(struct store *s, struct trace *t, const struct trace_meta *m,
		int64_t *source_id, int *existed, struct hr_err *e)
{
	char base[256];
	const char *workload = m->workload ? m->workload : t->workload;
	struct store_source src = {
		.path = m->path, .sha256 = t->sha256,
		.kind = t->format == TRACE_NSYS ? "profile-nsys" :
			"profile-chrome",
	};
	size_t bl;

	static const char *const ext[] = { ".gz", ".json", ".sqlite",
					   ".pt.trace", ".nsys" };

	/* x.pt.trace.json(.gz) and x.nsys.sqlite name the workload x. */
	archive_base_name(m->path, base, sizeof(base));
	for (size_t i = 0; i < sizeof(ext) / sizeof(*ext); i++) {
		size_t el = strlen(ext[i]);

		bl = strlen(base);
		if (bl > el && !strcasecmp(base + bl - el, ext[i]))
			base[bl - el] = '\0';
	}
	if (!workload)
		workload = base;
	src.name = m->source_name ? m->source_name : workload;
	if (store_begin(s, e))
		return e->code;
	if (store_add_source(s, &src, source_id, existed, e) == HR_OK &&
	    !*existed && store_rows(s, t, *source_id, workload, m, e) == HR_OK)
		store_commit(s, e);
	if (e->code != HR_OK || *existed)
		store_rollback(s);
	return e->code;
}
