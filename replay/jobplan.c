/* jobplan.c - see jobplan.h. */
#include "jobplan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rules.h"

int jobplan_shard_of(int64_t evaluation_id, int shard_n)
{
	/* splitmix64 finaliser: ids are dense, the mix spreads them. */
	uint64_t z = (uint64_t)evaluation_id + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return shard_n > 0 ? (int)(z % (uint64_t)shard_n) : 0;
}

/* "12_Conv2d.py", "12_Conv2d" and "Conv2d" all name problem Conv2d. */
static const char *bare_name(const char *name, char *buf, size_t n)
{
	const char *p = name;
	size_t len;

	while (isdigit((unsigned char)*p))
		p++;
	if (p != name && *p == '_')
		name = p + 1;
	snprintf(buf, n, "%s", name);
	len = strlen(buf);
	if (len > 3 && !strcmp(buf + len - 3, ".py"))
		buf[len - 3] = '\0';
	return buf;
}

/* Whether problem p is named want (a bare name). */
static int named(const struct jobplan_problem *p, const char *want)
{
	char have[256];

	return p->name && !strcmp(bare_name(p->name, have, sizeof(have)), want);
}

/* The candidates that m picks (a problem matching: 1): how many, and the
 * newest of them in *newest (0: none). */
struct pick {
	int n;
	int64_t newest;
};

static void take(struct pick *k, const struct jobplan_problem *p)
{
	if (!k->n++ || p->id > k->newest)
		k->newest = p->id;
}

/* Match ev to a problem of in (j->problem, j->match): its own record's
 * reference first (unless the problems are one set's); else level + id,
 * narrowed by name when both sides have one; else level + name alone when
 * the id names another problem (a 0/1-based id mix-up).  Several left: the
 * newest wins and the match says it was ambiguous. */
static void match(const struct jobplan_in *in, const struct jobplan_eval *ev,
		  struct jobplan_job *j)
{
	struct pick own = { 0 }, by_id = { 0 }, by_named = { 0 };
	struct pick by_name = { 0 };
	char want[256];

	for (size_t i = 0; !in->by_set && i < in->nproblems; i++) {
		const struct jobplan_problem *p = &in->problems[i];

		if (p->record_source && p->record_source == ev->source_id &&
		    p->level == ev->level && p->problem_id == ev->problem_id)
			take(&own, p);
	}
	if (own.n) {
		j->problem = own.newest;
		snprintf(j->match, sizeof(j->match), "{\"by\":"
			 "\"record-reference\",\"candidates\":1,"
			 "\"ambiguous\":false}");
		return;
	}
	if (ev->name)
		bare_name(ev->name, want, sizeof(want));
	for (size_t i = 0; i < in->nproblems; i++) {
		const struct jobplan_problem *p = &in->problems[i];

		if (p->level != ev->level || p->problem_id != ev->problem_id)
			continue;
		take(&by_id, p);
		if (ev->name && named(p, want))
			take(&by_named, p);
	}
	if (!ev->name || !by_id.n) {
		j->problem = by_id.newest;
		snprintf(j->match, sizeof(j->match), "{\"by\":\"level+id\","
			 "\"candidates\":%d,\"ambiguous\":%s}", by_id.n,
			 by_id.n > 1 ? "true" : "false");
		if (by_id.n || !ev->name)
			return;
	} else if (by_named.n) {
		j->problem = by_named.newest;
		snprintf(j->match, sizeof(j->match), "{\"by\":"
			 "\"level+id+name\",\"candidates\":%d,"
			 "\"ambiguous\":%s}", by_named.n,
			 by_named.n > 1 ? "true" : "false");
		return;
	}
	/* The id names another problem, or none: try the name alone. */
	for (size_t i = 0; i < in->nproblems; i++)
		if (in->problems[i].level == ev->level &&
		    named(&in->problems[i], want))
			take(&by_name, &in->problems[i]);
	j->problem = by_name.newest;
	snprintf(j->match, sizeof(j->match), "{\"by\":\"level+name\","
		 "\"candidates\":%d,\"ambiguous\":%s,\"id_names_other\":%d}",
		 by_name.n, by_name.n > 1 ? "true" : "false", by_id.n);
}

/* What a CPU run cannot run (device "cpu"): a candidate that compiles
 * CUDA code or defines a Triton kernel.  On a machine without a GPU its
 * build fails in PyTorch's extension builder (an IndexError from the empty
 * list of CUDA architectures), which would read as the kernel's fault; it
 * is not built at all.  Matched like the static rules (rules.h: comment
 * lines never match).  A candidate that carries a CPU path beside its CUDA
 * source is skipped too: a rule over the source cannot see that path. */
