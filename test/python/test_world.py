"""talus.World: views of the particle arrays, steps, errors, contacts, the
energy ledger, collisions, checkpoints and threads."""
import gc
import threading
import time
import weakref

import numpy as np
import pytest
from conftest import make_bed

import talus


def test_views_see_the_state_change_after_a_step(bed):
    x, v, f = bed.positions, bed.velocities, bed.forces
    assert x.shape == (144, 3) and v.shape == (144, 3) and bed.orientations.shape == (144, 4)
    assert not x.flags.writeable and not x.flags.owndata
    x0, v0 = x.copy(), v.copy()
    bed.step(50)
    # the same array objects now hold the new state ...
    assert bed.positions is x
    assert not np.array_equal(v, v0)
    # ... which is the library's state of each particle, to the bit
    for row in (0, 77, 143):
        p = bed.particle(int(bed.ids[row]))
        assert tuple(x[row]) == p["position"] and tuple(v[row]) == p["velocity"]
        assert tuple(f[row]) == p["force"] and tuple(bed.orientations[row]) == p["orientation"]
    # free fall of 50 steps from rest plus the initial speed: v_z = v0_z - g t exactly as integrated
    t = bed.time
    assert t == pytest.approx(50 * bed.dt, rel=1e-12)
    np.testing.assert_allclose(v[:, 2] - v0[:, 2], -9.81 * t, rtol=1e-9)
    # no contact yet: every bead flew freely, x - x0 = v0 t - g t^2 / 2
    np.testing.assert_allclose(x[:, 2] - x0[:, 2], v0[:, 2] * t - 0.5 * 9.81 * t * t, rtol=0, atol=1e-15)
    np.testing.assert_allclose(x[:, :2] - x0[:, :2], v0[:, :2] * t, rtol=0, atol=1e-15)
    np.testing.assert_allclose(bed.masses, 2500 * 4 / 3 * np.pi * 1e-9, rtol=1e-12)


def test_views_refresh_when_particles_are_added(bed):
    x = bed.positions
    g0 = bed.generation
    x_before = x.copy()
    new_ids = bed.add_particles(np.array([[0.05, 0.05, 0.01 + 0.003 * i] for i in range(200)]), 1e-3, "glass")
    assert bed.generation != g0
    y = bed.positions
    assert y.shape == (344, 3) and y is not x
    np.testing.assert_array_equal(y[:144], x_before)
    np.testing.assert_array_equal(bed.ids[144:], new_ids)
    # the old view still reads the world's memory: a frozen copy of the state it saw
    np.testing.assert_array_equal(x, x_before)
    bed.step(5)
    np.testing.assert_array_equal(x, x_before)
    assert not np.array_equal(bed.positions[:144], x_before)


def test_views_follow_reordering():
    w = make_bed(reorder_every=1)
    x, ids = w.positions, w.ids
    ids0 = ids.copy()
    g0 = w.generation
    w.step(1)  # the first neighbor build reorders the particles (by cell, docs/engine.md)
    assert w.generation != g0 and w.positions is x and w.ids is ids
    assert not np.array_equal(ids, ids0) and sorted(ids) == sorted(ids0)
    for row in (0, 50, 143):
        assert tuple(x[row]) == w.particle(int(ids[row]))["position"]
    w.close()


def test_a_bad_parameter_raises_with_the_library_message():
    w = talus.World()
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    with pytest.raises(talus.TalusError) as e:
        w.set_law("glass", "glass", e=1.5)
    assert "e = 1.5 is out of range: 0 < e <= 1" in str(e.value)
    with pytest.raises(talus.TalusError) as e:
        w.add_material("sand", density=-1)
    assert "density" in str(e.value) and "sand" in str(e.value)
    with pytest.raises(talus.TalusError) as e:
        w.set_law("glass", "glass", normal="herz")
    assert "herz" in str(e.value)
    with pytest.raises(talus.TalusError, match="unknown material 'steel'"):
        w.set_law("glass", "steel", e=0.5)
    w.add_particle("glass", radius=1e-3, position=(0, 0, 0.01))
    with pytest.raises(talus.TalusError) as e:  # no law yet
        w.step(1)
    assert "glass" in str(e.value) and "law" in str(e.value)
    with pytest.raises(ValueError, match="three numbers"):
        w.add_particle("glass", radius=1e-3, position=(0, 0))
    with pytest.raises(TypeError, match="unknown parameter 'radiuss'"):
        w.add_particle("glass", radiuss=1e-3)
    w.close()


