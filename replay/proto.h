/* proto.h - the worker protocol (docs/replay.md, Messages), seen from C.
 *
 * Owns: the protocol's version, the names of its message types, job
 * phases and verdicts (and which verdicts a finished job may store), the
 * common part of every job message, and the hello handshake's check.
 * replay.c (the orchestrator) and audit.c (headroom audit problems) both
 * speak it through this module; the phase and verdict names are
 * dataset/base/vocab.def's (replay/worker.py and replay/hrworker/ are the
 * other side).
 * Must not: do I/O, know the scheduler or the store.
 */
#ifndef HR_REPLAY_PROTO_H
#define HR_REPLAY_PROTO_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "../dataset/base/err.h"

/* The version both sides speak (worker.py PROTOCOL); a worker whose hello
 * names another is refused (proto_hello_check). */
#define PROTO_VERSION 1

/* Lines a worker writes ("type"). */
enum proto_type {
	PT_OTHER,      /* missing or unknown: ignored */
	PT_HELLO,      /* the worker started (once) */
	PT_START,      /* a job's process started: its "pid" leads its group */
	PT_PHASE,      /* a job entered a phase ("phase") */
	PT_PREDRAW,    /* a build worker's draw ahead ended ("predraw") */
	PT_RESULT,     /* a job's one result */
	PT_EXIT,       /* a job's process ended ("status") */
	PT_ERROR,      /* a request the worker could not read */
};

enum proto_type proto_type_of(const cJSON *msg);

/* A job's phases, in the order a job goes through them (vocab.def):
 * PH_DISPATCH from the job's dispatch to its start line, PH_START before
 * its first phase line; PH_OTHER: none or unknown. */
enum proto_phase {
	PH_OTHER,
#define VOCAB_PHASE(e, s) e,
#include "../dataset/base/vocab.def"
};

enum proto_phase proto_phase_of(const char *name);
const char *proto_phase_name(enum proto_phase p);

/* The phases whose limit is the build timeout (dispatch waits for the
 * job's process; the reference phase draws the inputs; the build phase
 * compiles): 1 for those, else 0. */
int proto_phase_is_build(enum proto_phase p);

/* Verdicts: what a worker answers, and what the orchestrator decides
 * itself (timeout, crashed, no_problem, no_kernel, needs_gpu). */
enum proto_verdict {
	PV_NONE,          /* missing or unknown */
#define VOCAB_JOB_VERDICT(e, s, stored) e,
#include "../dataset/base/vocab.def"
};

enum proto_verdict proto_verdict_of(const char *name);
const char *proto_verdict_name(enum proto_verdict v);
/* The result's "verdict" field (PV_NONE when absent or unknown). */
enum proto_verdict proto_result_verdict(const cJSON *res);
/* 1 when a finished job may store v (table replay_job's verdicts). */
int proto_verdict_ends_job(enum proto_verdict v);

/* Where a job stops (its message's "stop_after"; dataset/base/vocab.def). */
enum proto_stop {
#define VOCAB_STOP(e, s) e,
#include "../dataset/base/vocab.def"
};

/* A new job message with its common fields: op "job", job, evaluation_id
 * and stop_after; the caller adds the rest.  NULL when out of memory. */
cJSON *proto_job_new(int64_t job, int64_t evaluation_id, enum proto_stop stop);

/* The job id a line names in "job"; 0 when it names none (ids are >= 1). */
int64_t proto_job_of(const cJSON *msg);

/* Check a hello line: HR_OK when it speaks PROTO_VERSION, else HR_SYSTEM
 * with e naming both versions (a worker.py of another headroom). */
int proto_hello_check(const cJSON *hello, struct hr_err *e);

#endif
