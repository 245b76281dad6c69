"""talus.World.shape (tl_world_get_shape) and the orientation of a mesh body, which turns
the mesh as given (its file's or arrays' frame) about its centroid (issue 39, item 5)."""
import numpy as np
import pytest

import talus

# a box [0.1, 0.12] x [0.2, 0.22] x [0.3, 0.36] m: 2 x 2 x 6 cm, standing (long axis z)
BOX_V = np.array([[0.12 if k & 1 else 0.1, 0.22 if k & 2 else 0.2, 0.36 if k & 4 else 0.3]
                  for k in range(8)])
BOX_T = np.array([0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                  2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5]).reshape(-1, 3)


def matrix(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def world():
    w = talus.World(gravity=(0, 0, -9.81))
    w.add_material("rock", density=2000, youngs_modulus=1e7, poisson_ratio=0.3)
    w.set_law("rock", "rock", normal="hertz", damping="tsuji", tangential="mindlin", e=0.5, mu=0.5)
    return w


def test_the_shape_query_gives_volume_moments_and_frame():
    w = world()
    s = w.add_shape("mesh", name="post", vertex_xyz=BOX_V, triangles=BOX_T)
    e = w.add_shape("ellipsoid", name="pebble", semi_axes=(0.003, 0.002, 0.001))
    d = w.shape(s)
    assert d["index"] == s and d["name"] == "post" and d["kind"] == "mesh"
    assert d["vertices"] == 8 and d["facets"] == 12
    assert d["volume"] == pytest.approx(0.02 * 0.02 * 0.06, rel=1e-12)
    # per unit mass, ascending: about the long axis first
    np.testing.assert_allclose(d["moments"], [(0.02 ** 2 + 0.02 ** 2) / 12, (0.02 ** 2 + 0.06 ** 2) / 12,
                                              (0.02 ** 2 + 0.06 ** 2) / 12], rtol=1e-10)
    assert isinstance(d["origin"], np.ndarray) and d["origin"].shape == (3,)
    np.testing.assert_allclose(d["origin"], [0.11, 0.21, 0.33], rtol=0, atol=1e-12)
    E = d["rotation"]
    assert E.shape == (3, 3) and d["frame"].shape == (4,)
    np.testing.assert_allclose(E @ E.T, np.eye(3), atol=1e-14)
    assert np.linalg.det(E) == pytest.approx(1.0, abs=1e-14)
    assert abs(E[2, 0]) == pytest.approx(1.0, abs=1e-12)   # the first principal axis is the file's z
    # the body frame's vertices (body point b at origin + E b) span 6 cm along the first axis
    b = (BOX_V - d["origin"]) @ E
    np.testing.assert_allclose(b.max(axis=0) - b.min(axis=0), [0.06, 0.02, 0.02], atol=1e-12)
    # by name; an ellipsoid's frame is the identity
    p = w.shape("pebble")
    assert p["index"] == e and p["kind"] == "ellipsoid" and tuple(p["frame"]) == (1.0, 0.0, 0.0, 0.0)
    np.testing.assert_allclose(p["semi_axes"], [0.003, 0.002, 0.001])
    np.testing.assert_allclose(p["moments"], [(0.002 ** 2 + 0.001 ** 2) / 5, (0.003 ** 2 + 0.001 ** 2) / 5,
                                              (0.003 ** 2 + 0.002 ** 2) / 5], rtol=1e-12)
    assert w.shape_count == 2
    with pytest.raises(talus.TalusError):
        w.shape(3)
    with pytest.raises(talus.TalusError):
        w.shape("boulder")
    w.close()


def test_a_mesh_body_is_turned_as_given():
    w = world()
    s = w.add_shape("mesh", name="post", vertex_xyz=BOX_V, triangles=BOX_T)
    d = w.shape(s)
    c, E = d["origin"], d["rotation"]
    q = np.array([0.7, -0.1, 0.5, 0.5])
    q /= np.linalg.norm(q)
    x = np.array([0.5, -0.25, 1.0])
    a = w.add_particle("rock", shape=s, position=(0.0, 0.0, 0.03))   # the identity: standing
    b = w.add_particle("rock", shape=s, position=tuple(x), orientation=tuple(q))
    sphere = w.add_particle("rock", radius=0.01, position=(1.0, 1.0, 1.0))
    pa, pb = w.particle(a), w.particle(b)
    np.testing.assert_allclose(pa["orientation"], [1, 0, 0, 0], atol=1e-15)
    np.testing.assert_allclose(pb["orientation"], q, atol=1e-12)
    # the engine's vertices: x + R(body) b, b = E^T (v - c); each given vertex at x + R(q) (v - c)
    for p, turn in ((pa, np.array([1.0, 0, 0, 0])), (pb, q)):
        pos = np.array(p["position"])
        engine = pos + ((BOX_V - c) @ E) @ matrix(p["body_orientation"]).T
        given = pos + (BOX_V - c) @ matrix(turn).T
        np.testing.assert_allclose(engine, given, rtol=0, atol=1e-12)
    engine = np.array(pa["position"]) + ((BOX_V - c) @ E) @ matrix(pa["body_orientation"]).T
    ext = engine.max(axis=0) - engine.min(axis=0)
    np.testing.assert_allclose(ext, [0.02, 0.02, 0.06], atol=1e-12)   # standing: 6 cm tall
    # the arrays: orientations as given (a copy), body_orientations the engine's view
    rows = {int(i): k for k, i in enumerate(w.ids)}
    o, ob = w.orientations, w.body_orientations
    assert not o.flags.writeable and not ob.flags.writeable and not ob.flags.owndata
    np.testing.assert_allclose(o[rows[b]], q, atol=1e-12)
    assert tuple(o[rows[a]]) == pa["orientation"] and tuple(o[rows[b]]) == pb["orientation"]
    assert tuple(ob[rows[b]]) == pb["body_orientation"]
    assert tuple(o[rows[sphere]]) == tuple(ob[rows[sphere]]) == (1.0, 0.0, 0.0, 0.0)
    w.close()


def test_without_a_turned_frame_the_orientations_are_the_view():
    w = world()
    e = w.add_shape("ellipsoid", semi_axes=(0.003, 0.002, 0.001))
    w.add_particle("rock", shape=e, position=(0, 0, 0.01), orientation=(0.8, 0.36, 0.48, 0.0))
    assert w.orientations is w.body_orientations
    p = w.particle(1)
    assert p["orientation"] == p["body_orientation"]
    w.close()
