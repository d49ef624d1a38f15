"""hrworker/candidate.py - the candidate process: the one process of a job in
which candidate code runs.  The judge (the job's own process, job.py)
forks it before either has a CUDA context; it confines itself (confine:
its descriptors closed but the channel, a network namespace of its own,
Landlock read, write and network rules, the audit hook), then serves the
judge's requests over the channel (channel.py): build the candidate in a
copy of the problem's namespace, make ModelNew, call it on tensors the
judge shares (host memory: memfd; device memory: CUDA IPC), copy an
output into memory the judge lends, run a timing loop with the judge
reading its clock around every timed call, draw inputs in the candidate's
namespace (a faithful job whose candidate rebound the problem's names).
What it sends back is data for the judge to check: it never sees the
reference, its outputs, the check, the judge's timers or the protocol.
Must not: hold a descriptor of the judge's besides the channel, or send
anything but JSON."""
import base64
import contextlib
import gc
import hashlib
import json
import linecache
import mmap
import os
import time

from hrworker import builder, vocab
from hrworker.audit import (Poison, aliases, harness_refs, namespace_snapshot, patched,
                            rebound)
from hrworker.channel import SPIN_GO_S, CandidateEnd, ChannelError, spin_wait, stamps_on
from hrworker.confine import run_child
from hrworker.context import JobContext, problem_namespace
from hrworker.escapes import candidate_pass
from hrworker.l2 import l2_note
from hrworker.outputs import elements, is_tuple
from hrworker.precision import precision_flags
from hrworker.protocol import COVER_CYCLES_MAX
from hrworker.redraw import constant
from hrworker.timing import Timing
from hrworker.util import children_cpu, exc_text, quiet_copy


def hook_load_inline(cfg, torch, exts, ask, readable, own):
    """Answer each load_inline call without a build_directory from the
    build cache, whose entries only builder processes write (builder.py):
    an entry there is imported; a missing one is asked of the judge (ask:
    the compile message, its answer); a call the builder cannot take is
    built here, in own (this process's folder), uncached.  A build the
    compilers rejected is kept too (its error text) and raised again.
    Records hit, miss or private per extension."""
    import inspect
    import torch.utils.cpp_extension as cpp
    orig = cpp.load_inline
    sig = inspect.signature(orig)

    def load_inline(*args, **kwargs):
        ba = sig.bind(*args, **kwargs)
        if ba.arguments.get("build_directory"):
            return orig(*args, **kwargs)
        name = ba.arguments.get("name")
        rec = {"name": name}
        exts.append(rec)
        t0 = time.monotonic()
        try:
            call = builder.call_of(ba.arguments, os.environ, readable)
        except builder.Private as p:
            # As the original harness: built in this process, in a folder
            # of its own (its name: the call's arguments).
            what = json.dumps({k: v for k, v in ba.arguments.items() if k != "verbose"},
                              sort_keys=True, default=repr)
            d = os.path.join(own, "ext-" + hashlib.sha256(what.encode()).hexdigest()[:24])
            os.makedirs(d, exist_ok=True)
            ba.arguments["build_directory"] = d
            rec.update(dir=os.path.basename(d), cache="private", private=str(p)[:500])
            cpu0 = children_cpu()
            try:
                return orig(*ba.args, **ba.kwargs)
            finally:
                rec["seconds"] = round(time.monotonic() - t0, 3)
                rec["cpu_seconds"] = round(children_cpu() - cpu0, 3)
        d = os.path.join(cfg.cache, builder.entry_name(cfg, torch, call))
        rec.update(dir=os.path.basename(d), cache="hit")
        if not os.path.isdir(d):
            ans = ask(call)
            d = os.path.join(cfg.cache, os.path.basename(str(ans.get("dir") or d)))
            rec.update({k: ans[k] for k in ("cache", "cpu_seconds", "pch", "pch_unusable",
                                            "pch_cpu_seconds") if k in ans})
            if not ans.get("ok") and not os.path.exists(os.path.join(d, builder.FAILED)):
                rec["seconds"] = round(time.monotonic() - t0, 3)
                raise RuntimeError(str(ans.get("error")))
        rec["seconds"] = round(time.monotonic() - t0, 3)
        failed = os.path.join(d, builder.FAILED)
        if os.path.exists(failed):
            rec["failed"] = True
            with open(failed) as f:
                raise RuntimeError(f.read())
        return cpp._import_module_from_library(name, d, ba.arguments.get("is_python_module",
                                                                         True))
    cpp.load_inline = load_inline


