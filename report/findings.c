/* findings.c - see findings.h. */
#include "findings.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/store.h"

/* --- forward() of a Python class, found by indentation ------------------ */

/* Start and end of the body of `def forward` inside `class NAME`, or NULL.
 * Good enough for the generated modules KernelBench stores: one class per
 * name, methods indented under it. */
static const char *forward_body(const char *code, const char *cls,
				const char **end)
{
	char pat[64];
	const char *p, *line;
	int indent;

	snprintf(pat, sizeof(pat), "class %s", cls);
	for (p = code; (p = strstr(p, pat)); p += strlen(pat)) {
		char after = p[strlen(pat)];

		if ((p == code || p[-1] == '\n') &&
		    (after == '(' || after == ':'))
			break;
	}
	if (!p || !(p = strstr(p, "def forward(")))
		return NULL;
	for (line = p; line > code && line[-1] != '\n'; line--)
		;
	indent = (int)(p - line);
	if (!(p = strchr(p, '\n')))
		return NULL;
	line = ++p;
	/* The body: every following line indented deeper, or blank. */
	while (*p) {
		const char *q = p;
		int ind = 0;

		while (*q == ' ' || *q == '\t') {
			q++;
			ind++;
		}
		if (*q != '\n' && *q && ind <= indent)
			break;
		if (!(p = strchr(p, '\n')))
			p = q + strlen(q);
		else
			p++;
	}
	*end = p;
	return line;
}

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Harmless helpers any forward may call: allocation and shape plumbing. */
static int harmless(const char *op)
{
	static const char *const ok[] = {
		"empty", "empty_like", "zeros", "zeros_like", "ones",
		"ones_like", "full", "full_like", "tensor", "as_tensor",
		"arange", "cat", "stack", "device", "cuda.current_stream",
		"float32", "float16", "bfloat16", "int64", "Size",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(op, ok[i]))
			return 1;
	return 0;
}

/* Next torch call in [p, end): writes the operator name ("softmax" for
 * torch.softmax, F.softmax and torch.nn.functional.softmax) into op and
 * returns the position after it, or NULL. */
static const char *next_torch_call(const char *start, const char *p,
				   const char *end, char *op, size_t n)
{
	static const char *const prefixes[] = {
		"torch.nn.functional.", "torch.", "F.",
	};

	for (; p < end; p++) {
		if (p > start && ident_char(p[-1]))
			continue;
		for (size_t i = 0; i < 3; i++) {
			size_t pl = strlen(prefixes[i]), len = 0;
			const char *q;

			if ((size_t)(end - p) <= pl ||
			    strncmp(p, prefixes[i], pl))
				continue;
			q = p + pl;
			while (q + len < end && ident_char(q[len]))
				len++;
			if (q + len >= end || q[len] != '(' || len == 0 ||
			    len >= n)
				break;
			memcpy(op, q, len);
			op[len] = '\0';
			return q + len;
		}
	}
	return NULL;
}

int finding_calls_reference_op(const char *candidate, const char *reference,
			       char *evidence, size_t n)
{
	const char *cb, *ce, *rb, *re, *p;
	char op[64], rop[64];
	size_t used = 0;
	int found = 0;

	if (!candidate || !reference ||
	    !(cb = forward_body(candidate, "ModelNew", &ce)) ||
	    !(rb = forward_body(reference, "Model", &re)))
		return 0;
	for (p = cb; (p = next_torch_call(cb, p, ce, op, sizeof(op)));) {
		const char *r;
		int in_ref = 0;

		if (harmless(op))
			continue;
		for (r = rb; !in_ref &&
		     (r = next_torch_call(rb, r, re, rop, sizeof(rop)));)
			in_ref = !strcmp(op, rop);
		if (!in_ref || (found && strstr(evidence, op)))
			continue;
		used += (size_t)snprintf(evidence + used, n > used ? n - used : 0,
					 "%s%s", found ? ", " : "forward() "
					 "calls ", op);
		found = 1;
	}
	if (found && used < n)
		snprintf(evidence + used, n - used, " as the reference does");
	return found;
}

int finding_no_device_code(const char *code, char *evidence, size_t n)
{
	if (!code || strstr(code, "__global__") || strstr(code, "triton.jit"))
		return 0;
	snprintf(evidence, n, "no __global__ function and no @triton.jit "
		 "kernel in %zu bytes of code", strlen(code));
	return 1;
}

/* --- collecting ----------------------------------------------------------- */

static struct finding *add(struct finding_list *l, const struct evalrow *r,
			   const char *sha, const char *type)
{
	struct finding *f;

	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 32;
		struct finding *p = realloc(l->items, nc * sizeof(*p));

		if (!p)
			return NULL;
		l->items = p;
		l->cap = nc;
	}
	f = &l->items[l->n++];
	memset(f, 0, sizeof(*f));
	f->eval = r;
	f->type = type;
	snprintf(f->kernel, sizeof(f->kernel), "%.12s", sha ? sha : "");
	return f;
}

