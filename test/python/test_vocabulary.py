"""One vocabulary with the scene files (issue 41, item 4): the Python keywords, defaults and
units are the scene's, taken from the library's own tables (tl_scene_names, tl_slot_name,
the header's tl_energy); set_law means what a scene's law entry means, `any` included;
walls take the scene's keys; unknown keywords list every accepted name with a did-you-mean;
collide's angle is in degrees; a refused dict scene names the dict's path; World messages
name World keywords."""
import math
import os
import re

import pytest
from conftest import SOURCE_DIR

import talus
from talus import _defs
from talus._lib import ffi, lib


def glass_world(**settings):
    w = talus.World(gravity=(0, 0, -9.81), **settings)
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    return w


def same_law(a, b):
    """Two get_law dicts equal, NaN (derived) coefficients equal to NaN."""
    ca, cb = a.pop("coefficients"), b.pop("coefficients")
    return a == b and ca.keys() == cb.keys() and all(
        (math.isnan(ca[k]) and math.isnan(cb[k])) or ca[k] == cb[k] for k in ca)


def scene_law(entries, materials=("glass",), pair=("glass", "glass")):
    """The law a scene file gives a pair, for its `laws:` entries."""
    mats = {"glass": {"density": 2500, "youngs_modulus": 1e7, "poisson_ratio": 0.25},
            "steel": {"density": 7800, "youngs_modulus": 2e8, "poisson_ratio": 0.3},
            "rubber": {"density": 1100, "youngs_modulus": 1e6, "poisson_ratio": 0.45}}
    with talus.Scene({"talus": 1, "integrator": {"dt": 1e-6}, "materials": {m: mats[m] for m in materials},
                      "laws": entries, "stages": [{"steps": 1}]}) as s:
        return s.world.get_law(*pair)


def names(table):
    return list(_defs.scene_names(table))


# ---- the library's tables, not copies ----

def test_the_names_come_from_the_library():
    out = ffi.new("const char *const **")
    n = lib.tl_scene_names(b"wall.box", out)
    assert [ffi.string(out[0][i]).decode() for i in range(n)] == names("wall.box")
    assert "open" in names("wall.box") and "center" in names("wall.rectangle")
    assert _defs.SLOTS == tuple(m for m in names("law.slot"))
    assert _defs.SLOTS == tuple(dict.fromkeys(m["slot"] for m in talus.models()))
    assert list(_defs.SHAPE_KINDS) == ["sphere", "ellipsoid", "mesh"]
    assert _defs.SHAPE_KINDS["mesh"] == lib.TL_SHAPE_MESH
    assert _defs.BOX_FACES["+z"] == lib.TL_BOX_ZMAX and _defs.BOX_FACES["-x"] == lib.TL_BOX_XMIN
    assert _defs.INTEGRATORS["predictor-corrector"] == lib.TL_INTEGRATOR_PREDICTOR_CORRECTOR
    assert _defs.MOTIONS == {"rotate": lib.TL_MOTION_ROTATE, "oscillate": lib.TL_MOTION_OSCILLATE,
                             "rock": lib.TL_MOTION_ROCK}
    # the energy record is the library's table of terms, which is the header's tl_energy (each
    # term a member, in order, over term[]) and a scene's energy.csv's columns
    terms = [t["name"] for t in talus.energy_terms()]
    fields = [f for f, _ in ffi.typeof("tl_energy").fields if f != "term"]
    assert terms == fields[:-1] and fields[-1] == "total"
    for k, name in enumerate(terms):
        assert ffi.offsetof("tl_energy", name) == ffi.offsetof("tl_energy", "term") + 8 * k
    assert list(glass_world().energy().dtype.names) == terms + ["total"]
    assert [s["key"] for s in talus.slots()] == list(_defs.SLOTS)
    assert lib.tl_suggest_name(b"desnity", ffi.new("const char *[]", [ffi.new("char[]", b"density")]), 1) != ffi.NULL