def rng_bytes(state):
    return base64.b64encode(state.numpy().tobytes()).decode()


class Candidate:
    """The candidate process's server: one request at a time from the
    judge, one JSON reply (or, inside a timed call, the handshake: ready,
    then done once the judge said go)."""

    def __init__(self, cfg, torch, end, msg):
        self.cfg, self.torch, self.end, self.msg = cfg, torch, end, msg
        self.ctx = JobContext(msg, cfg, torch)
        self.context = early_context(self.ctx.cuda, msg.get("stop_after"))
        if self.context:
            # The context made now, before any candidate code, so that the
            # persisting-L2 limit it starts with is the baseline (a new
            # context on the H200 has read 30 % of the maximum carve-out).
            try:
                torch.empty(1, device=self.ctx.device)
            except RuntimeError:    # the job's first use of the GPU says why
                pass
            l2_note(torch, "start")
        self.model, self.ns, self.last = None, None, None
        self.tensors = {}           # the judge's key -> the tensor it shares
        self.poison = Poison(torch, self.ctx.cuda, self.ctx.device)
        self.timing = Timing(self.ctx, None, None, None, None)
        self.timing.handshake = self
        self.refs = harness_refs(torch)
        self.own = {"CandidateEnd.send": (CandidateEnd, "send", CandidateEnd.send),
                    "Candidate.ready": (Candidate, "ready", Candidate.ready),
                    "Candidate.done": (Candidate, "done", Candidate.done),
                    "Timing.time_one": (Timing, "time_one", Timing.time_one),
                    "Timing.kb_loop": (Timing, "kb_loop", Timing.kb_loop)}
        self.seen = 0               # sandbox refusals already reported
        self.spin_go_s = SPIN_GO_S if spin_wait(self.ctx.cuda) else 0.0   # the wait for go
        self.stamps = {} if stamps_on() else None   # the handshake's clock stamps

    # ------------------------------------------------- the timed handshake
    def ready(self):
        """Before a timed call's clock starts: an exchange of warm (the
        judge answers at once; the clock has not started), then ready, and
        wait for go.  The warm exchange runs both sides' message paths
        just before the timed one, as the calls of nothing, back to back,
        ran them: on the H100 a timed call's go took 22-24 us without it,
        12 us with it (the calls of nothing's: 10-16 us)."""
        for t, want in (("warm", "warm"), ("ready", "go")):
            self.end.send({"t": t})
            req, fds = self.end.recv(self.spin_go_s)
            for fd in fds:
                os.close(fd)
            if req.get("op") != want:
                raise ChannelError("expected %s, got %r" % (want, req.get("op")))
        if self.stamps is not None:
            self.stamps["go"] = time.perf_counter_ns()

    def compile(self, call):
        """A load_inline call the cache does not hold, asked of the judge
        (its builder process builds it): the judge's answer."""
        self.end.send({"t": "compile", "call": call})
        req, fds = self.end.recv()
        for fd in fds:
            os.close(fd)
        if req.get("op") != "compiled":
            raise ChannelError("expected compiled, got %r" % req.get("op"))
        return req

    def done(self, ms):
        """The timed call ended (synchronised): its own clock's reading."""
        rep = {"t": "done", "ms": ms}
        if self.stamps is not None:
            rep["stamps"] = dict(self.stamps, done=time.perf_counter_ns())
        self.end.send(rep)

    # ------------------------------------------------------------- tensors
    def tensor(self, d, fds):
        """One argument from its descriptor (remote.Share.describe)."""
        t = self.torch
        kind = d[0]
        if kind == "v":
            return d[1]
        if kind == "empty":
            return t.empty(d[2], dtype=getattr(t, d[1]), device=d[3])
        key = d[1]
        if key in self.tensors:
            return self.tensors[key]
        if kind == "cpu":
            _, key, slot, dtype, size, stride, offset, nbytes = d
            fd = fds[slot]
            # Mapped whole now, as the harness's own inputs were resident
            # when it timed a call: pages first touched inside a timed call
            # (a new set every robust round) cost the candidate the faults
            # the judge's reference never took (the reference's own matmul
            # at 512 read 0.82-0.89x on a CPU, 0.91-0.93x populated).
            mm = mmap.mmap(fd, nbytes, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE)
            x = t.frombuffer(mm, dtype=t.uint8).view(getattr(t, dtype))
            x = x.as_strided(size, stride, offset)
        else:
            import pickle
            import torch.multiprocessing  # noqa: F401  the CUDA reductions
            x = pickle.loads(d[2])
        self.tensors[key] = x
        return x

    def args(self, req, fds):
        for k in req.get("forget", ()):
            self.tensors.pop(k, None)
        return [self.tensor(d, fds) for d in req.get("args", ())]

    def out_spec(self, out):
        """What the judge needs to take the output: its shape and dtype,
        its type, and the inputs it shares memory with."""
        t = self.torch
        if is_tuple(t, out):
            # values and indices, say: each element described, fetched
            # into a buffer of its own (outputs.py)
            xs = elements(t, out)
            return {"tensor": True, "tuple": [self.out_spec(x) for x in xs],
                    "exact_type": all(type(x) is t.Tensor for x in xs),
                    "type": "%s.%s" % (type(out).__module__, type(out).__qualname__)}
        if not isinstance(out, t.Tensor):
            return {"tensor": False, "type": "%s.%s" % (type(out).__module__,
                                                         type(out).__qualname__)}
        return {"tensor": True, "shape": list(out.shape), "dtype": str(out.dtype)[6:],
                "exact_type": type(out) is t.Tensor,
                "type": "%s.%s" % (type(out).__module__, type(out).__qualname__)}

    # -------------------------------------------------------------- requests
    def op_build(self, req):
        """The problem's code, then the candidate's, in one namespace (as
        KernelBench's exec(src, context)): the names the candidate rebinds
        (rebound), its build records (load_inline into the cache)."""
        cfg, t = self.cfg, self.torch
        exts = []
        own = os.getcwd()
        readable = [r for r in cfg.sandbox.reads if r != own]
        hook_load_inline(cfg, t, exts, self.compile, readable, own)
        code = req["code"]
        # Other builders (load, setup-style) build in this process's folder,
        # uncached, as Triton and inductor keep their caches there.
        os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(own, "torch_extensions")
        ns = problem_namespace(req["problem_code"], req.get("problem_file"))
        before = namespace_snapshot(ns, (ns.get("get_inputs"), ns.get("get_init_inputs")))
        t0 = time.monotonic()
        rep = {"t": "built", "ok": True, "extensions": exts}
        state = global_state(t)
        try:
            path = self.source_file(code, req.get("filename"))
            ns["__file__"] = path
            exec(compile(code, path, "exec"), ns)
            if ns.get("ModelNew") is None:
                raise NameError("ModelNew is not defined by the candidate")
        except Exception as e:
            rep.update(ok=False, error=exc_text(e))
        rep["seconds"] = round(time.monotonic() - t0, 3)
        rep["rebound"] = rebound(before, ns)
        after = global_state(t)
        rep["global_state"] = {k: {"before": state.get(k), "after": v}
                               for k, v in after.items() if state.get(k) != v}
        self.ns = ns
        return rep

    @staticmethod
    def source_file(code, filename):
        """The candidate's code as a real file in the candidate process's
        own folder (its working directory), and in linecache: code that
        reads its own source -- Triton's @jit, inspect.getsource -- finds
        it, as it does under a harness that imports the kernel from a
        file.  Returns the file's path, the code's __file__."""
        name = os.path.basename(filename or "") or "candidate.py"
        path = os.path.join(os.getcwd(), name)
        with open(path, "w") as f:
            f.write(code)
        linecache.cache[path] = (len(code), None, code.splitlines(True), path)
        return path

    def op_load(self, req):
        t, c = self.torch, self.ctx
        init = [c.place(x) for x in req["init"]]
        with t.no_grad():
            c.set_seed(req["seed"])
            model = self.ns["ModelNew"](*init)
            self.model = c.place_model(model)
            c.sync()
        # What the candidate's import, build and model made lives as long as
        # this process: collected once here, inside a call, then out of the
        # cycle collector's sight (gc.freeze, as the worker's imports are).
        # Otherwise a full collection walks it wherever an allocation
        # brings one due: 15 ms for the 23 k objects of load_inline's
        # imports and a small model on the 2-core host, inside a timed
        # call or in the window after a reply, where it reads as the
        # candidate's background-work.
        gc.collect()
        gc.freeze()
        return {"t": "loaded", "parameters": parameter_spec(t, self.model)}

    def op_set_parameters(self, req, args):
        """The judge's new values for the named parameters (in args, in
        order; redraw.py), copied into the model's own: how many it took."""
        t = self.torch
        names = req.get("names")
        if not isinstance(names, list) or len(names) != len(args):
            raise ValueError("set_parameters: %d names for %d values"
                             % (len(names) if isinstance(names, list) else -1, len(args)))
        params = dict(self.model.named_parameters())
        n = 0
        with t.no_grad():
            for name, x in zip(names, args):
                p = params.get(name) if isinstance(name, str) else None
                if isinstance(p, t.Tensor) and isinstance(x, t.Tensor) and p.shape == x.shape:
                    p.copy_(x)
                    n += 1
        self.ctx.sync()
        return {"t": "parameters_set", "set": n}

    def set_rng(self, req):
        t = self.torch
        if req.get("rng") is not None:
            t.set_rng_state(t.frombuffer(bytearray(req["rng"]), dtype=t.uint8))
        if req.get("cuda_rng") is not None and self.ctx.cuda:
            t.cuda.set_rng_state(t.frombuffer(bytearray(req["cuda_rng"]), dtype=t.uint8))

    def op_call(self, req, args):
        """One call of the candidate (memory poisoned first when asked),
        synchronised; the output is kept for fetch."""
        t = self.torch
        self.last = None
        self.set_rng(req)
        fill = req.get("poison_bytes")
        with t.no_grad() if req.get("no_grad", True) else contextlib.nullcontext():
            if fill is not None:
                self.poison.fill(fill)
            try:
                out = self.model(*args)
                self.ctx.sync()
            finally:
                if fill is not None:
                    self.poison.end()
        self.last = out
        return {"t": "called", "out": self.out_spec(out), "aliases": aliases(t, out, args)}

    def op_fetch(self, req, args):
        """Copy the kept output into the judge's buffer (args[0]; a tuple
        output's elements into args, one each)."""
        out = self.last
        self.last = None
        if out is None:
            raise RuntimeError("no output to fetch")
        xs = elements(self.torch, out) or [out]
        if len(xs) != len(args):
            raise RuntimeError("%d buffers for an output of %d tensors" % (len(args), len(xs)))
        for buf, x in zip(args, xs):
            quiet_copy(self.torch, buf, x.detach())
        self.ctx.sync()
        return {"t": "fetched"}

    def op_time_one(self, req, args):
        keep = [] if req.get("keep") else None
        self.set_rng(req)
        with self.torch.no_grad() if req.get("no_grad") else contextlib.nullcontext():
            cover = req.get("cover_cycles")
            cover = cover if type(cover) is int and 0 < cover <= COVER_CYCLES_MAX else 0
            ms = self.timing.time_one(self.model, args, req["flush"], req["sync_before"],
                                      keep, cover)
        rep = {"t": "timed", "ms": ms}
        if keep:
            self.last = keep[0]
            rep["out"] = self.out_spec(keep[0])
        return rep

    def op_kb_loop(self, req, args):
        self.set_rng(req)
        times, how = self.timing.kb_loop(self.model, args)
        return {"t": "looped", "times": times, "how": how}

    def op_run(self, req, args):
        """Calls not timed nor checked (warm-ups): no output kept."""
        with self.torch.no_grad() if req.get("no_grad", True) else contextlib.nullcontext():
            self.model(*args)
        return {"t": "ran"}

    def op_draw(self, req, args):
        """set_seed(s); get_inputs() in the candidate's namespace (a
        faithful job whose candidate rebound the problem's names, as
        KernelBench draws then): the draw is kept for fetch_draw, its
        description and the RNG state it left are sent."""
        t = self.torch
        self.ctx.set_seed(req["seed"])
        raw = self.ns["get_inputs"]()
        self.drawn = list(raw)
        specs = []
        for x in self.drawn:
            if isinstance(x, t.Tensor):
                specs.append({"tensor": True, "shape": list(x.shape),
                              "dtype": str(x.dtype)[6:], "device": x.device.type})
            elif isinstance(x, (int, float, bool, str)) or x is None:
                specs.append({"tensor": False, "value": x})
            else:
                specs.append({"tensor": False, "type": type(x).__name__})
        return {"t": "drawn", "inputs": specs, "rng": rng_bytes(t.get_rng_state())}

    def op_fetch_draw(self, req, args):
        """Copy the drawn tensors into the judge's buffers (args, in order)."""
        bufs = iter(args)
        for x in self.drawn:
            if isinstance(x, self.torch.Tensor):
                quiet_copy(self.torch, next(bufs), x)
        self.drawn = None
        self.ctx.sync()
        return {"t": "fetched"}

    def op_escapes(self, req, args):
        """The escape measurements after the job's timing
        (escapes.candidate_pass): args is the warm-ups' set, then, from
        index split (its half), the profiled call's (content no call
        saw); and the persisting-L2 state its timed calls found
        (Timing.l2_before_call)."""
        split = req.get("split")
        if type(split) is not int or split < 0 or 2 * split != len(args):
            raise ValueError("escapes: split %r does not halve %d arguments"
                             % (split, len(args)))
        rep = candidate_pass(self.torch, self.model, args[:split],
                             self.msg.get("candidate_code", ""), self.ns,
                             req.get("robust") is True, os.getcwd(),
                             flush=(lambda: self.timing.flush(req["flush"]))
                             if req.get("flush") else None, fresh=args[split:])
        if self.timing.l2_found:
            rep["findings"].append(self.timing.l2_found)
        rep["evidence"]["l2_timed_calls"] = self.timing.l2_calls
        rep["t"] = "escaped"
        return rep

    def op_calibrate(self, req, args):
        """The judge's calibration of the timed calls' handshake, before any
        candidate code runs: n timed calls of nothing (Timing.time_one,
        handshake and all) for each way a job times (flush bytes, sync
        before, launch cover)."""
        n = req.get("n")
        if type(n) is not int or not 0 < n <= 1000:
            raise ValueError("calibrate: n = %r" % (n,))
        # Calls of nothing are no timed calls of the candidate's: the L2
        # check's count and finding are as they were before them (made
        # again after the timed calls, they must not drop what those found).
        kept = self.timing.l2_found, self.timing.l2_calls
        for flush, sync_before, cover in req.get("configs", ()):
            for _ in range(n):
                self.timing.time_one(lambda: None, [], flush, sync_before, None, cover)
        self.timing.l2_found, self.timing.l2_calls = kept
        return {"t": "calibrated"}

    def op_trim(self, req, args):
        """The device memory this process's allocator keeps cached goes
        back to the driver (checks.Checks.trim: between a job's parts)."""
        t = self.torch
        if self.ctx.cuda:
            t.cuda.empty_cache()
            return {"t": "trimmed", "reserved": int(t.cuda.memory_reserved())}
        return {"t": "trimmed", "reserved": 0}

    OPS = {"call": op_call, "fetch": op_fetch, "time_one": op_time_one,
           "kb_loop": op_kb_loop, "run": op_run, "draw": op_draw,
           "fetch_draw": op_fetch_draw, "escapes": op_escapes,
           "calibrate": op_calibrate, "set_parameters": op_set_parameters,
           "trim": op_trim}

    def reply(self, rep):
        """Every reply says what the process saw of itself: the harness's
        functions patched, the sandbox's refusals since the last reply."""
        names = patched(self.refs, self.torch, self.own)
        if names:
            rep["patched"] = names
        v = self.cfg.sandbox.violations
        if len(v) > self.seen:
            rep["sandbox"] = v[self.seen:]
            self.seen = len(v)
        self.end.send(rep)

    def serve(self):
        while True:
            req, fds = self.end.recv()
            op = req.get("op")
            if op == "quit":
                for fd in fds:
                    os.close(fd)
                return
            try:
                if op == "build":
                    rep = self.op_build(req)
                elif op == "load":
                    rep = self.op_load(req)
                else:
                    rep = self.OPS[op](self, req, self.args(req, fds))
            except ChannelError:
                raise
            except Exception as e:  # noqa: the candidate's, sent as data
                rep = {"t": "error", "op": op, "error": exc_text(e)}
            finally:
                for fd in fds:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            if self.context:    # when a carve-out appeared: after which first op
                l2_note(self.torch, "after the first " + str(op)[:32])
            self.reply(rep)


