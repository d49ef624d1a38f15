/* proto.c - the worker protocol's names, job message and hello check
 * (proto.h). */
#include "proto.h"

#include <string.h>

static const char *const type_names[] = {
	[PT_HELLO] = "hello", [PT_START] = "start", [PT_PHASE] = "phase",
	[PT_PREDRAW] = "predraw", [PT_RESULT] = "result", [PT_EXIT] = "exit",
	[PT_ERROR] = "error",
};

static const char *const phase_names[] = {
#define VOCAB_PHASE(e, s) [e] = s,
#include "../dataset/base/vocab.def"
};

static const char *const verdict_names[] = {
#define VOCAB_JOB_VERDICT(e, s, stored) [e] = s,
#include "../dataset/base/vocab.def"
};

static const unsigned char verdict_stored[] = {
#define VOCAB_JOB_VERDICT(e, s, stored) [e] = stored,
#include "../dataset/base/vocab.def"
};

static const char *const stop_names[] = {
#define VOCAB_STOP(e, s) [e] = s,
#include "../dataset/base/vocab.def"
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The index of name in names[0..n) (entry 0 is the "none" value), or 0. */
static int lookup(const char *const *names, int n, const char *name)
{
	for (int i = 1; name && i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return 0;
}

static const char *str_field(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

enum proto_type proto_type_of(const cJSON *msg)
{
	return (enum proto_type)lookup(type_names, COUNT(type_names),
				       str_field(msg, "type"));
}

enum proto_phase proto_phase_of(const char *name)
{
	return (enum proto_phase)lookup(phase_names, COUNT(phase_names), name);
}

const char *proto_phase_name(enum proto_phase p)
{
	return p > PH_OTHER && (int)p < COUNT(phase_names) ? phase_names[p]
		: "?";
}

int proto_phase_is_build(enum proto_phase p)
{
	return p == PH_DISPATCH || p == PH_BUILD || p == PH_REFERENCE;
}

enum proto_verdict proto_verdict_of(const char *name)
{
	return (enum proto_verdict)lookup(verdict_names, COUNT(verdict_names),
					  name);
}

const char *proto_verdict_name(enum proto_verdict v)
{
	return v > PV_NONE && (int)v < COUNT(verdict_names) ?
		verdict_names[v] : NULL;
}

enum proto_verdict proto_result_verdict(const cJSON *res)
{
	return proto_verdict_of(str_field(res, "verdict"));
}

int proto_verdict_ends_job(enum proto_verdict v)
{
	return v > PV_NONE && (int)v < COUNT(verdict_stored) &&
		verdict_stored[v];
}

cJSON *proto_job_new(int64_t job, int64_t evaluation_id, enum proto_stop stop)
{
	cJSON *m = cJSON_CreateObject();

	if (!m || !cJSON_AddStringToObject(m, "op", "job") ||
	    !cJSON_AddNumberToObject(m, "job", (double)job) ||
	    !cJSON_AddNumberToObject(m, "evaluation_id",
				     (double)evaluation_id) ||
	    !cJSON_AddStringToObject(m, "stop_after", stop_names[stop])) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

int64_t proto_job_of(const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "job");

	return cJSON_IsNumber(id) && id->valuedouble >= 1 ?
		(int64_t)id->valuedouble : 0;
}

int proto_hello_check(const cJSON *hello, struct hr_err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(hello, "protocol");

	if (cJSON_IsNumber(v) && v->valuedouble == PROTO_VERSION)
		return HR_OK;
	if (cJSON_IsNumber(v))
		return hr_errf(e, HR_SYSTEM, "the worker speaks protocol %g, "
			       "this headroom %d: worker.py is of another "
			       "version", v->valuedouble, PROTO_VERSION);
	return hr_errf(e, HR_SYSTEM, "the worker's hello names no protocol "
		       "version (this headroom speaks %d)", PROTO_VERSION);
}