def test_the_energy_csv_has_the_ledger_fields(tmp_path):
    scene = {"talus": 1, "gravity": [0, 0, -9.81], "integrator": {"dt": 1e-6},
             "materials": {"glass": {"density": 2500, "youngs_modulus": 1e7, "poisson_ratio": 0.25}},
             "laws": [{"between": ["glass", "glass"], "normal": "hertz", "damping": "tsuji", "e": 0.5}],
             "particles": [{"material": "glass", "radius": 1e-3, "position": [0, 0, 0.01]}],
             "stages": [{"steps": 10}], "outputs": [{"type": "energy", "every_steps": 5}]}
    with talus.Scene(scene) as s:
        s.run(str(tmp_path / "out"))
        ledger = list(s.world.energy().dtype.names)
    with open(tmp_path / "out" / "energy.csv", encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    assert [c for c in header if c not in ("time", "step", "balance_error", "contacts")] == ledger


# ---- set_law: the scene's defaults ----

def test_set_law_has_the_scene_defaults():
    w = glass_world()
    # e alone: hertz + tsuji, frictionless, as the entry {normal: hertz, damping: tsuji, e: 0.5}
    w.set_law("glass", "glass", e=0.5)
    law = w.get_law("glass", "glass")
    assert (law["normal"], law["damping"], law["tangential"], law["history"]) == ("hertz", "tsuji", "none", "none")
    assert same_law(w.get_law("glass", "glass"),
                    scene_law([{"between": ["glass", "glass"], "normal": "hertz", "damping": "tsuji", "e": 0.5}]))
    # tangential none alone: its history follows (none), as in a scene
    w.set_law("glass", "glass", e=0.5, tangential="none")
    assert w.get_law("glass", "glass")["history"] == "none"
    # a tangential model brings true history; a history given wins
    w.set_law("glass", "glass", e=0.5, tangential="mindlin", mu=0.4)
    law = w.get_law("glass", "glass")
    assert (law["tangential"], law["history"], law["coefficients"]["mu"]) == ("mindlin", "true", 0.4)
    assert same_law(law, scene_law([{"between": ["glass", "glass"], "normal": "hertz", "damping": "tsuji",
                                      "tangential": "mindlin", "e": 0.5, "mu": 0.4}]))
    w.set_law("glass", "glass", e=0.5, tangential="mindlin", mu=0.4, history="pseudo")
    assert w.get_law("glass", "glass")["history"] == "pseudo"
    w.set_law("glass", "glass", e=0.5, tangential="linear", mu=0.4, history=False)
    assert w.get_law("glass", "glass")["history"] == "none"
    # normal given, damping not: none, as in a scene
    w.set_law("glass", "glass", normal="hertz")
    assert same_law(w.get_law("glass", "glass"), scene_law([{"between": ["glass", "glass"], "normal": "hertz"}]))
    # mu without a tangential model is refused, as the scene refuses it, saying why
    with pytest.raises(TypeError) as e:
        w.set_law("glass", "glass", e=0.5, mu=0.4)
    msg = str(e.value)
    assert "unknown parameter 'mu'" in msg and "tangential='mindlin'" in msg and "frictionless" in msg
    assert "hertz + tsuji + none + none take the coefficients e" in msg
    with pytest.raises(TypeError, match="did you mean 'tangential'"):
        w.set_law("glass", "glass", e=0.5, tangental="mindlin")
    w.close()


def test_a_law_without_tangential_is_frictionless():
    """A sphere sliding on a floor under set_law(e=0.5) keeps its sliding speed (no friction);
    with tangential='mindlin' and mu it slows at mu g until it rolls."""
    out = []
    for law in ({"e": 0.5}, {"e": 0.5, "tangential": "mindlin", "mu": 0.4}):
        w = glass_world(impact_speed=0.5)
        w.set_law("glass", "glass", **law)
        w.add_wall("plane", "glass", point=(0, 0, 0), normal=(0, 0, 1))
        delta = (2500 * 4 / 3 * math.pi * 1e-9 * 9.81 / (4 / 3 * 1e7 / (2 * (1 - 0.0625)) * math.sqrt(1e-3))) ** (2 / 3)
        pid = w.add_particle("glass", radius=1e-3, position=(0, 0, 1e-3 - delta), velocity=(0.2, 0, 0))
        w.prepare()
        w.step(int(0.02 / w.dt))
        out.append(w.particle(pid)["velocity"][0])
        w.close()
    assert out[0] == pytest.approx(0.2, rel=1e-6)
    assert out[1] < 0.2 - 0.5 * 0.4 * 9.81 * 0.01     # friction acted (0.02 s at up to mu g)


# ---- set_law with any ----

def test_any_covers_pairs_as_in_a_scene():
    w = glass_world()
    w.add_material("steel", density=7800, youngs_modulus=2e8, poisson_ratio=0.3)
    w.set_law("glass", "any", e=0.5, tangential="mindlin", mu=0.4)
    assert w.get_law("glass", "glass")["coefficients"]["mu"] == 0.4
    assert w.get_law("steel", "glass")["tangential"] == "mindlin"
    with pytest.raises(talus.TalusError):
        w.get_law("steel", "steel")                      # glass-any does not cover it
    # the most specific entry wins whatever the order of the calls
    w.set_law("glass", "glass", e=0.3)
    w.set_law("any", "any", e=0.9)
    w.set_law("glass", "any", e=0.6, tangential="mindlin", mu=0.2)
    assert w.get_law("glass", "glass")["coefficients"]["e"] == 0.3       # its own entry
    assert w.get_law("glass", "steel")["coefficients"]["e"] == 0.6       # glass-any
    assert w.get_law("steel", "steel")["coefficients"]["e"] == 0.9       # any-any
    # a material added later takes the laws with any, as every material of a scene does
    w.add_material("rubber", density=1100, youngs_modulus=1e6, poisson_ratio=0.45)
    entries = [{"between": ["glass", "glass"], "normal": "hertz", "damping": "tsuji", "e": 0.3},
               {"between": ["any", "any"], "normal": "hertz", "damping": "tsuji", "e": 0.9},
               {"between": ["glass", "any"], "normal": "hertz", "damping": "tsuji", "tangential": "mindlin",
                "e": 0.6, "mu": 0.2}]
    mats = ("glass", "steel", "rubber")
    for a in mats:
        for b in mats:
            assert same_law(w.get_law(a, b), scene_law(entries, mats, (a, b))), (a, b)
    assert w.get_law("rubber", "glass")["coefficients"]["mu"] == 0.2
    assert w.get_law("rubber", "rubber")["tangential"] == "none"
    with pytest.raises(ValueError, match="'any' cannot name a material"):
        w.add_material("any", density=1000)
    w.close()


def test_any_before_the_materials():
    w = talus.World()
    w.set_law("any", "any", e=0.7)
    with pytest.raises(talus.TalusError, match="needs coefficient 'e'"):
        w.set_law("any", "any", damping="tsuji")         # checked now, though no pair takes it yet
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.add_material("steel", density=7800, youngs_modulus=2e8, poisson_ratio=0.3)
    assert w.get_law("glass", "steel")["coefficients"]["e"] == 0.7
    assert w.get_law("steel", "steel")["damping"] == "tsuji"
    w.close()


# ---- walls: the scene's keys ----

SCENE = {
    "talus": 1, "gravity": [0, 0, -9.81], "seed": 3,
    "integrator": {"scheme": "leapfrog", "steps_per_contact": 30},
    "neighbor": {"skin": 2e-4},
    "materials": {"glass": {"density": 2500, "youngs_modulus": 1e7, "poisson_ratio": 0.25},
                  "steel": {"density": 7800, "youngs_modulus": 2e8}},
    "laws": [{"between": ["any", "any"], "normal": "hertz", "damping": "tsuji", "e": 0.9},
             {"between": ["glass", "any"], "normal": "hertz", "damping": "tsuji", "tangential": "mindlin",
              "e": 0.5, "mu": 0.4}],
    "walls": [{"name": "box", "type": "box", "material": "steel", "min": [0, 0, 0], "max": [0.02, 0.02, 0.05],
               "open": ["+z"]},
              {"name": "lid", "type": "rectangle", "material": "steel", "center": [0.01, 0.01, 0.04],
               "normal": [0, 0, -1], "axis": [1, 0, 0], "half_length": 0.01, "half_width": 0.01,
               "servo": {"direction": [0, 0, -1], "stress": 50.0, "gain": 1e-3, "max_speed": 0.05}},
              {"name": "paddle", "type": "plane", "material": "steel", "point": [0, 0, -0.01], "normal": [0, 0, 1],
               "motion": {"oscillate": {"axis": [0, 0, 1], "amplitude": 1e-4, "period": 0.01, "phase_deg": 30}}}],
    "particles": [{"id": 1, "material": "glass", "radius": 1e-3, "position": [0.005, 0.005, 0.00105]},
                  {"id": 2, "material": "steel", "radius": 1.5e-3, "position": [0.01, 0.01, 0.0016],
                   "velocity": [0.1, 0, 0]},
                  {"id": 3, "material": "glass", "radius": 1e-3, "position": [0.0127, 0.01, 0.0016], "fixed": True},
                  {"id": 4, "material": "glass", "radius": 1e-3, "position": [0.012, 0.005, 0.01],
                   "external_force": [0, 0, -1e-4]}],
    "stages": [{"duration": 0.01}],
}


def python_world(old_names=False):
    """SCENE built from Python with the scene's keys (or the old names where they differ)."""
    w = talus.World(gravity=(0, 0, -9.81), seed=3, integrator="leapfrog", steps_per_contact=30, skin=2e-4)
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.add_material("steel", density=7800, youngs_modulus=2e8)
    w.set_law("any", "any", e=0.9)
    w.set_law("glass", "any", tangential="mindlin", e=0.5, mu=0.4)
    if old_names:
        w.add_wall(kind="box", material="steel", name="box", box_min=(0, 0, 0), box_max=(0.02, 0.02, 0.05),
                   open_faces=["zmax"])
        lid = w.add_wall("rectangle", "steel", name="lid", point=(0.01, 0.01, 0.04), normal=(0, 0, -1),
                         axis=(1, 0, 0), half_length=0.01, half_width=0.01)
        w.set_wall_servo(lid, (0, 0, -1), target_force=50.0 * w.wall(lid)["area"], gain=1e-3, max_speed=0.05)
        w.add_wall("plane", "steel", name="paddle", point=(0, 0, -0.01), normal=(0, 0, 1),
                   motion={"kind": "oscillate", "axis": (0, 0, 1), "amplitude": 1e-4, "period": 0.01,
                           "phase": 30 * math.pi / 180})
    else:
        w.add_wall("box", "steel", name="box", min=(0, 0, 0), max=(0.02, 0.02, 0.05), open=["+z"])
        w.add_wall("rectangle", "steel", name="lid", center=(0.01, 0.01, 0.04), normal=(0, 0, -1), axis=(1, 0, 0),
                   half_length=0.01, half_width=0.01,
                   servo={"direction": (0, 0, -1), "stress": 50.0, "gain": 1e-3, "max_speed": 0.05})
        w.add_wall("plane", "steel", name="paddle", point=(0, 0, -0.01), normal=(0, 0, 1),
                   motion={"oscillate": {"axis": (0, 0, 1), "amplitude": 1e-4, "period": 0.01, "phase_deg": 30}})
    w.add_particle("glass", id=1, radius=1e-3, position=(0.005, 0.005, 0.00105))
    w.add_particle("steel", id=2, radius=1.5e-3, position=(0.01, 0.01, 0.0016), velocity=(0.1, 0, 0))
    w.add_particle("glass", id=3, radius=1e-3, position=(0.0127, 0.01, 0.0016), fixed=True)
    if old_names:
        pid = w.add_particle("glass", id=4, radius=1e-3, position=(0.012, 0.005, 0.01))
        w.set_particle_force(pid, (0, 0, -1e-4))
    else:
        w.add_particle("glass", id=4, radius=1e-3, position=(0.012, 0.005, 0.01), external_force=(0, 0, -1e-4))
    return w


def test_a_world_built_with_the_scene_keys_is_the_scene():
    """The same walls (box with open: [+z], a rectangle's center with a servo by stress, a plane
    oscillating with phase_deg), laws with any, particles with external_force: from Python and from
    the dict scene, the same state bit for bit after 2000 steps of contacts; the old names too."""
    with talus.Scene(SCENE) as s:
        sw = s.world
        w, old = python_world(), python_world(old_names=True)
        w.prepare()
        assert w.dt == sw.dt
        for a, b in (("glass", "glass"), ("glass", "steel"), ("steel", "steel")):
            assert same_law(w.get_law(a, b), sw.get_law(a, b))
        for x in (sw, w, old):
            x.step(2000)
        assert sw.energy()["dissipated_normal"] > 0 and len(sw.contacts()) > 0   # the beads met
        assert w.wall("lid")["servo"] and w.wall("lid")["velocity"][2] < 0
        assert w.save_state() == sw.save_state()
        assert old.save_state() == sw.save_state()
        w.close()
        old.close()


def test_walls_refuse_keys_of_other_types_and_list_every_name():
    w = glass_world()
    for kind in ("plane", "rectangle", "box", "mesh"):
        with pytest.raises(TypeError) as e:
            w.add_wall(kind, "glass", bogus=1)
        msg = str(e.value)
        listed = re.search(r"\(allowed: ([^;)]*)", msg).group(1).split(", ")
        assert "name" in listed and "motion" in listed and "servo" in listed
        assert listed == [k for k in names("wall." + kind) if k not in ("type", "material")] + \
            list(_defs.WALL_PYTHON_KEYS.get(kind, ()))
    with pytest.raises(TypeError, match=r"did you mean 'min'.*old names, still taken: box_min, box_max, open_faces"):
        w.add_wall("box", "glass", mn=(0, 0, 0))
    with pytest.raises(TypeError, match=r"'min' \(allowed: name, velocity, servo, point, normal, motion\)"):
        w.add_wall("plane", "glass", min=(0, 0, 0))
    with pytest.raises(TypeError, match=r"did you mean 'center'.*old names, still taken: point"):
        w.add_wall("rectangle", "glass", centre=(0, 0, 0))
    with pytest.raises(TypeError, match=r"did you mean 'file'.*mesh_file"):
        w.add_wall("mesh", "glass", fil="x.stl")
    with pytest.raises(ValueError, match=r"-x \+x -y \+y -z \+z"):
        w.add_wall("box", "glass", min=(0, 0, 0), max=(1, 1, 1), open=["top"])
    with pytest.raises(ValueError, match="a stress needs a wall with a finite area"):
        w.add_wall("box", "glass", min=(0, 0, 0), max=(1, 1, 1),
                   servo={"direction": (0, 0, -1), "stress": 1.0, "gain": 1e-3, "max_speed": 0.1})
    assert len(w.walls) == 0   # nothing was added
    w.close()


def test_wall_servo_and_motion_take_the_scene_forms():
    w = glass_world()
    lid = w.add_wall("rectangle", "glass", name="lid", center=(0, 0, 0.1), normal=(0, 0, -1), axis=(1, 0, 0),
                     half_length=0.01, half_width=0.02)
    w.set_wall_servo("lid", {"direction": (0, 0, -1), "force": 2.0, "gain": 1e-3, "max_speed": 0.05})
    assert w.wall(lid)["servo"]
    w.set_wall_servo("lid", "off")
    assert not w.wall(lid)["servo"]
    w.set_wall_servo("lid", (0, 0, -1), stress=10.0, gain=1e-3, max_speed=0.05)
    w.add_particle("glass", radius=1e-3, position=(0.5, 0.5, 0.5))
    w.set_law("glass", "glass", e=0.5)
    w.step(1)
    # no particle touches it: F = 0, so v = gain x stress x area, clamped
    assert w.wall(lid)["velocity"][2] == pytest.approx(-min(1e-3 * 10.0 * 8e-4, 0.05), rel=1e-12)
    w.set_wall_servo("lid", None)
    plate = w.add_wall("plane", "glass", point=(0, 0, -1))
    w.set_wall_motion(plate, {"rotate": {"axis": (0, 0, 1), "point": (0, 0, 0), "rpm": 60}})
    w.step(100)
    assert w.wall(plate)["angle"] == pytest.approx(2 * math.pi * 100 * w.dt, rel=1e-9)
    w.set_wall_motion(plate, "none")
    w.step(10)
    assert w.wall(plate)["angular_velocity"] == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="did you mean 'rotate'"):
        w.set_wall_motion(plate, {"rotat": {"axis": (0, 0, 1)}})
    with pytest.raises(TypeError, match="did you mean 'speed'"):
        w.set_wall_motion(plate, {"rotate": {"axis": (0, 0, 1), "point": (0, 0, 0), "sped": 1}})
    w.close()


