"""hrworker/job.py - one job in its own process: it drives the stages -- the
problem and its reference, the input sets (hrworker/inputs.py), the
candidate's build into the cache, the correctness trials (hrworker/checks.py)
and timing (hrworker/timing.py) under the semantics the job asks for -- and
sends its phases; its one result is what run() returns (Job)."""
import gc
import hashlib
import json
import os
import platform
import time

from hrworker.audit import (add_finding, clean_inputs_description, harness_refs,
                            namespace_snapshot, patched, rebound)
from hrworker.checks import Checks, audit_problem
from hrworker.context import JobContext, Verdict, problem_namespace
from hrworker.inputs import InputSets
from hrworker.timing import Timing
from hrworker.util import children_cpu, exc_text


class Job:
    def __init__(self, msg, cfg, proto, torch):
        self.ctx = JobContext(msg, cfg, torch)
        self.m, self.cfg, self.proto, self.torch = msg, cfg, proto, torch
        self.id, self.mode, self.seed = self.ctx.id, self.ctx.mode, self.ctx.seed
        self.result, self.checks = self.ctx.result, self.ctx.checks
        self.sets = None        # InputSets, once the problem is read
        self.predrawn = None    # what predraw did (a build job with "draw")
        self.t_start = cfg.job_t0 or time.monotonic()
        self.phase_s = self.checks["phase_seconds"] = {}

    def phase(self, name):
        """Enter a phase: tell the orchestrator, and time the phases (the
        seconds of each, from the job's start, in checks.phase_seconds)."""
        now = time.monotonic()
        prev = self.result.get("phase")
        if prev is not None:
            self.phase_s[prev] = round(now - self.phase_t0, 3)
        else:
            self.phase_s["start"] = round(now - self.t_start, 3)
        self.phase_t0 = now
        self.result["phase"] = name
        self.proto.send({"type": "phase", "job": self.id, "phase": name})

    def cache_dir(self, what):
        """Content-addressed build directory: what is built (an extension's
        sources and options, or a whole candidate), torch, CUDA, arch, flags."""
        t = self.torch
        flags = "|".join("%s=%s" % (k, os.environ.get(k, "")) for k in
                         ("TORCH_CUDA_ARCH_LIST", "CFLAGS", "CXXFLAGS", "LDFLAGS"))
        key = "\n".join([what, t.__version__, str(t.version.cuda), self.cfg.arch, flags,
                         platform.machine()])
        return os.path.join(self.cfg.cache, hashlib.sha256(key.encode()).hexdigest()[:24])

    def hook_load_inline(self, exts):
        """Give each load_inline call without a build_directory one keyed by
        its own arguments, so an identical extension is built once whatever
        Python wraps it; record hit or miss per extension.  A build the
        compiler rejected is kept too (its error text), and answered again
        from the cache."""
        import inspect
        import torch.utils.cpp_extension as cpp
        orig, job = cpp.load_inline, self
        sig = inspect.signature(orig)

        def load_inline(*args, **kwargs):
            ba = sig.bind(*args, **kwargs)
            if ba.arguments.get("build_directory"):
                return orig(*args, **kwargs)
            what = json.dumps({k: v for k, v in ba.arguments.items() if k != "verbose"},
                              sort_keys=True, default=repr)
            d = job.cache_dir("load_inline\n" + what)
            hit = os.path.isdir(d) and any(f.endswith(".so") for f in os.listdir(d))
            os.makedirs(d, exist_ok=True)
            ba.arguments["build_directory"] = d
            t0, cpu0 = time.monotonic(), children_cpu()
            rec = {"name": ba.arguments.get("name"), "dir": os.path.basename(d),
                   "cache": "hit" if hit else "miss"}
            exts.append(rec)
            failed = os.path.join(d, ".headroom-build-failed")
            try:
                if not hit and os.path.exists(failed):
                    rec.update(cache="hit", failed=True)
                    with open(failed) as f:
                        raise RuntimeError(f.read())
                return orig(*ba.args, **ba.kwargs)
            except Exception as e:
                # The compiler's "no" is as deterministic as its "yes" for
                # this key; lock or I/O trouble is not, and is not kept.
                if "Error building extension" in str(e) and not rec.get("failed"):
                    with open(failed, "w") as f:
                        f.write(str(e))
                raise
            finally:
                rec["seconds"] = round(time.monotonic() - t0, 3)
                # the compilers' CPU time (ninja and what it ran, reaped)
                rec["cpu_seconds"] = round(children_cpu() - cpu0, 3)
        cpp.load_inline = load_inline

    def run(self):
        c = self.ctx
        self.checks["semantics"] = {
            "mode": c.mode, "harness": c.harness, "precision": c.precision,
            "seed": c.seed, "tolerance": c.tol,
            "allclose": "torch.allclose(ref, cand, atol=tol, rtol=tol)",
            "namespace": "one" if c.mode == "faithful" else "separate",
            "inputs_cast": c.harness == "current"}
        try:
            self.stages()
        except Verdict as v:
            self.result.update(verdict=v.verdict, error_kind=v.kind, error=v.text, **v.extra)
        if self.result.get("phase") is not None:
            self.phase_s[self.result["phase"]] = round(time.monotonic() - self.phase_t0, 3)
        if self.cfg.sandbox.violations:
            self.checks["sandbox"] = self.cfg.sandbox.violations
            if self.result.get("verdict") in ("correct", "incorrect"):
                self.checks["verdict_without_sandbox"] = self.result["verdict"]
                self.result.update(verdict="runtime_error", correct=False,
                                   error_kind="sandbox",
                                   error="write outside scratch refused: %s"
                                   % self.cfg.sandbox.violations[0]["path"])
        return self.result

    def give_back(self):
        """Before the process exits: free the sets the keeper lent, so that
        torch's IPC reference counts reach zero.  The job ends with
        os._exit, which frees nothing: a lent set the keeper later drops
        would stay in its "limbo" (device memory it never gets back; on the
        H200 the keeper outgrew its budget and left mid-run), then close
        the connection, on which the keeper checks the sets."""
        if self.sets is not None:
            self.sets.draws = None
        gc.collect()
        conn = getattr(self.cfg, "keeper_conn", None)
        if conn is not None:
            conn.close()
            self.cfg.keeper_conn = None

    def stages(self):
        t, m, c = self.torch, self.m, self.ctx
        stop = m.get("stop_after")
        # Reference: one namespace as KernelBench's exec(src, context).
        self.phase("reference")
        try:
            ctx = problem_namespace(m["problem_code"], m.get("problem_file"))
            Model, get_inputs = ctx["Model"], ctx["get_inputs"]
            get_init_inputs = ctx["get_init_inputs"]
            c.set_seed(self.seed)
            init_inputs = [c.place(x) for x in get_init_inputs()]
            with t.no_grad():
                c.set_seed(self.seed)
                ref_model = Model(*init_inputs)
            self.sets = InputSets(c, get_inputs)
            if stop in ("build", "inputs") and m.get("draw"):
                self.predrawn = self.sets.predraw()     # ahead, for the run worker
                # At once, not with the result: a build's result comes a
                # minute later, and the orchestrator's room for the next
                # problem's draws needs the number of sets a problem has.
                self.proto.send({"type": "predraw", "job": self.id,
                                 "predraw": self.predrawn})
            elif stop not in ("build", "reference", "inputs"):
                self.sets.draw_all()
        except Exception as e:
            raise Verdict("problem_error", "reference", exc_text(e))
        if stop == "reference":
            audit_problem(c, self.sets, ref_model)
            return
        if stop == "inputs":
            self.result.update(verdict="drawn", predraw=self.predrawn)
            return
        # From here on candidate code runs: the input cache is read-only,
        # and the keeper takes no more requests from this job.
        self.cfg.sandbox.deny = [self.cfg.inputs_dir]
        self.close_inputs()
        if self.cfg.keeper is not None:
            self.cfg.keeper.close()
            self.cfg.keeper = None

        # Build: executing the candidate runs load_inline into the cache.
        # Other builders (load, setup-style) land in a directory keyed by
        # the whole candidate, through TORCH_EXTENSIONS_DIR as KernelBench.
        self.phase("build")
        code = m["candidate_code"]
        exts = []
        self.hook_load_inline(exts)
        os.environ["TORCH_EXTENSIONS_DIR"] = self.cache_dir("candidate\n" + code)
        build = self.result["build"] = self.checks["build"] = {"extensions": exts}
        if self.predrawn is not None:
            build["predraw"] = self.predrawn
        # Faithful: KernelBench's one namespace for problem and candidate;
        # robust: one of the candidate's own, made by executing the
        # problem's code again (the names a candidate takes from the
        # problem resolve; nothing it rebinds reaches the reference's).
        # What the candidate's import rebinds in the problem's namespace,
        # and what it patches of the harness, is looked at once it ran
        # (after_import).
        cand_ctx = (ctx if self.mode == "faithful" else
                    problem_namespace(m["problem_code"], m.get("problem_file")))
        ns_before = namespace_snapshot(ctx, (get_inputs, get_init_inputs))
        self.harness_kept = harness_refs(t)
        self.own = self.own_refs()
        t0 = time.monotonic()
        try:
            exec(compile(code, m.get("candidate_file", "candidate.py"), "exec"), cand_ctx)
            ModelNew = cand_ctx.get("ModelNew")
            if ModelNew is None:
                raise NameError("ModelNew is not defined by the candidate")
        except Exception as e:
            self.result["build_log"] = exc_text(e)
            raise Verdict("compile_error", "build", exc_text(e), compiled=False,
                          correct=False)
        finally:
            build["seconds"] = round(time.monotonic() - t0, 3)
            build["cpu_seconds"] = round(sum(x.get("cpu_seconds", 0) for x in exts), 3)
            build["cache"] = ("none" if not exts else "hit" if
                              all(x["cache"] == "hit" for x in exts) else "miss")
        self.result["compiled"] = True
        self.after_import(ctx, ns_before)
        if stop == "build":
            self.result.update(verdict="built")
            return

        self.phase("load")
        try:
            with t.no_grad():
                c.set_seed(self.seed)
                new_model = ModelNew(*init_inputs)
                ref = c.place_model(ref_model)
                new = c.place_model(new_model)
                c.sync()
        except Exception as e:
            raise Verdict("runtime_error", "load", exc_text(e), correct=False)

        self.phase("correctness")
        checks = Checks(c, ref, new, self.sets)
        try:
            checks.correctness()
        finally:
            self.tampered("correctness")
        if not self.result["correct"]:
            return
        self.phase("timing")
        timing = Timing(c, ref, new, self.sets, checks)
        try:
            if self.mode == "robust":
                timing.time_robust()
            else:
                timing.time_faithful()
        except Exception as e:  # KernelBench: error_during_performance
            self.result.update(error_kind="timing", error=exc_text(e))
        finally:
            if self.tampered("timing"):
                self.checks["timing_void"] = "the harness was patched"
        self.inputs_redefined()

    # ------------------------------------------------------- the audit
    def own_refs(self):
        """The worker's own functions a candidate could replace (name ->
        (holder, attribute, object)): the check, the candidate's call,
        the timer, the sync, the protocol."""
        pairs = [(Checks, "compare"), (Checks, "call_candidate"), (Timing, "time_one"),
                 (Timing, "kb_loop"), (JobContext, "sync")]
        if self.cfg.verify is not None:
            pairs += [(type(self.cfg.verify), "raw"), (type(self.cfg.verify), "check")]
        if self.proto is not None:
            pairs.append((type(self.proto), "send"))
        return {"%s.%s" % (h.__name__, a): (h, a, getattr(h, a)) for h, a in pairs}

    def tampered(self, when):
        """harness-patched when what the harness relies on is no longer
        what it was before candidate code ran; True then."""
        names = patched(self.harness_kept, self.torch, self.own)
        if names:
            add_finding(self.ctx, "harness-patched", when=when, names=names)
        return bool(names)

    def after_import(self, ns, before):
        """Once the candidate's module ran: the names of the problem's
        namespace it rebound (checks.namespace_rebound).  In a faithful job
        KernelBench then draws every input set in that namespace, with
        the candidate's bindings: so does this job, whatever the input
        cache, the keeper or a draw ahead would have handed it."""
        names = rebound(before, ns)
        self.checks["namespace_rebound"] = names
        if names and self.mode == "faithful":
            self.sets.redraw_in_namespace()
        self.tampered("import")

    def inputs_redefined(self):
        """inputs-redefined: the inputs the timing used differ from the
        problem's own (its get_inputs in a clean namespace)."""
        timed = self.checks.get("inputs", {}).get("timed")
        clean = self.sets.clean
        if clean is None:
            try:
                clean = clean_inputs_description(self.torch, self.m["problem_code"],
                                                 self.m.get("problem_file"), self.seed,
                                                 problem_namespace)
            except Exception as e:     # noqa: a get_inputs the meta device cannot run
                self.checks.setdefault("inputs", {})["problem_error"] = exc_text(e)
                return
        self.checks.setdefault("inputs", {})["problem"] = clean
        if timed is not None and timed != clean:
            add_finding(self.ctx, "inputs-redefined", timed=timed, problem=clean,
                        rebound=self.checks.get("namespace_rebound", []))

    def close_inputs(self):
        """The jail's second layer: the job's roots without the inputs
        directory, so that C code of the candidate cannot write the sets
        either (checks.fs_jail_inputs: on which threads; where the inputs
        lie beneath another root, that root still admits them)."""
        cfg = self.cfg
        if not cfg.jail.layers:     # no Landlock, or its first layer failed
            return
        roots = [r for r in cfg.sandbox.roots if r != cfg.inputs_dir]
        try:
            self.checks["fs_jail_inputs"] = cfg.jail.apply(roots, every_thread=True)
        except OSError as e:
            self.checks["fs_jail_inputs"] = "not closed: %s" % e
