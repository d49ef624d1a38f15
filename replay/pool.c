/* pool.c - see pool.h. */
#include "pool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the forked child: wire the pipes, set the environment, exec.  The
 * worker dies with the orchestrator (parent), whatever job it serves: a
 * worker notices its closed stdin only between jobs, and a run killed with
 * SIGKILL (the OOM killer, a timeout's kill -9) left its job running on the
 * device's memory, a 75 GiB job for a minute on the H100, where the next
 * run's jobs ran out of it.  Its own children (the keeper, the jobs, their
 * candidate processes) die with it the same way (util.set_pdeathsig). */
static void exec_worker(const struct wproc_spec *sp, pid_t parent, int in, int out, int err)
{
	const struct worker_opts *o = sp->opts;
	char mem[32];
	const char *argv[24];   /* 21 at most: every option below, and NULL */
	int a = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(127);   /* the orchestrator is gone already */
	setpgid(0, 0);
	if (sp->nice > 0 && setpriority(PRIO_PROCESS, 0, sp->nice) != 0)
		dprintf(err, "setpriority: %s\n", strerror(errno));
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_IGN);   /* the orchestrator decides when to stop */
	if (chdir(sp->scratch) != 0)
		_exit(127);
	setenv("PYTHONUNBUFFERED", "1", 1);
	setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	if (!strcmp(o->device, "cuda"))
		setenv("CUDA_VISIBLE_DEVICES", sp->gpu, 1);
	else
		setenv("CUDA_VISIBLE_DEVICES", "", 1);
	snprintf(mem, sizeof(mem), "%d", o->mem_limit_mb);
	argv[a++] = o->python;
	argv[a++] = o->worker;
	argv[a++] = "--device";
	argv[a++] = o->device;
	argv[a++] = "--gpu-index";
	argv[a++] = sp->gpu ? sp->gpu : "0";
	argv[a++] = "--scratch";
	argv[a++] = sp->scratch;
	argv[a++] = "--cache";
	argv[a++] = sp->cache;
	argv[a++] = "--mem-limit-mb";
	argv[a++] = mem;
	if (sp->inputs) {
		argv[a++] = "--inputs";
		argv[a++] = sp->inputs;
	}
	if (o->verify_lib) {
		argv[a++] = "--verify-lib";
		argv[a++] = o->verify_lib;
	}
	if (o->rand_lib) {
		argv[a++] = "--rand-lib";
		argv[a++] = o->rand_lib;
	}
	if (sp->keeper)
		argv[a++] = "--keeper";
	if (sp->take_inputs)
		argv[a++] = "--take-inputs";
	argv[a] = NULL;
	execvp(o->python, (char *const *)argv);
	dprintf(2, "cannot run %s: %s\n", o->python, strerror(errno));
	_exit(127);
}

int wproc_start(struct wproc *w, const struct wproc_spec *sp, struct hr_err *e)
{
	int in[2], out[2], err[2];
	pid_t pid, parent;

	memset(w, 0, sizeof(*w));
	w->in_fd = w->out_fd = w->err_fd = -1;
	if (pipe2(in, O_CLOEXEC))
		return hr_errf(e, HR_SYSTEM, "pipe: %s", strerror(errno));
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return hr_errf(e, HR_SYSTEM, "pipe: %s", strerror(errno));
	}
	if (pipe2(err, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return hr_errf(e, HR_SYSTEM, "pipe: %s", strerror(errno));
	}
	parent = getpid();
	pid = fork();
	if (pid == 0)
		exec_worker(sp, parent, in[0], out[1], err[1]);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (pid < 0) {
		close(in[1]);
		close(out[0]);
		close(err[0]);
		return hr_errf(e, HR_SYSTEM, "fork: %s", strerror(errno));
	}
	setpgid(pid, pid);   /* both sides, so a kill never races the child */
	w->pid = pid;
	w->in_fd = in[1];
	w->out_fd = out[0];
	w->err_fd = err[0];
	fcntl(w->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(w->err_fd, F_SETFL, O_NONBLOCK);
	return HR_OK;
}

int wproc_send(struct wproc *w, const cJSON *msg)
{
	char *txt = cJSON_PrintUnformatted(msg);
	size_t len, off = 0;
	int rc = 0;

	if (!txt || w->in_fd < 0) {
		cJSON_free(txt);
		return -1;
	}
	len = strlen(txt);
	txt[len] = '\n';   /* replaces the NUL; len + 1 bytes go out */
	while (off < len + 1) {
		ssize_t n = write(w->in_fd, txt + off, len + 1 - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)n;
	}
	cJSON_free(txt);
	return rc;
}

int wproc_read(struct wproc *w)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(w->out_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (n == 0)
			return -1;
		if (w->len + (size_t)n > w->cap) {
			size_t cap = w->cap ? w->cap : 65536;
			char *p;

			while (cap < w->len + (size_t)n)
				cap *= 2;
			if (cap > WPROC_MAX_LINE + sizeof(buf) ||
			    !(p = realloc(w->line, cap)))
				return -2;
			w->line = p;
			w->cap = cap;
		}
		memcpy(w->line + w->len, buf, (size_t)n);
		w->len += (size_t)n;
	}
}