# ---- particles, shapes ----

def test_particles_take_every_scene_key():
    w = glass_world()
    with pytest.raises(TypeError) as e:
        w.add_particle("glass", radius=1e-3, fixd=True)
    msg = str(e.value)
    assert "did you mean 'fixed'" in msg
    for key in ("fixed", "prescribed", "lock_rotation", "external_force", "shape", "orientation"):
        assert key in msg
    assert re.search(r"\(allowed: ([^)]*)\)", msg).group(1).split(", ") == \
        [k for k in names("particle") if k != "material"]
    # external_force: a free body accelerates at F/m
    w2 = talus.World(dt=1e-4)
    w2.add_material("glass", density=2500, youngs_modulus=1e7)
    w2.set_law("glass", "glass", e=0.5)
    pid = w2.add_particle("glass", radius=1e-3, position=(0, 0, 0), external_force=(0, 0, 1e-6))
    w2.step(100)
    m = w2.particle(pid)["mass"]
    assert w2.particle(pid)["velocity"][2] == pytest.approx(1e-6 / m * 100 * 1e-4, rel=1e-12)
    with pytest.raises(TypeError, match="external_force is set per particle"):
        w2.add_particles([[0, 0, 1]], 1e-3, "glass", external_force=(0, 0, 1))
    w.close()
    w2.close()


