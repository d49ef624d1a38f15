/* trace_chrome.c - PyTorch profiler (Kineto) Chrome traces, streamed.
 *
 * Owns: reading `export_chrome_trace` / tensorboard_trace_handler output,
 * .json or .json.gz (zlib), through yajl's event parser in fixed-size
 * chunks: nothing but the event being read, the per-name sums and the
 * intervals is held, so memory does not grow with the file.  Keeps the
 * "X" events whose cat is a GPU activity -- kernel, gpu_memcpy,
 * gpu_memset, and the capitalised Kernel/Memcpy/Memset of older PyTorch,
 * compared without case -- with ts and dur in microseconds (Chrome trace
 * format; displayTimeUnit only changes the viewer) read as exact
 * decimals into nanoseconds.  Must not: store anything (trace.c does,
 * after the whole file parsed), print.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "trace.h"

/* Deeper than any real trace (args nest 2-3 levels below an event);
 * a hostile 10^6-deep file stops here, not in our stack or memory. */
#define MAX_DEPTH 64
#define MAX_NAME (64 * 1024)
/* One activity longer than an hour is a unit error (ns written where the
 * format has us), not a kernel. */
#define MAX_DUR_NS (3600LL * 1000000000LL)
#define IN_CHUNK (64 * 1024)
/* The longest token (string, number) held whole; beyond it the trace is
 * refused, so that memory stays bounded for any input. */
#define MAX_TOKEN (64u * 1024 * 1024)
#define OUT_CHUNK (256 * 1024)

enum top_key { K_OTHER, K_EVENTS, K_WORKLOAD, K_DOMAIN, K_STACK, K_DEVICES };
enum ev_key { E_OTHER, E_PH, E_CAT, E_NAME, E_TS, E_DUR, E_PID };

struct cparse {
	struct trace *t;
	struct hr_err *e;
	const char *path;
	yajl_handle h;
	unsigned char *out;  /* inflate's output chunk (OUT_CHUNK bytes) */
	uint64_t base;       /* bytes fed to yajl before this chunk */
	int done;            /* all input fed: yajl_complete_parse */
	int gz;
	int depth;           /* open containers */
	int top_array;       /* the file is a bare array of events */
	enum top_key key1;   /* last key of the top-level object */
	int events_depth;    /* depth of the traceEvents array, 0: not in it */
	int in_event;        /* inside an event object (depth events+1) */
	int dev_depth;       /* depth of deviceProperties' array, 0: not */
	enum ev_key evkey;
	int dev_key_name;    /* last key of a deviceProperties entry: name */
	char key[40];        /* the last key read, for messages */
	int sniff;           /* trace_chrome_sniff: stop at "traceEvents" */
	int found;           /* sniff: the top-level key was seen */
	/* Held back from yajl (see push): the bytes after the last point
	 * where no token can be open. */
	unsigned char *hold;
	size_t nhold, holdcap;
	uint64_t scanned;    /* bytes scanned by push */
	int in_str, esc;     /* scanner state at the end of scanned */
	int uhex;            /* hex digits of a \u escape still to come */
	unsigned u;          /* that escape's code unit so far */
	int want_low;        /* a high surrogate waits for its low half */
	uint64_t bad_at;     /* 1 + offset of a refused escape, 0: none */
	const char *bad_what;
	/* The event being read. */
	char ph[8], cat[32];
	char *name;
	size_t name_len, name_cap;
	int have_name, have_ts, have_dur;
	int64_t ts_ns, dur_ns;
	int64_t pid;         /* the device: pid, 0 when absent */
};

static uint64_t offset(const struct cparse *p)
{
	uint64_t at = p->base + yajl_get_bytes_consumed(p->h);

	/* After the last chunk, yajl_complete_parse feeds a byte of its
	 * own: an error there is at the end of the input. */
	return p->done && at > p->base ? p->base : at;
}

