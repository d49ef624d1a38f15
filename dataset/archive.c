/* archive.c - see archive.h.
 *
 * Everything goes through libarchive: archives with archive_read, and
 * directories and single files with archive_read_disk, so both kinds of
 * input meet the same entry rules (check_entry) and the same caps
 * (read_data).  Nothing is ever written to disk.
 */
#include "archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/text.h"

#define MIB (1024ull * 1024)
#define RATIO_FLOOR MIB       /* below this, no ratio check (see .h) */
#define MAX_NAME 4096
#define CHUNK MIB             /* most bytes unpacked between cap checks */

void archive_limits_default(struct archive_limits *lim)
{
	lim->max_entry_bytes = 64 * MIB;
	lim->max_total_bytes = 2048 * MIB;
	lim->max_entries = 1000000;
	lim->max_ratio = 200.0;
}

/* What one load is doing; all of it borrowed from archive_load. */
struct loader {
	const char *input;
	const struct archive_limits *lim;
	struct afileset *fs;
	uint64_t total;        /* bytes of entry data kept so far */
	uint64_t entries;      /* headers seen, skipped ones included */
	uint64_t input_size;   /* archive file size; 0 = no ratio check */
	const void *mem;       /* archive_load_memory: the input's bytes */
	size_t mem_len;
};

/* libarchive's message, or a word when it has none (a stream cut inside
 * the gzip trailer fails with no message at all). */
static const char *err_string(struct archive *a)
{
	const char *m = archive_error_string(a);

	return m && *m ? m : "unexpected end of the compressed stream";
}

/* entry as it can be shown on a terminal: bytes that are not printable
 * ASCII or valid UTF-8 become \xNN.  Writes into buf. */
static const char *printable(const char *entry, char *buf, size_t n)
{
	const unsigned char *s = (const unsigned char *)entry;
	size_t o = 0, len = strlen(entry), valid_end = 0;

	for (size_t i = 0; i < len && o + 5 < n; i++) {
		/* Bytes before valid_end are known to be valid UTF-8. */
		if (i >= valid_end)
			valid_end = i + text_utf8_invalid_at(s + i, len - i);
		if (i < valid_end && s[i] >= 0x20 && s[i] != 0x7f)
			buf[o++] = (char)s[i];
		else
			o += (size_t)snprintf(buf + o, n - o, "\\x%02x", s[i]);
	}
	buf[o] = '\0';
	return buf;
}

static int refuse(const struct loader *ld, const char *entry,
		  struct hr_err *e, const char *why)
{
	char shown[600];

	return hr_errf(e, HR_INPUT, "%s: entry '%s': %s", ld->input,
		       printable(entry, shown, sizeof(shown)), why);
}

int afileset_add(struct afileset *fs, const char *path, const void *data,
		 size_t len, struct hr_err *e)
{
	struct afile *f;

	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? 2 * fs->cap : 64;
		struct afile *p = realloc(fs->files, cap * sizeof(*p));

		if (!p)
			return hr_errf(e, HR_SYSTEM, "out of memory");
		fs->files = p;
		fs->cap = cap;
	}
	f = &fs->files[fs->n];
	f->path = strdup(path);
	f->data = malloc(len + 1);
	if (!f->path || !f->data) {
		free(f->path);
		free(f->data);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	if (len)
		memcpy(f->data, data, len);
	f->data[len] = '\0';
	f->len = len;
	fs->n++;
	return HR_OK;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct afile *)a)->path,
		      ((const struct afile *)b)->path);
}