def test_shapes_take_the_scene_mapping():
    w = glass_world()
    a = w.add_shape(name="pebble", ellipsoid=(0.003, 0.002, 0.001))
    b = w.add_shape("ellipsoid", name="pebble2", semi_axes=(0.003, 0.002, 0.001))       # the old form
    c = w.add_shape(name="ball", mesh={"icosphere": 0.002, "subdivisions": 2}, contact_depth="volume")
    d = w.add_shape("mesh", name="ball2", source="icosphere", radius=0.002, subdivisions=2, mesh_depth="volume")
    e = w.add_shape(name="egg", mesh={"ellipsoid": (0.003, 0.002, 0.002), "vertices": 200})
    for x, y in ((a, b), (c, d)):
        sx, sy = w.shape(x), w.shape(y)
        assert sx["volume"] == sy["volume"] and sx["vertices"] == sy["vertices"] and sx["kind"] == sy["kind"]
    assert w.shape(e)["kind"] == "mesh" and w.shape(e)["vertices"] == 200
    pid = w.add_particle("glass", shape="ball", position=(0, 0, 0.1))
    assert w.particle(pid)["shape"] == c
    with pytest.raises(TypeError, match=r"did you mean 'contact_depth'.*allowed: name, ellipsoid, mesh"):
        w.add_shape(name="x", mesh={"icosphere": 0.002, "subdivisions": 2}, contact_dept="volume")
    with pytest.raises(ValueError, match="contact_depth='volume' with it"):
        w.add_shape(name="x", mesh={"icosphere": 0.002, "subdivisions": 2}, contact_radius="area")
    with pytest.raises(ValueError, match="exactly one of file, icosphere or ellipsoid"):
        w.add_shape(name="x", mesh={"subdivisions": 2})
    with pytest.raises(TypeError, match="did you mean 'units'"):
        w.add_shape(name="x", mesh={"file": "x.stl", "unit": "mm"})
    w.close()


