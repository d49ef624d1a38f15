/* kclass.c - see kclass.h. */
#include "kclass.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/archive.h"

static const char *const names[KC_COUNT] = {
	[KC_GEMM] = "gemm", [KC_ATTENTION] = "attention",
	[KC_CONVOLUTION] = "convolution",
	[KC_NORMALIZATION] = "normalization", [KC_SOFTMAX] = "softmax",
	[KC_EMBEDDING] = "embedding", [KC_REDUCTION] = "reduction",
	[KC_ELEMENTWISE] = "elementwise",
	[KC_COMMUNICATION] = "communication", [KC_COPY] = "copy",
	[KC_OTHER] = "other",
};

struct rule {
	enum kclass cls;
	regex_t re;
};

struct kclass_rules {
	struct rule *rules;    /* owned, in file order */
	size_t n;
	int not_addressable[KC_COUNT];
};

const char *kclass_name(enum kclass c)
{
	return c >= 0 && c < KC_COUNT ? names[c] : "other";
}

int kclass_lookup(const char *s)
{
	for (int i = 0; i < KC_COUNT; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

void kclass_free(struct kclass_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		regfree(&r->rules[i].re);
	free(r->rules);
	free(r);
}

/* The "@not-addressable CLASS..." line. */
static int parse_directive(struct kclass_rules *r, char *line,
			   const char *label, int lineno, struct hr_err *e)
{
	char *save = NULL, *tok = strtok_r(line, " \t", &save);

	if (strcmp(tok, "@not-addressable"))
		return hr_errf(e, HR_INPUT, "%s:%d: unknown directive '%s' "
			       "(only @not-addressable)", label, lineno, tok);
	memset(r->not_addressable, 0, sizeof(r->not_addressable));
	while ((tok = strtok_r(NULL, " \t", &save))) {
		int c = kclass_lookup(tok);

		if (c < 0)
			return hr_errf(e, HR_INPUT, "%s:%d: unknown class "
				       "'%s'", label, lineno, tok);
		r->not_addressable[c] = 1;
	}
	return HR_OK;
}

static int parse_rule(struct kclass_rules *r, char *line, const char *label,
		      int lineno, struct hr_err *e)
{
	char *sp = line + strcspn(line, " \t"), *re;
	struct rule *nr;
	int c, rc;

	re = sp + strspn(sp, " \t");
	*sp = '\0';
	if ((c = kclass_lookup(line)) < 0)
		return hr_errf(e, HR_INPUT, "%s:%d: unknown class '%s'",
			       label, lineno, line);
	if (!*re)
		return hr_errf(e, HR_INPUT, "%s:%d: class '%s' without a "
			       "regular expression", label, lineno, line);
	if (!(nr = realloc(r->rules, (r->n + 1) * sizeof(*nr))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	r->rules = nr;
	rc = regcomp(&nr[r->n].re, re, REG_EXTENDED | REG_ICASE | REG_NOSUB);
	if (rc) {
		char msg[128];

		regerror(rc, &nr[r->n].re, msg, sizeof(msg));
		return hr_errf(e, HR_INPUT, "%s:%d: bad regular expression: "
			       "%s", label, lineno, msg);
	}
	nr[r->n++].cls = (enum kclass)c;
	return HR_OK;
}

int kclass_parse(const char *text, size_t len, const char *label,
		 struct kclass_rules **out, struct hr_err *e)
{
	struct kclass_rules *r = calloc(1, sizeof(*r));
	size_t at = 0;
	int lineno = 0;

	*out = NULL;
	if (!r)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	while (at < len && e->code == HR_OK) {
		size_t end = at;
		char *line, *p;

		while (end < len && text[end] != '\n')
			end++;
		lineno++;
		if (!(line = strndup(text + at, end - at))) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
		if (memchr(text + at, '\0', end - at))
			hr_errf(e, HR_INPUT, "%s:%d: NUL byte", label, lineno);
		/* Trim; '#' starts a comment only at the start of a line,
		 * since regular expressions may contain one. */
		for (p = line + strlen(line); p > line && strchr(" \t\r",
								 p[-1]); p--)
			p[-1] = '\0';
		p = line + strspn(line, " \t");
		if (e->code == HR_OK && *p && *p != '#')
			(*p == '@' ? parse_directive : parse_rule)(r, p, label,
								   lineno, e);
		free(line);
		at = end + 1;
	}
	if (e->code != HR_OK) {
		kclass_free(r);
		return e->code;
	}
	*out = r;
	return HR_OK;
}

int kclass_load(const char *path, struct kclass_rules **out,
		struct hr_err *e)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	*out = NULL;
	/* A FIFO would block, a device be read forever. */
	if (archive_fopen_regular(path, NULL, &f, e))
		return e->code;
	do {
		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap = cap ? 2 * cap : 8192);

			if (!nb || cap > (1u << 20)) {
				free(nb ? nb : buf);
				fclose(f);
				return hr_errf(e, HR_INPUT, "%s: too large for "
					       "a rule file", path);
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	kclass_parse(buf ? buf : "", len, path, out, e);
	free(buf);
	return e->code;
}

int kclass_match(const struct kclass_rules *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (regexec(&r->rules[i].re, name, 0, NULL, 0) == 0)
			return (int)r->rules[i].cls;
	return -1;
}

enum kclass kclass_of(const struct kclass_rules *r, const char *kind,
		      const char *name)
{
	int c;

	if (strcmp(kind, "kernel"))
		return KC_COPY;
	c = kclass_match(r, name);
	return c < 0 ? KC_OTHER : (enum kclass)c;
}

int kclass_addressable(const struct kclass_rules *r, enum kclass c)
{
	return c >= 0 && c < KC_COUNT && !r->not_addressable[c];
}
