/* npy.c - see npy.h.  The header is a Python dict literal; this parser
 * accepts exactly the subset NumPy writes: string keys, string / True /
 * False / tuple-of-integers values, optional trailing comma, spaces. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static const unsigned char magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

static const struct {
	const char *descr;
	int dtype;
} descrs[] = {
	{ "f4", HRV_F32 }, { "f2", HRV_F16 }, { "u2", HRV_BF16 },
	{ "i4", HRV_I32 }, { "i8", HRV_I64 }, { "b1", HRV_BOOL },
};

struct hdr {
	const char *p, *end;
	const char *path;
	struct hr_err *e;
};

static void skip_ws(struct hdr *h)
{
	while (h->p < h->end && (*h->p == ' ' || *h->p == '\t'))
		h->p++;
}

static int bad(struct hdr *h, const char *what)
{
	return hr_errf(h->e, HR_INPUT, "%s: malformed .npy header: %s",
		       h->path, what);
}

/* A quoted string into buf. */
static int parse_str(struct hdr *h, char *buf, size_t cap)
{
	char q;
	size_t n = 0;

	skip_ws(h);
	if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
		return bad(h, "expected a quoted string");
	q = *h->p++;
	while (h->p < h->end && *h->p != q) {
		if (n + 1 >= cap)
			return bad(h, "string too long");
		buf[n++] = *h->p++;
	}
	if (h->p >= h->end)
		return bad(h, "unterminated string");
	h->p++;
	buf[n] = '\0';
	return 0;
}

static int expect(struct hdr *h, char c)
{
	skip_ws(h);
	if (h->p >= h->end || *h->p != c) {
		char msg[32];

		snprintf(msg, sizeof msg, "expected '%c'", c);
		return bad(h, msg);
	}
	h->p++;
	return 0;
}

static int parse_bool(struct hdr *h, int *v)
{
	skip_ws(h);
	if (h->end - h->p >= 4 && !memcmp(h->p, "True", 4)) {
		h->p += 4;
		*v = 1;
		return 0;
	}
	if (h->end - h->p >= 5 && !memcmp(h->p, "False", 5)) {
		h->p += 5;
		*v = 0;
		return 0;
	}
	return bad(h, "expected True or False");
}

static int parse_shape(struct hdr *h, struct hrv_tensor *t)
{
	if (expect(h, '('))
		return h->e->code;
	t->ndim = 0;
	for (;;) {
		int64_t v = 0;
		int digits = 0;

		skip_ws(h);
		if (h->p < h->end && *h->p == ')') {
			h->p++;
			return 0;
		}
		while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
			if (v > (INT64_MAX - 9) / 10)
				return bad(h, "dimension too large");
			v = v * 10 + (*h->p++ - '0');
			digits++;
		}
		if (!digits)
			return bad(h, "expected a dimension");
		if (t->ndim >= HRV_MAX_DIMS)
			return hr_errf(h->e, HR_INPUT, "%s: more than %d "
				       "dimensions", h->path, HRV_MAX_DIMS);
		t->shape[t->ndim++] = v;
		skip_ws(h);
		if (h->p < h->end && *h->p == ',') {
			h->p++;
			continue;
		}
		/* "(3)" (no comma) is accepted: unambiguous */
		return expect(h, ')') ? h->e->code : 0;
	}
}

static int parse_descr(struct hdr *h, const char *d, struct hrv_tensor *t)
{
	char order = d[0];

	if (strlen(d) != 3)
		return hr_errf(h->e, HR_INPUT, "%s: unsupported dtype '%s' "
			       "(supported: <f4 <f2 <u2(bf16) <i4 <i8 |b1)",
			       h->path, d);
	if (order == '>')
		return hr_errf(h->e, HR_INPUT, "%s: big-endian dtype '%s' is "
			       "not supported", h->path, d);
	for (size_t i = 0; i < sizeof(descrs) / sizeof(descrs[0]); i++) {
		if (strcmp(d + 1, descrs[i].descr))
			continue;
		if (descrs[i].dtype == HRV_BOOL ? order != '|'
		    : order != '<' && order != '=')
			break;
		t->dtype = descrs[i].dtype;
		return 0;
	}
	return hr_errf(h->e, HR_INPUT, "%s: unsupported dtype '%s' "
		       "(supported: <f4 <f2 <u2(bf16) <i4 <i8 |b1)", h->path, d);
}

