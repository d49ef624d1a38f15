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

/* How to start a worker.  Strings are borrowed for wproc_start's call. */
struct wproc_spec {
	const char *python;       /* interpreter */
	const char *worker;       /* path of worker.py */
	const char *device;       /* cpu | cuda */
	const char *gpu;          /* physical GPU index (CUDA_VISIBLE_DEVICES) */
	const char *scratch;      /* the worker's scratch directory */
	const char *cache;        /* extension build cache */
	const char *inputs;       /* input sets shared by the run; NULL: the
	                           * worker's own (SCRATCH/inputs) */
	const char *verify_lib;   /* NULL: none */
	const char *rand_lib;     /* NULL: none (torch draws) */
	int keeper;               /* a run worker: its keeper holds input sets
	                           * in device memory (worker.py --keeper) */
	int take_inputs;          /* the run's only reader of the inputs: its
	                           * keeper removes the files it holds */
	int mem_limit_mb;         /* 0: none */
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

/* Kill the worker's and the running job's process groups (SIGKILL), reap
 * the worker, close the pipes.  *status gets the wait status (may be
 * NULL).  Safe on a worker that is not running. */
void wproc_kill(struct wproc *w, int *status);

/* Ask the worker to quit, wait up to grace_ms, then kill. */
void wproc_stop(struct wproc *w, int grace_ms);

/* wproc_stop for n workers at once: all are asked to quit, then waited
 * for together (grace_ms in all), then killed with their strays. */
void wproc_stop_many(struct wproc *const *ws, int n, int grace_ms);

/* Monotonic seconds: the clock of every worker deadline. */
double wproc_now(void);

/* MemAvailable of /proc/meminfo in bytes; 0 when unknown. */
uint64_t wproc_mem_available(void);

#endif
