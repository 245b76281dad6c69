"""The verbs of issue 41, item 5: removing particles, setting many at once, rows by id, a
callback inside World.step and Scene.run, state round trips, MPI from Python (mpi4py)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import SOURCE_DIR, make_bed

import talus


def ledger_scale(e):
    return max(abs(e[k]) for k in e.dtype.names if k != "total")


def pair_keys(c):
    """(id_a, id_b, with_wall) of each contact, as tuples."""
    return [(int(a), int(b), bool(w)) for a, b, w in zip(c["id_a"], c["id_b"], c["with_wall"])]


# ---- removing particles ----

def test_removed_particles_take_their_contacts_and_energy_with_them():
    w = make_bed()
    w.step(3000)
    c0 = w.contacts()
    # six particles of the bottom layer, away from its edges: each touches the floor and its neighbours
    x = w.positions
    inner = (x[:, 2] < 1.5e-3) & (x[:, 0] > 3e-3) & (x[:, 1] > 3e-3) & (x[:, 0] < 10e-3) & (x[:, 1] < 10e-3)
    gone = np.sort(w.ids[inner])[:6]
    assert len(gone) == 6
    rows = w.index_of(gone)
    m, v, x = w.masses[rows], w.velocities[rows], w.positions[rows]
    ke_gone = float(np.sum(0.5 * m * np.sum(v * v, axis=1)))
    pe_gone = float(np.sum(m * 9.81 * x[:, 2]))
    e0 = w.energy()
    n0, max_id = len(w), int(w.ids.max())
    w.remove_particles(gone)
    e1 = w.energy()
    assert len(w) == n0 - 6 and not np.isin(w.ids, gone).any()
    assert w.particles_removed == 0          # counts only those that left the domain
    # their contacts went with them; every other contact kept its record (history) as it was
    c1 = w.contacts()
    involved = np.isin(c0["id_a"], gone) | (~c0["with_wall"] & np.isin(c0["id_b"], gone))
    assert involved.sum() >= 6 + 6          # each touched the floor and at least one neighbour
    assert len(c1) == len(c0) - involved.sum()
    kept = c0[~involved]
    assert sorted(pair_keys(c1)) == sorted(pair_keys(kept))
    order = {k: i for i, k in enumerate(pair_keys(c1))}
    idx = [order[k] for k in pair_keys(kept)]
    np.testing.assert_array_equal(c1["tangential_force"][idx], kept["tangential_force"])
    np.testing.assert_array_equal(c1["overlap"][idx], kept["overlap"])
    # the ledger: what they carried left through the boundary, the total stays
    assert e0["kinetic_translational"] - e1["kinetic_translational"] == pytest.approx(ke_gone, rel=1e-9)
    assert e0["potential"] - e1["potential"] == pytest.approx(pe_gone, rel=1e-12)
    elastic = lambda e: e["elastic_normal"] + e["elastic_tangential"]  # noqa: E731
    assert elastic(e0) - elastic(e1) > 0.03 * elastic(e0)   # their springs held part of it
    out = (e0["kinetic_translational"] + e0["kinetic_rotational"] + e0["potential"] + elastic(e0)) - \
          (e1["kinetic_translational"] + e1["kinetic_rotational"] + e1["potential"] + elastic(e1))
    assert e0["boundary_work"] - e1["boundary_work"] == pytest.approx(out, rel=1e-12)
    assert abs(e1["total"] - e0["total"]) < 1e-12 * ledger_scale(e0)
    # the run goes on with a balance as good as without the removal
    w.step(2000)
    e2 = w.energy()
    drift = abs(e2["total"] - e1["total"]) / ledger_scale(e2)
    ref = make_bed()
    ref.step(3000)
    r1 = ref.energy()
    ref.step(2000)
    ref_drift = abs(ref.energy()["total"] - r1["total"]) / ledger_scale(ref.energy())
    assert drift < 3 * ref_drift + 1e-9, (drift, ref_drift)
    c2 = w.contacts()
    assert len(c2) > 30 and not (np.isin(c2["id_a"], gone) | (~c2["with_wall"] & np.isin(c2["id_b"], gone))).any()
    # ids stay unique: the next automatic id is above every id given so far
    assert w.add_particle("glass", radius=1e-3, position=(0.02, 0.02, 0.02)) == max_id + 1
    w.close()
    ref.close()


def test_removal_is_all_or_nothing_and_names_the_id():
    w = make_bed()
    w.step(10)
    before, n = w.save_state(), len(w)
    with pytest.raises(talus.TalusError, match=r"no particle with id 9999 \(ids\[2\]\); nothing was changed") as e:
        w.remove_particles([3, 4, 9999])
    assert e.value.status == "not found"
    with pytest.raises(talus.TalusError, match="particle 4 is given twice"):
        w.remove_particles([3, 4, 4])
    with pytest.raises(TypeError, match="ids must be integers"):
        w.remove_particles([3.0, 4.0])
    with pytest.raises(ValueError, match="ids must be one id or a 1-D array"):
        w.remove_particles([[3, 4]])
    assert len(w) == n and w.save_state() == before
    w.remove_particles(7)                 # one id
    w.remove_particles([])                # nothing
    assert len(w) == n - 1
    w.close()


def test_removal_before_the_first_step_and_of_bodies_of_other_shapes():
    # not prepared yet: the particles just go
    w = make_bed()
    e0 = w.energy()
    w.remove_particles(np.arange(1, 11))
    assert len(w) == 144 - 10 and w.ids.min() == 11
    e1 = w.energy()
    assert e1["boundary_work"] < 0.0 and abs(e1["total"] - e0["total"]) < 1e-12 * ledger_scale(e0)
    w.step(1000)
    assert len(w.contacts()) > 50 and w.ids.min() == 11
    w.close()
    # ellipsoids in contact (the shape stage's records): removed with theirs, the total kept
    w = talus.World(gravity=(0, 0, -9.81))
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", e=0.5, tangential="mindlin", mu=0.4)
    w.add_wall("plane", "glass", point=(0, 0, 0), normal=(0, 0, 1))
    egg = w.add_shape("ellipsoid", semi_axes=(1.5e-3, 1e-3, 1e-3))
    rng = np.random.default_rng(3)
    for i in range(4):
        for j in range(4):
            for k in range(3):
                w.add_particle("glass", shape=egg, position=(i * 3.3e-3, j * 2.3e-3, 1.2e-3 + k * 2.3e-3),
                               velocity=tuple(rng.uniform(-0.01, 0.01, 3)))
    w.step(3000)
    c0 = w.contacts()
    e0 = w.energy()
    bottom = w.ids[w.positions[:, 2] < 1.2e-3][:4]
    assert len(bottom) == 4
    w.remove_particles(bottom)
    c1 = w.contacts()
    e1 = w.energy()
    gone = np.isin(c0["id_a"], bottom) | (~c0["with_wall"] & np.isin(c0["id_b"], bottom))
    assert gone.sum() >= 4 and len(c1) == len(c0) - gone.sum()
    assert abs(e1["total"] - e0["total"]) < 1e-12 * ledger_scale(e0)
    assert e1["boundary_work"] < e0["boundary_work"]
    w.step(100)
    assert not np.isin(w.contacts()["id_a"], bottom).any()
    w.close()


def test_a_removed_particles_external_force_goes_with_it():
    w = make_bed()
    w.set_forces([5, 6], (0.0, 0.0, 1e-5))
    w.step(10)
    w.remove_particles([5])
    # the id given again (by hand) is a new particle, without the old one's force
    w.add_particle("glass", id=5, radius=1e-3, position=(0.05, 0.05, 0.05))
    x, m = w.positions, w.masses
    i5, i6 = w.index_of([5, 6])
    pot = -np.sum(m * (-9.81) * x[:, 2]) - 1e-5 * x[i6, 2]
    assert w.energy()["potential"] == pytest.approx(pot, rel=1e-12)
    w.close()


# ---- setting many particles at once ----

def test_set_many_particles_at_once_and_all_or_nothing():
    w = make_bed()
    w.step(100)
    ids = np.array([3, 17, 40, 41])
    new = np.array([[1e-3, 1e-3, 0.03], [3e-3, 1e-3, 0.03], [5e-3, 1e-3, 0.03], [7e-3, 1e-3, 0.03]])
    w.set_positions(ids, new)
    np.testing.assert_array_equal(w.positions[w.index_of(ids)], new)
    w.set_velocities(ids, (0.0, 0.0, -0.1))        # one vector for all
    np.testing.assert_array_equal(w.velocities[w.index_of(ids)], np.tile([0.0, 0.0, -0.1], (4, 1)))
    w.set_angular_velocities(ids[:2], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert w.particle(17)["angular_velocity"] == (4.0, 5.0, 6.0)
    state = w.save_state()
    bad = new.copy()
    bad[2, 1] = np.nan
    with pytest.raises(talus.TalusError, match=r"positions: the value of particle 40 \(row 2\) is not finite"):
        w.set_positions(ids, bad)
    with pytest.raises(ValueError, match=r"positions must be an array of shape \(2, 3\).*got shape \(3, 2\)"):
        w.set_positions([3, 17], np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"velocities must be an array of shape \(4, 3\).*got shape \(3, 3\)"):
        w.set_velocities(ids, np.zeros((3, 3)))       # a short array
    with pytest.raises(talus.TalusError, match=r"no particle with id 500 \(ids\[1\]\)"):
        w.set_velocities([3, 500], np.zeros((2, 3)))
    with pytest.raises(talus.TalusError, match="beyond"):
        w.set_positions([3], (0.0, 0.0, 2e12))
    assert w.save_state() == state                  # nothing of the refused calls happened
    w.close()


def test_set_velocities_equals_one_particle_at_a_time_and_refuses_fixed():
    a, b = make_bed(), make_bed()
    for w in (a, b):
        w.add_particle("glass", radius=1e-3, position=(0.03, 0.03, 1e-3), fixed=True)
        w.step(200)
    rng = np.random.default_rng(1)
    ids = a.ids[a.flags == 0][::3].copy()
    v = rng.uniform(-0.05, 0.05, (len(ids), 3))
    om = rng.uniform(-5, 5, (len(ids), 3))
    a.set_velocities(ids, v)
    a.set_angular_velocities(ids, om)
    for k, i in enumerate(ids):
        b.set_particle_velocity(int(i), v[k], om[k])
    a.step(500)
    b.step(500)
    assert a.save_state() == b.save_state()
    fixed = int(a.ids[a.flags == 1][0])
    with pytest.raises(talus.TalusError, match="particle %d .* is fixed" % fixed) as e:
        a.set_velocities([int(ids[0]), fixed], np.zeros((2, 3)))
    assert e.value.status == "not allowed now"
    a.set_positions([fixed], (0.03, 0.03, 2e-3))      # a fixed body can be moved by hand
    assert a.particle(fixed)["position"] == (0.03, 0.03, 2e-3)
    a.close()
    b.close()


def test_a_moved_particle_meets_what_it_was_moved_to():
    w = make_bed()
    w.step(3000)
    top = int(w.ids[np.argmax(w.positions[:, 2])])
    assert not any(top in (a, b) for a, b, wall in pair_keys(w.contacts()) if wall)
    x = w.particle(top)["position"]
    w.set_positions(top, (x[0], x[1], 0.9e-3))            # into the floor: 0.1 mm deep
    w.set_velocities(top, (0.0, 0.0, 0.0))
    w.step(1)
    mine = [c for c in w.contacts() if c["id_a"] == top and c["with_wall"]]
    assert len(mine) == 1 and mine[0]["overlap"] == pytest.approx(1e-4, rel=0.05)
    w.close()


def test_external_forces_for_many_particles():
    w = talus.World(gravity=(0, 0, 0), impact_speed=0.1)
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", e=0.5, tangential="mindlin", mu=0.4)
    ids = w.add_particles(np.arange(10)[:, None] * np.array([[0.01, 0, 0]]), 1e-3, "glass")
    f = np.zeros((10, 3))
    f[:, 2] = np.linspace(1e-6, 1e-5, 10)
    w.set_forces(ids, f)
    w.set_forces(ids[5:], np.zeros((5, 3)))              # zero: no force
    w.step(1000)
    a = f[:, 2] / w.masses
    a[5:] = 0.0
    np.testing.assert_allclose(w.velocities[w.index_of(ids), 2], a * w.time, rtol=1e-12, atol=0)
    e = w.energy()
    # a constant force is the potential -F.x: the work it did is booked there
    assert abs(e["total"]) < 1e-12 * e["kinetic_translational"]
    with pytest.raises(talus.TalusError, match="external forces: the value of particle 3"):
        w.set_forces([3], (np.inf, 0, 0))
    w.close()


# ---- rows by id ----

def test_index_of_follows_reordering_and_removal():
    w = make_bed(n_side=8, layers=5, reorder_every=1)
    ids = np.array([1, 77, 200, 320, 5])
    g0 = w.generation
    w.step(3000)
    assert w.generation != g0                              # the store was reordered
    assert not np.array_equal(w.ids, np.sort(w.ids))
    rows = w.index_of(ids)
    np.testing.assert_array_equal(w.ids[rows], ids)
    for i, r in zip(ids, rows):
        assert tuple(w.positions[r]) == w.particle(int(i))["position"]
    assert isinstance(w.index_of(77), int) and w.ids[w.index_of(77)] == 77
    w.remove_particles([200])
    with pytest.raises(KeyError, match="no particle with id 200"):
        w.index_of(ids)
    np.testing.assert_array_equal(w.ids[w.index_of([5, 1])], [5, 1])
    w.close()


# ---- a callback while stepping ----

def test_step_with_a_callback_is_the_same_bits_and_stops():
    a, b = make_bed(), make_bed()
    seen = []

    def every_70(w):
        seen.append((w.step_count, w.energy()["kinetic_translational"]))

    assert a.step(1000, callback=every_70, every=70) == 1000
    b.step(1000)
    assert [s for s, _ in seen] == list(range(70, 1000, 70))
    assert a.save_state() == b.save_state()
    # talus.STOP ends the stepping there
    assert a.step(1000, callback=lambda w: talus.STOP if w.step_count >= 1300 else None, every=100) == 300
    assert a.step_count == 1300
    # an exception stops it and comes out; the world is at the chunk it ended
    with pytest.raises(ZeroDivisionError):
        a.step(500, callback=lambda w: 1 / 0, every=40)
    assert a.step_count == 1340
    with pytest.raises(ValueError, match="every must be an integer >= 1"):
        a.step(10, callback=print, every=0)
    with pytest.raises(TypeError, match="callback must be callable"):
        a.step(10, callback=3)
    a.close()
    b.close()


SCENE = """talus: 1
name: verbs bed
seed: 3
gravity: [0, 0, -9.81]
domain: {min: [-0.005, -0.005, -0.005], max: [0.025, 0.025, 0.06]}
neighbor: {domain_size: 64}
materials:
  glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}
