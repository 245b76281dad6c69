"""talus never crashes or hangs: Ctrl-C stops a run and a long step (in a
child interpreter sent SIGINT), reads from other threads are safe against a
step, and bad input is refused whole, before anything is added."""
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from conftest import SOURCE_DIR, make_bed, need_cli

import talus

# ---------------------------------------------------------------- Ctrl-C

PYTHON = sys.executable  # the interpreter running the tests: Debian's, under ctest


def long_scene(tmp_path):
    """The demo pour with no end in sight (100 s), CSV outputs and checkpoints."""
    with open(os.path.join(SOURCE_DIR, "examples", "default.yaml"), encoding="utf-8") as f:
        lines = [ln for ln in f if "type: vtk" not in ln and "type: plot" not in ln and "type: image" not in ln]
    text = "".join(lines).replace("duration: 0.3", "duration: 100")
    assert "duration: 100" in text
    text += "checkpoint: {every_steps: 1000000}\n"
    path = tmp_path / "long.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def interrupt_child(tmp_path, script, *args, after=1.5):
    """Runs `script` in a child interpreter, sends it SIGINT `after` seconds
    after it prints "running", and returns (seconds from SIGINT to its exit,
    return code, stdout, stderr)."""
    code = tmp_path / "child.py"
    code.write_text(textwrap.dedent(script), encoding="utf-8")
    out, err = tmp_path / "child.out", tmp_path / "child.err"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(out, "w") as fo, open(err, "w") as fe:
        child = subprocess.Popen([PYTHON, str(code)] + [str(a) for a in args], stdout=fo, stderr=fe, env=env)
        try:
            deadline = time.monotonic() + 60
            while "running" not in out.read_text():
                assert child.poll() is None, "the child ended early: " + err.read_text()
                assert time.monotonic() < deadline, "the child did not start"
                time.sleep(0.05)
            time.sleep(after)
            assert child.poll() is None, "the child ended before SIGINT: " + err.read_text()
            t0 = time.monotonic()
            child.send_signal(signal.SIGINT)
            try:
                rc = child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                rc = None
            seconds = time.monotonic() - t0
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    return seconds, rc, out.read_text(), err.read_text()


SCENE_CHILD = """
    import sys
    import talus
    scene = talus.Scene(sys.argv[1])
    mode = sys.argv[3]
    kw = {}
    if mode == "huge-interval":          # a progress callback that is never due
        kw = dict(progress=lambda p: None, progress_interval=1e9)
    elif mode == "every-chunk":          # the callback entered after every chunk
        kw = dict(progress=lambda p: print("progress", p["step"]), progress_interval=0.0)
    print("running")
    try:
        scene.run(sys.argv[2], **kw)
    except KeyboardInterrupt as e:
        w = scene.world
        print("interrupted", w.step_count, repr(w.time), "|", e)
        raise
    print("finished")
"""


def csv_last_step(path):
    with open(path, encoding="utf-8") as f:
        rows = f.read().splitlines()
    head = rows[0].split(",")
    return int(rows[-1].split(",")[head.index("step")])