static int fail(struct cparse *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct cparse *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hr_errf(p->e, HR_INPUT, "%s: byte offset %llu%s: %s", p->path,
		(unsigned long long)offset(p), p->gz ? " (uncompressed)" : "",
		msg);
	return 0; /* yajl: stop */
}

/* "123", "12.345", "1e3" microseconds -> nanoseconds, exactly for the
 * plain decimals Kineto writes (a double would lose the ns digits of an
 * absolute epoch timestamp).  -1 when not a number in range. */
static int us_to_ns(const char *s, size_t n, int64_t *out)
{
	int64_t whole = 0, frac = 0;
	size_t i = 0, fd = 0;
	int neg = 0;

	if (i < n && s[i] == '-') {
		neg = 1;
		i++;
	}
	if (i == n)
		return -1;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (whole > (INT64_MAX / 1000 - 9) / 10)
			return -1;
		whole = whole * 10 + (s[i] - '0');
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, fd++)
			if (fd < 3)
				frac = frac * 10 + (s[i] - '0');
			else if (fd == 3 && s[i] >= '5')
				frac++; /* round half up at the ns digit */
		for (size_t k = fd; k < 3; k++)
			frac *= 10;
	}
	if (i < n) {
		/* An exponent: rare, read through a double. */
		char buf[64];
		double v;

		if (n >= sizeof(buf))
			return -1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		v = strtod(buf, NULL) * 1000.0;
		if (!isfinite(v) || fabs(v) > 9e18)
			return -1;
		*out = llround(v);
		return 0;
	}
	*out = (whole * 1000 + frac) * (neg ? -1 : 1);
	return 0;
}

static int gpu_kind(const char *cat, enum trace_kind *k)
{
	if (!strcasecmp(cat, "kernel"))
		*k = TRACE_KERNEL;
	else if (!strcasecmp(cat, "gpu_memcpy") || !strcasecmp(cat, "memcpy"))
		*k = TRACE_MEMCPY;
	else if (!strcasecmp(cat, "gpu_memset") || !strcasecmp(cat, "memset"))
		*k = TRACE_MEMSET;
	else
		return 0;
	return 1;
}

static int end_event(struct cparse *p)
{
	enum trace_kind k;
	int rc;

	if (strcmp(p->ph, "X") || !gpu_kind(p->cat, &k)) {
		p->t->skipped_cpu++;
		return 1;
	}
	if (!p->have_name || !p->have_ts || !p->have_dur)
		return fail(p, "%s event without name, ts or dur", p->cat);
	if (p->dur_ns < 0)
		return fail(p, "%s event with a negative dur", p->cat);
	if (p->ts_ns > TRACE_MAX_TS_NS || p->ts_ns < -TRACE_MAX_TS_NS)
		return fail(p, "%s event with ts out of range", p->cat);
	if (p->dur_ns > MAX_DUR_NS)
		return fail(p, "%s event lasting over an hour: ts and dur are "
			    "microseconds in a Chrome trace (wrong units?)",
			    p->cat);
	if ((rc = trace_add(p->t, k, p->name, p->name_len, p->pid, p->ts_ns,
			    p->dur_ns)) == TRACE_ADD_NOMEM) {
		hr_errf(p->e, HR_SYSTEM, "%s: out of memory", p->path);
		return 0;
	}
	if (rc)
		return fail(p, "%s event \"name\": %s", p->cat,
			    trace_add_error(rc));
	return 1;
}

static int start_container(struct cparse *p, int is_map)
{
	if (++p->depth > MAX_DEPTH)
		return fail(p, "%s", "nesting deeper than 64 levels");
	if (p->depth == 1) {
		p->top_array = !is_map;
		if (p->top_array)
			p->events_depth = 1;
		return 1;
	}
	if (p->depth == 2 && !p->top_array && !is_map) {
		if (p->key1 == K_EVENTS)
			p->events_depth = 2;
		else if (p->key1 == K_DEVICES)
			p->dev_depth = 2;
		return 1;
	}
	if (p->events_depth && p->depth == p->events_depth + 1) {
		if (!is_map)
			return fail(p, "%s", "an element of traceEvents is not "
				    "an object");
		p->in_event = 1;
		p->evkey = E_OTHER;
		p->ph[0] = p->cat[0] = '\0';
		p->have_name = p->have_ts = p->have_dur = 0;
		p->pid = 0;
	}
	return 1;
}

