/* pyenv.c - see pyenv.h. */
#include "pyenv.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The probe: exit 0 when torch and numpy can be imported. */
static const char probe[] =
	"import sys\n"
	"sys.path = [p for p in sys.path if p not in ('', '.')]\n"
	"import importlib.util as u\n"
	"sys.exit(0 if u.find_spec('torch') and u.find_spec('numpy') else 1)\n";

enum { PY_OK, PY_NO_TORCH, PY_NOT_RUN };

static int ask(const char *py)
{
	char *argv[] = { (char *)py, "-c", (char *)probe, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, rc;

	if (posix_spawn_file_actions_init(&fa))
		return PY_NOT_RUN;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, py, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return PY_NOT_RUN;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return PY_NOT_RUN;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return PY_OK;
	/* 127: exec failed in the child (posix_spawnp reports it there). */
	return WIFEXITED(st) && WEXITSTATUS(st) == 1 ? PY_NO_TORCH : PY_NOT_RUN;
}

static const char *said(int r)
{
	return r == PY_NO_TORCH ? "no torch or numpy" : "cannot be run";
}

/* The venv's folder into buf: $HEADROOM_VENV, else under ~/.cache. */
static void venv_dir(char *buf, size_t n)
{
	const char *v = getenv("HEADROOM_VENV"), *home = getenv("HOME");

	if (v && *v)
		snprintf(buf, n, "%s", v);
	else
		snprintf(buf, n, "%s/.cache/headroom/" PYENV_VENV_NAME,
			 home && *home ? home : "");
}

int pyenv_find(const char *given, char **out, struct hr_err *e)
{
	const char *env = getenv("HEADROOM_PYTHON");
	char venv[1024], vpy[1040], hint[2400];
	int r;

	*out = NULL;
	venv_dir(venv, sizeof(venv));
	snprintf(hint, sizeof(hint), "make one (about 5 GB, as headroom's "
		 ".ci/pyenv.sh does): python3 -m venv %s && %s/bin/pip install "
		 PYENV_PIP_PINS, venv, venv);
	if (!given && env && *env)
		given = env;
	if (given) {
		if ((r = ask(given)) == PY_OK)
			return (*out = strdup(given)) ? HR_OK :
				hr_errf(e, HR_SYSTEM, "out of memory");
		return hr_errf(e, HR_SYSTEM, "Python %s: %s; give one that has "
			       "them (--python PY or $HEADROOM_PYTHON), or %s",
			       given, said(r), hint);
	}
	if ((r = ask("python3")) == PY_OK)
		return (*out = strdup("python3")) ? HR_OK :
			hr_errf(e, HR_SYSTEM, "out of memory");
	snprintf(vpy, sizeof(vpy), "%s/bin/python", venv);
	if (access(vpy, X_OK) == 0 && ask(vpy) == PY_OK)
		return (*out = strdup(vpy)) ? HR_OK :
			hr_errf(e, HR_SYSTEM, "out of memory");
	return hr_errf(e, HR_SYSTEM, "no Python with torch and numpy: "
		       "python3: %s, %s: %s; give one (--python PY or "
		       "$HEADROOM_PYTHON), or %s", said(r), vpy,
		       access(vpy, X_OK) ? "not there" : "no torch or numpy",
		       hint);
}