@pytest.mark.parametrize("mode", ["no-progress", "huge-interval", "every-chunk"])
def test_ctrl_c_stops_a_scene_run_with_its_outputs_committed(tmp_path, mode):
    scene = long_scene(tmp_path)
    out_dir = tmp_path / "out"
    seconds, rc, out, err = interrupt_child(tmp_path, SCENE_CHILD, scene, out_dir, mode)
    print("%s: exited %.2f s after SIGINT, rc %s" % (mode, seconds, rc))
    assert rc is not None, "still running 20 s after SIGINT: " + out[-300:] + err[-300:]
    assert seconds < 5.0
    # KeyboardInterrupt raised, and nothing escaped a cffi callback
    assert rc == -signal.SIGINT and "KeyboardInterrupt" in err, err
    assert "Exception ignored" not in err and "callback" not in err, err
    line = [ln for ln in out.splitlines() if ln.startswith("interrupted")][0]
    step = int(line.split()[1])
    assert "interrupted at t = " in line and "step %d" % step in line
    assert step > 0 and "finished" not in out
    # every file under its final name, the records up to the interrupted step, the
    # checkpoint of that step (as `talus run` leaves them on Ctrl-C)
    names = sorted(os.path.relpath(os.path.join(r, n), out_dir) for r, _, ns in os.walk(out_dir) for n in ns)
    assert names == ["checkpoint/checkpoint-%d.tlck" % step, "checkpoint/latest", "energy.csv", "particles.csv"]
    assert csv_last_step(out_dir / "energy.csv") == step
    assert csv_last_step(out_dir / "particles.csv") == step
    # the checkpoint is whole: the run resumes from it (and is stopped again, by an
    # exception of its progress callback, after its first chunk)
    shutil.copytree(out_dir, tmp_path / "resumed")

    class Stop(Exception):
        pass

    def stop(p):
        raise Stop(p["step"])

    with talus.Scene(str(scene)) as s:
        with pytest.raises(Stop):
            s.run(str(tmp_path / "resumed"), resume=str(tmp_path / "resumed" / "checkpoint"), progress=stop,
                  progress_interval=0.0)
        resumed = s.world.step_count
    assert resumed > step and csv_last_step(tmp_path / "resumed" / "energy.csv") == resumed


