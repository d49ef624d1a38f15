/* vocab.h - the domain words of vocab.def as C enums, and their one
 * spelling.
 *
 * Owns: the replay modes, the audit verdict classes, the evidence finding
 * ids (in verdict priority) and the run and job states; name <-> enum both
 * ways.  The worker protocol's words (phases, job verdicts) are expanded
 * from the same table by replay/proto.h.
 * Must not: allocate, print or know the store.
 */
#ifndef HR_VOCAB_H
#define HR_VOCAB_H

#include <stddef.h>

enum hr_mode {
#define VOCAB_MODE(e, s) e,
#include "vocab.def"
	HR_NMODES
};

/* An audit verdict's class (replay_job.audit); AV_NONE: none or unknown. */
enum hr_audit {
	AV_NONE,
#define VOCAB_AUDIT(e, s) e,
#include "vocab.def"
	HR_NAUDITS
};

/* The evidence finding ids, in verdict priority (first wins). */
enum hr_finding {
#define VOCAB_FINDING(e, s, correct_only) e,
#include "vocab.def"
	HR_NFINDINGS
};

enum hr_run_state {
#define VOCAB_RUN_STATE(e, s) e,
#include "vocab.def"
	HR_NRUN_STATES
};

enum hr_job_state {
#define VOCAB_JOB_STATE(e, s) e,
#include "vocab.def"
	HR_NJOB_STATES
};

/* The mode's name ("faithful"); NULL when m is out of range. */
const char *hr_mode_name(enum hr_mode m);
/* The mode named name: 0 and *m set, or -1 when name names none. */
int hr_mode_of(const char *name, enum hr_mode *m);

/* The class's name ("verified-faster", or a prefix such as "exploit:");
 * NULL for AV_NONE or out of range. */
const char *hr_audit_name(enum hr_audit a);
/* The class of an audit verdict: the name itself, or for a prefix class
 * the prefix followed by anything; AV_NONE for NULL or an unknown one. */
enum hr_audit hr_audit_of(const char *verdict);

/* The finding's id; NULL when out of range. */
const char *hr_finding_name(enum hr_finding f);
/* The finding named id, or HR_NFINDINGS when id names none (an unknown
 * id ranks after every known one). */
enum hr_finding hr_finding_of(const char *id);
/* 1 when f counts only where the original check passed. */
int hr_finding_correct_only(enum hr_finding f);

const char *hr_run_state_name(enum hr_run_state s);
const char *hr_job_state_name(enum hr_job_state s);

#endif
