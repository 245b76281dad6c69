"""Run by test_verbs.py under `mpirun -n 2`: a scene's world spread over the ranks of an
mpi4py communicator (COMM_WORLD's ranks in reverse order, so that the world's rank is not
COMM_WORLD's), stepped by hand with a callback and run by Scene.run, against the serial run.
Prints `mpi: KEY VALUES` lines (one value per rank where it says so) for the test to read."""
import os
import sys

import numpy as np
from mpi4py import MPI

import talus

path, tmp = sys.argv[1], sys.argv[2]
world = MPI.COMM_WORLD
size = world.Get_size()
comm = world.Split(0, size - 1 - world.Get_rank())   # the same ranks, numbered backwards
me = comm.Get_rank()


def say(key, value, every_rank=True):
    values = comm.gather(str(value), root=0)
    if me == 0:
        print("mpi: %s %s" % (key, " ".join(values) if every_rank else values[0]), flush=True)


def same(a, b):
    """Two gathered particle arrays, in id order, bit for bit."""
    a, b = np.sort(a, order="id"), np.sort(b, order="id")
    return all(np.array_equal(a[f], b[f]) for f in ("id", "position", "velocity", "angular_velocity"))


s = talus.Scene(path)
try:
    s.distribute(comm)
except talus.TalusError as e:
    if "this build has none" in str(e):
        if me == 0:
            print("SKIP: the library was built without MPI", flush=True)
        sys.exit(0)
    raise
w = s.world
say("ranks", w.ranks)
say("reversed", "yes" if w.rank == size - 1 - world.Get_rank() else "no")
calls = []
w.step(400, callback=lambda ww: calls.append(ww.step_count), every=100)
say("callbacks", len(calls))
n = len(w)
say("stored", comm.bcast(n, root=0), every_rank=False)
say("stored_other", comm.bcast(n, root=1), every_rank=False)
got = w.gather_particles()
verdict = None
if me == 0:
    ref = talus.Scene(path)
    ref.world.step(400)
    verdict = "identical" if same(got, ref.world.gather_particles()) and len(got) == len(ref.world) else "differ"
say("steps", comm.bcast(verdict, root=0), every_rank=False)

# a whole run on the ranks, with a callback, against the serial run's files
run_dir = os.path.join(tmp, "mpi-run")
s2 = talus.Scene(path)
s2.distribute(comm)
s2.run(run_dir, callback=lambda ww: None, every=100)
verdict = None
if me == 0:
    serial_dir = os.path.join(tmp, "serial-run")
    talus.Scene(path).run(serial_dir)
    verdict = "identical"
    for name in ("energy.csv", "particles.csv"):
        with open(os.path.join(run_dir, name), "rb") as f, open(os.path.join(serial_dir, name), "rb") as g:
            if f.read() != g.read():
                verdict = "differ in " + name
say("run", comm.bcast(verdict, root=0), every_rank=False)

# talus.STOP from rank 0 stops every rank, which all return the summary
s3 = talus.Scene(path)
s3.distribute(comm)
r = s3.run(write_outputs=False, callback=lambda ww: talus.STOP if me == 0 and ww.step_count >= 200 else None,
           every=100)
say("stopped", r["steps"])