def test_the_peer_readings_are_law_options():
    w = talus.World()
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", tangential="mindlin", e=0.5, mu=0.3, coulomb_test="lammps",
              entry_displacement="whole-step", contact_point="surface")
    law = w.get_law("glass", "glass")
    assert (law["coulomb_test"], law["entry_displacement"], law["contact_point"]) == ("lammps", "whole-step", "surface")
    w.set_law("glass", "glass", tangential="mindlin", e=0.5, mu=0.3, coulomb_test="liggghts")
    law = w.get_law("glass", "glass")
    assert (law["coulomb_test"], law["entry_displacement"]) == ("liggghts", "in-contact")
    with pytest.raises(ValueError, match="entry_displacement"):
        w.set_law("glass", "glass", tangential="mindlin", e=0.5, mu=0.3, entry_displacement="whole")
    w.close()


def test_a_closed_world_stays_alive_while_a_view_exists():
    w = make_bed()
    w.step(20)
    x, om = w.positions, w.angular_velocities
    expect = x.copy()
    h = weakref.ref(w._h)
    w.close()
    gc.collect()
    with pytest.raises(talus.TalusError, match="closed"):
        w.step(1)
    with pytest.raises(talus.TalusError, match="closed"):
        w.positions
    assert h() is not None            # kept alive by the views
    np.testing.assert_array_equal(x, expect)
    assert np.isfinite(om).all()
    del x
    gc.collect()
    assert h() is not None            # om still holds it
    del om
    gc.collect()
    assert h() is None                # the last view gone: the world was freed


def test_a_deleted_world_stays_alive_while_a_view_exists():
    w = make_bed()
    v = w.velocities
    h = weakref.ref(w._h)
    del w
    gc.collect()
    assert h() is not None
    assert v.shape == (144, 3) and np.abs(v).max() <= 0.01
    del v
    gc.collect()
    assert h() is None


def test_old_blocks_are_freed_when_their_views_go(bed):
    x = bed.positions
    bed.add_particles(np.array([[0.05, 0.05, 0.01 + 0.003 * i] for i in range(400)]), 1e-3, "glass")
    bed.positions  # the new arrays
    with_old = bed.memory_bytes
    del x
    gc.collect()
    freed = with_old - bed.memory_bytes
    assert freed >= 144 * 19 * 8     # at least the old block of every vector field


def test_step_releases_the_gil():
    w = make_bed(n_side=20, layers=10)
    w.step(1)
    stamps, span = [], []

    def run():
        t0 = time.perf_counter()
        w.step(300)
        span.extend([t0, time.perf_counter()])

    th = threading.Thread(target=run)
    th.start()
    while th.is_alive():
        stamps.append(time.perf_counter())
    th.join()
    t0, t1 = span
    assert t1 - t0 > 0.02
    # the main thread ran in the middle of the C call: the GIL was released
    middle = [s for s in stamps if t0 + 0.25 * (t1 - t0) < s < t0 + 0.75 * (t1 - t0)]
    assert len(middle) > 100
    w.close()


def test_single_steps_equal_one_call():
    a, b = make_bed(), make_bed()
    a.step(120)
    for _ in range(120):
        b.step(1)
    assert a.save_state() == b.save_state()


def test_thread_count_gives_the_same_bits():
    a, b = make_bed(threads=1), make_bed(threads=2)
    assert a.threads == 1 and b.threads == 2
    a.step(200)
    b.step(100)
    b.threads = 1
    b.step(100)
    assert a.save_state() == b.save_state()


def test_contacts_and_energy_of_a_settled_bed():
    w = make_bed(n_side=4, layers=2)
    w.step(30000)
    c = w.contacts()
    assert len(c) > 16
    assert c.dtype.names[:4] == ("id_a", "id_b", "with_wall", "overlap")
    assert (c["overlap"] > 0).all()
    np.testing.assert_allclose(np.linalg.norm(c["normal"], axis=1), 1.0, rtol=1e-12)
    # at rest the floor carries the weight
    floor = c[c["with_wall"]]
    weight = w.masses.sum() * 9.81
    assert floor["normal_force"].sum() == pytest.approx(weight, rel=1e-9)
    assert np.abs(w.velocities[:, 2]).max() < 1e-9   # at rest vertically (some beads roll on)
    e = w.energy()
    assert e.dtype.names[0] == "kinetic_translational" and e.dtype.names[-1] == "total"
    assert e["dissipated_normal"] > 0
    ledger = (e["kinetic_translational"] + e["kinetic_rotational"] + e["potential"] + e["elastic_normal"]
              + e["elastic_tangential"] + e["elastic_rolling"] + e["elastic_twisting"] + e["dissipated_normal"]
              + e["dissipated_plastic"] + e["dissipated_tangential_damping"] + e["dissipated_friction"]
              + e["dissipated_rolling"] + e["dissipated_twisting"] + e["integration_residual"]
              - e["boundary_work"] - e["curvature_work"] - e["tangential_stiffness_work"])
    assert e["total"] == pytest.approx(ledger, rel=1e-12)
    w.close()