laws:
  - {between: [glass, any], normal: hertz, damping: tsuji, tangential: mindlin, history: true, e: 0.5, mu: 0.5}
walls:
  - {name: box, type: box, material: glass, min: [0, 0, 0], max: [0.02, 0.02, 0.05]}
particles:
  - lattice: {material: glass, radius: 1.5e-3, min: [0.002, 0.002, 0.002], max: [0.018, 0.018, 0.045],
              spacing: 3.6e-3, jitter: 0.3, velocity_jitter: 0.05}
stages:
  - {name: fall, duration: 0.01}
  - {name: settle, duration: 0.01}
outputs:
  - {type: energy, file: energy.csv, every_steps: 50}
  - {type: particles, file: particles.csv, every_steps: 200, fields: [position, velocity]}
"""


def scene_file(tmp_path, extra=""):
    p = tmp_path / "bed.yaml"
    p.write_text(SCENE + extra, encoding="utf-8")
    return str(p)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_scene_run_with_a_callback_writes_the_same_files(tmp_path):
    path = scene_file(tmp_path)
    with talus.Scene(path) as s:
        plain = s.run(str(tmp_path / "plain"))
    calls = []
    with talus.Scene(path) as s:
        r = s.run(str(tmp_path / "cb"), callback=lambda w: calls.append((w.step_count, len(w))), every=37)
    assert r["steps"] == plain["steps"] > 300
    assert [c[0] for c in calls] == list(range(37, r["steps"] + 1, 37))
    assert all(n == plain["particles"] for _, n in calls)
    for name in ("energy.csv", "particles.csv"):
        assert read(tmp_path / "cb" / name) == read(tmp_path / "plain" / name), name


def test_scene_run_callback_stops_the_run_with_the_outputs_committed(tmp_path):
    path = scene_file(tmp_path)
    with talus.Scene(path) as s:
        r = s.run(str(tmp_path / "stop"), callback=lambda w: talus.STOP if w.step_count >= 250 else None,
                  every=50)
        assert r["steps"] == 250
        assert s.stage_results()[0]["ended_by"] == "interrupted"
    rows = read(tmp_path / "stop" / "energy.csv").decode().splitlines()
    assert rows[-1].split(",")[1] == "250" and len(rows) == 1 + 6   # the header, steps 0 to 250
    assert not os.path.exists(tmp_path / "stop" / "energy.csv.part")
    # an exception raised in the callback stops the run the same way, then comes out
    with talus.Scene(path) as s:
        with pytest.raises(ZeroDivisionError):
            s.run(str(tmp_path / "raise"), callback=lambda w: 1 / (w.step_count < 150), every=50)
        assert s.world.step_count == 150
    assert read(tmp_path / "raise" / "energy.csv").decode().splitlines()[-1].split(",")[1] == "150"
    # a KeyboardInterrupt raised in it (Ctrl-C while it runs) does not stay in the callback
    with talus.Scene(path) as s:
        def ctrl_c(w):
            raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            s.run(str(tmp_path / "kbd"), callback=ctrl_c, every=100)
        assert s.world.step_count == 100
    # the world is the run's: the callback may change it, not step it
    with talus.Scene(path) as s:
        with pytest.raises(talus.TalusError, match="being run by tl_scene_run"):
            s.run(write_outputs=False, callback=lambda w: w.step(1), every=10)
        assert s.world.step_count == 10


def test_scene_run_callback_changes_the_world(tmp_path):
    path = scene_file(tmp_path)
    removed = []

    def thin_out(w):
        if w.step_count == 200:
            top = w.ids[np.argsort(w.positions[:, 2])[-10:]]
            removed.extend(int(i) for i in top)
            w.remove_particles(top)

    with talus.Scene(path) as s:
        plain = s.run(write_outputs=False)
    with talus.Scene(path) as s:
        n0 = len(s.world)
        r = s.run(str(tmp_path / "thin"), callback=thin_out, every=100)
        assert r["particles"] == n0 - 10 and len(removed) == 10
        # what the removed particles carried is booked: the balance is as good as the plain run's
        assert r["energy_balance_error"] < 2 * plain["energy_balance_error"] + 1e-6, (r, plain)
        assert not np.isin(s.world.ids, removed).any()
    last = read(tmp_path / "thin" / "particles.csv").decode().splitlines()
    final_ids = {int(ln.split(",")[2]) for ln in last[1:] if ln.split(",")[1] == str(r["steps"])}
    assert len(final_ids) == n0 - 10 and not final_ids & set(removed)


# ---- state round trips ----

def test_save_and_load_state_continue_bit_for_bit():
    a = make_bed(reorder_every=2)
    a.step(700)
    a.remove_particles([9, 10])
    a.set_velocities([11, 12], [[0.0, 0.0, 0.1], [0.1, 0.0, 0.0]])
    a.set_forces([13], (0.0, 0.0, 2e-5))
    saved = a.save_state()
    a.step(900)
    # the same definitions, another history: the state replaces it
    b = make_bed(reorder_every=2)
    b.step(50)
    b.load_state(saved)
    assert b.step_count == 700 and len(b) == len(a)
    b.step(900)
    assert b.save_state() == a.save_state()
    np.testing.assert_array_equal(b.positions, a.positions)
    np.testing.assert_array_equal(b.ids, a.ids)
    assert b.energy()["total"] == a.energy()["total"]
    # a state refuses a world of other definitions, leaving it as it was
    c = talus.World(gravity=(0, 0, -9.81))
    c.add_material("sand", density=2600, youngs_modulus=1e7, poisson_ratio=0.25)
    c.set_law("sand", "sand", e=0.5, tangential="mindlin", mu=0.4)
    with pytest.raises(talus.TalusError):
        c.load_state(saved)
    assert len(c) == 0
    for w in (a, b, c):
        w.close()


# ---- MPI from Python ----

def test_mpi_from_python_ends_in_the_serial_bits(tmp_path):
    mpirun = shutil.which("mpirun")
    if not mpirun:
        pytest.skip("no mpirun (Debian: openmpi-bin)")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        pytest.skip("no mpi4py (Debian: python3-mpi4py)")
    path = scene_file(tmp_path)
    script = os.path.join(SOURCE_DIR, "test", "python", "mpi_verbs.py")
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1", OMP_WAIT_POLICY="PASSIVE")
    run = subprocess.run([mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "2", sys.executable, script, path,
                          str(tmp_path)], capture_output=True, text=True, timeout=600, env=env)
    out = run.stdout + run.stderr
    if "SKIP:" in out:
        pytest.skip(out.split("SKIP:", 1)[1].strip().splitlines()[0])
    assert run.returncode == 0, out
    lines = [ln for ln in out.splitlines() if ln.startswith("mpi:")]
    got = dict(ln.split(None, 2)[1:] for ln in lines)
    assert got["ranks"] == "2 2", out                       # both ranks see a world of 2 ranks
    assert got["reversed"] == "yes yes", out                 # the communicator given, not COMM_WORLD
    assert 0 < int(got["stored"]) < 192 and 0 < int(got["stored_other"]) < 192, out   # both hold a share
    assert got["steps"] == "identical", out                 # stepped by hand: the serial bits
    assert got["callbacks"] == "4 4", out                   # step's callback on every rank
    assert got["run"] == "identical", out                   # Scene.run: the serial run's energy.csv
    assert got["stopped"] == "200 200", out                 # rank 0's talus.STOP stops both
