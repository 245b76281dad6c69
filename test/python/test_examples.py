"""The Python examples run (examples/python/): the calibration and sweep in
full; the shear box is too long for the suite (about 30 s with --quick) and is
run by hand (docs/python.md)."""
import os
import subprocess
import sys

from conftest import SOURCE_DIR


def test_calibrate_sweep_runs_and_hits_its_targets(tmp_path):
    script = os.path.join(SOURCE_DIR, "examples", "python", "calibrate_sweep.py")
    out = subprocess.run([sys.executable, script, "-o", str(tmp_path / "sweep.png")], check=True,
                         capture_output=True, text=True, cwd=str(tmp_path)).stdout
    assert os.path.getsize(tmp_path / "sweep.png") > 10000
    assert not os.path.exists(tmp_path / "sweep.png.tmp.png")
    exact = [ln for ln in out.splitlines() if ln.strip().startswith("exact")][0]
    e_run = float(exact.split("e = ")[1].split(",")[0])
    assert abs(e_run - 0.8) < 1e-3
    closed = [ln for ln in out.splitlines() if "closed form" in ln][0]
    assert float(closed.split()[-1]) < 1e-3