# ---- World: the scene's world keys ----

def test_world_takes_the_scene_mappings():
    flat = talus.World(gravity=(0, 0, -9.81), integrator="leapfrog", dt=2e-6, steps_per_contact=30, skin=1e-4,
                       reorder_every=-1, blowup_every=5, domain=((-1, -1, -1), (1, 1, 1)), periodic="xz")
    nested = talus.World(gravity=(0, 0, -9.81), integrator={"scheme": "leapfrog", "dt": 2e-6, "steps_per_contact": 30},
                         neighbor={"skin": 1e-4, "reorder_every": -1}, blowup={"every": 5},
                         domain={"min": [-1, -1, -1], "max": [1, 1, 1], "periodic": ["x", "z"]})
    for w in (flat, nested):
        w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
        w.set_law("glass", "glass", e=0.5)
        w.add_particle("glass", radius=1e-3, position=(0.999, 0, 0))
        w.prepare()
    assert flat.dt == nested.dt == 2e-6
    flat.step(10)
    nested.step(10)
    assert flat.save_state() == nested.save_state()
    talus.World(dt="auto").close()     # the scene's dt: auto
    with pytest.raises(TypeError) as e:
        talus.World(skn=1e-4)
    msg = str(e.value)
    assert "did you mean 'skin'" in msg
    assert re.search(r"\(allowed: ([^)]*)\)", msg).group(1).split(", ") == list(_defs.WORLD_KEYWORDS)
    for key in names("integrator") + names("neighbor"):
        assert key == "scheme" or key in _defs.WORLD_KEYWORDS
    with pytest.raises(TypeError, match=r"World integrator: unknown parameter 'dtt'; did you mean 'dt'"):
        talus.World(integrator={"dtt": 1e-6})
    with pytest.raises(TypeError, match="dt given twice"):
        talus.World(dt=1e-6, integrator={"dt": 2e-6})
    with pytest.raises(talus.TalusError, match="dt must be >= 0 s"):
        talus.World(dt=-1.0)