int wproc_next(struct wproc *w, cJSON **out)
{
	char *nl = w->len ? memchr(w->line, '\n', w->len) : NULL;
	size_t used;
	cJSON *j;

	*out = NULL;
	if (!nl)
		return w->len > WPROC_MAX_LINE ? -2 : 0;
	used = (size_t)(nl - w->line) + 1;
	j = cJSON_ParseWithLength(w->line, used - 1);
	memmove(w->line, w->line + used, w->len - used);
	w->len -= used;
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return -2;
	}
	*out = j;
	return 1;
}

int wproc_drain_err(struct wproc *w)
{
	char buf[65536];

	if (w->err_fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(w->err_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (n == 0) {
			close_fd(&w->err_fd);   /* poll skips it from now on */
			return -1;
		}
		for (ssize_t i = 0; i < n; i++)
			w->err_tail[(w->err_pos + (size_t)i) % WPROC_ERR_TAIL] = buf[i];
		w->err_pos += (size_t)n;
	}
}

const char *wproc_err_tail(struct wproc *w, char *buf, size_t n, int clear)
{
	size_t have = w->err_pos < WPROC_ERR_TAIL ? w->err_pos : WPROC_ERR_TAIL;
	size_t take = have < n - 1 ? have : n - 1;
	size_t start = w->err_pos - take;

	for (size_t i = 0; i < take; i++) {
		char c = w->err_tail[(start + i) % WPROC_ERR_TAIL];

		buf[i] = c ? c : ' ';  /* a NUL would cut the stored text */
	}
	buf[take] = '\0';
	if (clear)
		w->err_pos = 0;
	return buf;
}

int wproc_pump(struct wproc *w, short out_ev, short err_ev)
{
	int r;

	if (err_ev)
		wproc_drain_err(w);
	if (!out_ev)
		return 0;
	r = wproc_read(w);
	return r < 0 ? r : 0;
}

int wproc_wait_line(struct wproc *w, double deadline, cJSON **msg)
{
	for (;;) {
		struct pollfd fds[2] = { { w->out_fd, POLLIN, 0 },
					 { w->err_fd, POLLIN, 0 } };
		double left = deadline - wproc_now();
		int r = wproc_next(w, msg);

		if (r)
			return r == 1 ? 1 : -1;
		if (left <= 0)
			return 0;
		if (poll(fds, w->err_fd >= 0 ? 2 : 1,
			 (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return -1;
		r = wproc_pump(w, fds[0].revents,
			       w->err_fd >= 0 ? fds[1].revents : 0);
		if (r == -2)
			return -1;
		/* At the end of the stream, the lines it left come first. */
		if (r == -1 && (r = wproc_next(w, msg)) != 1)
			return -1;
		if (r == 1)
			return 1;
	}
}

int wproc_hello(const cJSON *msg, int need_verify, struct hr_err *e)
{
	const cJSON *why;

	if (proto_type_of(msg) != PT_HELLO)
		return 0;
	if (proto_hello_check(msg, e))
		return -1;
	if (need_verify && !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
						   msg, "verify"))) {
		why = cJSON_GetObjectItemCaseSensitive(msg, "verify_error");
		hr_errf(e, HR_SYSTEM, "the worker could not load the verify "
			"library: %s", cJSON_IsString(why) ? why->valuestring :
			"none was given");
		return -1;
	}
	return 1;
}

int wproc_start_hello(struct wproc *w, const struct wproc_spec *spec,
		      int need_verify, cJSON **hello, struct hr_err *e)
{
	const struct worker_opts *o = spec->opts;
	double deadline;
	cJSON *msg;
	char tail[512];
	int r, h;

	*hello = NULL;
	if (wproc_start(w, spec, e))
		return e->code;
	deadline = wproc_now() + o->timeout_start;
	while ((r = wproc_wait_line(w, deadline, &msg)) == 1) {
		h = wproc_hello(msg, need_verify, e);
		if (h == 1) {
			*hello = msg;
			return HR_OK;
		}
		cJSON_Delete(msg);
		if (h) {
			wproc_kill(w, NULL);
			return e->code;
		}
	}
	wproc_drain_err(w);
	hr_errf(e, HR_SYSTEM, "the worker (%s %s) did not start: %s",
		o->python, o->worker, r == 0 ? "no hello in time" :
		wproc_err_tail(w, tail, sizeof(tail), 0));
	wproc_kill(w, NULL);
	return e->code;
}

void wproc_job_started(struct wproc *w, const cJSON *msg)
{
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(msg, "pid");

	if (proto_type_of(msg) == PT_START && cJSON_IsNumber(pid) &&
	    pid->valueint > 1)
		w->job_pgid = pid->valueint;
}

void wproc_kill(struct wproc *w, int *status)
{
	int st = 0;

	if (w->job_pgid > 0)
		kill(-w->job_pgid, SIGKILL);
	if (w->pid > 0) {
		kill(-w->pid, SIGKILL);
		while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (status)
		*status = st;
	close_fd(&w->in_fd);
	close_fd(&w->out_fd);
	close_fd(&w->err_fd);
	free(w->line);
	w->line = NULL;
	w->len = w->cap = 0;
	w->pid = 0;
	w->job_pgid = 0;
}

void wproc_stop_many(struct wproc *const *ws, int n, int grace_ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int left = 0, st;

	/* Ask every worker first, then wait for them together: each one's
	 * interpreter takes a while to exit, and one after another those
	 * waits add up. */
	for (int i = 0; i < n; i++) {
		cJSON *quit;

		if (ws[i]->pid <= 0)
			continue;
		quit = cJSON_CreateObject();
		cJSON_AddStringToObject(quit, "op", "quit");
		wproc_send(ws[i], quit);
		cJSON_Delete(quit);
		close_fd(&ws[i]->in_fd);
		left++;
	}
	for (int waited = 0; left > 0 && waited < grace_ms; waited += 10) {
		for (int i = 0; i < n; i++) {
			if (ws[i]->pid > 0 &&
			    waitpid(ws[i]->pid, &st, WNOHANG) == ws[i]->pid) {
				ws[i]->pid = 0;   /* reaped: only strays remain */
				left--;
			}
		}
		if (left > 0)
			nanosleep(&ts, NULL);
	}
	for (int i = 0; i < n; i++)
		wproc_kill(ws[i], NULL);
}

int wproc_groups(struct wproc *const *ws, int n, pid_t *groups)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		if (ws[i]->pid > 0)
			groups[k++] = ws[i]->pid;
		if (ws[i]->job_pgid > 0)
			groups[k++] = ws[i]->job_pgid;
	}
	return k;
}

/* The live processes in groups, from /proc (state, parent and group: the
 * fields after the command's closing parenthesis; the parent skipped). */
static int groups_alive(const pid_t *groups, int n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int alive = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[288], buf[512], state;
		const char *rp;
		long pgrp;
		ssize_t len;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		if (!(rp = strrchr(buf, ')')) ||
		    sscanf(rp + 1, " %c %*d %ld", &state, &pgrp) != 2 ||
		    state == 'Z')
			continue;
		for (int i = 0; i < n; i++)
			alive += pgrp == groups[i];
	}
	closedir(d);
	return alive;
}

int wproc_groups_gone(const pid_t *groups, int n, int limit_ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int left = n > 0 ? groups_alive(groups, n) : 0;

	for (int waited = 0; left > 0 && waited < limit_ms; waited += 10) {
		nanosleep(&ts, NULL);
		left = groups_alive(groups, n);
	}
	return left;
}

void wproc_stop(struct wproc *w, int grace_ms)
{
	wproc_stop_many(&w, 1, grace_ms);
}

double wproc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t wproc_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}