static int cb_start_map(void *ctx)
{
	return start_container(ctx, 1);
}

static int cb_start_array(void *ctx)
{
	return start_container(ctx, 0);
}

static int end_container(struct cparse *p)
{
	int ok = 1;

	if (p->in_event && p->depth == p->events_depth + 1) {
		p->in_event = 0;
		ok = end_event(p);
	} else if (p->depth == p->events_depth) {
		p->events_depth = -1; /* done; a second one is ignored */
	} else if (p->depth == p->dev_depth) {
		p->dev_depth = 0;
	}
	p->depth--;
	return ok;
}

static int cb_end(void *ctx)
{
	return end_container(ctx);
}

/* A string or key just read holds the escape push refused (the first
 * token that ends past it). */
static int bad_escape(struct cparse *p, const char *role)
{
	if (!p->bad_at || offset(p) < p->bad_at)
		return 0;
	fail(p, "%s%s%s holds %s: not text that can be stored as it is",
	     role, p->key[0] ? " of key " : "", p->key, p->bad_what);
	return 1;
}

static int cb_key(void *ctx, const unsigned char *k, size_t n)
{
	struct cparse *p = ctx;

	snprintf(p->key, sizeof(p->key), "\"%.*s\"",
		 (int)(n < 32 ? n : 32), (const char *)k);
	if (bad_escape(p, "the key"))
		return 0;
	if (p->sniff && p->depth == 1 && !p->top_array &&
	    n == 11 && !memcmp(k, "traceEvents", 11)) {
		p->found = 1;
		return 0;
	}

#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(k, lit, n))
	if (p->depth == 1 && !p->top_array) {
		p->key1 = IS("traceEvents") ? K_EVENTS :
			IS("headroom_workload") ? K_WORKLOAD :
			IS("headroom_domain") ? K_DOMAIN :
			IS("headroom_stack") ? K_STACK :
			IS("deviceProperties") ? K_DEVICES : K_OTHER;
	} else if (p->in_event && p->depth == p->events_depth + 1) {
		p->evkey = IS("ph") ? E_PH : IS("cat") ? E_CAT :
			IS("name") ? E_NAME : IS("ts") ? E_TS :
			IS("dur") ? E_DUR : IS("pid") ? E_PID : E_OTHER;
	} else if (p->dev_depth && p->depth == p->dev_depth + 1) {
		p->dev_key_name = IS("name");
	}
#undef IS
	return 1;
}

static int set_meta(char **dst, const unsigned char *s, size_t n)
{
	if (*dst)
		return 1; /* the first one wins */
	*dst = strndup((const char *)s, n);
	return *dst != NULL;
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	struct cparse *p = ctx;

	if (bad_escape(p, "the string"))
		return 0;

	if (p->in_event && p->depth == p->events_depth + 1) {
		switch (p->evkey) {
		case E_PH:
			snprintf(p->ph, sizeof(p->ph), "%.*s", (int)n, s);
			break;
		case E_CAT:
			snprintf(p->cat, sizeof(p->cat), "%.*s", (int)n, s);
			break;
		case E_NAME:
			if (n > MAX_NAME)
				return fail(p, "%s", "event name longer than "
					    "64 KiB");
			if (n + 1 > p->name_cap) {
				char *b = realloc(p->name, n + 1);

				if (!b)
					goto oom;
				p->name = b;
				p->name_cap = n + 1;
			}
			memcpy(p->name, s, n);
			p->name[n] = '\0';
			p->name_len = n;
			p->have_name = 1;
			break;
		case E_TS:
		case E_DUR:
			return fail(p, "%s", "ts and dur must be numbers "
				    "(microseconds), not strings");
		case E_PID:
			p->pid = trace_device_key((const char *)s, n);
			break;
		default:
			break;
		}
		return 1;
	}
	if (p->depth == 1 && !p->top_array) {
		char **dst = p->key1 == K_WORKLOAD ? &p->t->workload :
			p->key1 == K_DOMAIN ? &p->t->domain :
			p->key1 == K_STACK ? &p->t->stack : NULL;

		if (dst && !set_meta(dst, s, n))
			goto oom;
	} else if (p->dev_depth && p->depth == p->dev_depth + 1 &&
		   p->dev_key_name && !set_meta(&p->t->device, s, n)) {
		goto oom;
	}
	return 1;
oom:
	hr_errf(p->e, HR_SYSTEM, "%s: out of memory", p->path);
	return 0;
}

