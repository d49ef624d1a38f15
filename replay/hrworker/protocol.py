"""hrworker/protocol.py - what both ends of a job's channel (channel.py)
agree on: the judge (remote.py) and the candidate process (candidate.py)
import it, and it imports no module of the worker's.
Must not: import a module of the package (it is the leaf both sides of
the fork share)."""

# The launch cover of a call the candidate process times on CUDA
# (Timing.time_one): about 0.5 ms at the H200's 1980 MHz; what the
# candidate process accepts at most.
COVER_CYCLES = 1000000
COVER_CYCLES_MAX = 100000000