static int parse_header(struct hdr *h, struct hrv_tensor *t)
{
	int seen_descr = 0, seen_order = 0, seen_shape = 0;

	if (expect(h, '{'))
		return h->e->code;
	for (;;) {
		char key[32], val[32];
		int fortran = 0;

		skip_ws(h);
		if (h->p < h->end && *h->p == '}') {
			h->p++;
			break;
		}
		if (parse_str(h, key, sizeof key) || expect(h, ':'))
			return h->e->code;
		if (!strcmp(key, "descr")) {
			if (parse_str(h, val, sizeof val) ||
			    parse_descr(h, val, t))
				return h->e->code;
			seen_descr = 1;
		} else if (!strcmp(key, "fortran_order")) {
			if (parse_bool(h, &fortran))
				return h->e->code;
			if (fortran)
				return hr_errf(h->e, HR_INPUT, "%s: "
					       "fortran_order arrays are not "
					       "supported (save a C-contiguous "
					       "array)", h->path);
			seen_order = 1;
		} else if (!strcmp(key, "shape")) {
			if (parse_shape(h, t))
				return h->e->code;
			seen_shape = 1;
		} else {
			return bad(h, "unknown key");
		}
		skip_ws(h);
		if (h->p < h->end && *h->p == ',')
			h->p++;
	}
	while (h->p < h->end && (*h->p == ' ' || *h->p == '\n'))
		h->p++;
	if (h->p != h->end)
		return bad(h, "text after the dictionary");
	if (!seen_descr || !seen_order || !seen_shape)
		return bad(h, "missing descr, fortran_order or shape");
	return 0;
}

void npy_release(struct npy_array *a)
{
	free(a->data);
	memset(a, 0, sizeof(*a));
}

int npy_read(const char *path, struct npy_array *out, struct hr_err *e)
{
	unsigned char pre[12];
	char *text = NULL;
	uint32_t hlen;
	size_t pre_len, got;
	int64_t n;
	uint64_t nbytes;
	long pos, size;
	struct hdr h;
	FILE *f;

	memset(out, 0, sizeof(*out));
	if (!(f = fopen(path, "rb")))
		return hr_errf(e, HR_INPUT, "%s: cannot open: %s", path,
			       strerror(errno));
	got = fread(pre, 1, 10, f);
	if (got < 8 || memcmp(pre, magic, 6)) {
		fclose(f);
		return hr_errf(e, HR_INPUT, "%s: not a .npy file (bad magic)",
			       path);
	}
	if (pre[6] == 1 && pre[7] == 0) {
		pre_len = 10;
	} else if ((pre[6] == 2 || pre[6] == 3) && pre[7] == 0) {
		pre_len = 12;
		if (got == 10)
			got += fread(pre + 10, 1, 2, f);
	} else {
		fclose(f);
		return hr_errf(e, HR_INPUT, "%s: unsupported .npy version "
			       "%u.%u", path, pre[6], pre[7]);
	}
	if (got < pre_len) {
		fclose(f);
		return hr_errf(e, HR_INPUT, "%s: truncated .npy header", path);
	}
	hlen = pre_len == 10 ? (uint32_t)pre[8] | (uint32_t)pre[9] << 8
		: (uint32_t)pre[8] | (uint32_t)pre[9] << 8 |
		  (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
	if (hlen > NPY_MAX_HEADER) {
		fclose(f);
		return hr_errf(e, HR_INPUT, "%s: .npy header of %u bytes is "
			       "larger than the limit of %d", path, hlen,
			       NPY_MAX_HEADER);
	}
	if (!(text = malloc(hlen + 1))) {
		fclose(f);
		return hr_errf(e, HR_SYSTEM, "%s: out of memory", path);
	}
	if (fread(text, 1, hlen, f) != hlen) {
		free(text);
		fclose(f);
		return hr_errf(e, HR_INPUT, "%s: truncated .npy header", path);
	}
	text[hlen] = '\0';
	h.p = text;
	h.end = text + hlen;
	h.path = path;
	h.e = e;
	if (memchr(text, '\0', hlen) || parse_header(&h, &out->t)) {
		free(text);
		fclose(f);
		memset(out, 0, sizeof(*out));
		if (e->code == HR_OK)
			hr_errf(e, HR_INPUT, "%s: malformed .npy header", path);
		return e->code;
	}
	free(text);
	n = hrv_numel(&out->t);
	if (n < 0 || (uint64_t)n > UINT64_MAX / 8) {
		fclose(f);
		memset(out, 0, sizeof(*out));
		return hr_errf(e, HR_INPUT, "%s: shape too large", path);
	}
	nbytes = (uint64_t)n * (uint64_t)hrv_dtype_size(out->t.dtype);
	pos = ftell(f);
	if (pos < 0 || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, pos, SEEK_SET)) {
		fclose(f);
		memset(out, 0, sizeof(*out));
		return hr_errf(e, HR_SYSTEM, "%s: cannot seek: %s", path,
			       strerror(errno));
	}
	if ((uint64_t)(size - pos) != nbytes) {
		fclose(f);
		memset(out, 0, sizeof(*out));
		if ((uint64_t)(size - pos) < nbytes)
			return hr_errf(e, HR_INPUT, "%s: truncated: header "
				       "promises %llu data bytes, file has "
				       "%ld", path, (unsigned long long)nbytes,
				       size - pos);
		return hr_errf(e, HR_INPUT, "%s: %llu bytes after the data",
			       path, (unsigned long long)
			       ((uint64_t)(size - pos) - nbytes));
	}
	if (!(out->data = malloc(nbytes ? (size_t)nbytes : 1))) {
		fclose(f);
		memset(out, 0, sizeof(*out));
		return hr_errf(e, HR_SYSTEM, "%s: out of memory (%llu bytes)",
			       path, (unsigned long long)nbytes);
	}
	if (nbytes && fread(out->data, 1, (size_t)nbytes, f) != nbytes) {
		int err = ferror(f);

		fclose(f);
		npy_release(out);
		return hr_errf(e, err ? HR_SYSTEM : HR_INPUT, "%s: %s", path,
			       err ? "read error" : "truncated data");
	}
	fclose(f);
	out->t.data = out->data;
	out->t.on_device = 0;
	return HR_OK;
}