def test_world_messages_name_the_world_keywords():
    law = {"normal": "hertz", "damping": "tsuji", "tangential": "none", "history": "none", "e": 0.5}
    w = glass_world()
    w.set_law("glass", "glass", **law)
    w.add_particle("glass", radius=1e-3, position=(0, 0, 0.01))
    w.add_particle("glass", radius=1e-3, position=(0, 0, 0.0105))
    with pytest.raises(talus.TalusError) as e:
        w.step(1)
    msg = str(e.value)
    assert "allow_initial_overlaps=True" in msg and "allow_initial_overlaps: true" not in msg
    w.close()
    w = glass_world(dt=1e-3)
    w.set_law("glass", "glass", **law)
    w.add_wall("plane", "glass")
    w.add_particle("glass", radius=1e-3, position=(0, 0, 0.0011))
    with pytest.raises(talus.TalusError) as e:
        w.prepare()
    msg = str(e.value)
    assert "allow_unresolved_contacts=True" in msg and "(steps_per_contact)" in msg
    assert "integrator." not in msg and ": true" not in msg
    w.close()
    # a scene's world speaks the scene's keys
    text = ("talus: 1\ngravity: [0, 0, -9.81]\nmaterials: {glass: {density: 2500, youngs_modulus: 1.0e7}}\n"
            "laws: [{between: [glass, glass], normal: hertz, damping: tsuji, e: 0.5}]\n"
            "particles: [{material: glass, radius: 1.0e-3, position: [0, 0, 0]},"
            " {material: glass, radius: 1.0e-3, position: [0, 0, 0.0005]}]\n"
            "stages: [{steps: 1}]\n")
    with pytest.raises(talus.TalusError, match="allow_initial_overlaps: true"):
        talus.Scene.from_string(text)