def test_rolling_resistance_stops_a_rolling_sphere():
    """A sphere rolling on a plane at 0.1 m/s with rolling resistance (epsd, mu_r = 0.05)
    decelerates at (5/7) g mu_r and stops after v^2 / (2 a); its kinetic energy, 0.7 m v^2, goes to
    dissipated_rolling, and the law reads back with its rolling model."""
    g, mu_r, v0, R = 9.81, 0.05, 0.1, 0.005
    w = talus.World(gravity=(0, 0, -g))
    w.add_material("glass", density=2500, youngs_modulus=1e8, poisson_ratio=0.3)
    w.set_law("glass", "glass", normal="hertz", damping="tsuji", tangential="mindlin", e=0.5, mu=0.8,
              rolling="epsd", mu_r=mu_r, eta_r=0.3)
    law = w.get_law("glass", "glass")
    assert law["rolling"] == "epsd" and law["coefficients"]["mu_r"] == mu_r
    w.add_wall("plane", "glass")
    pid = w.add_particle("glass", radius=R, position=(0, 0, R - 2e-7), velocity=(v0, 0, 0),
                         angular_velocity=(0, v0 / R, 0))
    a = 5.0 / 7.0 * g * mu_r
    w.prepare()
    w.step(int(0.1 / w.dt))
    v1 = w.particle(pid)["velocity"][0]
    assert v1 == pytest.approx(v0 - a * 0.1, rel=2e-2)
    w.step(int(0.5 / w.dt))  # it stops at t = v0 / a = 0.29 s; its springs settle after
    p = w.particle(pid)
    assert abs(p["velocity"][0]) < 1e-5
    assert p["position"][0] == pytest.approx(v0 * v0 / (2 * a), rel=2e-2)
    e = w.energy()
    assert e["dissipated_rolling"] == pytest.approx(0.7 * p["mass"] * v0 * v0, rel=5e-2)
    w.close()


def test_twisting_resistance_stops_a_spinning_sphere():
    """A sphere resting on a plane, spun at 10 rad/s about the vertical, with twisting sds (its
    dashpot critical, its limit mu_tw m g): the spin decelerates at mu_tw m g / I and stops at
    w0 I / (mu_tw m g); its energy (and the spring's at the limit from the start) goes to
    dissipated_twisting, and the law reads back with its twisting model."""
    g, R, w0, k, mu_tw = 9.81, 0.005, 10.0, 1e-3, 1e-3
    m = 2500 * 4.0 / 3.0 * np.pi * R ** 3
    inertia = 0.4 * m * R * R
    w = talus.World(gravity=(0, 0, -g))
    w.add_material("glass", density=2500, youngs_modulus=1e8, poisson_ratio=0.3)
    w.set_law("glass", "glass", normal="hertz", damping="tsuji", tangential="mindlin", e=0.5, mu=0.8,
              twisting="sds", k_twist=k,
              gamma_twist=2 * np.sqrt(k * inertia), mu_twist=mu_tw)
    law = w.get_law("glass", "glass")
    assert law["twisting"] == "sds" and law["coefficients"]["mu_twist"] == mu_tw
    w.add_wall("plane", "glass")
    delta = (m * g / (4.0 / 3.0 * 1e8 / (2 * (1 - 0.09)) * np.sqrt(R))) ** (2.0 / 3.0)  # Hertz, at rest
    pid = w.add_particle("glass", radius=R, position=(0, 0, R - delta), angular_velocity=(0, 0, w0))
    w.prepare()
    e0 = w.energy()
    alpha = mu_tw * m * g / inertia
    n = int(round(0.3 * w0 / alpha / w.dt))
    w.step(n)
    assert w.particle(pid)["angular_velocity"][2] == pytest.approx(w0 - alpha * n * w.dt, rel=1e-6)
    w.step(int(5.0 * w0 / alpha / w.dt))
    assert abs(w.particle(pid)["angular_velocity"][2]) < 1e-4 * w0
    e = w.energy()
    assert e["dissipated_twisting"] == pytest.approx(0.5 * inertia * w0 * w0 + e0["elastic_twisting"], rel=1e-4)
    w.close()


