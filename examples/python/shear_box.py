#!/usr/bin/env python3
"""Direct shear of a glass-bead sample (Fleischmann, Plesha & Negrut 2015,
examples/004-direct-shear.yaml), driven step by step from Python.

The scene's first three stages (rain, compaction under the lid's servo at
10 kPa, settling) run as `talus run` would run them; the shear is then driven
by hand: the upper half of the box and the lid move at 10 mm/s while the
servo keeps the normal stress, and after every 20 steps the script reads the
force on the upper walls, as a user would to steer or stop a test. It plots
the shear stress ratio tau / sigma against the shear displacement with
Matplotlib.

    python3 examples/python/shear_box.py [--quick] [-o shear.png]

--quick shears to 1 mm with a third of the beads (a smoke test: about 20 s,
not minutes). The build tree's package: PYTHONPATH=build/python.
"""
import argparse
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import talus  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENE = os.path.join(HERE, "..", "004-direct-shear.yaml")
UPPER = ("upper-x0", "upper-x1", "upper-y0", "upper-y1", "lid")
SIDE = 0.06          # m, the box's inner side: the shear area is SIDE^2
SPEED = 0.01         # m/s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="600 beads, shear to 1 mm")
    ap.add_argument("-o", "--output", default="shear.png")
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()

    with open(SCENE, encoding="utf-8") as f:
        text = f.read()
    # the scene without its shear stage and its outputs: Python drives the shear
    text = re.sub(r"\n  - name: shear.*?(?=\noutputs:)", "", text, flags=re.S)
    text = text[:text.index("\noutputs:")] + "\n"
    if args.quick:
        # a third of the beads, so the lid comes down 3 cm further in the rain
        text = text.replace("count: 1800", "count: 600").replace("reaches: -0.0952914298", "reaches: -0.125")
    reach = 0.001 if args.quick else 0.006

    with talus.Scene.from_string(text, name=SCENE) as scene:
        summary = scene.run(write_outputs=False, threads=args.threads)
        for r in scene.stage_results():
            print("stage %-8s %8d steps, ended by %s" % (r["name"], r["steps"], r["ended_by"]))
        w = scene.world
        print("%d beads; servo holds the lid at sigma = 10 kPa; shearing at %g mm/s"
              % (summary["particles"], SPEED * 1e3))
        for name in UPPER:
            w.set_wall_velocity(name, (SPEED, 0.0, 0.0))
        x0 = w.wall("upper-x0")["displacement"][0]
        disp, ratio = [], []
        while True:
            w.step(20)
            walls = [w.wall(n) for n in UPPER]
            dx = walls[0]["displacement"][0] - x0
            shear = -sum(s["force"][0] for s in walls)      # what the drive must push against
            normal = abs(walls[-1]["force"][2])             # the lid's load, N
            disp.append(dx)
            ratio.append(shear / normal if normal > 0 else np.nan)
            if dx >= reach:
                break
        print("peak tau/sigma %.3f, last %.3f (at %.2f mm, %d steps in Python's loop)"
              % (np.nanmax(ratio), ratio[-1], disp[-1] * 1e3, 20 * len(disp)))

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(np.array(disp) * 1e3, ratio)
    ax.set_xlabel("shear displacement (mm)")
    ax.set_ylabel("shear stress / normal stress")
    ax.set_title("direct shear, true tangential history (004)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    tmp = args.output + ".tmp.png"
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, args.output)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
