"""hrworker/job.py - one job, judged in its own process: it drives the
stages -- the problem and its reference, the input sets
(hrworker/inputs.py), the candidate's build and its model in the job's
candidate process (hrworker/remote.py: candidate code runs there and
nowhere else), the correctness trials (hrworker/checks.py) and timing
(hrworker/timing.py) under the semantics the job asks for -- and sends its
phases; its one result is what run() returns (Job)."""
import gc
import os
import re
import statistics
import time

from hrworker import nvml, vocab
from hrworker.account import stat_fields
from hrworker.audit import add_finding, clean_inputs_description, spent
from hrworker.channel import RemoteError
from hrworker.checks import Checks, audit_problem
from hrworker.context import AUDIT_FRESH, AUDIT_REDRAW, JobContext, Verdict, problem_namespace
from hrworker.escapes import judge_pass
from hrworker.inputs import InputSets
from hrworker.loan import hush_channel, keeper_quiet
from hrworker.precision import apply_settings, precision_flags
from hrworker.quiet import BackgroundGpu, Quiet, ToolBusy
from hrworker.redraw import Redraw, spec_entries
from hrworker.remote import CandidateGone, CandidateProcess, RemoteModel, audit_failure
from hrworker.sandbox import Sandbox
from hrworker.seccomp import ancestors
from hrworker.timing import ESCAPES_SEED_OFFSET, Timing
from hrworker.util import Laps, exc_text, finite, is_oom


# An out-of-memory error is not a job's own where processes outside it
# (another run's keeper, a process nobody stopped) held at least this much
# of the device, and with it the free memory covers what the failing
# allocation asked for: on the empty GPU the original harness had, it
# would have fitted.  A few CUDA contexts (0.5-0.9 GiB each: the run's
# other workers) are below it.
OTHERS_HELD_MIN = 4 << 30
ASKED = re.compile(r"Tried to allocate ([0-9.]+) (B|KiB|MiB|GiB|TiB)")


def memory_note(torch, own_pids=()):
    """What the device held when a job ran out of memory: free and total
    (the driver's), this process's allocated and reserved bytes; with
    own_pids (the job's processes), what NVML says every other process
    held (others: {pid: bytes}, others_bytes; others_whose: each one's
    command and whether it is of this run, whose) and what the failing
    allocation asked for where the error says (asked_bytes: the caller)."""
    note = {}
    try:
        free, total = torch.cuda.mem_get_info()
        note.update(free_bytes=int(free), total_bytes=int(total),
                    judge_allocated_bytes=int(torch.cuda.memory_allocated()),
                    judge_reserved_bytes=int(torch.cuda.memory_reserved()))
    except Exception as e:      # noqa: a note, never a failure
        note["error"] = exc_text(e)
    dev, why = nvml.open_device(pci_bus_id=nvml.torch_pci_bus_id(torch))
    procs = dev.processes() if dev is not None else None
    if dev is not None:
        dev.close()
    if procs is not None and own_pids and not set(own_pids) & set(procs):
        # The driver's pids are of another PID namespace (a container):
        # none of the job's own is there, though the judge holds a context.
        procs, why = None, "NVML's pids are not this namespace's"
    if procs is None:
        note["others"] = "unknown: %s" % (why or "NVML gave no process list")
    else:
        others = {str(p): b for p, b in procs.items() if p not in set(own_pids)}
        note.update(others=others, others_bytes=sum(others.values()),
                    others_whose=whose([int(p) for p in others]))
    return note


