"""talus.collide and the calibrate functions, against closed forms."""
import math

import numpy as np
import pytest

import talus

SAND = {"name": "sand", "density": 2500, "k_n": 1e6, "youngs_modulus": 1e7, "poisson_ratio": 0.25}


def linear_damped(e, m, k):
    """A linear spring-dashpot: the contact time pi / omega_d."""
    zeta = -math.log(e) / math.sqrt(math.pi ** 2 + math.log(e) ** 2)
    return math.pi / (math.sqrt(k / m) * math.sqrt(1 - zeta * zeta))


def test_collide_linear_spring_dashpot_against_the_closed_form():
    r = talus.collide(material_a=SAND, wall=True, radius_a=1e-3, speed=0.3,
                      law={"normal": "linear", "damping": "restitution", "tangential": "none",
                           "history": "none", "e": 0.4}, record=True)
    m = 2500 * 4 / 3 * math.pi * 1e-9
    k = 0.5e6  # the wall takes a's material: two springs of k_n in series
    assert r["e_n"] == pytest.approx(0.4, abs=1e-5)
    assert r["duration"] == pytest.approx(linear_damped(0.4, m, k), rel=2e-3)
    assert r["max_normal_force"] > 0 and abs(r["energy_error"]) < 1e-6 * r["energy_in"]
    s = r["samples"]
    assert s.dtype.names[:3] == ("t", "overlap", "overlap_rate") and len(s) > 500
    # the recorded force is the law: k delta + damping
    np.testing.assert_allclose(s["fn_elastic"], k * s["overlap"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(s["fn"], s["fn_elastic"] + s["fn_damping"], rtol=1e-12, atol=1e-15)


def test_collide_oblique_gives_kappa_and_the_energy_books_close():
    glass = {"name": "glass", "density": 2500, "youngs_modulus": 7e10, "poisson_ratio": 0.25}
    r = talus.collide(material_a=glass, wall=True, radius_a=1e-3, speed=1.0, angle=30,
                      law={"e": 0.9, "mu": 0.3})
    assert r["kappa"] == pytest.approx(talus.kappa(glass), rel=1e-12)
    # kappa of like materials: (1 - nu) / (1 - nu / 2) (Li et al. 2022 eq. 3)
    assert r["kappa"] == pytest.approx(0.75 / 0.875, rel=1e-12)
    books = (r["energy_out_translational"] + r["energy_out_rotational"] + r["diss_normal"] + r["diss_plastic"]
             + r["diss_tangential_damping"] + r["diss_friction"] + r["integration_residual"])
    # the default law's Mindlin spring is total-form: its stiffness follows the overlap, and what
    # that puts in at a held displacement is work from outside the books (tangential_books.h)
    put_in = r["energy"]["tangential_stiffness_work"]
    assert put_in != 0.0
    assert books + r["energy_error"] == pytest.approx(r["energy_in"] + put_in, rel=1e-12)
    assert r["omega_out"][1] != 0.0


def test_collide_refuses_with_the_library_message():
    with pytest.raises(talus.TalusError, match="e = 2 is out of range"):
        talus.collide(law={"e": 2.0})
    with pytest.raises(talus.TalusError, match="speed"):
        talus.collide(speed=-1.0)


def test_hertz_damped_and_actm_round_trip():
    s = talus.hertz_damped_from_restitution(0.7)
    assert s["restitution"] == pytest.approx(0.7, abs=1e-10)
    assert talus.hertz_damped(s["lambda"])["tau_c"] == pytest.approx(s["tau_c"], rel=1e-10)
    assert talus.hertz_damped(0.0)["restitution"] == pytest.approx(1.0, abs=1e-10)
    c = talus.calibrate_actm(0.7, 1e-4, speed=1.0, mass=1e-3, methods=("exact",))
    exact = c["exact"]
    assert exact["e_solved"] == pytest.approx(0.7, abs=1e-8)
    assert exact["tc_solved"] == pytest.approx(1e-4, rel=1e-8)
    # and a collision with the calibrated law hits both
    assert exact["e_run"] == pytest.approx(0.7, abs=1e-3)
    assert exact["tc_run"] == pytest.approx(1e-4, rel=2e-3)


def test_calibrate_lambda_matches_hertz_damped():
    out = talus.calibrate_lambda([0.0, 0.1, 0.5])
    assert out["e"][0] == pytest.approx(1.0, abs=1e-10)
    assert np.all(np.diff(out["e"]) < 0)
    for i, lam in enumerate(out["lambda"]):
        assert out["e"][i] == talus.hertz_damped(lam)["restitution"]
    # the undamped Hertz duration in units of t* (Ray et al. 2015): 3.2180
    assert out["tau_c"][0] == pytest.approx(3.2180, abs=1e-3)


def test_calibrate_restitution_and_timestep():
    r = talus.calibrate_restitution(0.5, normal="hertz", damping="tsuji",
                                    material=SAND, wall=True, radius=1e-3, speed=0.5, clamp=True)
    assert 0.4 < r["e_achieved"] < 0.6 and r["e_achieved_clamped"] >= r["e_achieved"] - 1e-12
    t = talus.calibrate_timestep(material=SAND, wall=True, radius=1e-3, speed=0.5, steps=50, soften=(0.1,))
    # eq. 24 against the run, and the step scales as c^(-2/5)
    np.testing.assert_allclose(t["contact_time_run"], t["contact_time"], rtol=5e-3)
    assert t["dt_ratio"][1] == pytest.approx(0.1 ** -0.4, rel=1e-12)


def test_models_lists_the_registry():
    names = {(m["slot"], m["name"]) for m in talus.models()}
    assert ("normal", "hertz") in names and ("damping", "tsuji") in names and ("history", "true") in names
    e = [c for m in talus.models() if m["name"] == "tsuji" for c in m["coefficients"] if c["name"] == "e"][0]
    assert e["min"] == 0 and e["max"] == 1