int npy_write(const char *path, const struct hrv_tensor *t, struct hr_err *e)
{
	static const char *const names[HRV_NDTYPES] = {
		"<f4", "<f2", "<u2", "<i4", "<i8", "|b1"
	};
	char dict[512], shape[256] = "";
	size_t len = 0, total;
	int64_t n = hrv_numel(t);
	uint64_t nbytes;
	unsigned char pre[10];
	FILE *f;
	int ok;

	if (n < 0 || t->dtype < 0 || t->dtype >= HRV_NDTYPES || t->on_device)
		return hr_errf(e, HR_INPUT, "%s: cannot write this tensor",
			       path);
	for (int i = 0; i < t->ndim; i++)
		len += (size_t)snprintf(shape + len, sizeof(shape) - len,
					"%s%lld", i ? ", " : "",
					(long long)t->shape[i]);
	if (t->ndim == 1)
		snprintf(shape + len, sizeof(shape) - len, ",");
	len = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', "
			       "'fortran_order': False, 'shape': (%s), }",
			       names[t->dtype], shape);
	/* pad with spaces so that data starts at a multiple of 64 */
	total = 10 + len + 1;
	while (total % 64) {
		dict[len++] = ' ';
		total++;
	}
	dict[len++] = '\n';
	memcpy(pre, magic, 6);
	pre[6] = 1;
	pre[7] = 0;
	pre[8] = (unsigned char)(len & 0xff);
	pre[9] = (unsigned char)(len >> 8);
	nbytes = (uint64_t)n * (uint64_t)hrv_dtype_size(t->dtype);
	if (!(f = fopen(path, "wb")))
		return hr_errf(e, HR_SYSTEM, "%s: cannot create: %s", path,
			       strerror(errno));
	ok = fwrite(pre, 1, 10, f) == 10 && fwrite(dict, 1, len, f) == len &&
	     (!nbytes || fwrite(t->data, 1, (size_t)nbytes, f) == nbytes);
	if (fclose(f) || !ok)
		return hr_errf(e, HR_SYSTEM, "%s: write error", path);
	return HR_OK;
}