int afileset_finish(struct afileset *fs, struct hr_err *e)
{
	struct hr_sha256 *h;
	char hex[HR_SHA256_HEX];

	if (fs->n)
		qsort(fs->files, fs->n, sizeof(*fs->files), by_path);
	for (size_t i = 1; i < fs->n; i++)
		if (!strcmp(fs->files[i - 1].path, fs->files[i].path))
			return hr_errf(e, HR_INPUT, "%s: entry '%s' appears "
				       "twice", fs->input ? fs->input : "input",
				       fs->files[i].path);
	if (!(h = hr_sha256_new()))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (size_t i = 0; i < fs->n; i++) {
		const struct afile *f = &fs->files[i];

		if (hr_sha256_hex(f->data, f->len, hex)) {
			hr_sha256_final(h, hex);
			return hr_errf(e, HR_SYSTEM, "sha256 failed");
		}
		hr_sha256_update(h, f->path, strlen(f->path) + 1);
		hr_sha256_update(h, hex, HR_SHA256_HEX - 1);
		hr_sha256_update(h, "\n", 1);
	}
	if (hr_sha256_final(h, fs->sha256))
		return hr_errf(e, HR_SYSTEM, "sha256 failed");
	return HR_OK;
}

void afileset_free(struct afileset *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->files[i].path);
		free(fs->files[i].data);
	}
	free(fs->files);
	free(fs->input);
	free(fs->root_name);
	memset(fs, 0, sizeof(*fs));
}

int afile_check_text(const char *input, const struct afile *f,
		     struct hr_err *e)
{
	const char *what;
	size_t bad = text_bad_at(f->data, f->len, &what), line, col;

	if (bad == f->len)
		return HR_OK;
	text_line_col(f->data, bad, &line, &col);
	return hr_errf(e, HR_INPUT, "%s: %s: line %zu, column %zu (byte %zu): "
		       "%s", input, f->path, line, col, bad, what);
}

const struct afile *afileset_find(const struct afileset *fs,
				  const char *path)
{
	size_t lo = 0, hi = fs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, fs->files[mid].path);

		if (c == 0)
			return &fs->files[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Macintosh archivers add resource forks and Finder state that carry
 * nothing for us; everything else is either kept or refused. */
static int is_debris(const char *rel)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	if (!strncmp(rel, "__MACOSX/", 9) || strstr(rel, "/__MACOSX/"))
		return 1;
	return !strcmp(base, ".DS_Store") || !strncmp(base, "._", 2);
}

/* Refuse a name that could escape the set or that we could not store:
 * returns HR_OK for a relative, '..'-free, UTF-8 name.  Backslashes count
 * as separators, since a zip made on Windows may use them. */
static int check_name(const struct loader *ld, const char *name,
		      struct hr_err *e)
{
	size_t len = strlen(name);
	const char *p = name;

	if (len == 0)
		return refuse(ld, name, e, "empty name");
	if (len > MAX_NAME)
		return refuse(ld, "...", e, "name longer than 4096 bytes");
	if (text_utf8_invalid_at(name, len) != len)
		return refuse(ld, name, e, "name is not valid UTF-8");
	if (name[0] == '/' || name[0] == '\\' ||
	    (len > 1 && name[1] == ':'))
		return refuse(ld, name, e, "absolute path");
	while (*p) {
		size_t n = strcspn(p, "/\\");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return refuse(ld, name, e, "'..' in path");
		p += n;
		if (*p)
			p++;
	}
	return HR_OK;
}

/* The name as stored: "./" prefixes and repeated or trailing '/' dropped.
 * Writes into buf (MAX_NAME + 1 bytes). */
