"""timeit.py LABEL CMD... - run CMD once; print "LABEL: wall W ms, cpu C ms"
(cpu = user + system of the command).  Both matter: on a loaded machine
wall time says more about the neighbours than about headroom."""
import resource
import subprocess
import sys
import time

label, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
wall = (time.perf_counter() - t0) * 1000
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (ru.ru_utime + ru.ru_stime) * 1000
print("%s: wall %.0f ms, cpu %.0f ms%s" % (label, wall, cpu,
                                          "" if rc == 0 else ", EXIT %d" % rc))
sys.exit(rc)
