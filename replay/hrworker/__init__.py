"""hrworker - the parts of replay/worker.py (the replay worker), one module a
concern: util, sandbox, native (the C libraries), loan (a job's side of the
keeper), job, keeper.  worker.py is the entry point and the fork server."""