/* The presets under which a degenerate output passes, "" when none. */
static void vacuous_presets(const struct audit_row *a, const char *only,
			    char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->ngates; i++) {
		const struct audit_gate *g = &a->gates[i];

		if (!audit_gate_vacuous(g) || (only && strcmp(only, g->preset)))
			continue;
		used += (size_t)snprintf(buf + used, n > used ? n - used : 0,
			"%s%s (%s%s%s%s)", used ? ", " : "", g->preset,
			g->zeros ? "zeros" : "",
			g->constant ? (g->zeros ? ",constant" : "constant") : "",
			g->input ? ",input" : "",
			g->degenerate ? ",degenerate" : "");
	}
}

struct lookups {
	sqlite3_stmt *kernel;   /* id -> sha256, code */
	sqlite3_stmt *problem;  /* level, problem_id -> code */
	sqlite3_stmt *flag;     /* evaluation id -> excessive_speedup flag */
};

static int check_eval(const struct lookups *q, const struct evalrow *r,
		      const struct auditset *as, struct finding_list *l)
{
	const char *sha = NULL, *code = NULL, *ref = NULL;
	const struct audit_row *a;
	struct finding *f;
	char ev[512];

	sqlite3_reset(q->kernel);
	sqlite3_reset(q->problem);
	sqlite3_reset(q->flag);
	if (r->kernel_id) {
		sqlite3_bind_int64(q->kernel, 1, r->kernel_id);
		if (sqlite3_step(q->kernel) == SQLITE_ROW) {
			sha = (const char *)sqlite3_column_text(q->kernel, 0);
			code = (const char *)sqlite3_column_text(q->kernel, 1);
		}
	}
	sqlite3_bind_int(q->problem, 1, r->level);
	sqlite3_bind_int(q->problem, 2, r->problem_id);
	if (sqlite3_step(q->problem) == SQLITE_ROW)
		ref = (const char *)sqlite3_column_text(q->problem, 0);

	if (finding_calls_reference_op(code, ref, ev, sizeof(ev))) {
		if (!(f = add(l, r, sha, "calls-reference-op")))
			return -1;
		memcpy(f->evidence, ev, sizeof(ev));
	}
	sqlite3_bind_int64(q->flag, 1, r->id);
	if (r->correct == 1 && sqlite3_step(q->flag) == SQLITE_ROW &&
	    sqlite3_column_int(q->flag, 0) == 1) {
		if (!(f = add(l, r, sha, "harness-flagged-speedup")))
			return -1;
		snprintf(f->evidence, sizeof(f->evidence), "the harness "
			 "flagged the speedup as excessive (metadata "
			 "excessive_speedup; KernelBench flags > 10x): %.4gx",
			 r->speedup);
	}
	if (r->correct == 1 && !isnan(r->speedup) &&
	    r->speedup > FINDING_IMPLAUSIBLE_SPEEDUP) {
		if (!(f = add(l, r, sha, "implausible-speedup")))
			return -1;
		snprintf(f->evidence, sizeof(f->evidence), "reported speedup "
			 "%.4gx > %.0fx", r->speedup,
			 FINDING_IMPLAUSIBLE_SPEEDUP);
	}
	if (finding_no_device_code(code, ev, sizeof(ev))) {
		if (!(f = add(l, r, sha, "no-device-code")))
			return -1;
		memcpy(f->evidence, ev, sizeof(ev));
	}
	if (r->correct == 1 &&
	    (a = auditset_find(as, r->level, r->problem_id))) {
		const char *preset = audit_preset_for(r->harness, r->precision,
						      r->atol);
		char presets[160];

		vacuous_presets(a, preset, presets, sizeof(presets));
		if (*presets) {
			if (!(f = add(l, r, sha, "vacuous-correct")))
				return -1;
			snprintf(f->evidence, sizeof(f->evidence),
				 "max|ref| %.4g passes as degenerate output "
				 "under %s%s", a->max_abs_ref, presets,
				 preset ? "" : "; the archive does not say "
				 "which tolerance judged it");
		}
	}
	return 0;
}

int findings_collect(sqlite3 *db, const struct evalset *es,
		     const struct auditset *as, struct finding_list *out,
		     struct hr_err *e)
{
	struct lookups q = { NULL, NULL, NULL };

	memset(out, 0, sizeof(*out));
	if (sqlite3_prepare_v2(db, "SELECT sha256, code FROM kernel WHERE"
			       " id = ?1", -1, &q.kernel, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT code FROM problem WHERE level = ?1"
			       " AND problem_id = ?2 ORDER BY id LIMIT 1", -1,
			       &q.problem, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT json_extract(metadata_json,"
			       " '$.excessive_speedup') FROM evaluation"
			       " WHERE id = ?1 AND json_valid(metadata_json)",
			       -1, &q.flag, NULL) != SQLITE_OK) {
		store_db_err(db, NULL, e);
		goto done;
	}
	/* es is sorted by configuration, problem and sample, and each
	 * evaluation adds its findings in type order: out stays sorted. */
	for (size_t i = 0; i < es->n; i++)
		if (check_eval(&q, &es->rows[i], as, out)) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
done:
	sqlite3_finalize(q.kernel);
	sqlite3_finalize(q.problem);
	sqlite3_finalize(q.flag);
	return e->code;
}

void finding_list_release(struct finding_list *l)
{
	free(l->items);
	memset(l, 0, sizeof(*l));
}
