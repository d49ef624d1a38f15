"""The domain words of dataset/base/vocab.def, for the worker.

Written by tests/vocab.py from that table; do not edit.  After a change
to the table run `python3 tests/vocab.py . --write` (the CLI case
vocabulary-worker-module-agrees fails until then).
"""

# a replay's mode
MODE_FAITHFUL = 'faithful'
MODE_ROBUST = 'robust'
MODES = (MODE_FAITHFUL, MODE_ROBUST)

# a job's phases, in the order a job goes through them
PH_DISPATCH = 'dispatch'
PH_START = 'start'
PH_REFERENCE = 'reference'
PH_BUILD = 'build'
PH_LOAD = 'load'
PH_CORRECTNESS = 'correctness'
PH_TIMING = 'timing'
PH_AUDIT = 'audit'
PHASES = (
    PH_DISPATCH,
    PH_START,
    PH_REFERENCE,
    PH_BUILD,
    PH_LOAD,
    PH_CORRECTNESS,
    PH_TIMING,
    PH_AUDIT,
)

# what a worker answers a job
PV_NO_PROBLEM = 'no_problem'
PV_NO_KERNEL = 'no_kernel'
PV_NEEDS_GPU = 'needs_gpu'
PV_PROBLEM_ERROR = 'problem_error'
PV_COMPILE_ERROR = 'compile_error'
PV_RUNTIME_ERROR = 'runtime_error'
PV_TIMEOUT = 'timeout'
PV_CRASHED = 'crashed'
PV_INCORRECT = 'incorrect'
PV_CORRECT = 'correct'
PV_BUILT = 'built'
PV_DRAWN = 'drawn'
PV_AUDITED = 'audited'
JOB_VERDICTS = (
    PV_NO_PROBLEM,
    PV_NO_KERNEL,
    PV_NEEDS_GPU,
    PV_PROBLEM_ERROR,
    PV_COMPILE_ERROR,
    PV_RUNTIME_ERROR,
    PV_TIMEOUT,
    PV_CRASHED,
    PV_INCORRECT,
    PV_CORRECT,
    PV_BUILT,
    PV_DRAWN,
    PV_AUDITED,
)
# the job verdicts a finished job may store
STORED_VERDICTS = frozenset({
    PV_NO_PROBLEM,
    PV_NO_KERNEL,
    PV_NEEDS_GPU,
    PV_PROBLEM_ERROR,
    PV_COMPILE_ERROR,
    PV_RUNTIME_ERROR,
    PV_TIMEOUT,
    PV_CRASHED,
    PV_INCORRECT,
    PV_CORRECT,
})

# audit verdict classes (a name ending in ':' is a prefix)
AV_VERIFIED_FASTER = 'verified-faster'
AV_CORRECT = 'correct'
AV_CORRECT_VACUOUS = 'correct-vacuous'
AV_INCORRECT = 'incorrect'
AV_EXPLOIT = 'exploit:'
AV_FAILED = 'failed:'
AV_SKIPPED = 'skipped:'
AUDITS = (
    AV_VERIFIED_FASTER,
    AV_CORRECT,
    AV_CORRECT_VACUOUS,
    AV_INCORRECT,
    AV_EXPLOIT,
    AV_FAILED,
    AV_SKIPPED,
)

# evidence finding ids, in verdict priority
F_CHANNEL_TAMPERED = 'channel-tampered'
F_HARNESS_PATCHED = 'harness-patched'
F_TIMER_DISAGREES = 'timer-disagrees'
F_BACKGROUND_WORK = 'background-work'
F_INPUTS_REDEFINED = 'inputs-redefined'
F_RESULT_CACHED = 'result-cached'
F_TIMING_PATH_DIFFERS = 'timing-path-differs'
F_OUTPUT_NOT_TENSOR = 'output-not-tensor'
F_OUTPUT_ALIASES_INPUT = 'output-aliases-input'
F_INPUT_MUTATED = 'input-mutated'
F_PARTIAL_WRITE = 'partial-write'
F_DISTRIBUTION_SPECIFIC = 'distribution-specific'
F_PARAMETERS_DIFFER = 'parameters-differ'
F_SIDE_STREAM = 'side-stream'
F_BACKGROUND_THREAD = 'background-thread'
F_WORK_AFTER_END_EVENT = 'work-after-end-event'
F_BELOW_PHYSICAL_FLOOR = 'below-physical-floor'
F_L2_PERSISTING = 'l2-persisting'
F_PRECISION_DOWNGRADE = 'precision-downgrade'
F_NONDETERMINISTIC = 'nondeterministic'
F_NO_OWN_KERNEL = 'no-own-kernel'
FINDINGS = (
    F_CHANNEL_TAMPERED,
    F_HARNESS_PATCHED,
    F_TIMER_DISAGREES,
    F_BACKGROUND_WORK,
    F_INPUTS_REDEFINED,
    F_RESULT_CACHED,
    F_TIMING_PATH_DIFFERS,
    F_OUTPUT_NOT_TENSOR,
    F_OUTPUT_ALIASES_INPUT,
    F_INPUT_MUTATED,
    F_PARTIAL_WRITE,
    F_DISTRIBUTION_SPECIFIC,
    F_PARAMETERS_DIFFER,
    F_SIDE_STREAM,
    F_BACKGROUND_THREAD,
    F_WORK_AFTER_END_EVENT,
    F_BELOW_PHYSICAL_FLOOR,
    F_L2_PERSISTING,
    F_PRECISION_DOWNGRADE,
    F_NONDETERMINISTIC,
    F_NO_OWN_KERNEL,
)
# findings that count only where the original check passed
CORRECT_ONLY = frozenset({F_PRECISION_DOWNGRADE, F_NO_OWN_KERNEL})

# where a job stops (a job message's stop_after)
STOP_ALL = 'all'
STOP_BUILD = 'build'
STOP_INPUTS = 'inputs'
STOP_REFERENCE = 'reference'
STOPS = (STOP_ALL, STOP_BUILD, STOP_INPUTS, STOP_REFERENCE)

# replay_run.state
RUN_RUNNING = 'running'
RUN_FINISHED = 'finished'
RUN_INTERRUPTED = 'interrupted'
RUN_STATES = (RUN_RUNNING, RUN_FINISHED, RUN_INTERRUPTED)

# replay_job.state
JOB_PENDING = 'pending'
JOB_DONE = 'done'
JOB_STATES = (JOB_PENDING, JOB_DONE)