# ------------------------------------------------------------ confinement
def parameter_spec(torch, model):
    """[name, shape, dtype, constant] of a model's parameters (the first
    4096; constant: the one value it holds everywhere, or None:
    redraw.constant), or None when it is no torch Module."""
    if not isinstance(model, torch.nn.Module):
        return None
    out = []
    for name, p in model.named_parameters():
        if len(out) >= 4096:
            break
        out.append([name[:200], list(p.shape), str(p.dtype)[6:], constant(torch, p)])
    return out


def early_context(cuda, stop_after):
    """Does the candidate process make its CUDA context at its start (the
    persisting-L2 baseline, before any candidate code) and read the limit
    after each first operation?  On a GPU, for a job that calls the
    candidate; not for a build job (stop_after "build"), which only runs
    the candidate's module while its extensions compile and times
    nothing: a context made there is about 0.5 GiB of device memory held
    for the whole build, the tool's own, beside the run job (24 build
    jobs at once held 13 GiB on an H100 while a run job's 6 GiB-input
    problem ran out of memory).  What the candidate's own code does on
    the GPU in a build job is its own."""
    return bool(cuda) and stop_after != vocab.STOP_BUILD


def global_state(torch):
    """The process-wide settings a candidate's import may change: the
    precision flags (precision.precision_flags), cuDNN's autotuner and
    determinism, torch's deterministic algorithms."""
    out = precision_flags(torch)
    for key, get in (("cudnn.benchmark", lambda: torch.backends.cudnn.benchmark),
                     ("cudnn.deterministic", lambda: torch.backends.cudnn.deterministic),
                     ("deterministic_algorithms", torch.are_deterministic_algorithms_enabled)):
        try:
            out[key] = bool(get())
        except Exception:       # noqa: BLE001 - absent in this torch
            pass
    return out


def candidate_main(cfg, torch, sock, msg, jobdir):
    """The candidate process, from its fork to its exit; never returns."""
    def settle(got):
        # Compilers torch may call keep their caches in its own folder
        # (the build cache is read-only to it).
        for k, sub in (("TRITON_CACHE_DIR", "triton"), ("TORCHINDUCTOR_CACHE_DIR", "inductor")):
            os.environ[k] = os.path.join(os.getcwd(), sub)

    def serve(end):
        Candidate(cfg, torch, end, msg).serve()
    run_child("candidate", cfg, sock, os.path.join(jobdir, "candidate"), serve, settle,
              protect=[cfg.builder_pid])