# ---- collide: degrees ----

def test_collide_takes_degrees_as_the_command():
    r = talus.collide(wall=True, radius_a=1e-3, speed=1.0, angle=30, law={"e": 0.9, "mu": 0.3})
    assert r["v_in"][0] == pytest.approx(math.sin(math.radians(30)), rel=1e-12)
    assert r["v_in"][2] == pytest.approx(-math.cos(math.radians(30)), rel=1e-12)
    assert r["alpha_v_deg"] == pytest.approx(math.degrees(r["alpha_v"]), rel=1e-12)
    with pytest.raises(ValueError, match="degrees"):
        talus.collide(angle=90)
    # the command's default law: hertz + tsuji + mindlin, e = 0.9, mu = 0.3 unless given
    r = talus.collide(wall=True, radius_a=1e-3, speed=1.0, law={"e": 0.5})
    assert r["e_n"] == pytest.approx(0.5, abs=2e-3)


def test_the_example_and_the_lab_test_speak_degrees():
    with open(os.path.join(SOURCE_DIR, "examples", "python", "calibrate_sweep.py"), encoding="utf-8") as f:
        text = f.read()
    assert "np.radians" not in text and "angle=float(a)" in text


# ---- dict scenes: the dict's path ----

def test_a_refused_dict_scene_names_the_dict_path():
    scene = {"talus": 1, "materials": {"glass": {"density": 2500, "youngs_modulus": 1e7}},
             "laws": [{"between": ["glass", "glass"], "normal": "hertz", "damping": "tsuji", "e": 0.5}],
             "walls": [{"type": "plane", "material": "glass", "normal": [0, 0, 1]},
                       {"type": "plane", "material": "glass", "normal": [0, 0]}],
             "stages": [{"duration": 0.1}]}
    with pytest.raises(talus.TalusError) as e:
        talus.Scene(scene)
    err = e.value
    assert str(err).startswith("walls[1].normal: expected a sequence of 3 numbers")
    assert err.key == "walls[1].normal" and err.line is None and err.column is None
    scene["walls"].pop()
    scene["laws"].append({"between": ["glass", "glass"], "normal": "hertz"})
    with pytest.raises(talus.TalusError) as e:
        talus.Scene(scene)
    assert str(e.value) == ("laws[1].between: the pair [glass, glass] already has a law: laws[0]; give each "
                            "pair one entry")
    # a file keeps its line and column
    with pytest.raises(talus.TalusError) as e:
        talus.Scene.from_string(talus.scene_yaml(scene), name="s.yaml")
    assert e.value.line == 1 and e.value.column > 1


