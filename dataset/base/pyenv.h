/* pyenv.h - the Python interpreter the replay workers and the profiler's
 * worker run.
 *
 * Owns: the rule, the run-time side of .ci/pyenv.sh.  The interpreter is
 * --python when given, else $HEADROOM_PYTHON when set and not empty, else
 * the first of python3 (on PATH) and the virtual environment .ci/pyenv.sh
 * makes ($HEADROOM_VENV, else ~/.cache/headroom/venv-torch-2.11.0) that
 * has torch and numpy.  An interpreter is asked once, without importing
 * torch (importlib.util.find_spec, with the working directory taken off
 * sys.path): a few tens of milliseconds.  When the chosen one, or every
 * candidate, lacks them, the error says what was tried and how to make
 * one.  Must not: print.
 */
#ifndef HR_PYENV_H
#define HR_PYENV_H

#include "err.h"

/* The virtual environment .ci/pyenv.sh makes (keep the two in step). */
#define PYENV_VENV_NAME "venv-torch-2.11.0"
#define PYENV_PIP_PINS "torch==2.11.0 numpy==2.4.6 ninja==1.13.2"

/* Choose the interpreter: given is --python (NULL when not given).  On
 * success *out is a malloc'd path or command name; else an HR_SYSTEM
 * error in e that names what was tried. */
int pyenv_find(const char *given, char **out, struct hr_err *e);

#endif
