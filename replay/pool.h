/* pool.h - worker processes of a replay: start, talk JSON lines, kill.
 *
 * Owns: one Python worker process (replay/worker.py) per struct wproc: its
 * process group, its three pipes, the partial line of its protocol stream
 * and the tail of its stderr.  Must not: know jobs or the store, print.
 *
 * Every worker runs in its own process group (and forks each job into a
 * group of its own, whose leader it names in a "start" line), so a kill
 * reaches the worker, the job and anything the job forked.
 */
#ifndef HR_REPLAY_POOL_H
#define HR_REPLAY_POOL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "../dataset/base/err.h"

#define WPROC_ERR_TAIL 4096
#define WPROC_MAX_LINE (64 << 20)

/* What every worker of one command shares: the options of `replay` and
 * `audit problems` alike (workercli.h parses those they both take).
 * Strings are borrowed; they outlive the workers. */
struct worker_opts {
	const char *device;       /* cpu | cuda */
	const char *gpus;         /* physical GPU indices: replay's --gpus
	                           * "0,1,...", audit's --gpu I (cuda) */
	const char *python;       /* interpreter */
	const char *worker;       /* path of worker.py */
	const char *scratch;      /* the command's scratch directory */
	const char *cache;        /* extension build cache */
	const char *verify_lib;   /* NULL: none */
	const char *rand_lib;     /* NULL: none (torch draws) */
	int mem_limit_mb;         /* RLIMIT_AS per job, 0: none */
	double timeout_start;     /* seconds for a worker's hello (it
	                           * imports torch first) */
};

/* How to start one worker.  Borrowed for wproc_start's call. */
struct wproc_spec {
	const struct worker_opts *opts;
	const char *gpu;          /* physical GPU index (CUDA_VISIBLE_DEVICES) */
	const char *scratch;      /* the worker's scratch directory */
	const char *cache;        /* extension build cache */
	const char *inputs;       /* input sets shared by the run; NULL: the
	                           * worker's own (SCRATCH/inputs) */
	int keeper;               /* a run worker: its keeper holds input sets
	                           * in device memory (worker.py --keeper) */
	int take_inputs;          /* the run's only reader of the inputs: its
	                           * keeper removes the files it holds */
	int nice;                 /* scheduling priority of the worker, 0..19 */
};

struct wproc {
	pid_t pid;                /* 0: not running */
	pid_t job_pgid;           /* group of the job now running, 0: none */
	int in_fd, out_fd, err_fd;
	char *line;               /* bytes of the protocol stream not yet a line */
	size_t len, cap;
	char err_tail[WPROC_ERR_TAIL]; /* last bytes of stderr, a ring */
	size_t err_pos;           /* total bytes ever written into the ring */
};

/* Start a worker.  On success w owns the process and its pipes. */
int wproc_start(struct wproc *w, const struct wproc_spec *spec,
		struct hr_err *e);

/* Send one JSON object as a line (blocking).  Returns 0 or -1 (the worker
 * is gone). */
int wproc_send(struct wproc *w, const cJSON *msg);

/* Read what is available on the protocol stream.  Complete lines are
 * parsed and handed to *out one per call: returns 1 with *out set (caller
 * owns, cJSON_Delete), 0 when no complete line is buffered, -1 at end of
 * stream, -2 for a line that is not a JSON object (or too long). */
int wproc_read(struct wproc *w);
int wproc_next(struct wproc *w, cJSON **out);

/* Drain stderr into the tail ring.  Returns -1 at end of stream (the fd
 * is then closed and set to -1). */
int wproc_drain_err(struct wproc *w);

/* The stderr tail as a string (NUL-terminated, in buf of n bytes), the
 * last n-1 bytes at most; resets the ring when clear is set. */
const char *wproc_err_tail(struct wproc *w, char *buf, size_t n, int clear);

/* What poll(2) said of w's two pipes (out_ev: the protocol stream,
 * err_ev: stderr; 0 for quiet): drain stderr, read the protocol stream
 * (wproc_read).  The end of stderr alone is no death.  Returns 0, -1 at
 * the end of the protocol stream or -2 for a line too long; the lines
 * read are wproc_next's. */
int wproc_pump(struct wproc *w, short out_ev, short err_ev);

/* One worker alone: wait for its next protocol line until deadline
 * (wproc_now's clock).  Returns 1 with *msg (caller owns), 0 at the
 * deadline, -1 when the worker is gone or wrote a line that is not
 * protocol JSON. */
int wproc_wait_line(struct wproc *w, double deadline, cJSON **msg);

/* Whether msg is the worker's hello, checked (proto_hello_check; with
 * need_verify, the worker loaded the verify library it was given): 1 for
 * a good hello, 0 for another line, -1 for a bad one (e says why). */
int wproc_hello(const cJSON *msg, int need_verify, struct hr_err *e);

/* Start a worker and wait for its hello, at most spec->opts->timeout_start
 * seconds (wproc_hello with need_verify).  On success w runs and *hello is
 * its hello line (caller owns); else w is killed, e says why. */
int wproc_start_hello(struct wproc *w, const struct wproc_spec *spec,
		      int need_verify, cJSON **hello, struct hr_err *e);

/* Note the job process group that a "start" line names (msg), so that
 * wproc_kill reaches it; other lines are ignored. */
void wproc_job_started(struct wproc *w, const cJSON *msg);

/* Kill the worker's and the running job's process groups (SIGKILL), reap
 * the worker, close the pipes.  *status gets the wait status (may be
 * NULL).  Safe on a worker that is not running. */
void wproc_kill(struct wproc *w, int *status);

/* Ask the worker to quit, wait up to grace_ms, then kill. */
void wproc_stop(struct wproc *w, int grace_ms);

/* wproc_stop for n workers at once: all are asked to quit, then waited
 * for together (grace_ms in all), then killed with their strays. */
void wproc_stop_many(struct wproc *const *ws, int n, int grace_ms);

/* The process groups of n workers, the worker's own and its running
 * job's, into groups (room for 2 n); how many. */
int wproc_groups(struct wproc *const *ws, int n, pid_t *groups);

/* Wait up to limit_ms until no process of the groups is alive (a
 * process of them that is not a zombie, from /proc): a killed group's
 * processes exit after the kill, and one holding device memory gives it
 * back only then (a run's keeper, 62 GB on the H200, was listed by
 * nvidia-smi for seconds after replay had returned).  How many are left
 * (0: all gone). */
int wproc_groups_gone(const pid_t *groups, int n, int limit_ms);

/* Monotonic seconds: the clock of every worker deadline. */
double wproc_now(void);

/* MemAvailable of /proc/meminfo in bytes; 0 when unknown. */
uint64_t wproc_mem_available(void);

#endif