def proc_stat(pid):
    """(command name, parent pid) of a process from /proc/PID/stat (the
    fields after the name: account.stat_fields), or None where it is gone
    or hidden."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            raw = f.read()
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        name = raw.split(b"(", 1)[1].rsplit(b")", 1)[0].decode(errors="replace")
        return name, int(stat_fields(raw)[1])
    except (OSError, IndexError, ValueError):
        return None


def whose(pids, root=None):
    """{pid: {command, run}} for processes that held device memory: each
    one's command name, and whether it is of this run (root, the worker's
    parent by default: the orchestrator, among it and its ancestors:
    seccomp.ancestors) -- a build worker's job, another job's teardown --
    or outside it (another run, a process nobody stopped); command None
    where /proc does not show it."""
    if root is None:
        worker = proc_stat(os.getppid())
        root = worker[1] if worker else None
    out = {}
    for pid in pids:
        st = proc_stat(pid)
        out[str(pid)] = {"command": st[0] if st else None,
                         "run": bool(st) and root is not None and root in ancestors(pid, 64)}
    return out


JUDGE_FAILED = "the judge's own code failed: %s"


def judges_own(e):
    """Is e, which no part of a job answered, the judge's own code's?  Any
    Exception but a candidate's RemoteError (its process's end comes as
    CandidateGone, not an Exception): failed:tool, never the candidate's
    (Job.judge_failed; the worker's last resort for what Job.run never met)."""
    return isinstance(e, Exception) and not isinstance(e, RemoteError)


def asked_bytes(text):
    """What a failing allocation asked for, from torch's message, or None."""
    m = ASKED.search(str(text or ""))
    if m is None:
        return None
    unit = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[m.group(2)]
    return int(float(m.group(1)) * unit)

# The fields of a build record the judge keeps from the candidate process.
EXT_FIELDS = {"name": str, "dir": str, "cache": str, "private": str, "seconds": (int, float),
              "cpu_seconds": (int, float), "failed": bool, "pch": str,
              "pch_unusable": bool, "pch_cpu_seconds": (int, float)}


class Job:
    phase_t0: float         # when the current phase began (phase)

    def __init__(self, msg, cfg, proto, torch, cand=None):
        self.ctx = JobContext(msg, cfg, torch)
        self.cand = cand        # remote.CandidateProcess (None: no candidate code runs)
        self.m, self.cfg, self.proto, self.torch = msg, cfg, proto, torch
        self.id, self.mode, self.seed = self.ctx.id, self.ctx.mode, self.ctx.seed
        self.result, self.checks = self.ctx.result, self.ctx.checks
        self.sets = None        # InputSets, once the problem is read
        self.predrawn = None    # what predraw did (a build job with "draw")
        self.hush = None        # the keeper's hush channel (loan.hush_channel)
        self.param_spec = None  # the candidate model's parameters (candidate.parameter_spec)
        self.t_start = cfg.job_t0 or time.monotonic()
        self.phase_s = self.checks["phase_seconds"] = {}

    def phase(self, name: str) -> None:
        """Enter a phase: tell the orchestrator (a new limit from now on),
        and time the phases (the seconds of each, from the job's start, in
        checks.phase_seconds; the audit's, entered after the trials and
        again after the timing, summed)."""
        now = time.monotonic()
        if self.result.get("phase") is not None:
            self.phase_ends(now)
        else:
            self.phase_s["start"] = round(now - self.t_start, 3)
        self.phase_t0 = now
        self.result["phase"] = name
        if name == vocab.PH_AUDIT:
            self.ctx.budget.begin()
        self.proto.send({"type": "phase", "job": self.id, "phase": name})

    def phase_ends(self, now: float) -> None:
        """The phase the job is in ends at now: its seconds added to it."""
        last = self.result["phase"]
        self.phase_s[last] = round(self.phase_s.get(last, 0.0) + now - self.phase_t0, 3)

    def run(self):
        c = self.ctx
        self.checks["semantics"] = {
            "mode": c.mode, "harness": c.harness, "precision": c.precision,
            "seed": c.seed, "tolerance": c.tol,
            "allclose": "torch.allclose(ref, cand, atol=tol, rtol=tol)",
            "namespace": "one" if c.mode == vocab.MODE_FAITHFUL else "separate",
            "reference": "the judge's own (the candidate process cannot reach it)",
            "inputs_cast": c.harness == "current"}
        try:
            self.stages()
        except Verdict as v:
            self.result.update(verdict=v.verdict, error_kind=v.kind, error=v.text, **v.extra)
            self.out_of_memory(v.text)
        except Exception as e:      # noqa: the judge's own code: never the candidate's
            if not judges_own(e):
                raise               # the candidate's, as before: the worker answers
            self.judge_failed(e)
        except CandidateGone as g:
            if g.how is not None:
                self.die_as(g.how)
            # The candidate process broke the protocol: the judge answers.
            self.result.update(verdict=vocab.PV_CRASHED, error_kind="candidate_process",
                               error=g.remote_text, correct=False)
            add_finding(self.ctx, vocab.F_CHANNEL_TAMPERED, phase=self.result.get("phase"),
                        what=g.remote_text)
        if self.result.get("phase") is not None:
            self.phase_ends(time.monotonic())
        cut, off = c.budget.summary(), c.budget.off_summary()
        if cut:
            self.checks["audit_cut"] = cut
        if off:
            self.checks["audit_budget_off"] = off
        refused = self.cfg.sandbox.violations + (self.cand.sandbox if self.cand else [])
        if refused:
            self.checks["sandbox"] = refused
            # Whatever the candidate's code made of the refusal (a trial it
            # then failed, an import that raised), the verdict says it.
            if self.result.get("verdict") in (vocab.PV_CORRECT, vocab.PV_INCORRECT,
                                              vocab.PV_COMPILE_ERROR,
                                              vocab.PV_RUNTIME_ERROR):
                self.checks["verdict_without_sandbox"] = self.result["verdict"]
                self.result.update(verdict=vocab.PV_RUNTIME_ERROR, correct=False,
                                   error_kind="sandbox",
                                   error=Sandbox.describe(refused[0]))
        if self.cand is not None:
            self.checks["candidate_process"] = self.cand.hello.get("confined")
            if self.cand.builder is not None:
                self.checks["builder_process"] = self.cand.builder.hello.get("confined")
        err = self.checks.get("audit_error")
        if err and self.result.get("verdict") == vocab.PV_CORRECT and self.out_of_memory(err, "audit"):
            self.checks["audit_error_without_tool"] = self.checks.pop("audit_error")
        self.tool_failed_audit()
        self.tool_failed_build()
        self.retry_after_builds()
        return self.result

    def retry_after_builds(self):
        """A robust GPU job whose candidate's handshakes waited for a CPU
        through more than a share of its timed readings
        (checks.timing.candidate_waited: a host the run's own builds, or
        other work, kept busy) read the candidate slower than its kernels
        ran, and a do-nothing kernel above the physical floor; the
        orchestrator runs it once more after the run's builds are done
        (the message's "after_builds"), and that attempt's result is the
        job's.  A job with findings too: a timing finding the waits hid
        would be missing from its evidence (on the H100 a do-nothing
        kernel read 4.4 ms a call beside the builds and had
        output-aliases-input without below-physical-floor).  Not where
        the verdict is other than correct (no figure judged), nor on the
        attempt after the builds."""
        rec = (self.checks.get("timing") or {}).get("candidate_waited")
        if (rec is None or not self.ctx.cuda or self.m.get("after_builds")
                or self.result.get("verdict") != vocab.PV_CORRECT):
            return
        self.result["retry_after_builds"] = True

    def tool_failure(self, error, **extra):
        """The job is the tool's failure (runtime_error of kind "tool":
        failed:tool, never the candidate's), the verdict it had kept in
        checks.verdict_without_tool."""
        self.checks["verdict_without_tool"] = self.result.get("verdict")
        self.result.update(verdict=vocab.PV_RUNTIME_ERROR, error_kind="tool", correct=None,
                           error=error, **extra)

    def judge_failed(self, e):
        """An exception of the judge's own code that no part answered (a
        candidate's error comes as a RemoteError, its process's end as
        CandidateGone): the tool's failure, failed:tool; out of device
        memory, the tool's too and retried alone (out_of_memory)."""
        text = exc_text(e)
        if not self.out_of_memory(text):
            self.tool_failure(JUDGE_FAILED % text[:1000])

    def tool_failed_build(self):
        """A build the cache could not keep (builder.Builder.trouble: its
        disk, a file in the entry's place) is the tool's failure whatever
        the candidate then did (raised, or went on without its extension):
        failed:tool, the verdict it would have had in checks."""
        b = self.cand.builder if self.cand is not None else None
        if b is None or not b.trouble:
            return
        self.checks["build_cache_error"] = b.trouble[:4]
        if self.result.get("error_kind") == "tool":
            return
        self.tool_failure(b.trouble[0], compiled=None)

    def tool_failed_audit(self):
        """A job whose trials passed and whose audit the judge's own code
        could not finish (checks.audit_tool_error: remote.audit_failure)
        is the tool's failure, failed:tool: not the candidate's, and no
        win while a check is missing.  Out of device memory there is the
        tool's too, and retried alone (out_of_memory)."""
        err = self.checks.get("audit_tool_error")
        if not err or self.result.get("verdict") != vocab.PV_CORRECT:
            return
        if self.out_of_memory(err, "audit"):
            return
        self.tool_failure("the judge's own audit code failed: %s" % str(err)[:1000])

    def out_of_memory(self, text, where=None):
        """A job that ran out of device memory while the tool held some of
        its own (the keeper's sets, the last job's teardown, other
        processes of the run) is the tool's failure, not the candidate's or
        the reference's: the verdict becomes runtime_error of kind "tool"
        (failed:tool) and retry_alone asks the orchestrator to run it once
        more with that memory released (the message's "alone": the worker
        stops its keeper and waits for every earlier job's teardown).  A
        job that ran out alone keeps its verdict: the reference's
        (problem_error: failed:reference) or the candidate's.  True when
        the failure was made the tool's."""
        if not self.ctx.cuda or not is_oom(text):
            return False
        pids = {"judge": os.getpid(), "keeper": getattr(self.cfg, "keeper_pid", None),
                "candidate": getattr(self.cand, "pid", None)}
        own = [p for p in pids.values() if p] + (self.cand.family.pids() if self.cand else [])
        mem = self.checks["memory"] = memory_note(self.torch, own)
        mem.update(alone=bool(self.m.get("alone")), where=where or self.result.get("phase"),
                   # whose pids the error's "Process N has X GiB" lines name
                   pids=pids, asked_bytes=asked_bytes(text), error=str(text)[:1500])
        others = mem.get("others_bytes")
        if (self.m.get("alone") and isinstance(others, int) and others >= OTHERS_HELD_MIN
                and others + mem.get("free_bytes", 0) >= (mem["asked_bytes"] or 0)):
            # Alone, and still short for memory processes outside the job
            # held: not the GPU the original harness had.  Nobody's
            # verdict; the tool's (or the machine's) failure.
            mem["attribution"] = "ran out alone while other processes held %.1f GiB" % (
                others / (1 << 30))
            self.tool_failure("out of device memory while processes outside the job held "
                              "%.1f GiB (%s): %s" % (others / (1 << 30), ", ".join(
                                  "pid %s %.1f GiB" % (p, b / (1 << 30)) for p, b in sorted(
                                      mem["others"].items(), key=lambda kv: -kv[1])[:4]),
                                  str(text)[:600]))
            return True
        if self.m.get("alone"):
            # Alone, the audit's own calls are still the judge's: the
            # caller makes that failed:tool (tool_failed_audit).
            mem["attribution"] = "ran out alone: the %s's" % (
                "judge's audit" if where == "audit" else
                "reference" if self.result.get("verdict") == vocab.PV_PROBLEM_ERROR else "candidate")
            return False
        self.tool_failure("out of device memory while headroom held memory of its own "
                          "(keeper, earlier jobs): %s" % str(text)[:1000], retry_alone=True)
        mem["attribution"] = "the tool's: retried alone"
        return True

    @staticmethod
    def die_as(how):
        """The candidate process ended (its code crashed, exited or killed
        it): the job's process ends the same way, without an answer, so
        that the orchestrator sees what it saw before the split -- the
        signal or the exit status, after the job's last phase -- and
        retries a SIGKILL (the kernel's OOM killer) as it does."""
        import signal as sig
        if how[0] == "signal":
            os.kill(os.getpid(), how[1])
            os.kill(os.getpid(), sig.SIGKILL)   # a signal caught or ignored here
        os._exit(how[1])

    def give_back(self):
        """Before the process exits: free the sets the keeper lent, so that
        torch's IPC reference counts reach zero.  The job ends with
        os._exit, which frees nothing: a lent set the keeper later drops
        would stay in its "limbo" (device memory it never gets back; on the
        H200 the keeper outgrew its budget and left mid-run), then close
        the connection, on which the keeper checks the sets."""
        if self.sets is not None:
            self.sets.draws = self.sets.placed = None
        if self.cand is not None:
            self.cand.close()
        gc.collect()
        conn = getattr(self.cfg, "keeper_conn", None)
        if conn is not None:
            conn.close()
            self.cfg.keeper_conn = None

    def stages(self):
        t, m, c = self.torch, self.m, self.ctx
        stop = m.get("stop_after")
        # Reference: one namespace as KernelBench's exec(src, context).
        self.phase(vocab.PH_REFERENCE)
        try:
            ctx = problem_namespace(m["problem_code"], m.get("problem_file"))
            Model, get_inputs = ctx["Model"], ctx["get_inputs"]
            get_init_inputs = ctx["get_init_inputs"]
            c.set_seed(self.seed)
            init_raw = list(get_init_inputs())
            # A build or a draw job times nothing and compares nothing: no
            # reference model, and no init input placed on the device,
            # where a tensor would make the judge a CUDA context held
            # through the build (about 0.5 GiB a job, many jobs at once).
            # A Model() that fails is its run job's problem_error.
            ref_model = None
            if stop not in (vocab.STOP_BUILD, vocab.STOP_INPUTS):
                init_inputs = [c.place(x) for x in init_raw]
                with t.no_grad():
                    c.set_seed(self.seed)
                    ref_model = Model(*init_inputs)
            self.sets = InputSets(c, get_inputs)
            if stop in (vocab.STOP_BUILD, vocab.STOP_INPUTS) and m.get("draw"):
                self.predrawn = self.sets.predraw()     # ahead, for the run worker
                # At once, not with the result: a build's result comes a
                # minute later, and the orchestrator's room for the next
                # problem's draws needs the number of sets a problem has.
                self.proto.send({"type": "predraw", "job": self.id,
                                 "predraw": self.predrawn})
            elif stop not in (vocab.STOP_BUILD, vocab.STOP_REFERENCE, vocab.STOP_INPUTS):
                self.sets.draw_all()
        except Exception as e:
            raise Verdict(vocab.PV_PROBLEM_ERROR, "reference", exc_text(e))
        if stop == vocab.STOP_REFERENCE:
            audit_problem(c, self.sets, ref_model)
            return
        if stop == vocab.STOP_INPUTS:
            self.result.update(verdict=vocab.PV_DRAWN, predraw=self.predrawn)
            return
        # From here on candidate code runs, in the candidate process: the
        # keeper takes no more requests from this job.
        if self.cfg.keeper is not None:
            self.hush = hush_channel(self.cfg)  # its timed calls hold the draws ahead
            self.cfg.keeper.close()
            self.cfg.keeper = None
        cp = self.cand
        if cp is None:
            raise Verdict(vocab.PV_CRASHED, "worker", "no candidate process for a job that runs one")
        if not cp.cuda:         # host inputs live in memory the candidate process maps
            self.sets.share = cp.shared.share_cpu

        # Build: executing the candidate (after the problem's code, in one
        # namespace of the candidate process's, as KernelBench) runs
        # load_inline, answered from the cache, whose entries the job's
        # builder process makes (builder.py).  Other builders (load,
        # setup-style) build in the candidate process's own folder, through
        # TORCH_EXTENSIONS_DIR as KernelBench.
        self.phase(vocab.PH_BUILD)
        if stop != vocab.STOP_BUILD:
            self.calibrate()
        build = self.result["build"] = self.checks["build"] = {}
        if self.predrawn is not None:
            build["predraw"] = self.predrawn
        rep = cp.build(code=m["candidate_code"], filename=m.get("candidate_file", "candidate.py"),
                       problem_code=m["problem_code"], problem_file=m.get("problem_file"))
        exts = self.build_records(rep.get("extensions"))
        build.update(extensions=exts, seconds=float(rep.get("seconds") or 0),
                     cpu_seconds=round(sum(x.get("cpu_seconds", 0) for x in exts), 3),
                     cache=("none" if not exts else "hit" if
                            all(x.get("cache") == "hit" for x in exts) else "miss"))
        # The build log says where a candidate's flags or includes (or the
        # machine) kept an extension from the precompiled header (pch.py).
        notes = "".join("extension %s: plain build, no precompiled header: %s\n"
                        % (x.get("name"), x.get("pch", "")[len("plain: "):])
                        for x in exts if x.get("pch_unusable"))
        if notes:
            self.result["build_log"] = notes[:4000]
        if rep.get("ok") is not True:
            text = str(rep.get("error"))[:4000]
            self.result["build_log"] = (notes + text)[:4000]
            raise Verdict(vocab.PV_COMPILE_ERROR, "build", text, compiled=False, correct=False)
        self.result["compiled"] = True
        self.global_state(rep.get("global_state"))
        self.after_import(rep.get("rebound"))
        if stop == vocab.STOP_BUILD:
            self.result.update(verdict=vocab.PV_BUILT)
            return

        self.phase(vocab.PH_LOAD)
        try:
            loaded = cp.load(init_raw, self.seed)
        except Exception as e:      # RemoteError: ModelNew(...) raised there
            raise Verdict(vocab.PV_RUNTIME_ERROR, "load", exc_text(e), correct=False)
        try:
            with t.no_grad():
                ref = c.place_model(ref_model)
                c.sync()
        except Exception as e:
            raise Verdict(vocab.PV_PROBLEM_ERROR, "reference", exc_text(e), correct=False)
        self.parameters(ref_model, loaded.get("parameters"))
        new = RemoteModel(cp)

        self.phase(vocab.PH_CORRECTNESS)
        checks = Checks(c, ref, new, self.sets)
        checks.on_audit = lambda: self.phase(vocab.PH_AUDIT)
        try:
            checks.correctness()
        finally:
            self.tampered("correctness")
        if not self.result["correct"]:
            return
        checks.trim()
        # The timed calls and the audit's (calls timed again among them):
        # the keeper draws no set ahead meanwhile (loan.keeper_quiet).
        with keeper_quiet(self.hush, self.checks, "keeper_quiet"):
            self.timing_and_audit(c, ref, new, checks, cp)

    def timing_and_audit(self, c, ref, new, checks, cp):
        """The timing phase (faithful: the harness's loop; robust: the
        interleaved rounds), then the audit's calls and checks."""
        self.phase(vocab.PH_TIMING)
        timing = Timing(c, ref, new, self.sets, checks)
        timing.clocks = timing.clock_sampler()
        timing.on_audit = lambda: self.phase(vocab.PH_AUDIT)
        cp.family.arm(True)     # background-work: the timing phase's windows
        try:
            if self.mode == vocab.MODE_ROBUST:
                timing.time_robust()
            else:
                timing.time_faithful()
        except (BackgroundGpu, ToolBusy) as e:
            # The candidate's processes were killed (quiet.Quiet.settle):
            # nothing of it is left to audit.
            self.gpu_held(e)
            return
        except Exception as e:  # KernelBench: error_during_performance
            self.result.update(error_kind="timing", error=exc_text(e))
        finally:
            cp.family.arm(False)
            if cp.quiet is not None:
                self.checks["quiet"] = cp.quiet.summary()
            if self.tampered("timing"):
                self.checks["timing_void"] = "the harness was patched"
        # The audit's own calls: a phase of their own, with a limit of its
        # own, so that a job whose timing ends near its limit is never
        # stopped by the tool's calls as a timeout of the timing (entered
        # by Timing.audit_begins once the timed calls are over, or here).
        if self.result.get("phase") != vocab.PH_AUDIT:
            self.phase(vocab.PH_AUDIT)
        budget = self.ctx.budget
        if self.result.get("runtime_ms") is not None and budget.allows("escapes", pairs=4):
            checks.trim()
            self.escapes(ref, new, timing)
        if budget.allows("redraw", pairs=2):
            self.redraw(checks)
        self.clock_check()
        self.background_check()
        self.inputs_redefined()

    def gpu_held(self, e):
        """The GPU stayed busy while the candidate's processes were stopped
        around a timed call of the reference (quiet.Quiet.settle), and they
        were killed: quiet then, the work was the candidate's
        (background-work, no speedup); busy still, it was neither the
        judge's nor the candidate's (failed:tool, retried alone)."""
        self.background_check()
        for k in ("speedup", "ci_low", "ci_high", "runtime_ms", "baseline_ms"):
            self.result.pop(k, None)
        if isinstance(e, BackgroundGpu):
            self.checks["timing_void"] = ("the candidate's work held the GPU while the "
                                          "reference was to be timed")
            add_finding(self.ctx, vocab.F_BACKGROUND_WORK, **e.evidence)
            return
        self.tool_failure(str(e), retry_alone=not self.m.get("alone"))

    # ------------------------------------------------------- the audit
    def escapes(self, ref, new, timing):
        """The GPU escapes (hrworker/escapes.py) after the job's timing,
        warm-ups on its first input set, the profiled call and the
        precision check on a set of new content (fresh_content: a
        candidate that caches its output by the input's address or content
        computes on it, so its call's kernels are there to attribute): the
        candidate process measures what its
        call does beyond the timed stream and thread (candidate_pass; its
        findings are its own evidence against itself, checked against the
        ids it may report), the judge checks its output's precision
        against an fp64 run of the reference (judge_pass).  checks.escapes
        holds the evidence, own_share the share of the call's kernel (CPU:
        host) time in the candidate's own code; a failure here is recorded
        and changes no verdict."""
        c, t = self.ctx, self.torch
        rec = self.checks["escapes"] = {}
        secs = {}           # the judge's view of the parts' seconds (checks.escapes.judge_seconds)
        laps = Laps(secs)
        try:
            with spent(c, "escapes", "pass"):
                inputs = self.sets.fresh_content(c.audit_seed(AUDIT_FRESH + ESCAPES_SEED_OFFSET))
                flags_before = precision_flags(t)
                flush = timing.flush_bytes(True) if self.mode == vocab.MODE_ROBUST and c.cuda else 0
                laps.lap("draw")
                rep = self.cand.escapes(self.sets.fresh_inputs(self.seed), inputs,
                                        self.mode == vocab.MODE_ROBUST, flush)
                laps.lap("candidate_pass")
                rec.update(rep["evidence"])
                rec["judge_seconds"] = secs
                for f in rep["findings"]:
                    add_finding(c, f["id"], **f["evidence"])
                share = (rec.get("profile") or {}).get("share") or {}
                if isinstance(share.get("own_share"), (int, float)):
                    self.result["own_share"] = share["own_share"]
                with t.no_grad():
                    out = new(*inputs)
                    laps.lap("candidate_call")
                    prec = judge_pass(t, ref, out, inputs, flags_before,
                                      rep, c.cuda)
                    laps.lap("judge_pass")
                for f in prec.pop("findings", ()):
                    add_finding(c, f["id"], **f["evidence"])
                rec["precision"] = prec
        except CandidateGone:
            raise
        except Exception as e:  # noqa: the candidate's or the profiler's
            rec["error"] = exc_text(e)

    @staticmethod
    def build_records(exts):
        """The candidate process's build records, field by field."""
        out = []
        for x in (exts if isinstance(exts, list) else [])[:64]:
            if isinstance(x, dict):
                out.append({k: x[k] for k, typ in EXT_FIELDS.items()
                            if isinstance(x.get(k), typ)})
        return out

    def tampered(self, when):
        """harness-patched when the candidate process says what the harness
        relies on there is no longer what it was before candidate code ran
        (its own evidence against itself: the judge's functions are out of
        its reach); True then."""
        names = self.cand.patched
        if names:
            add_finding(self.ctx, vocab.F_HARNESS_PATCHED, when=when, names=names)
        return bool(names)

    def calibrate(self):
        """Before candidate code runs: the judge calibrates the timed
        calls' handshake, each way this job times (CandidateProcess.
        calibrate; checks.timing_channel.calibration).  The judge's own
        device work queued before it (the reference's outputs, draws) is
        done first and counted apart (pending_gpu_seconds): on an H100 it
        was 0.2-0.5 s of a matmul job, and read as the calibration's own
        (calibration_seconds, what the accounting costs a job)."""
        t0 = time.monotonic()
        self.ctx.sync()
        pending = time.monotonic() - t0
        t0 = time.monotonic()
        with keeper_quiet(self.hush, self.checks, "keeper_quiet_calibration"):
            if self.mode == vocab.MODE_ROBUST and os.environ.get("HEADROOM_QUIET") != "0":
                # The candidate's processes stopped around the reference's
                # timed calls; on a GPU, the calm probe (quiet.py).
                self.cand.quiet = Quiet(self.cand.family, self.torch, self.ctx.cuda,
                                        self.ctx.device)
                self.cand.quiet.calibrate()
            self.cand.calibrate(self.timed_ways())
        self.checks.setdefault("timing_channel", {}).update(
            calibration=self.cand.calibration_record(),
            calibration_seconds=round(time.monotonic() - t0, 4),
            pending_gpu_seconds=round(pending, 4))

    def timed_ways(self):
        """Each way this job times a call (Timing.ways): what calibrate and
        recalibrate make their calls of nothing in."""
        return Timing(self.ctx, None, None, None, None).ways()

    def clock_check(self):
        """timer-disagrees: the candidate process's clock (its CUDA events)
        and the judge's, around the same timed calls, disagree
        (CandidateProcess.clock_check, its bound widened by a calibration
        after the timed calls: CandidateProcess.recalibrate); the times are
        void then."""
        if self.cand.walls:
            made = self.cand.recalibrate(self.timed_ways())
            self.checks.setdefault("timing_channel", {}).update(
                recalibration=self.cand.calibration_record(
                    {w: c for w, c in self.cand.cal_after.items() if w in made}),
                recalibration_settled=len(self.cand.cal_after) - len(made))
        if self.cand.cal_settled:
            # The calls of nothing after the timed run, and what its figures
            # took off (CandidateProcess.settle).
            self.checks.setdefault("timing_channel", {}).update(
                settled=self.cand.calibration_record(self.cand.cal_settled),
                taken=self.cand.calibration_record(self.cand.taken))
        rec = self.cand.clock_check()
        if rec is not None:
            rec = self.confirm_clock(rec)
        if rec is not None:
            add_finding(self.ctx, vocab.F_TIMER_DISAGREES, **rec)
            self.checks["timing_void"] = "the candidate's clock disagrees with the judge's"
        if self.cand.walls:
            missed = self.cand.uncalibrated()
            if missed:
                self.checks["timing_channel"]["uncalibrated_ways"] = [list(w) for w in missed]
            n = len(self.cand.walls)
            self.checks["timing_channel"].update(
                timed_calls=n,
                # Medians over every timed call: the judge's figure and the
                # candidate's own reading, which enters no figure (their
                # difference is handshake the calibration did not take off,
                # or work the candidate's clock did not see).
                figure_ms_median=finite(statistics.median(
                    self.cand.figure(i) for i in range(n))),
                own_ms_median=finite(statistics.median(self.cand.events)),
                run_delay_ms=round(sum(self.cand.delays), 6),
                run_delay_source=self.cand.run_delay.source,
                # whether the judge spun awaiting each done (channel.spin_wait)
                handshake_spin=self.cand.spin_s > 0,
                **({"stamps": self.cand.stamps} if self.cand.stamps else {}),
                figure="the judge's clock around the handshake less its calibrated overhead; "
                "the candidate process's %s checked against it"
                % ("CUDA events" if self.cand.cuda else "perf_counter_ns"))

    def confirm_clock(self, rec):
        """The clocks disagreed on the timed calls (rec, the evidence):
        the evidence stands only where calls timed again the same way
        disagree too (CandidateProcess.confirm_clock); else a hiccup of
        the host stretched the first ones, and checks.timing_channel keeps
        what was seen (unconfirmed), as it does where the audit's budget
        has no room for the calls (budget.AuditBudget: a verified speedup
        is then impossible).  Returns the evidence, with the confirmation's,
        or None."""
        if not self.ctx.budget.allows(
                "clock_confirmation",
                cost_s=CandidateProcess.confirm_seconds(self.ctx.budget.pair_s)):
            self.checks.setdefault("timing_channel", {})["clock_disagreement_unconfirmed"] = rec
            return None
        try:
            with spent(self.ctx, "timing", "confirm_clock"):
                again = self.cand.confirm_clock(self.sets.fresh_inputs(self.seed))
        except CandidateGone:
            raise
        except Exception as e:      # noqa: the candidate's: the first evidence stands
            rec["confirmation"] = {"error": exc_text(e)[:300]}
            return rec
        if again is None:
            self.checks.setdefault("timing_channel", {})["clock_disagreement_unconfirmed"] = rec
            return None
        rec["confirmation"] = again
        return rec

    def parameters(self, ref_model, spec):
        """parameters-differ: a parameter of the reference that the
        candidate's model lacks or holds in another shape.  Matched by name,
        else by shape among the candidate's parameters no name matched (a
        module renamed keeps its parameters); the candidate's extra ones
        are recorded, not evidence.  A LayerNorm weight declared (64,) for
        (64, 256, 256) passes the trials only because both start at one."""
        t = self.torch
        if not isinstance(spec, list) or not isinstance(ref_model, t.nn.Module):
            return
        self.param_spec = spec
        cand = {name: shape for name, shape, _ in spec_entries(spec)}
        free = dict(cand)
        missing, reshaped, renamed = [], [], []
        ref = [(n, tuple(p.shape)) for n, p in ref_model.named_parameters()]
        for name, shape in ref:
            if name in free and free[name] == shape:
                del free[name]
        for name, shape in ref:
            if name in cand and cand[name] == shape:
                continue
            other = next((k for k, v in free.items() if v == shape), None)
            if other is not None:
                del free[other]
                renamed.append([name, other])
            elif name in cand:
                reshaped.append({"name": name, "reference": list(shape),
                                 "candidate": list(cand[name])})
            else:
                missing.append({"name": name, "shape": list(shape)})
        self.checks["parameters"] = {
            "reference": len(ref), "candidate": len(cand), "renamed": renamed[:64],
            "missing": missing[:64], "reshaped": reshaped[:64],
            "candidate_only": sorted(free)[:64]}
        if missing or reshaped:
            add_finding(self.ctx, vocab.F_PARAMETERS_DIFFER, missing=missing[:16],
                        reshaped=reshaped[:16])

    def redraw(self, checks):
        """parameters-differ, the other way: right only at the parameters'
        initial values (hrworker/redraw.py), after the timing of a job
        whose trials passed and whose parameters' shapes matched."""
        if not self.result.get("correct") or not self.param_spec:
            return
        if any(f["id"] == vocab.F_PARAMETERS_DIFFER for f in self.result.get("findings", ())):
            return
        try:
            with spent(self.ctx, "timing", "redraw"):   # it runs after the timed calls
                # the timing seed's set: the one kept last (escapes too)
                rec, found = Redraw(checks, self.cand).run(
                    self.param_spec, self.seed, self.ctx.audit_seed(AUDIT_REDRAW))
        except CandidateGone:
            raise
        except Exception as e:      # noqa: the trials stand
            audit_failure(self.checks, "redraw", e)
            return
        self.checks["parameters_redrawn"] = rec
        if found is not None:
            add_finding(self.ctx, vocab.F_PARAMETERS_DIFFER, **found)

    def global_state(self, changed):
        """checks.global_state_changed: the process-wide settings the
        candidate's import changed (candidate.global_state), as its process
        reported them.  A faithful job's reference then runs under them, as
        KernelBench's does in the one process it shares with the candidate
        (checks.global_state_applied: what the judge set, and what it
        would not); a robust job's judge keeps its own.  A signal: a
        precision flag lowered is evidence where it matters, at the call
        (precision-downgrade)."""
        if isinstance(changed, dict) and changed:
            changed = {str(k)[:80]: v for k, v in list(changed.items())[:32]
                       if isinstance(v, dict)}
            self.checks["global_state_changed"] = changed
            if self.mode == vocab.MODE_FAITHFUL:
                done, refused = apply_settings(self.torch, changed)
                self.checks["global_state_applied"] = {"set": done, "not_set": refused}

    def background_check(self):
        """background-work: the candidate's processes ran outside its calls
        (while the judge timed the reference, say), by the kernel's account
        of their CPU time (account.Family); checks.background holds the
        account either way, and the times are void with the finding."""
        fam = self.cand.family
        self.checks["background"] = {k: round(v, 6) if isinstance(v, float) else v
                                     for k, v in fam.summary().items()}
        rec = fam.finding()
        if rec is not None:
            add_finding(self.ctx, vocab.F_BACKGROUND_WORK, **rec)
            self.checks.setdefault("timing_void",
                                   "the candidate's processes worked outside its calls")

    def after_import(self, names):
        """Once the candidate's module ran: the names of the problem's
        namespace it rebound (checks.namespace_rebound, as the candidate
        process saw them).  In a faithful job KernelBench then draws every
        input set in that namespace, with the candidate's bindings: so does
        this job (in the candidate process), whatever the input cache, the
        keeper or a draw ahead would have handed it."""
        names = sorted({str(n)[:200] for n in names[:256]}) if isinstance(names, list) else []
        self.checks["namespace_rebound"] = names
        if names and self.mode == vocab.MODE_FAITHFUL:
            self.sets.redraw_in_namespace(self.cand)
        self.tampered("import")

    def inputs_redefined(self):
        """inputs-redefined: the inputs the timing used differ from the
        problem's own (its get_inputs in a clean namespace, with the seed
        the timed set was drawn with)."""
        timed = self.checks.get("inputs", {}).get("timed")
        seed = self.checks.get("inputs", {}).get("timed_seed", self.seed)
        clean = self.sets.clean.get(seed)
        if clean is None:
            try:
                clean = clean_inputs_description(self.torch, self.m["problem_code"],
                                                 self.m.get("problem_file"), seed,
                                                 problem_namespace)
            except Exception as e:     # noqa: a get_inputs the meta device cannot run
                self.checks.setdefault("inputs", {})["problem_error"] = exc_text(e)
                return
        self.checks.setdefault("inputs", {})["problem"] = clean
        if timed is not None and timed != clean:
            add_finding(self.ctx, vocab.F_INPUTS_REDEFINED, timed=timed, problem=clean,
                        rebound=self.checks.get("namespace_rebound", []))