static void normalise(const char *name, char *buf)
{
	size_t o = 0;

	for (const char *p = name; *p;) {
		size_t n = strcspn(p, "/");

		if (n && !(n == 1 && p[0] == '.')) {
			if (o)
				buf[o++] = '/';
			memcpy(buf + o, p, n);
			o += n;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	buf[o] = '\0';
}

static int check_type(const struct loader *ld, struct archive_entry *ent,
		      const char *name, int on_disk, struct hr_err *e)
{
	mode_t t = archive_entry_filetype(ent);

	if (archive_entry_hardlink(ent))
		return refuse(ld, name, e, "hard link (refused: its target "
			      "could lie outside the input)");
	switch (t) {
	case AE_IFREG:
		if (on_disk && archive_entry_nlink(ent) > 1)
			return refuse(ld, name, e, "file with several hard "
				      "links (refused: a link could reach "
				      "outside the input)");
		return HR_OK;
	case AE_IFDIR:
		return HR_OK;
	case AE_IFLNK:
		return refuse(ld, name, e, "symbolic link (refused: links "
			      "are never followed)");
	case AE_IFCHR:
	case AE_IFBLK:
		return refuse(ld, name, e, "device file");
	case AE_IFIFO:
		return refuse(ld, name, e, "fifo");
	case AE_IFSOCK:
		return refuse(ld, name, e, "socket");
	default:
		return refuse(ld, name, e, "not a regular file");
	}
}

static int over_ratio(const struct loader *ld)
{
	return ld->input_size && ld->lim->max_ratio > 0 &&
	       ld->total > RATIO_FLOOR &&
	       (double)ld->total > ld->lim->max_ratio * (double)ld->input_size;
}

/* Read the current entry's data into a new buffer under every cap, then
 * add it to the set. */
static int read_data(struct archive *a, struct loader *ld,
		     struct archive_entry *ent, const char *name,
		     struct hr_err *e)
{
	const struct archive_limits *lim = ld->lim;
	size_t cap = 4096, len = 0;
	unsigned char *buf;
	char why[160];
	int rc;

	if (archive_entry_size_is_set(ent) && archive_entry_size(ent) > 0) {
		uint64_t sz = (uint64_t)archive_entry_size(ent);

		/* A declared size already over a cap is refused before
		 * anything is unpacked; the real count is checked below, as
		 * the header may lie. */
		if (sz > lim->max_entry_bytes) {
			snprintf(why, sizeof(why), "%llu bytes, over the "
				 "%llu-byte entry cap (--max-entry-mb)",
				 (unsigned long long)sz,
				 (unsigned long long)lim->max_entry_bytes);
			return refuse(ld, name, e, why);
		}
		if (sz + 1 > cap)
			cap = (size_t)sz + 1;
	}
	if (!(buf = malloc(cap)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			unsigned char *p = realloc(buf, cap * 2);

			if (!p) {
				free(buf);
				return hr_errf(e, HR_SYSTEM, "out of memory");
			}
			buf = p;
			cap *= 2;
		}
		/* archive_read_data fills all it is given: bounded chunks
		 * keep a bomb from unpacking far past the caps. */
		n = archive_read_data(a, buf + len, cap - 1 - len < CHUNK ?
				      cap - 1 - len : CHUNK);
		if (n == 0)
			break;
		if (n < 0) {
			snprintf(why, sizeof(why), "read error (truncated or "
				 "corrupt?): %s", err_string(a));
			free(buf);
			return refuse(ld, name, e, why);
		}
		len += (size_t)n;
		ld->total += (uint64_t)n;
		if (len > lim->max_entry_bytes) {
			snprintf(why, sizeof(why), "over the %llu-byte entry "
				 "cap (--max-entry-mb)",
				 (unsigned long long)lim->max_entry_bytes);
			free(buf);
			return refuse(ld, name, e, why);
		}
		if (ld->total > lim->max_total_bytes) {
			snprintf(why, sizeof(why), "the input's total passes "
				 "the %llu-byte cap (--max-total-mb)",
				 (unsigned long long)lim->max_total_bytes);
			free(buf);
			return refuse(ld, name, e, why);
		}
		if (over_ratio(ld)) {
			snprintf(why, sizeof(why), "%llu bytes unpacked from "
				 "a %llu-byte input, over the compression "
				 "ratio cap %g (a zip bomb?)",
				 (unsigned long long)ld->total,
				 (unsigned long long)ld->input_size,
				 lim->max_ratio);
			free(buf);
			return refuse(ld, name, e, why);
		}
	}
	rc = afileset_add(ld->fs, name, buf, len, e);
	free(buf);
	return rc;
}

/* One header: count it, check it, keep or skip it.  rel is the entry's
 * name relative to the input. */
static int take_entry(struct archive *a, struct loader *ld,
		      struct archive_entry *ent, const char *rel, int on_disk,
		      struct hr_err *e)
{
	char name[MAX_NAME + 1];

	if (++ld->entries > ld->lim->max_entries) {
		char why[96];

		snprintf(why, sizeof(why), "more than %llu entries",
			 (unsigned long long)ld->lim->max_entries);
		return refuse(ld, rel, e, why);
	}
	if (check_name(ld, rel, e) ||
	    check_type(ld, ent, rel, on_disk, e))
		return e->code;
	normalise(rel, name);
	if (archive_entry_filetype(ent) == AE_IFDIR || !*name ||
	    is_debris(name))
		return HR_OK;
	return read_data(a, ld, ent, name, e);
}

/* The entry's name from an archive, as UTF-8 (converted by libarchive
 * where the format records a charset; else the raw bytes, which
 * check_name then validates). */
static const char *entry_name(struct archive_entry *ent)
{
	const char *n = archive_entry_pathname_utf8(ent);

	return n ? n : archive_entry_pathname(ent);
}

/* An archive whose entries all lie under one top directory (what `tar czf
 * x.tgz dir` makes) is read as that directory, so that a directory and
 * any archive of it are the same input with the same hash. */
static int strip_top_dir(struct afileset *fs)
{
	const char *first, *slash;
	size_t n;

	if (!fs->n)
		return 0;
	first = fs->files[0].path;
	if (!(slash = strchr(first, '/')))
		return 0;
	n = (size_t)(slash - first) + 1;
	for (size_t i = 1; i < fs->n; i++)
		if (strncmp(fs->files[i].path, first, n))
			return 0;
	if (!(fs->root_name = strndup(first, n - 1)))
		return -1;
	for (size_t i = 0; i < fs->n; i++) {
		char *p = fs->files[i].path;

		memmove(p, p + n, strlen(p + n) + 1);
	}
	return 0;
}

/* A zip is read through its central directory, found from the end: the
 * end-of-central-directory record (22 bytes + its comment) must end the
 * input exactly, else what follows it would be ignored without a word.
 * tail: the input's last n bytes.  A comment may itself hold the
 * signature, so any candidate that ends the input will do. */
static int zip_ends_at_eocd(const unsigned char *tail, size_t n)
{
	for (size_t i = n >= 22 ? n - 22 + 1 : 0; i-- > 0;) {
		size_t clen;

		if (memcmp(tail + i, "PK\5\6", 4))
			continue;
		clen = (size_t)tail[i + 20] | (size_t)tail[i + 21] << 8;
		if (i + 22 + clen == n)
			return 1;
	}
	return 0;
}

#define ZIP_TAIL (22 + 65535)   /* EOCD + the longest comment */

/* The last bytes of the input into buf (ZIP_TAIL bytes); how many. */
static size_t input_tail(const struct loader *ld, unsigned char *buf)
{
	size_t n = ld->input_size < ZIP_TAIL ? (size_t)ld->input_size :
		   ZIP_TAIL;
	FILE *f;

	if (ld->mem) {
		memcpy(buf, (const unsigned char *)ld->mem + ld->mem_len - n, n);
		return n;
	}
	if (!(f = fopen(ld->input, "rb")))
		return 0;
	if (fseeko(f, -(off_t)n, SEEK_END) || fread(buf, 1, n, f) != n)
		n = 0;
	fclose(f);
	return n;
}

/* After the last entry: every byte of the input was part of the archive.
 * A tar's readers consume exactly what they decode (gzip stops at the
 * last member and ignores what follows; read_concatenated_archives makes
 * the tar reader go on to the physical end), so the raw bytes consumed
 * must be the whole input. */
static int check_trailing(struct archive *a, struct loader *ld,
			  struct hr_err *e)
{
	int fmt = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	unsigned char *tail;
	int64_t used;
	size_t n;

	if (fmt == ARCHIVE_FORMAT_TAR) {
		used = archive_filter_bytes(a, -1);
		if (used >= 0 && (uint64_t)used < ld->input_size)
			return hr_errf(e, HR_INPUT, "%s: %llu bytes after the "
				       "end of the archive (junk, or another "
				       "archive that is not the same kind): "
				       "refused rather than ignored", ld->input,
				       (unsigned long long)(ld->input_size -
							    (uint64_t)used));
		return HR_OK;
	}
	if (fmt != ARCHIVE_FORMAT_ZIP)
		return HR_OK;
	if (!(tail = malloc(ZIP_TAIL)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	n = input_tail(ld, tail);
	if (!zip_ends_at_eocd(tail, n))
		hr_errf(e, HR_INPUT, "%s: bytes after the end of the zip "
			"archive (junk, or several archives joined): refused "
			"rather than ignored", ld->input);
	free(tail);
	return e->code;
}

/* libarchive's gzip reader does not check a member's CRC-32 and length
 * (its trailer is skipped): the input is inflated once more with zlib,
 * which does, member by member.  Bytes after the last member are
 * check_trailing's. */
static int check_gzip(struct archive *a, struct loader *ld,
		      struct hr_err *e)
{
	unsigned char *in = NULL, *out = malloc(CHUNK);
	const unsigned char *p = ld->mem;
	uint64_t at = 0, left = ld->mem ? ld->mem_len : 0;
	FILE *f = NULL;
	z_stream z;
	int gz = 0, zr = Z_OK, started = 0;

	for (int i = 0; i < archive_filter_count(a); i++)
		gz |= archive_filter_code(a, i) == ARCHIVE_FILTER_GZIP;
	if (!gz) {
		free(out);
		return HR_OK;
	}
	memset(&z, 0, sizeof(z));
	if (!out || inflateInit2(&z, 15 + 16) != Z_OK ||
	    (!ld->mem && (!(in = malloc(CHUNK)) ||
			  !(f = fopen(ld->input, "rb"))))) {
		hr_errf(e, HR_SYSTEM, "%s: cannot check its gzip trailer",
			ld->input);
		goto out;
	}
	started = 1;
	for (;;) {
		if (z.avail_in == 0) {
			if (ld->mem) {
				size_t n = left < CHUNK ? (size_t)left : CHUNK;

				z.next_in = (unsigned char *)p;
				z.avail_in = (uInt)n;
				p += n;
				left -= n;
			} else {
				z.next_in = in;
				z.avail_in = (uInt)fread(in, 1, CHUNK, f);
			}
			if (z.avail_in == 0)
				break;
			at += z.avail_in;
		}
		do {
			z.next_out = out;
			z.avail_out = CHUNK;
			zr = inflate(&z, Z_NO_FLUSH);
		} while (zr == Z_OK && z.avail_out == 0);
		if (zr == Z_STREAM_END) {
			/* Another member only when one starts here. */
			if (z.avail_in >= 2 && (z.next_in[0] != 0x1f ||
						z.next_in[1] != 0x8b))
				break;
			if (inflateReset(&z) != Z_OK)
				break;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			hr_errf(e, HR_INPUT, "%s: compressed byte %llu: "
				"corrupt gzip data: %s", ld->input,
				(unsigned long long)(at - z.avail_in),
				z.msg ? z.msg : "error");
			break;
		}
	}
out:
	if (started)
		inflateEnd(&z);
	if (f)
		fclose(f);
	free(in);
	free(out);
	return e->code;
}

static int load_archive(struct loader *ld, struct hr_err *e)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ent;
	int r;

	if (!a)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_zip(a);
	/* `cat a.tar b.tar` (and a.tgz b.tgz) is one input: read on past an
	 * end-of-archive marker, so that b is read too and bytes after the
	 * last archive that are not a tar header are refused, not dropped. */
	archive_read_set_format_option(a, "tar", "read_concatenated_archives",
				       "1");
	r = ld->mem ? archive_read_open_memory(a, ld->mem, ld->mem_len) :
		archive_read_open_filename(a, ld->input, 65536);
	if (r != ARCHIVE_OK) {
		hr_errf(e, HR_INPUT, "%s: cannot read it as an archive (tar "
			"or zip, any compression; else give a directory, .json "
			"or .jsonl): %s", ld->input, err_string(a));
		archive_read_free(a);
		return e->code;
	}
	while ((r = archive_read_next_header(a, &ent)) != ARCHIVE_EOF) {
		const char *name;

		/* ARCHIVE_WARN on a header is a charset note: the name is
		 * checked below either way.  ARCHIVE_RETRY (a damaged header
		 * the reader could skip) is an error here: skipping would
		 * drop data without a word. */
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			hr_errf(e, HR_INPUT, "%s: after %llu entries: %s "
				"(truncated or corrupt archive?)", ld->input,
				(unsigned long long)ld->entries,
				err_string(a));
			break;
		}
		name = entry_name(ent);
		if (!name) {
			hr_errf(e, HR_INPUT, "%s: entry %llu: name is not "
				"valid UTF-8", ld->input,
				(unsigned long long)ld->entries + 1);
			break;
		}
		if (take_entry(a, ld, ent, name, 0, e))
			break;
	}
	if (e->code == HR_OK)
		check_trailing(a, ld, e);
	if (e->code == HR_OK)
		check_gzip(a, ld, e);
	archive_read_free(a);
	if (e->code == HR_OK && strip_top_dir(ld->fs))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return e->code;
}

/* Walk a directory (or read one file) through archive_read_disk.  Names
 * come back as input + "/" + rel; symlinks inside are reported, not
 * followed ("hybrid": only the command-line path itself is followed). */
static int load_disk(struct loader *ld, int is_dir, struct hr_err *e)
{
	struct archive *a = archive_read_disk_new();
	struct archive_entry *ent;
	size_t ilen = strlen(ld->input);
	const char *base = strrchr(ld->input, '/');
	int r;

	if (!a)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	archive_read_disk_set_symlink_hybrid(a);
	archive_read_disk_set_behavior(a, ARCHIVE_READDISK_NO_XATTR |
				       ARCHIVE_READDISK_NO_ACL |
				       ARCHIVE_READDISK_NO_FFLAGS |
				       ARCHIVE_READDISK_NO_SPARSE);
	if (archive_read_disk_open(a, ld->input) != ARCHIVE_OK) {
		hr_errf(e, HR_INPUT, "%s: %s", ld->input,
			err_string(a));
		archive_read_free(a);
		return e->code;
	}
	base = base ? base + 1 : ld->input;
	if (!(ent = archive_entry_new())) {
		archive_read_free(a);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	for (;;) {
		const char *p, *rel;

		r = archive_read_next_header2(a, ent);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			hr_errf(e, HR_INPUT, "%s: %s", ld->input,
				err_string(a));
			break;
		}
		p = archive_entry_pathname(ent);
		if (!p)
			p = "";
		if (!is_dir) {
			rel = base;
		} else {
			rel = strncmp(p, ld->input, ilen) ? p : p + ilen;
			while (*rel == '/')
				rel++;
		}
		if (is_dir && archive_read_disk_can_descend(a))
			archive_read_disk_descend(a);
		/* The top directory itself has an empty relative name. */
		if ((*rel || !is_dir) && take_entry(a, ld, ent, rel, 1, e))
			break;
	}
	archive_entry_free(ent);
	archive_read_free(a);
	return e->code;
}

/* "a/b/run/" -> "run" (allocated). */
static char *dir_name(const char *path)
{
	size_t len = strlen(path), start;

	while (len > 1 && path[len - 1] == '/')
		len--;
	start = len;
	while (start > 0 && path[start - 1] != '/')
		start--;
	return strndup(path + start, len - start);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && !strcasecmp(s + n - k, suf);
}

/* Run load with a UTF-8 LC_CTYPE for this thread: libarchive converts
 * names through the current locale, and a UTF-8 one keeps non-ASCII
 * names intact. */
static int with_utf8_locale(int (*load)(struct loader *, int, struct hr_err *),
			    struct loader *ld, int arg, struct hr_err *e)
{
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	locale_t prev = (locale_t)0;
	int rc;

	if (utf8)
		prev = uselocale(utf8);
	rc = load(ld, arg, e);
	if (utf8) {
		uselocale(prev);
		freelocale(utf8);
	}
	return rc;
}

static int load_archive_arg(struct loader *ld, int unused, struct hr_err *e)
{
	(void)unused;
	return load_archive(ld, e);
}

/* The set is complete: sort, hash, or free it all on failure. */
static int finish(struct afileset *out, int rc, struct hr_err *e)
{
	if (rc == HR_OK)
		rc = afileset_finish(out, e);
	if (rc != HR_OK)
		afileset_free(out);
	return rc;
}

int archive_load_memory(const char *name, const void *data, size_t len,
			const struct archive_limits *lim,
			struct afileset *out, struct hr_err *e)
{
	struct loader ld = { .input = name, .lim = lim, .fs = out,
			     .mem = data, .mem_len = len,
			     .input_size = len ? len : 1 };

	memset(out, 0, sizeof(*out));
	if (!(out->input = strdup(name)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return finish(out, with_utf8_locale(load_archive_arg, &ld, 0, e), e);
}

static const char *file_type(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
		S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" :
		S_ISDIR(m) ? "a directory" : "not a regular file";
}

int archive_fopen_regular(const char *path, const char *what, FILE **f,
			  struct hr_err *e)
{
	/* O_NONBLOCK: opening a FIFO returns at once instead of waiting
	 * for a writer; it is cleared again for the regular file. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	*f = NULL;
	if (fd < 0)
		return hr_errf(e, HR_INPUT, "%s: %s%s%s%s", path,
			       what ? "cannot open " : "", what ? what : "",
			       what ? ": " : "", strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		if (what)
			return hr_errf(e, HR_INPUT, "%s: not a %s (%s)", path,
				       what, file_type(st.st_mode));
		return hr_errf(e, HR_INPUT, "%s: %s, not a regular file",
			       path, file_type(st.st_mode));
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ||
	    !(*f = fdopen(fd, "rb"))) {
		close(fd);
		return hr_errf(e, HR_SYSTEM, "%s: %s", path, strerror(errno));
	}
	return HR_OK;
}

int archive_load(const char *input_path, const struct archive_limits *lim,
		 struct afileset *out, struct hr_err *e)
{
	struct loader ld = { .input = input_path, .lim = lim, .fs = out };
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (stat(input_path, &st))
		return hr_errf(e, HR_INPUT, "%s: %s", input_path,
			       strerror(errno));
	/* A FIFO would block, a device (/dev/zero) never end. */
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return hr_errf(e, HR_INPUT, "%s: %s, not a file or directory "
			       "to read", input_path, file_type(st.st_mode));
	if (!(out->input = strdup(input_path)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (S_ISDIR(st.st_mode)) {
		rc = with_utf8_locale(load_disk, &ld, 1, e);
		if (rc == HR_OK && !(out->root_name = dir_name(input_path)))
			rc = hr_errf(e, HR_SYSTEM, "out of memory");
	} else if (has_suffix(input_path, ".json") ||
		   has_suffix(input_path, ".jsonl")) {
		rc = with_utf8_locale(load_disk, &ld, 0, e);
	} else {
		ld.input_size = st.st_size > 0 ? (uint64_t)st.st_size : 1;
		rc = with_utf8_locale(load_archive_arg, &ld, 0, e);
	}
	return finish(out, rc, e);
}

/* Archive and single-file extensions a base name loses. */
static const char *const archive_exts[] = {
	".tar.gz", ".tar.xz", ".tar.zst", ".tar.bz2", ".tgz", ".txz",
	".tzst", ".tar", ".zip", ".jsonl", ".json",
};

void archive_base_name(const char *path, char *buf, size_t n)
{
	size_t len = strlen(path), start, blen;

	while (len > 1 && path[len - 1] == '/')
		len--;
	start = len;
	while (start > 0 && path[start - 1] != '/')
		start--;
	blen = len - start;
	for (size_t i = 0; i < sizeof(archive_exts) / sizeof(*archive_exts);
	     i++) {
		size_t el = strlen(archive_exts[i]);

		if (blen > el && !strncasecmp(path + start + blen - el,
					      archive_exts[i], el)) {
			blen -= el;
			break;
		}
	}
	text_copy(buf, n, path + start, blen);
}