static int cb_number(void *ctx, const char *s, size_t n)
{
	struct cparse *p = ctx;
	int64_t v;

	if (!p->in_event || p->depth != p->events_depth + 1)
		return 1;
	if (p->evkey == E_PID) {
		p->pid = trace_device_key(s, n);
		return 1;
	}
	if (p->evkey != E_TS && p->evkey != E_DUR)
		return 1;
	if (us_to_ns(s, n, &v))
		return fail(p, "%s", "ts or dur out of range");
	if (p->evkey == E_TS) {
		p->ts_ns = v;
		p->have_ts = 1;
	} else {
		p->dur_ns = v;
		p->have_dur = 1;
	}
	return 1;
}

static int cb_scalar(void *ctx)
{
	(void)ctx;
	return 1;
}

static int cb_bool(void *ctx, int b)
{
	(void)b;
	return cb_scalar(ctx);
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_scalar,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

/* yajl's own error (syntax, UTF-8, premature end). */
static int parse_error(struct cparse *p)
{
	unsigned char *m;

	if (p->e->code != HR_OK)
		return p->e->code; /* a callback said why */
	m = yajl_get_error(p->h, 0, NULL, 0);
	if (m) {
		/* yajl ends its message with a newline. */
		size_t l = strlen((char *)m);

		while (l > 0 && strchr(" \n", m[l - 1]))
			m[--l] = '\0';
	}
	hr_errf(p->e, HR_INPUT, "%s: byte offset %llu%s: malformed JSON: %s",
		p->path, (unsigned long long)offset(p),
		p->gz ? " (uncompressed)" : "",
		m ? (const char *)m : "error");
	yajl_free_error(p->h, m);
	return p->e->code;
}

static int feed(struct cparse *p, const unsigned char *b, size_t n)
{
	if (yajl_parse(p->h, b, n) != yajl_status_ok)
		return p->sniff ? HR_INPUT : parse_error(p);
	p->base += n;
	return HR_OK;
}

static int hold_add(struct cparse *p, const unsigned char *b, size_t n)
{
	if (!n)
		return HR_OK;
	if (p->nhold + n > p->holdcap) {
		size_t cap = p->holdcap ? p->holdcap : IN_CHUNK;
		unsigned char *nb;

		while (cap < p->nhold + n)
			cap *= 2;
		if (!(nb = realloc(p->hold, cap)))
			return hr_errf(p->e, HR_SYSTEM, "%s: out of memory",
				       p->path);
		p->hold = nb;
		p->holdcap = cap;
	}
	memcpy(p->hold + p->nhold, b, n);
	p->nhold += n;
	return HR_OK;
}

/* One byte of a string's escapes: \u0000 and UTF-16 surrogates that are
 * not a high-low pair are remembered (yajl would store a NUL, a '?' or
 * an invalid code point) and refused by the callback of the string. */
static void scan_escape(struct cparse *p, unsigned char c)
{
	int bad = 0;

	if (p->uhex) {
		p->u = p->u * 16 + (unsigned)(c <= '9' ? c - '0' :
					      (c | 0x20) - 'a' + 10);
		if (--p->uhex)
			return;
		if (p->u >= 0xDC00 && p->u <= 0xDFFF) {
			bad = !p->want_low;
			p->want_low = 0;
		} else if (p->want_low) {
			bad = 1;
		} else if (p->u >= 0xD800 && p->u <= 0xDBFF) {
			p->want_low = 1;
		} else if (p->u == 0) {
			if (!p->bad_at) {
				p->bad_at = p->scanned + 1;
				p->bad_what = "an escaped NUL (\\u0000)";
			}
		}
	} else if (p->esc) {
		p->esc = 0;
		if (c == 'u') {
			p->uhex = 4;
			p->u = 0;
			return;
		}
		bad = p->want_low;
		p->want_low = 0;
	} else if (c == '\\') {
		p->esc = 1;
		return;
	} else {
		bad = p->want_low;
		p->want_low = 0;
		if (c == '"')
			p->in_str = 0;
	}
	if (bad && !p->bad_at) {
		p->bad_at = p->scanned + 1;
		p->bad_what = "a lone UTF-16 surrogate";
	}
}

/* Give yajl b[0..n) so that no token is split between two yajl_parse
 * calls: yajl lexes a split token again from its start at every call,
 * which makes a long string quadratic.  Bytes up to the last point
 * outside a string after a structural character or white space go now;
 * the rest is held and goes with the next chunk. */
static int push(struct cparse *p, const unsigned char *b, size_t n)
{
	size_t cut = 0;

	for (size_t i = 0; i < n; i++, p->scanned++) {
		unsigned char c = b[i];

		if (p->in_str) {
			scan_escape(p, c);
			continue;
		}
		if (c == '"')
			p->in_str = 1;
		else if (strchr("{}[],: \t\r\n", c) && c)
			cut = i + 1;
	}
	if (cut && p->nhold) {
		if (hold_add(p, b, cut) || feed(p, p->hold, p->nhold))
			return p->e->code ? p->e->code : HR_INPUT;
		p->nhold = 0;
	} else if (cut && feed(p, b, cut)) {
		return p->e->code ? p->e->code : HR_INPUT;
	}
	if (hold_add(p, b + cut, n - cut))
		return p->e->code;
	if (p->nhold > MAX_TOKEN)
		return hr_errf(p->e, HR_INPUT, "%s: byte offset %llu%s: a "
			       "JSON string or number longer than 64 MiB",
			       p->path, (unsigned long long)(p->scanned -
							     p->nhold),
			       p->gz ? " (uncompressed)" : "");
	return HR_OK;
}

/* The end of the input: what is held, then yajl's own end. */
static int push_end(struct cparse *p)
{
	if (p->nhold && feed(p, p->hold, p->nhold))
		return p->e->code ? p->e->code : HR_INPUT;
	p->nhold = 0;
	p->done = 1;
	if (yajl_complete_parse(p->h) != yajl_status_ok)
		return p->sniff ? HR_INPUT : parse_error(p);
	return HR_OK;
}

/* Inflate one chunk of gzip input and feed what comes out; *end set at
 * the end of the last member. */
static int feed_gz(struct cparse *p, z_stream *z, unsigned char *in,
		   size_t n, uint64_t at, int *end)
{
	int zr;

	z->next_in = in;
	z->avail_in = (uInt)n;
	while (z->avail_in > 0) {
		if (*end) {
			/* Another member follows (gzip allows several). */
			if (inflateReset(z) != Z_OK)
				return hr_errf(p->e, HR_SYSTEM, "zlib reset");
			*end = 0;
		}
		z->next_out = p->out;
		z->avail_out = OUT_CHUNK;
		zr = inflate(z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return hr_errf(p->e, HR_INPUT, "%s: compressed byte "
				       "offset %llu: corrupt gzip data: %s",
				       p->path, (unsigned long long)(at + n -
								     z->avail_in),
				       z->msg ? z->msg : "error");
		if (push(p, p->out, OUT_CHUNK - z->avail_out))
			return p->e->code;
		if (zr == Z_STREAM_END)
			*end = 1;
		else if (zr == Z_BUF_ERROR && z->avail_out != 0)
			break;
	}
	return HR_OK;
}

int trace_read_chrome(const char *path, struct trace *t, struct hr_err *e)
{
	unsigned char *in = malloc(IN_CHUNK);
	struct cparse p = { .t = t, .e = e, .path = path };
	struct hr_sha256 *sha = hr_sha256_new();
	z_stream z;
	int gz_end = 0, zinit = 0;
	uint64_t at = 0;
	size_t n;
	FILE *f;

	t->format = TRACE_CHROME;
	p.out = malloc(OUT_CHUNK);
	if (!sha || !in || !p.out || !(f = fopen(path, "rb"))) {
		if (!sha || !in || !p.out)
			hr_errf(e, HR_SYSTEM, "out of memory");
		else
			hr_errf(e, HR_INPUT, "%s: %s", path, strerror(errno));
		if (sha)
			hr_sha256_final(sha, t->sha256);
		free(in);
		free(p.out);
		return e->code;
	}
	memset(&z, 0, sizeof(z));
	if (!(p.h = yajl_alloc(&callbacks, NULL, &p))) {
		hr_errf(e, HR_SYSTEM, "out of memory");
		goto done;
	}
	while (e->code == HR_OK && (n = fread(in, 1, IN_CHUNK, f)) > 0) {
		if (at == 0 && n >= 2 && in[0] == 0x1f && in[1] == 0x8b) {
			p.gz = 1;
			/* 15 + 16: a gzip wrapper, never raw deflate. */
			if (inflateInit2(&z, 15 + 16) != Z_OK) {
				hr_errf(e, HR_SYSTEM, "zlib init");
				break;
			}
			zinit = 1;
		}
		hr_sha256_update(sha, in, n);
		if (p.gz)
			feed_gz(&p, &z, in, n, at, &gz_end);
		else
			push(&p, in, n);
		at += n;
	}
	if (e->code == HR_OK && ferror(f))
		hr_errf(e, HR_SYSTEM, "%s: read error: %s", path,
			strerror(errno));
	if (e->code == HR_OK && p.gz && !gz_end)
		hr_errf(e, HR_INPUT, "%s: compressed byte offset %llu: "
			"truncated gzip stream (no end of member)", path,
			(unsigned long long)at);
	if (e->code == HR_OK)
		push_end(&p);
	if (e->code == HR_OK && !p.top_array && p.events_depth == 0)
		hr_errf(e, HR_INPUT, "%s: not a Chrome trace: no "
			"\"traceEvents\" array", path);
	if (e->code == HR_OK && t->activities == 0)
		hr_errf(e, HR_INPUT, "%s: no GPU activity (cat kernel, "
			"gpu_memcpy or gpu_memset) in %lld events: was it "
			"recorded with ProfilerActivity.CUDA?", path,
			(long long)t->skipped_cpu);
done:
	if (zinit)
		inflateEnd(&z);
	if (p.h)
		yajl_free(p.h);
	free(p.name);
	free(p.hold);
	free(p.out);
	free(in);
	fclose(f);
	if (hr_sha256_final(sha, t->sha256) && e->code == HR_OK)
		hr_errf(e, HR_SYSTEM, "sha256 failed");
	return e->code;
}

int trace_chrome_sniff(FILE *f)
{
	unsigned char *in = malloc(IN_CHUNK);
	struct trace t;
	struct hr_err e;
	struct cparse p = { .t = &t, .e = &e, .path = "", .sniff = 1 };
	size_t n;

	trace_init(&t);
	hr_err_clear(&e);
	if (in && (p.h = yajl_alloc(&callbacks, NULL, &p)))
		while (!p.found && (n = fread(in, 1, IN_CHUNK, f)) > 0 &&
		       push(&p, in, n) == HR_OK)
			;
	if (p.h)
		yajl_free(p.h);
	free(p.name);
	free(p.hold);
	free(in);
	trace_release(&t);
	return p.found;
}
