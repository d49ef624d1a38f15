/* vocab.c - the spellings of vocab.def (vocab.h). */
#include "vocab.h"

#include <string.h>

static const char *const mode_names[] = {
#define VOCAB_MODE(e, s) [e] = s,
#include "vocab.def"
};

static const char *const audit_names[] = {
#define VOCAB_AUDIT(e, s) [e] = s,
#include "vocab.def"
};

static const char *const finding_names[] = {
#define VOCAB_FINDING(e, s, correct_only) [e] = s,
#include "vocab.def"
};

static const unsigned char finding_correct_only[] = {
#define VOCAB_FINDING(e, s, correct_only) [e] = correct_only,
#include "vocab.def"
};

static const char *const run_state_names[] = {
#define VOCAB_RUN_STATE(e, s) [e] = s,
#include "vocab.def"
};

static const char *const job_state_names[] = {
#define VOCAB_JOB_STATE(e, s) [e] = s,
#include "vocab.def"
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* names[i] when i is in range, else NULL. */
static const char *name_at(const char *const *names, int n, int i)
{
	return i >= 0 && i < n ? names[i] : NULL;
}

/* The index of name in names[first..n), or -1. */
static int index_of(const char *const *names, int first, int n,
		    const char *name)
{
	for (int i = first; name && i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return -1;
}

const char *hr_mode_name(enum hr_mode m)
{
	return name_at(mode_names, COUNT(mode_names), (int)m);
}

int hr_mode_of(const char *name, enum hr_mode *m)
{
	int i = index_of(mode_names, 0, COUNT(mode_names), name);

	if (i < 0)
		return -1;
	*m = (enum hr_mode)i;
	return 0;
}

const char *hr_audit_name(enum hr_audit a)
{
	return a == AV_NONE ? NULL :
		name_at(audit_names, COUNT(audit_names), (int)a);
}

enum hr_audit hr_audit_of(const char *verdict)
{
	for (int i = AV_NONE + 1; verdict && i < COUNT(audit_names); i++) {
		size_t n = strlen(audit_names[i]);

		if (audit_names[i][n - 1] == ':' ?
		    !strncmp(verdict, audit_names[i], n) :
		    !strcmp(verdict, audit_names[i]))
			return (enum hr_audit)i;
	}
	return AV_NONE;
}

const char *hr_finding_name(enum hr_finding f)
{
	return name_at(finding_names, COUNT(finding_names), (int)f);
}

enum hr_finding hr_finding_of(const char *id)
{
	int i = index_of(finding_names, 0, COUNT(finding_names), id);

	return i < 0 ? HR_NFINDINGS : (enum hr_finding)i;
}

int hr_finding_correct_only(enum hr_finding f)
{
	return (int)f >= 0 && (int)f < COUNT(finding_correct_only) &&
		finding_correct_only[f];
}

const char *hr_run_state_name(enum hr_run_state s)
{
	return name_at(run_state_names, COUNT(run_state_names), (int)s);
}

const char *hr_job_state_name(enum hr_job_state s)
{
	return name_at(job_state_names, COUNT(job_state_names), (int)s);
}
