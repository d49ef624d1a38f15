"""hrworker - the parts of replay/worker.py (the replay worker), one module a
concern (docs/replay.md, "The worker", lists them).  worker.py is the entry
point and the fork server.  The modules import each other at module level
and never around a loop (tests/pyimports.py): protocol.py is the leaf both
sides of a job's fork share, launch.py the one module that imports both.
Imports left inside functions are deliberately lazy: torch and its
submodules (worker.py imports torch once, after it moved fd 1 off the
protocol stream, and hands it to the modules as an argument), numpy (where
first used), and standard modules that one function uses."""