def test_ctrl_c_leaves_the_files_talus_run_leaves(tmp_path):
    cli = need_cli()
    scene = long_scene(tmp_path)
    child = subprocess.Popen([cli, "run", str(scene), "-o", str(tmp_path / "cli"), "--quiet"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2.0)
    child.send_signal(signal.SIGINT)
    assert child.wait(timeout=20) == 130
    _, rc, _, _ = interrupt_child(tmp_path, SCENE_CHILD, scene, tmp_path / "py", "no-progress", after=0.5)
    assert rc == -signal.SIGINT

    def shape(d):  # the file names, the step in the checkpoint's name taken out
        return sorted(os.path.relpath(os.path.join(r, n), d).split("-")[0]
                      for r, _, ns in os.walk(d) for n in ns)

    assert shape(tmp_path / "cli") == shape(tmp_path / "py")


STEP_CHILD = """
    import sys
    import numpy as np
    import talus
    w = talus.World(gravity=(0, 0, -9.81))
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", tangential="mindlin", e=0.5, mu=0.4)
    w.add_wall("plane", "glass", point=(0, 0, 0), normal=(0, 0, 1))
    g = np.mgrid[0:10, 0:10, 0:5].reshape(3, -1).T * 2.1e-3 + 1.1e-3
    w.add_particles(g, 1e-3, "glass")
    w.step(10)
    print("running")
    try:
        w.step(10**9)
    except KeyboardInterrupt:
        n = w.step_count
        w.step(7)                   # the world steps on
        print("interrupted", n, w.step_count)
        raise
    print("finished")
"""


def test_ctrl_c_stops_a_long_step(tmp_path):
    seconds, rc, out, err = interrupt_child(tmp_path, STEP_CHILD)
    print("World.step(10**9): exited %.2f s after SIGINT, rc %s" % (seconds, rc))
    assert rc is not None, "still stepping 20 s after SIGINT"
    assert seconds < 5.0
    assert rc == -signal.SIGINT and "KeyboardInterrupt" in err, err
    line = [ln for ln in out.splitlines() if ln.startswith("interrupted")][0]
    n, after = (int(v) for v in line.split()[1:])
    assert 10 < n < 10**9 and after == n + 7


# ---------------------------------------------------------------- threads

def test_reads_from_threads_while_others_step():
    """Reads of every kind from four threads, while one thread steps in short
    calls and another in one long call, and a third adds particles and clears
    the collision log, for 10 s: no crash, no exception, and what is read
    together is consistent."""
    w = make_bed(n_side=8, layers=5, reorder_every=20, threads=1)
    w.add_shape("ellipsoid", name="egg", semi_axes=(1.5e-3, 1e-3, 8e-4))
    egg = w.add_particle("glass", shape=1, position=(0.01, 0.01, 0.02), orientation=(0.9, 0.1, 0.3, 0.2))
    w.log_collisions = True
    w.step(200)
    first_ids = [int(i) for i in w.ids[:20]]
    x_early = w.positions          # a view taken before: it stays readable
    end = time.monotonic() + 10.0
    errors, counts, waits = [], {}, []

    def guard(name, body):
        def run():
            n = 0
            try:
                while time.monotonic() < end:
                    body()
                    n += 1
            except BaseException as e:  # noqa: B036 (recorded, asserted below)
                errors.append("%s: %r" % (name, e))
            counts[name] = n
        return threading.Thread(target=run, name=name)

    def short_steps():
        w.step(3)

    def long_step():
        w.step(20000)

    def writer():
        k = counts.get("added", 0)
        w.add_particles(np.array([[0.02 + 0.003 * (k % 5), 0.02 + 0.003 * (k // 5 % 5), 0.03 + 0.003 * (k // 25)]]),
                        1e-3, "glass")
        counts["added"] = k + 1
        w.collisions(clear=True)
        time.sleep(0.05)

    def contacts():
        with w.locked():               # the count and the list of the same instant
            c = w.contacts()
            assert len(c) == w.contact_count
        assert (c["overlap"] > 0).all() and np.isfinite(c["normal_force"]).all()
        assert np.isfinite(c["tangential_force"]).all() and np.isfinite(c["point"]).all()
        e = w.energy()
        assert all(np.isfinite(e[k]) for k in e.dtype.names), e

    def collisions():
        c = w.collisions()
        assert (c["t_end"] >= c["t_begin"]).all() and np.isfinite(c["normal_speed_in"]).all()
        for row in (w.particle(first_ids[len(c) % 20]), w.particle(egg)):
            assert all(np.isfinite(row["position"])) and abs(np.linalg.norm(row["orientation"]) - 1) < 1e-9
        assert w.wall("floor")["area"] >= 0 and len(w.walls) == 1
        assert w.get_law("glass", "glass")["coefficients"]["mu"] == 0.4
        assert w.shape("egg")["semi_axes"][0] == 1.5e-3

    def arrays():
        t0 = time.monotonic()
        with w.locked():
            x, ids, q = np.array(w.positions), np.array(w.ids), np.array(w.orientations)
            n, t = len(w), w.time
        waits.append(time.monotonic() - t0)
        assert x.shape == (n, 3) and ids.shape == (n,) and q.shape == (n, 4)
        assert np.isfinite(x).all() and len(set(ids.tolist())) == n
        np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1, atol=1e-9)
        assert t > 0 and np.isfinite(x_early).all()
        w.velocities.sum(), w.forces.max(), w.radii.min(), w.masses.sum()   # live views, unlocked

    def scalars():
        t0, s0 = w.time, w.step_count
        w.dt, w.generation, w.memory_bytes, w.threads, w.particles_removed, w.timestep(), w.materials
        repr(w)
        assert w.time >= t0 and w.step_count >= s0

    threads = [guard("short_steps", short_steps), guard("long_step", long_step), guard("writer", writer),
               guard("contacts", contacts), guard("collisions", collisions), guard("arrays", arrays),
               guard("scalars", scalars)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not any(th.is_alive() for th in threads), "a thread hangs"
    print("calls in 10 s:", counts, "longest wait for the lock: %.3f s" % max(waits))
    assert errors == []
    assert all(counts[name] > 20 for name in ("contacts", "collisions", "arrays", "scalars", "short_steps"))
    assert counts["added"] > 20 and len(w) == 321 + counts["added"]
    assert max(waits) < 2.0      # a reader waits for a chunk (about 0.05 s), not for the long step
    w.close()


def test_the_progress_callback_reads_the_world_the_run_holds(tmp_path):
    scene = {"talus": 1, "name": "drop",
             "materials": {"glass": {"density": 2500, "youngs_modulus": 1e7, "poisson_ratio": 0.25}},
             "laws": [{"between": ["glass", "glass"], "normal": "hertz", "damping": "tsuji", "tangential": "mindlin",
                       "history": True, "e": 0.5, "mu": 0.4}],
             "walls": [{"type": "plane", "material": "glass", "point": [0, 0, 0], "normal": [0, 0, 1]}],
             "particles": [{"material": "glass", "radius": 1e-3, "position": [0, 0, 0.05]}],
             "gravity": [0, 0, -9.81], "stages": [{"name": "fall", "duration": 0.05}]}
    seen = []
    with talus.Scene(scene) as s:
        w = s.world

        def progress(p):
            seen.append((p["step"], w.step_count, w.positions[0, 2], w.energy()["total"]))

        s.run(write_outputs=False, progress=progress, progress_interval=0.0)
        assert seen and all(a == b for a, b, _, _ in seen)
        assert all(z < 0.05 for _, _, z, _ in seen)


def test_a_run_in_one_thread_is_read_not_changed_from_another(tmp_path):
    """While Scene.run holds the world, another thread reads it between two
    chunks (waiting a chunk, not the run), and a change is refused, not
    queued for the run's end."""
    done = threading.Event()
    got, errors = {}, []

    def other(w):
        try:
            while w.step_count == 0:
                time.sleep(0.01)
            t0 = time.monotonic()
            with w.locked():
                got["step"], got["n"] = w.step_count, len(w.contacts())
                got["x"] = np.array(w.positions)
                got["contacts"] = w.contact_count
            got["energy"] = w.energy()["total"]
            got["wait"] = time.monotonic() - t0
            for change in (lambda: w.step(1), lambda: w.add_particle("glass", radius=1e-3, position=(0, 0, 1)),
                           lambda: w.set_wall_velocity(0, (0, 0, 1)), lambda: w.collisions(clear=True)):
                with pytest.raises(talus.TalusError, match="Scene.run is running this world"):
                    change()
        except BaseException as e:  # noqa: B036 (asserted below)
            errors.append(repr(e))
        finally:
            done.set()

    class Stop(Exception):
        pass

    def progress(p):
        if done.is_set():
            raise Stop()

    with talus.Scene(str(long_scene(tmp_path))) as s:
        th = threading.Thread(target=other, args=(s.world,))
        th.start()
        with pytest.raises(Stop):
            s.run(str(tmp_path / "out"), progress=progress, progress_interval=0.0)
        th.join()
        assert errors == []
        assert got["step"] > 0 and got["n"] == got["contacts"] and got["x"].shape == (3267, 3)
        assert np.isfinite(got["energy"]) and got["wait"] < 2.0
        assert s.world.step_count > got["step"]
        s.world.step(1)   # the run over, the world steps again


# ---------------------------------------------------------------- input

def glass_world():
    w = talus.World(gravity=(0, 0, -9.81))
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", tangential="mindlin", e=0.5, mu=0.4)
    return w


def test_add_particles_refuses_wrong_shapes_and_adds_nothing():
    w = glass_world()
    with pytest.raises(ValueError, match=r"positions must be an array of shape \(n, 3\), got shape \(3, 2\)"):
        w.add_particles(np.zeros((3, 2)), 1e-3)
    with pytest.raises(ValueError, match=r"positions must be an array of shape \(n, 3\), got shape \(3,\)"):
        w.add_particles([0.0, 0.0, 0.01], 1e-3)
    x = np.array([[0, 0, 0.01], [0.003, 0, 0.01], [0.006, 0, 0.01]])
    with pytest.raises(ValueError, match=r"velocities must be an array of shape \(3, 3\), got shape \(1, 3\)"):
        w.add_particles(x, 1e-3, velocities=[[0, 0, 1]])
    with pytest.raises(ValueError, match=r"radius must be a number or an array of shape \(3,\), got shape \(2,\)"):
        w.add_particles(x, [1e-3, 1e-3])
    with pytest.raises(ValueError, match="positions must be an array"):
        w.add_particles([["a", "b", "c"]], 1e-3)
    with pytest.raises(ValueError, match="the same id"):
        w.add_particles(x, 1e-3, id=7)
    assert len(w) == 0
    assert w.add_particles(np.zeros((0, 3)), 1e-3).tolist() == []
    assert w.add_particles(x, [1e-3, 1.1e-3, 1.2e-3]).tolist() == [1, 2, 3]
    np.testing.assert_array_equal(w.positions, x)
    np.testing.assert_array_equal(w.radii, [1e-3, 1.1e-3, 1.2e-3])


def test_add_particles_is_all_or_nothing():
    w = glass_world()
    w.add_particle("glass", radius=1e-3, position=(0, 0, 0.05))
    x = np.array([[0, 0, 0.01], [0.003, 0, 0.01], [np.nan, 0, 0.01], [0.009, 0, 0.01]])
    with pytest.raises(talus.TalusError, match=r"row 2 of 4: particle: position and velocities must be "
                                               r"finite \(none was added\)"):
        w.add_particles(x, 1e-3)
    assert len(w) == 1
    x[2, 0] = 0.006
    with pytest.raises(talus.TalusError, match=r"row 1 of 4: particle: radius must be from"):
        w.add_particles(x, [1e-3, -1, 1e-3, 1e-3])
    with pytest.raises(talus.TalusError, match="row 0 of 4: particle: orientation must be a quaternion"):
        w.add_particles(x, 1e-3, orientation=(np.nan, 0, 0, 0))
    with pytest.raises(talus.TalusError, match="row 0 of 1: particle: id 1 is already used"):
        w.add_particles(x[:1], 1e-3, id=1)
    assert len(w) == 1 and w.ids.tolist() == [1]
    ids = w.add_particles(x, 1e-3, velocities=np.ones((4, 3)))
    assert ids.tolist() == [2, 3, 4, 5] and len(w) == 5
    np.testing.assert_array_equal(w.velocities[1:], np.ones((4, 3)))


def test_an_orientation_of_nan_inf_or_zero_is_refused():
    w = glass_world()
    s = w.add_shape("ellipsoid", semi_axes=(2e-3, 1e-3, 1e-3))
    for q in ((np.nan, 0, 0, 0), (1, 0, np.inf, 0)):
        with pytest.raises(talus.TalusError, match=r"orientation must be a quaternion \[w, x, y, z\] of finite"):
            w.add_particle("glass", shape=s, position=(0, 0, 0.01), orientation=q)
    with pytest.raises(ValueError, match="orientation must not be zero"):
        w.add_particle("glass", shape=s, position=(0, 0, 0.01), orientation=(0, 0, 0, 0))
    assert len(w) == 0
    # tiny and huge numbers are a turn as any other: normalised
    a = w.add_particle("glass", shape=s, position=(0, 0, 0.01), orientation=(0, 1e-200, 0, 0))
    b = w.add_particle("glass", shape=s, position=(0, 0, 0.02), orientation=(1e200, 1e200, 0, 0))
    np.testing.assert_allclose(w.particle(a)["orientation"], (0, 1, 0, 0), atol=1e-15)
    np.testing.assert_allclose(w.particle(b)["orientation"], (0.5 ** 0.5, 0.5 ** 0.5, 0, 0), atol=1e-15)


def test_numpy_arrays_and_scalars_in_a_dict_scene():
    def scene(vec, num, integer):
        return {"talus": 1, "name": "beads", "seed": integer(7), "gravity": vec([0, 0, -9.81]),
                "materials": {"glass": {"density": num(2500), "youngs_modulus": num(1e7),
                                        "poisson_ratio": num(0.25)}},
                "laws": [{"between": ["glass", "glass"], "normal": "hertz", "damping": "tsuji", "tangential": "mindlin",
                          "history": True, "e": num(0.5), "mu": num(0.4)}],
                "particles": [{"material": "glass", "radius": num(1e-3), "position": vec([0, 0, 0.03])},
                              {"lattice": {"material": "glass", "radius": num(1e-3), "min": vec([0, 0, 0]),
                                           "max": vec([0.01, 0.01, 0.01]), "spacing": num(3e-3),
                                           "jitter": num(0.2)}}],
                "stages": [{"name": "fall", "duration": num(0.001)}]}

    plain = scene(lambda v: np.array(v).tolist(), float, int)
    numpy = scene(np.array, np.float64, np.int64)
    assert talus.scene_yaml(numpy) == talus.scene_yaml(plain)
    with talus.Scene(numpy) as a, talus.Scene(plain) as b:
        assert len(a.world) == len(b.world) > 10
        np.testing.assert_array_equal(a.world.positions, b.world.positions)
        assert a.world.positions[0, 2] == 0.03
    with pytest.raises(ValueError, match="NUL"):
        talus.scene_yaml({"name": "a\0b"})


def test_a_scene_text_with_a_nul_byte_is_refused():
    text = ("talus: 1\nname: two\nintegrator: {dt: 1.0e-6}\nmaterials: {glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}}\n"
            "laws: [{between: [glass, glass], normal: hertz, damping: tsuji, tangential: mindlin, history: true, "
            "e: 0.5, mu: 0.4}]\n"
            "particles: [{material: glass, radius: 1.0e-3, position: [0, 0, 0.01]}]\n"
            "stages: [{name: s, duration: 0.001}]\n")
    talus.Scene.from_string(text).close()
    with pytest.raises(talus.TalusError) as e:
        talus.Scene.from_string(text + "\0" + "stages: [{name: s, duration: 1}]\n", name="nul.yaml")
    assert "NUL byte" in str(e.value) and (e.value.file, e.value.line, e.value.column) == ("nul.yaml", 8, 1)
    with pytest.raises(talus.TalusError, match="NUL byte"):
        talus.Scene.from_string(text.replace("name: two", "name: t\0wo").encode())


BOX_V = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]],
                 dtype=float) * 1e-3
BOX_T = np.array([[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5],
                  [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]], dtype=np.int64)


def test_triangle_indices_beyond_uint32_are_refused():
    w = glass_world()
    for bad, what in ((BOX_T + 2 ** 32, "2^32"), (BOX_T - 1, "-1")):
        with pytest.raises(ValueError, match=r"triangles\[0, 0\] = .*vertex indices are whole numbers from 0 to 7"):
            w.add_shape("mesh", vertex_xyz=BOX_V, triangles=bad)
        with pytest.raises(ValueError, match=r"mesh_triangles\[0, 0\] = "):
            w.add_wall("mesh", "glass", mesh_vertices=BOX_V, mesh_triangles=bad)
    with pytest.raises(ValueError, match=r"triangles must be an array \(m, 3\) of vertex indices"):
        w.add_shape("mesh", vertex_xyz=BOX_V, triangles=BOX_T.reshape(-1, 2))
    with pytest.raises(ValueError, match=r"triangles\[0, 1\] = 2.5"):
        w.add_shape("mesh", vertex_xyz=BOX_V, triangles=np.where(BOX_T == 2, 2.5, BOX_T))
    with pytest.raises(ValueError, match=r"vertex_xyz must be an array of shape \(n, 3\)"):
        w.add_shape("mesh", vertex_xyz=BOX_V.reshape(-1, 4), triangles=BOX_T)
    assert w.shape_count == 0
    s = w.add_shape("mesh", vertex_xyz=BOX_V, triangles=BOX_T)
    assert w.shape(s)["facets"] == 12
    assert w.add_wall("mesh", "glass", mesh_vertices=BOX_V, mesh_triangles=BOX_T.astype(float)) == 0


def test_step_takes_a_count():
    w = glass_world()
    for bad in (-1, 2.5, "10", True):
        with pytest.raises(ValueError, match="steps must be an integer >= 0"):
            w.step(bad)
