/* select.c - see select.h. */
#include "select.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/cli.h"

/* EVALSEL_BARE_SQL(EVALSEL_NOPY_SQL(x)) in C: "12_Conv2d.py" -> "Conv2d".
 * Returns a malloc'd copy, NULL when out of memory. */
static char *bare_name(const char *name)
{
	size_t len = strlen(name), skip = 0;
	char *d;

	if (len >= 3 && !strcasecmp(name + len - 3, ".py"))
		len -= 3;
	while (skip < len && isdigit((unsigned char)name[skip]))
		skip++;
	if (skip > 0 && skip < len && name[skip] == '_')
		skip++;
	else
		skip = 0;
	if (!(d = malloc(len - skip + 1)))
		return NULL;
	memcpy(d, name + skip, len - skip);
	d[len - skip] = '\0';
	return d;
}

/* A positive whole number that fits an int. */
static int parse_pos(const char *s, int *out)
{
	long long v;

	if (cli_parse_int(s, 1, INT32_MAX, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* Append the ids of "3,5,9" to the JSON array text *json. */
static int add_ids(struct evalsel *sel, const char *arg, char *why, size_t n)
{
	size_t have = sel->ids_json ? strlen(sel->ids_json) : 0;
	size_t cap = have + strlen(arg) + 3;
	const char *p = arg;
	char *j = realloc(sel->ids_json, cap);

	if (!j) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	sel->ids_json = j;
	if (!have)
		j[have++] = '[';
	else
		j[--have] = '\0';           /* reopen the array: drop ']' */
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char num[24];
		int id;

		if (len == 0 || len >= sizeof(num)) {
			snprintf(why, n, "--eval wants ids like 3 or 3,5,9, not "
				 "'%s'", arg);
			return -1;
		}
		memcpy(num, p, len);
		num[len] = '\0';
		if (parse_pos(num, &id)) {
			snprintf(why, n, "--eval wants ids like 3 or 3,5,9, not "
				 "'%s'", arg);
			return -1;
		}
		have += (size_t)snprintf(j + have, cap - have, "%s%d",
					 j[have - 1] == '[' ? "" : ",", id);
		if (!comma)
			break;
		p = comma + 1;
	}
	j[have++] = ']';
	j[have] = '\0';
	return 1;
}

int evalsel_option(struct evalsel *sel, int c, const char *arg, char *why,
		   size_t n)
{
	switch (c) {
	case EVALSEL_OPT_LEVEL:
		if (parse_pos(arg, &sel->level)) {
			snprintf(why, n, "--level wants a positive integer, not "
				 "'%s'", arg);
			return -1;
		}
		return 1;
	case EVALSEL_OPT_MODEL:
		sel->model = arg;
		return 1;
	case EVALSEL_OPT_SOURCE:
		sel->source = arg;
		return 1;
	case EVALSEL_OPT_PROBLEM:
		free(sel->problem_name);
		sel->problem_name = NULL;
		sel->problem_id = 0;
		sel->problem = arg;
		if (!*arg) {
			snprintf(why, n, "--problem wants an id or a name");
			return -1;
		}
		if (parse_pos(arg, &sel->problem_id) == 0)
			return 1;
		sel->problem_id = 0;
		if (!(sel->problem_name = bare_name(arg))) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		return 1;
	case EVALSEL_OPT_EVAL:
		return add_ids(sel, arg, why, n);
	default:
		return 0;
	}
}

int evalsel_given(const struct evalsel *sel)
{
	return sel->level || sel->model || sel->source || sel->problem ||
		sel->ids_json;
}

static int bind_text(sqlite3_stmt *st, const char *name, const char *v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	return i && v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) :
		SQLITE_OK;
}

static int bind_int(sqlite3_stmt *st, const char *name, int v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	return i && v ? sqlite3_bind_int(st, i, v) : SQLITE_OK;
}

int evalsel_bind(const struct evalsel *sel, sqlite3_stmt *st)
{
	int rc;

	if ((rc = bind_int(st, ":sel_level", sel->level)) ||
	    (rc = bind_text(st, ":sel_model", sel->model)) ||
	    (rc = bind_text(st, ":sel_source", sel->source)) ||
	    (rc = bind_int(st, ":sel_problem_id", sel->problem_id)) ||
	    (rc = bind_text(st, ":sel_problem_name", sel->problem_name)) ||
	    (rc = bind_text(st, ":sel_ids", sel->ids_json)))
		return rc;
	return SQLITE_OK;
}

void evalsel_release(struct evalsel *sel)
{
	free(sel->problem_name);
	free(sel->ids_json);
	memset(sel, 0, sizeof(*sel));
}
