/* rules.c - see rules.h. */
#include "rules.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rules_release(struct rules *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].id);
		free(rs->v[i].pattern);
		free(rs->v[i].reason);
		regfree(&rs->v[i].re);
	}
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}

static int valid_id(const char *s, size_t n)
{
	if (!n || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

/* The rule being read: which fields it has had, for the checks at its end. */
struct pending {
	int open;               /* a header was read */
	int have_regex, have_reason, have_scope;
};

/* A rule ends (next header or end of file): its required fields. */
static int close_rule(const struct rules *rs, const struct pending *p,
		      const char *name, struct hr_err *e)
{
	const struct rule *r;

	if (!p->open)
		return HR_OK;
	r = &rs->v[rs->n - 1];
	if (!p->have_regex)
		return hr_errf(e, HR_INPUT, "%s:%d: field regex: missing in "
			       "rule [%s]", name, r->line, r->id);
	if (!p->have_reason)
		return hr_errf(e, HR_INPUT, "%s:%d: field reason: missing in "
			       "rule [%s]", name, r->line, r->id);
	return HR_OK;
}

static int add_rule(struct rules *rs, const char *id, size_t n, int line,
		    const char *name, struct hr_err *e)
{
	struct rule *grown, *r;

	for (size_t i = 0; i < rs->n; i++)
		if (strlen(rs->v[i].id) == n && !strncmp(rs->v[i].id, id, n))
			return hr_errf(e, HR_INPUT, "%s:%d: field id: duplicate "
				       "id '%s' (first at line %d)", name, line,
				       rs->v[i].id, rs->v[i].line);
	if (!(grown = realloc(rs->v, (rs->n + 1) * sizeof(*grown))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	rs->v = grown;
	r = &rs->v[rs->n];
	memset(r, 0, sizeof(*r));
	if (!(r->id = strndup(id, n)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	/* An empty pattern keeps regfree() safe on a rule whose regex line
	 * never comes (the file is refused then). */
	if (regcomp(&r->re, "^$", REG_EXTENDED | REG_NOSUB)) {
		free(r->id);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	r->line = line;
	r->scope = RULE_FILE;
	rs->n++;
	return HR_OK;
}

/* A field may come once per rule, and not empty (scope has its own
 * values).  *seen is set; HR_OK or the error naming line and field. */
static int first_value(int *seen, const char *field, const char *val,
		       const struct rule *r, int line, const char *name,
		       struct hr_err *e)
{
	if (*seen)
		return hr_errf(e, HR_INPUT, "%s:%d: field %s: given twice in "
			       "rule [%s]", name, line, field, r->id);
	if (!*val)
		return hr_errf(e, HR_INPUT, "%s:%d: field %s: empty", name,
			       line, field);
	*seen = 1;
	return HR_OK;
}

/* "key = value" of the current rule. */
static int set_field(struct rules *rs, struct pending *p, const char *key,
		     size_t klen, const char *val, int line, const char *name,
		     struct hr_err *e)
{
	struct rule *r = &rs->v[rs->n - 1];
	char msg[160];
	int rc;

#define IS(k) (klen == strlen(k) && !strncmp(key, k, klen))
	if (IS("regex")) {
		if (first_value(&p->have_regex, "regex", val, r, line, name, e))
			return e->code;
		regfree(&r->re);
		rc = regcomp(&r->re, val, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			regerror(rc, &r->re, msg, sizeof(msg));
			/* regcomp failed: nothing to free, but rules_release
			 * will regfree it; give it a valid pattern again. */
			regcomp(&r->re, "^$", REG_EXTENDED | REG_NOSUB);
			return hr_errf(e, HR_INPUT, "%s:%d: field regex: %s "
				       "(in '%s')", name, line, msg, val);
		}
		if (!(r->pattern = strdup(val)))
			return hr_errf(e, HR_SYSTEM, "out of memory");
	} else if (IS("reason")) {
		if (first_value(&p->have_reason, "reason", val, r, line, name, e))
			return e->code;
		if (!(r->reason = strdup(val)))
			return hr_errf(e, HR_SYSTEM, "out of memory");
	} else if (IS("scope")) {
		if (first_value(&p->have_scope, "scope", val, r, line, name, e))
			return e->code;
		if (!strcmp(val, "file"))
			r->scope = RULE_FILE;
		else if (!strcmp(val, "forward"))
			r->scope = RULE_FORWARD;
		else if (!strcmp(val, "module"))
			r->scope = RULE_MODULE;
		else
			return hr_errf(e, HR_INPUT, "%s:%d: field scope: '%s' is "
				       "not file, forward or module", name, line,
				       val);
	} else {
		return hr_errf(e, HR_INPUT, "%s:%d: field %.*s: unknown key "
			       "(regex, reason or scope)", name, line,
			       (int)klen, key);
	}
#undef IS
	return HR_OK;
}

/* One line of the file, without its newline (and a trailing \r). */
static int parse_line(struct rules *rs, struct pending *p, char *s, int line,
		      const char *name, struct hr_err *e)
{
	char *end = s + strlen(s), *eq, *k, *ke, *v;

	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return HR_OK;
	if (*s == '[') {
		char *close = strchr(s, ']');

		if (!close || close[1])
			return hr_errf(e, HR_INPUT, "%s:%d: field id: a rule "
				       "header is [ID] alone on its line", name,
				       line);
		if (!valid_id(s + 1, (size_t)(close - s - 1)))
			return hr_errf(e, HR_INPUT, "%s:%d: field id: '%.*s' is "
				       "not 1-64 of a-z, 0-9 and '-'", name, line,
				       (int)(close - s - 1), s + 1);
		if (close_rule(rs, p, name, e) ||
		    add_rule(rs, s + 1, (size_t)(close - s - 1), line, name, e))
			return e->code;
		memset(p, 0, sizeof(*p));
		p->open = 1;
		return HR_OK;
	}
	if (!(eq = strchr(s, '=')))
		return hr_errf(e, HR_INPUT, "%s:%d: field ?: neither a [ID] "
			       "header nor 'key = value'", name, line);
	k = s;
	ke = eq;
	while (ke > k && isspace((unsigned char)ke[-1]))
		ke--;
	if (ke == k)
		return hr_errf(e, HR_INPUT, "%s:%d: field ?: no key before '='",
			       name, line);
	if (!p->open)
		return hr_errf(e, HR_INPUT, "%s:%d: field %.*s: outside a rule "
			       "(no [ID] header above it)", name, line,
			       (int)(ke - k), k);
	v = eq + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	return set_field(rs, p, k, (size_t)(ke - k), v, line, name, e);
}

int rules_parse(struct rules *rs, const char *text, const char *name,
		struct hr_err *e)
{
	struct pending p = { 0 };
	const char *s = text;
	int line = 0;

	memset(rs, 0, sizeof(*rs));
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char *buf = strndup(s, n);
		int rc;

		line++;
		if (!buf)
			return hr_errf(e, HR_SYSTEM, "out of memory");
		rc = parse_line(rs, &p, buf, line, name, e);
		free(buf);
		if (rc)
			return rc;
		s += n + (nl != NULL);
	}
	return close_rule(rs, &p, name, e);
}

int rules_load(struct rules *rs, const char *path, struct hr_err *e)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	int rc;

	memset(rs, 0, sizeof(*rs));
	if (!f)
		return hr_errf(e, HR_INPUT, "%s: cannot read rule file: %s", path,
			       strerror(errno));
	do {
		if (len + 4096 + 1 > cap) {
			char *grown = realloc(buf, cap = 2 * cap + 8192);

			if (!grown) {
				free(buf);
				fclose(f);
				return hr_errf(e, HR_SYSTEM, "out of memory");
			}
			buf = grown;
		}
		got = fread(buf + len, 1, 4096, f);
		len += got;
	} while (got == 4096);
	rc = ferror(f);
	fclose(f);
	if (rc) {
		free(buf);
		return hr_errf(e, HR_INPUT, "%s: cannot read rule file", path);
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return hr_errf(e, HR_INPUT, "%s: rule file holds a NUL byte",
			       path);
	}
	rc = rules_parse(rs, buf, path, e);
	free(buf);
	return rc;
}

/* --- matching ------------------------------------------------------------ */

/* Where a line of the source stands for the scopes. */
struct line_scope {
	int in_string;          /* starts inside a triple-quoted string */
	int comment;            /* a Python comment line */
	int module, forward;    /* belongs to that scope */
};

/* Advance the triple-quote state over one line: *q is 0 outside a string,
 * else the quote character of the open one. */
static void scan_quotes(const char *s, size_t n, char *q)
{
	for (size_t i = 0; i + 3 <= n; i++) {
		char c = s[i];

		if ((c != '"' && c != '\'') || s[i + 1] != c || s[i + 2] != c)
			continue;
		if (!*q)
			*q = c;
		else if (*q == c)
			*q = 0;
		else
			continue;
		i += 2;
	}
}

static int starts_with_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n);
}

/* Scope walker: the class ModelNew and its forward, by indentation. */
struct walker {
	char quote;
	int cls_indent, fwd_indent, fwd_done;
};

static void classify(struct walker *w, const char *s, size_t n,
		     struct line_scope *ls)
{
	size_t ind = 0;
	const char *t;

	memset(ls, 0, sizeof(*ls));
	ls->in_string = w->quote != 0;
	scan_quotes(s, n, &w->quote);
	if (ls->in_string)
		return;
	while (ind < n && (s[ind] == ' ' || s[ind] == '\t'))
		ind++;
	if (ind == n)
		return; /* blank: no scope needs it */
	t = s + ind;
	if (*t == '#') {
		ls->comment = 1;
		return;
	}
	if (w->fwd_indent >= 0 && (int)ind <= w->fwd_indent) {
		w->fwd_indent = -1;
		w->fwd_done = 1;
	}
	if (w->cls_indent >= 0 && (int)ind <= w->cls_indent)
		w->cls_indent = -1;
	ls->module = ind == 0;
	if (starts_with_word(t, "class ModelNew") &&
	    (t[14] == '(' || t[14] == ':') && !w->fwd_done) {
		w->cls_indent = (int)ind;
	} else if (w->cls_indent >= 0 && w->fwd_indent < 0 && !w->fwd_done &&
		   starts_with_word(t, "def forward(")) {
		w->fwd_indent = (int)ind;
	} else {
		ls->forward = w->fwd_indent >= 0;
	}
}

static int in_scope(const struct rule *r, const struct line_scope *ls)
{
	if (ls->comment)
		return 0;
	switch (r->scope) {
	case RULE_FORWARD:
		return ls->forward;
	case RULE_MODULE:
		return ls->module;
	default:
		return 1;
	}
}

static void hit_text(struct rule_hit *h, const char *s, size_t n)
{
	size_t max = sizeof(h->text) - 4;

	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n > max) {
		n = max;
		/* Cut at a character boundary: the text goes into JSON. */
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(h->text, s, n);
	h->text[n] = '\0';
}

int rules_match(const struct rules *rs, const char *code,
		struct rule_hit **hits, size_t *n, struct hr_err *e)
{
	struct walker w = { 0, -1, -1, 0 };
	struct rule_hit *v;
	const char *s = code;
	int line = 0;

	*hits = NULL;
	*n = 0;
	if (!(v = calloc(rs->n ? rs->n : 1, sizeof(*v))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		struct line_scope ls;
		char *buf;

		line++;
		classify(&w, s, len, &ls);
		if (!(buf = strndup(s, len))) {
			free(v);
			return hr_errf(e, HR_SYSTEM, "out of memory");
		}
		for (size_t i = 0; i < rs->n; i++) {
			if (!in_scope(&rs->v[i], &ls) ||
			    regexec(&rs->v[i].re, buf, 0, NULL, 0))
				continue;
			if (!v[i].count++) {
				v[i].line = line;
				hit_text(&v[i], s, len);
			}
		}
		free(buf);
		s = nl ? nl + 1 : NULL;
	}
	/* Keep the matching rules, in rule order. */
	for (size_t i = 0; i < rs->n; i++) {
		if (!v[i].count)
			continue;
		v[i].rule = &rs->v[i];
		v[(*n)++] = v[i];
	}
	*hits = v;
	return HR_OK;
}

cJSON *rules_hits_json(const struct rule_hit *hits, size_t n)
{
	cJSON *arr = cJSON_CreateArray();
	char id[80];

	for (size_t i = 0; arr && i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		snprintf(id, sizeof(id), "suspect:%s", hits[i].rule->id);
		if (!o || !cJSON_AddStringToObject(o, "id", id) ||
		    !cJSON_AddStringToObject(o, "reason", hits[i].rule->reason) ||
		    !cJSON_AddNumberToObject(o, "line", hits[i].line) ||
		    !cJSON_AddStringToObject(o, "text", hits[i].text) ||
		    !cJSON_AddNumberToObject(o, "lines", hits[i].count)) {
			cJSON_Delete(o);
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}
