"""test_mpi_run: the VTK series a run on several ranks wrote (frames as parallel pieces: a .pvtp
per frame listing one .vtp per rank) read by VTK's own readers (Debian's python3-vtk9, the
readers ParaView uses) hold the same points and arrays, bit for bit and in the same order, as
the serial run's frames (.vtp).
Usage: compare_frames.py SERIAL_DIR RANKS_DIR SERIES RANKS (RANKS: a count, or counts as 2,3 where
the run was resumed on another number of ranks: each count must be seen)"""
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

serial, ranks, series = sys.argv[1], sys.argv[2], sys.argv[3]
counts = set(int(c) for c in sys.argv[4].split(","))
seen = set()
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def frames(d):
    root = ET.parse(os.path.join(d, series + ".pvd")).getroot()
    return [(float(x.get("timestep")), x.get("file")) for x in root.iter("DataSet")]


def read(d, f):
    path = os.path.join(d, f)
    r = vtk.vtkXMLPPolyDataReader() if f.endswith(".pvtp") else vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    check(r.GetErrorCode() == 0, "reading " + path)
    return r.GetOutput()


def arrays(p):
    out = {"Points": vtk_to_numpy(p.GetPoints().GetData())}
    for data in (p.GetPointData(), p.GetCellData()):
        for k in range(data.GetNumberOfArrays()):
            out[data.GetArrayName(k)] = vtk_to_numpy(data.GetArray(k))
    return out


a, b = frames(serial), frames(ranks)
check(len(a) == len(b) and len(a) > 1, "the same number of frames (%d, %d)" % (len(a), len(b)))
pieces = 0
for (ta, fa), (tb, fb) in zip(a, b):
    check(ta == tb, "frame times %r %r" % (ta, tb))
    check(fa.endswith(".vtp") and fb.endswith(".pvtp"), "a serial .vtp and a parallel .pvtp: %s %s" % (fa, fb))
    src = [p.get("Source") for p in ET.parse(os.path.join(ranks, fb)).getroot().iter("Piece")]
    check(len(src) in counts, "%s lists %d pieces, not %s" % (fb, len(src), sys.argv[4]))
    seen.add(len(src))
    sizes = []
    for s in src:
        piece = read(os.path.dirname(os.path.join(ranks, fb)), s)
        sizes.append(piece.GetNumberOfPoints())
    pieces += sum(1 for n in sizes if n > 0)
    pa, pb = arrays(read(serial, fa)), arrays(read(ranks, fb))
    check(sum(sizes) == len(pa["Points"]), "the pieces of %s hold every particle once" % fb)
    check(sorted(pa) == sorted(pb), "the same arrays: %s %s" % (sorted(pa), sorted(pb)))
    for k in pa:
        if k in pb:
            check(pa[k].dtype == pb[k].dtype and np.array_equal(pa[k], pb[k]), "%s: array %s differs" % (fb, k))
check(seen == counts, "frames of %s ranks, not %s" % (sorted(seen), sys.argv[4]))
check(pieces > len(b), "the particles are spread over several pieces (%d non-empty pieces)" % pieces)
if fails:
    sys.exit(1)
print("%d frames on %s ranks: every array identical to the serial run's, %d non-empty pieces"
      % (len(b), sys.argv[4], pieces))
