"""talus.Scene: a scene file or dict run from Python, against `talus run`."""
import os
import subprocess

import pytest
from conftest import SOURCE_DIR, need_cli

import talus


def small_demo(tmp_path):
    """The built-in demo scene cut to 0.01 s, with checkpoints every 300
    steps (the complete state, to the bit) and no pictures."""
    with open(os.path.join(SOURCE_DIR, "examples", "default.yaml"), encoding="utf-8") as f:
        lines = [ln for ln in f if "type: vtk" not in ln and "type: plot" not in ln]
    text = "".join(lines).replace("duration: 0.3", "duration: 0.01")
    assert "duration: 0.01" in text
    text += "checkpoint: {every_steps: 300, keep: 5}\n"
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def files(d):
    out = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = f.read()
    return out


def test_a_scene_run_from_python_ends_bit_identical_to_talus_run(tmp_path):
    cli = need_cli()
    scene = small_demo(tmp_path)
    subprocess.run([cli, "run", str(scene), "-o", str(tmp_path / "cli"), "--quiet"], check=True)
    with talus.Scene(str(scene)) as s:
        r = s.run(str(tmp_path / "py"))
        assert r["steps"] > 600 and r["particles"] == 3267
        final = s.world.save_state()
    a, b = files(tmp_path / "cli"), files(tmp_path / "py")
    assert sorted(a) == sorted(b)
    assert "checkpoint/checkpoint-600.tlck" in a
    for name in a:          # checkpoints (the whole state) and CSV files, byte for byte
        assert a[name] == b[name], name
    # and the state the Python run ended with equals a second run's, stepped by hand
    with talus.Scene(str(scene)) as s2:
        w = s2.world
        w.step(r["steps"])
        assert w.save_state() == final


def test_a_scene_as_a_dict_equals_the_same_scene_as_a_file(tmp_path):
    scene = {
        "talus": 1, "name": "two beads", "gravity": [0, 0, -9.81],
        "materials": {"glass": {"density": 2500, "youngs_modulus": 1e7, "poisson_ratio": 0.25}},
        "laws": [{"between": ["glass", "any"], "normal": "hertz", "damping": "tsuji", "tangential": "mindlin",
                  "history": True, "e": 0.5, "mu": 0.4}],
        "walls": [{"name": "floor", "type": "plane", "material": "glass", "point": [0, 0, 0],
                   "normal": [0, 0, 1]}],
        "particles": [{"id": 1, "material": "glass", "radius": 1e-3, "position": [0, 0, 2e-3]},
                      {"id": 2, "material": "glass", "radius": 1e-3, "position": [0.5e-3, 0, 5e-3]}],
        "stages": [{"name": "drop", "duration": 0.02}],
    }
    (tmp_path / "two.yaml").write_text(talus.scene_yaml(scene), encoding="utf-8")
    with talus.Scene(scene) as a, talus.Scene(str(tmp_path / "two.yaml")) as b:
        assert a.title == "two beads" and a.duration == pytest.approx(0.02)
        assert [st["name"] for st in a.stages] == ["drop"]
        ra, rb = a.run(write_outputs=False), b.run(write_outputs=False)
        assert ra["steps"] == rb["steps"] > 0
        assert a.world.save_state() == b.world.save_state()
        assert a.world.particle(1)["position"][2] < 2e-3   # it fell
        res = a.stage_results()
        assert res[0]["name"] == "drop" and res[0]["steps"] == ra["steps"]


def test_a_bad_scene_raises_with_file_line_and_key(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("talus: 1\nname: bad\nmaterials:\n  glass: {density: -5, youngs_modulus: 1e7, "
                 "poisson_ratio: 0.25}\nlaws:\n  - {between: [glass, glass], e: 0.5}\nstages:\n  - {duration: 0.1}\n", encoding="utf-8")
    with pytest.raises(talus.TalusError) as e:
        talus.Scene(str(p))
    err = e.value
    assert "bad.yaml" in str(err) and "density" in str(err)
    assert err.line == 4 and err.key == "materials.glass.density"
    with pytest.raises(talus.TalusError, match="materials"):
        talus.Scene({"talus": 1, "stages": [{"duration": 0.1}]})
    with pytest.raises(TypeError):
        talus.Scene(42)
    with pytest.raises(ValueError, match="plain names"):
        talus.Scene({"talus": 1, "bad key": 2})


def test_progress_is_reported_and_an_exception_stops_the_run(tmp_path):
    scene = small_demo(tmp_path)
    seen = []
    with talus.Scene(str(scene)) as s:
        s.run(write_outputs=False, progress=seen.append, progress_interval=0.0)
        assert seen and seen[-1]["steps_total"] == s.world.step_count > 700
    assert all(b["step"] >= a["step"] for a, b in zip(seen, seen[1:]))
    scene.write_text(scene.read_text(encoding="utf-8").replace("duration: 0.01", "duration: 0.1"),
                     encoding="utf-8")

    class Stop(Exception):
        pass

    def stop(p):
        if p["step"] > 100:
            raise Stop()

    with talus.Scene(str(scene)) as s:
        with pytest.raises(Stop):
            s.run(write_outputs=False, progress=stop, progress_interval=0.0)
        assert 100 < s.world.step_count < 7000