# ---- the docs list every keyword ----

def test_docs_python_md_lists_every_keyword():
    with open(os.path.join(SOURCE_DIR, "docs", "python.md"), encoding="utf-8") as f:
        doc = f.read()

    def section(title):
        i = doc.index(title)
        j = doc.find("\n### ", i + 1)
        return doc[i:j if j > 0 else len(doc)]

    def rows(title):
        """The names in the first cell of each table row of a section."""
        cells = re.findall(r"^\| ([^|]*)\|", section(title), flags=re.M)
        return {n for c in cells for n in re.findall(r"`([a-z_]+)`", c)}

    for title in ("### `World(**settings)`", "### `add_material", "### `set_law", "### `add_wall",
                  "### `add_particle", "### `add_shape", "### `set_wall_servo", "### `collide"):
        assert len(rows(title)) >= 2, title

    assert set(_defs.WORLD_KEYWORDS) <= rows("### `World(**settings)`")
    assert set(_defs.MATERIAL_KEYS) <= rows("### `add_material")
    assert set(_defs.LAW_OPTIONS) <= rows("### `set_law")
    wall = rows("### `add_wall")
    for kind in ("plane", "rectangle", "box", "mesh"):
        allowed, old = _defs.wall_keywords(kind)
        assert set(allowed) | set(old) <= wall, kind
    assert set(_defs.PARTICLE_KEYS) <= rows("### `add_particle")
    assert set(_defs.SHAPE_KEYS) | {"name"} <= rows("### `add_shape")
    assert set(names("wall.servo")) <= rows("### `set_wall_servo")
    assert {"angle", "law"} <= rows("### `collide")