def test_collision_log_gives_the_restitution():
    """The world's collision log and the collision lab (two separate code
    paths) measure the same bounce, and both give the requested e."""
    w = talus.World(gravity=(0, 0, 0), steps_per_contact=1000)
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", e=0.6, tangential="none", history="none")
    w.add_wall("plane", "glass")
    w.add_particle("glass", radius=1e-3, position=(0, 0, 0.0011), velocity=(0, 0, -0.5))
    w.log_collisions = True
    w.step(5000)
    log = w.collisions(clear=True)
    assert len(log) == 1 and log["with_wall"][0]
    lab = talus.collide(material_a={"name": "glass", "density": 2500, "youngs_modulus": 1e7,
                                    "poisson_ratio": 0.25},
                        wall=True, radius_a=1e-3, speed=0.5, law={"e": 0.6, "tangential": "none", "history": "none"})
    assert lab["dt"] == w.dt
    assert log["restitution"][0] == pytest.approx(lab["e_n"], abs=1e-5)
    assert log["t_end"][0] - log["t_begin"][0] == pytest.approx(lab["duration"], rel=1e-3)
    assert log["restitution"][0] == pytest.approx(0.6, abs=1e-4)
    assert len(w.collisions()) == 0
    w.close()


def test_state_round_trip_and_checkpoint_file(tmp_path):
    a = make_bed()
    a.step(100)
    data = a.save_state()
    a.save_checkpoint(str(tmp_path / "bed.state"))
    a.step(100)
    b = make_bed()
    b.load_checkpoint(str(tmp_path / "bed.state"))
    x = b.positions
    b.step(100)
    assert b.save_state() == a.save_state()
    np.testing.assert_array_equal(x, a.positions)
    with pytest.raises(talus.TalusError, match="checkpoint refused"):
        b.load_state(data[:-9])


def test_walls_move_from_python():
    w = talus.World(impact_speed=1.0)
    w.add_material("steel", density=7800, youngs_modulus=2e11, poisson_ratio=0.3)
    w.set_law("steel", "steel", tangential="mindlin", e=0.5, mu=0.3)
    w.add_wall("rectangle", "steel", name="paddle", center=(0, 0, 0), normal=(0, 0, 1), axis=(1, 0, 0),
               half_length=0.1, half_width=0.05, motion={"rotate": {"axis": (0, 1, 0), "point": (0, 0, 0),
                                                                     "speed": 2.0}})
    w.add_wall("plane", "steel", name="floor", point=(0, 0, -1))
    w.add_particle("steel", radius=0.01, position=(0.5, 0.5, 0.5))
    w.step(1000)
    s = w.wall("paddle")
    assert s["angle"] == pytest.approx(2.0 * w.time, rel=1e-9)
    w.set_wall_velocity("floor", (0, 0, 0.1))
    w.step(100)
    assert w.wall(1)["displacement"][2] == pytest.approx(0.1 * 100 * w.dt, rel=1e-9)
    with pytest.raises(talus.TalusError, match="no wall named 'lid'"):
        w.wall("lid")
    w.close()


def test_the_module_docstring_session_runs():
    import doctest
    assert doctest.testmod(talus, verbose=False).failed == 0


def test_a_polyhedron_with_the_potential_depth_keeps_its_energy():
    """An icosphere mesh (162 vertices) with mesh_depth='potential' dropped with spin on a plane,
    undamped and frictionless, keeps kinetic + potential + elastic energy to 1e-5 of it over
    0.15 s of bounces (docs/geometry.md, "A conservative reading"); a bad depth name raises."""
    w = talus.World(gravity=(0, 0, -9.81), impact_speed=1.0, steps_per_contact=80)
    w.add_material("m", density=2000, youngs_modulus=1e7, poisson_ratio=0.3)
    w.set_law("m", "m", damping="none", tangential="none", history="none")
    w.add_wall("plane", "m")
    with pytest.raises(ValueError, match="mesh_depth"):
        w.add_shape("mesh", source="icosphere", radius=0.01, subdivisions=2, mesh_depth="potentail")
    s = w.add_shape("mesh", source="icosphere", radius=0.01, subdivisions=2, mesh_depth="potential")
    w.add_particle("m", shape=s, position=(0, 0, 0.03), angular_velocity=(3, -5, 7))
    w.prepare()
    e0 = w.energy()
    w.step(int(0.15 / w.dt))
    e = w.energy()

    def mech(x):
        return x["kinetic_translational"] + x["kinetic_rotational"] + x["potential"] + x["elastic_normal"]

    assert abs(mech(e) - mech(e0)) < 1e-5 * mech(e0)
    w.close()
