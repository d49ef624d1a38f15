"""hrworker/confine.py - how a process of a job that runs what is not the
project's confines itself: the candidate process (candidate.py: the
candidate's code) and the builder process (builder.py: the compilers on
the candidate's sources and flags, which may name programs to run).  In
order: its descriptors closed but its channel, the jail
(jail.confine_candidate: as root, a mount and a network namespace whose
root holds only what it may read and write, a procfs showing its own
processes only, ids of its own; process and file size limits in any
case), else a network namespace (unprivileged user namespaces), Landlock
(reads, writes, TCP, signals and abstract sockets outside the process),
the seccomp filter (hrworker/seccomp.py: no process made outside its own
tree, no signal, scheduling or tracing of the judge and the processes
above it), the audit hook.
Must not: run what it confines, or leave a step undone without saying so
(each step returns what took)."""
import os
import sys

from hrworker import seccomp
from hrworker.channel import CandidateEnd, ChannelError
from hrworker.jail import confine_candidate
from hrworker.sandbox import (SECRETS, isolate_network, private_beneath, read_roots,
                              without_secrets)
from hrworker.util import PR_SET_CHILD_SUBREAPER, exc_text, prctl, set_pdeathsig


def close_fds(keep):
    """Close every descriptor but stdin, stdout, stderr and keep."""
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))


def confine(cfg, own_dir, chan_fd, uid_offset=0, protect=(), umask=0o002):
    """Confine this process: it may write beneath own_dir (its working
    directory, HOME and TMPDIR) and its jail's /tmp and /dev/shm only, read the read
    roots (sandbox.read_roots: the build cache among them, read-only),
    touch none of the protected processes (the judge, the worker, the
    process that started it, the keeper, and protect).  uid_offset:
    added to the jail's uid (each process of a job that runs what is not
    the project's has a uid of its own); umask: its own under the jail's
    ids (jail.confine_candidate).  Returns what took (the judge records
    it)."""
    close_fds(chan_fd)
    os.makedirs(own_dir, exist_ok=True)
    os.chdir(own_dir)
    for k in ("HOME", "TMPDIR", "TMP", "TEMP"):
        os.environ[k] = own_dir
    reads = read_roots(cfg, own_dir)
    protected = sorted(set(seccomp.protected_pids(cfg.keeper_pid)) |
                       {int(p) for p in protect if p})   # before the jail hides them
    got, own_net = confine_candidate(cfg, own_dir, reads, uid_offset, umask)
    os.chdir(own_dir)
    if os.geteuid() == 0:
        # Still root (a CUDA job: jail.ids_off; the job jail off): root
        # owns the secrets beneath the read roots, so they are left out of
        # them (sandbox.SECRETS, and what others may not read beneath
        # sandbox.PRIVATE_SCAN).
        reads, got["secrets_hidden"] = without_secrets(reads, SECRETS + private_beneath())
    got["network"] = "own namespace" if own_net else isolate_network()
    writes = [own_dir]
    for k in ("tmp", "shm"):    # the jail's /tmp and /dev/shm: the process's own
        if got.get(k):
            writes.append(got[k])
    cfg.sandbox.roots = [os.path.realpath(r) for r in writes]
    cfg.sandbox.deny = [cfg.inputs_dir]
    cfg.sandbox.no_network = True
    cfg.sandbox.reads = reads
    if cfg.jail.abi:
        try:
            got["landlock"] = cfg.jail.apply_candidate(
                cfg.sandbox.roots, cfg.sandbox.reads,
                shm="cuda" if cfg.device.startswith("cuda") else None)
        except OSError as e:
            got["landlock"] = "not applied: %s" % e
    else:
        got["landlock"] = "none: %s" % cfg.jail.why
    try:
        got["seccomp"] = seccomp.load(protected)
    except OSError as e:
        got["seccomp"] = "none: %s" % e
    cfg.sandbox.active = True
    return got


def run_child(name, cfg, sock, own_dir, serve, settle=None, **how):
    """A forked process of the job's that runs what is not the project's,
    from its fork to its exit: it dies with its parent, keeps orphans
    among its descendants beneath it (a subreaper: the judge's account of
    its processes and its own reaping look there), drops the worker's
    handles, confines itself (confine(cfg, own_dir, ..., **how)),
    settle(got) its own last steps, says hello with what took, then
    serve(end).  The judge closing the channel is the usual end (0),
    anything else is said on stderr (70).  Never returns."""
    code = 0
    try:
        set_pdeathsig()
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        cfg.keeper, cfg.keeper_conn, cfg.verify, cfg.rand = None, None, None, None
        end = CandidateEnd(sock)
        got = confine(cfg, own_dir, sock.fileno(), **how)
        if settle is not None:
            settle(got)
        end.send({"t": "hello", "pid": os.getpid(), "confined": got})
        serve(end)
    except ChannelError:
        code = 0
    except BaseException as e:  # noqa: say why, then go
        try:
            sys.stderr.write("headroom %s process: %s\n" % (name, exc_text(e)))
        except OSError:
            pass
        code = 70
    finally:
        os._exit(code)
