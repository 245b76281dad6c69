"""World.render: a picture of the world (the library's tl_world_render): the PNG read back and
its pixels checked (where a sphere is drawn, which of two covers the other, the cut), the file
written through a temporary name, and options out of range refused with a Python exception."""
import os
import struct
import zlib

import pytest
from conftest import make_bed

import talus


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG without interlace (cairo's)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, head = 8, b"", None
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    w, h, depth, colour, _, _, interlace = head
    assert depth == 8 and colour in (2, 6) and interlace == 0
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(w * bpp), w * bpp
    for y in range(h):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def two_spheres():
    w = talus.World()
    w.add_material("blue", density=1000, youngs_modulus=1e7, poisson_ratio=0.3)
    w.add_material("orange", density=1000, youngs_modulus=1e7, poisson_ratio=0.3)
    w.add_particle("orange", radius=0.2, position=(0.15, 0.5, 0.0))  # behind (the view looks along +y)
    w.add_particle("blue", radius=0.2, position=(0.0, 0.0, 0.0))
    return w


FIXED = {"view": [0, 1, 0], "up": [0, 0, 1], "center": [0, 0, 0], "extent": 2.0}


def test_a_sphere_where_the_projection_puts_it_and_the_nearer_in_front(tmp_path):
    w = two_spheres()
    path = tmp_path / "two.png"
    w.render(path, width=400, height=300, camera=FIXED, color_bar=False)
    assert path.exists() and not (tmp_path / "two.png.part").exists()
    width, height, px = read_png(path)
    assert (width, height) == (400, 300)
    # 200 px per m, x to the right, z up: the blue sphere's disc about pixel (200, 150), 40 px across
    blue = px[150][200 + 20]  # x = 0.1 m: both discs, the blue one nearer
    assert blue[2] > blue[0] + 30
    orange = px[150][200 + 62]  # x = 0.31 m: the orange one alone
    assert orange[0] > orange[2] + 60
    assert px[150][200 + 90] == (255, 255, 255)  # beyond both
    assert px[150][200 - 38] != (255, 255, 255) and px[150][200 - 42] == (255, 255, 255)
    # the cut: only the centres with |x - 0.15| <= 0.05 (the orange sphere)
    w.render(path, width=400, height=300, camera=FIXED, color_bar=False,
             cut={"point": [0.15, 0, 0], "normal": [1, 0, 0], "thickness": 0.1})
    _, _, px = read_png(path)
    assert px[150][200 - 30] == (255, 255, 255)
    assert px[150][200 + 20][0] > px[150][200 + 20][2] + 60
    w.close()


def test_colour_by_a_quantity_with_a_range(tmp_path, bed):
    bed.step(20)
    path = tmp_path / "bed.png"
    bed.render(str(path), width=320, height=240, color_by="speed", range=(0.0, 0.05),
               camera={"view": [1, 1, -0.6], "zoom": 1.2}, antialias=3)
    width, height, px = read_png(path)
    assert (width, height) == (320, 240)
    drawn = sum(1 for row in px for c in row if c != (255, 255, 255))
    assert drawn > 0.05 * width * height


@pytest.mark.parametrize("kw, error, words", [
    ({"width": 0}, ValueError, "width"),
    ({"height": 20000}, ValueError, "height"),
    ({"width": 16384, "height": 16384}, ValueError, "width x height"),
    ({"width": 2.5}, TypeError, "width"),
    ({"color_by": "sped"}, ValueError, "did you mean 'speed'"),
    ({"color_by": 3}, TypeError, "color_by"),
    ({"camera": "above"}, ValueError, "auto"),
    ({"camera": {"view": [0, 0, 1]}}, ValueError, "up"),
    ({"camera": {"view": [0, 0, 0]}}, ValueError, "view"),
    ({"camera": {"zom": 2}}, TypeError, "did you mean 'zoom'"),
    ({"camera": {"zoom": -1}}, ValueError, "zoom"),
    ({"camera": {"center": [0, 0, 0]}}, ValueError, "extent"),
    ({"camera": {"view": "x"}}, ValueError, "view"),
    ({"range": (1, 0)}, ValueError, "range"),
    ({"range": 5}, ValueError, "range"),
    ({"cut": {"point": [0, 0, 0], "normal": [0, 0, 1]}}, ValueError, "thickness"),
    ({"cut": {"point": [0, 0, 0], "normal": [0, 0, 1], "thickness": 0}}, ValueError, "thickness"),
    ({"cut": [0, 0, 1]}, TypeError, "cut"),
    ({"antialias": 0}, ValueError, "antialias"),
    ({"antialias": 2.0}, TypeError, "antialias"),
    ({"width": 8192, "height": 8192, "antialias": 2}, ValueError, "antialias"),
])
def test_bad_options_raise_and_write_nothing(tmp_path, kw, error, words):
    w = two_spheres()
    path = tmp_path / "bad.png"
    with pytest.raises(error, match=words):
        w.render(path, **kw)
    assert os.listdir(tmp_path) == []
    w.close()


def test_a_place_that_cannot_hold_the_file(tmp_path):
    w = two_spheres()
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(talus.TalusError, match="file/x.png"):
        w.render(tmp_path / "file" / "x.png")
    assert sorted(os.listdir(tmp_path)) == ["file"]
    w.close()