static const char needs_gpu_rules[] =
	"[cuda-extension]\n"
	"regex = (cuda_sources[[:space:]]*=|CUDAExtension[[:space:]]*\\(|"
	"[\"'][^\"']*\\.cu[\"'])\n"
	"reason = compiles CUDA code (load_inline with cuda_sources, a .cu "
	"source or CUDAExtension)\n"
	"[triton-kernel]\n"
	"regex = @triton\\.jit\n"
	"reason = defines a Triton kernel (@triton.jit)\n";

/* why (n bytes) gets the reason a CPU run skips code, when it does: 1,
 * else 0; or an error code. */
static int needs_gpu(const struct rules *rs, const char *code, char *why,
		     size_t n, struct hr_err *e)
{
	struct rule_hit *hits = NULL;
	size_t nh = 0;

	if (rules_match(rs, code, &hits, &nh, e))
		return e->code;
	if (nh)
		snprintf(why, n, "needs a GPU: the candidate %s, line %d: %s; "
			 "a CPU run does not build it (replay it with "
			 "--device cuda)", hits[0].rule->reason, hits[0].line,
			 hits[0].text);
	free(hits);
	return nh ? 1 : 0;
}

/* The early verdict of ev matched in j, if any (j->verdict, j->why). */
static int early_verdict(const struct jobplan_in *in, const struct rules *gpu,
			 const struct jobplan_eval *ev, struct jobplan_job *j,
			 struct hr_err *e)
{
	int ng;

	if (!j->problem) {
		j->verdict = PV_NO_PROBLEM;
		snprintf(j->why, sizeof(j->why), "no stored problem matches "
			 "this evaluation (headroom problems add DIR)");
	} else if (!ev->has_kernel) {
		j->verdict = PV_NO_KERNEL;
		snprintf(j->why, sizeof(j->why), "the archive holds no kernel "
			 "code for this evaluation");
	} else if (in->cpu) {
		ng = needs_gpu(gpu, ev->code ? ev->code : "", j->why,
			       sizeof(j->why), e);
		if (ng < 0 || ng > 1)
			return e->code;
		if (ng)
			j->verdict = PV_NEEDS_GPU;
	}
	return HR_OK;
}

/* The audit verdict and findings of j's early verdict. */
static int findings(const struct jobplan_in *in, struct jobplan_job *j,
		    struct hr_err *e)
{
	struct verdict_in vin = { .verdict = j->verdict, .mode = in->mode };
	cJSON *doc;

	verdict_compute(&vin, &j->audit);
	doc = verdict_findings_json(NULL, NULL, &j->audit);
	if (doc)
		j->findings = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (!j->findings)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return HR_OK;
}

int jobplan_make(const struct jobplan_in *in, struct jobplan_job **jobs,
		 size_t *n, struct hr_err *e)
{
	struct rules gpu = { 0 };
	struct jobplan_job *v = NULL;
	size_t taken = 0;

	*jobs = NULL;
	*n = 0;
	if (in->cpu && rules_parse(&gpu, needs_gpu_rules, "needs-gpu rules",
				   e)) {
		rules_release(&gpu);
		return e->code;
	}
	if (in->nevals && !(v = calloc(in->nevals, sizeof(*v)))) {
		rules_release(&gpu);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	for (size_t i = 0; i < in->nevals; i++) {
		const struct jobplan_eval *ev = &in->evals[i];
		struct jobplan_job *j = &v[taken];

		if (in->shard_n > 0 &&
		    jobplan_shard_of(ev->id, in->shard_n) != in->shard_i)
			continue;
		if (in->limit > 0 && (int)taken >= in->limit)
			break;
		taken++;
		j->evaluation_id = ev->id;
		match(in, ev, j);
		if (early_verdict(in, &gpu, ev, j, e) ||
		    (j->verdict && findings(in, j, e)))
			break;
	}
	rules_release(&gpu);
	if (e->code) {
		jobplan_free(v, taken);
		return e->code;
	}
	*jobs = v;
	*n = taken;
	return HR_OK;
}

void jobplan_free(struct jobplan_job *jobs, size_t n)
{
	for (size_t i = 0; jobs && i < n; i++)
		cJSON_free(jobs[i].findings);
	free(jobs);
}
