#!/usr/bin/env python3
"""Calibrate a contact law, then sweep collisions with it.

1. The adaptive collision time model (Ray, Kempe & Froehlich 2015): the Hertz
   stiffness k and dashpot d that give a steel bead of 10 mm restitution
   e = 0.8 and collision time T_c = 1e-4 s at 1 m/s, by the exact inverse and
   by the paper's direct formulas; each checked by a collision run.
2. A fixed-coefficient law over impact speeds from 0.01 to 10 m/s: the
   restitution Tsuji's dashpot (hertz + tsuji, e = 0.8) really achieves (the
   same at every speed: the dashpot scales with delta^1/4), and the collision
   time of the undamped Hertz law against its closed form.
3. An oblique sweep (Maw, Barber & Fawcett's impact angles) with Mindlin
   friction: the tangential restitution and the spin after impact.

    python3 examples/python/calibrate_sweep.py [-o sweep.png]
"""
import argparse
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import talus  # noqa: E402

STEEL = {"name": "steel", "density": 7800, "youngs_modulus": 2.0e11, "poisson_ratio": 0.3}
R = 0.005


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default="sweep.png")
    args = ap.parse_args()

    m = STEEL["density"] * 4 / 3 * math.pi * R ** 3
    c = talus.calibrate_actm(0.8, 1e-4, speed=1.0, mass=m)
    print("calibration for e = 0.8, T_c = 1e-4 s at 1 m/s (m = %.4g kg):" % m)
    for method in ("exact", "direct"):
        r = c[method]
        print("  %-6s k = %.5g N/m^1.5, d = %.5g N s/m: run gives e = %.5f, T_c = %.5g s"
              % (method, r["k"], r["d"], r["e_run"], r["tc_run"]))

    speeds = np.logspace(-2, 1, 13)
    e_tsuji, t_hertz, t_closed = [], [], []
    for v in speeds:
        e_tsuji.append(talus.calibrate_restitution(0.8, "hertz", "tsuji", material=STEEL, wall=True,
                                                   radius=R, speed=v)["e_achieved"])
        t = talus.calibrate_timestep(material=STEEL, wall=True, radius=R, speed=v)
        t_hertz.append(t["contact_time_run"][0])
        t_closed.append(t["contact_time"][0])
    print("tsuji at e = 0.8 achieves %.4f to %.4f over 0.01-10 m/s" % (min(e_tsuji), max(e_tsuji)))
    print("Hertz contact time: run / closed form - 1 within %.1e" %
          max(abs(a / b - 1) for a, b in zip(t_hertz, t_closed)))

    angles = np.arange(5, 86, 5)   # degrees, as talus collide --angle
    e_t, spin = [], []
    for a in angles:
        r = talus.collide(material_a=STEEL, wall=True, radius_a=R, speed=1.0, angle=float(a),
                          law={"e": 0.8, "mu": 0.3})
        e_t.append(r["e_t"])
        spin.append(r["omega_out"][1] * R)
    print("oblique impacts: e_t from %.3f to %.3f" % (min(e_t), max(e_t)))

    fig, ax = plt.subplots(1, 3, figsize=(12, 3.6))
    ax[0].semilogx(speeds, e_tsuji, "o-")
    ax[0].axhline(0.8, color="k", lw=0.8, ls="--")
    ax[0].set_ylim(0.7, 0.9)
    ax[0].set(xlabel="impact speed (m/s)", ylabel="restitution achieved", title="hertz + tsuji, e = 0.8")
    ax[1].loglog(speeds, t_hertz, "o", label="run")
    ax[1].loglog(speeds, t_closed, "-", label="2.94 (15 m / 16 E* R^1/2 v)^2/5")
    ax[1].set(xlabel="impact speed (m/s)", ylabel="contact time (s)", title="undamped Hertz")
    ax[1].legend(fontsize=7)
    ax[2].plot(angles, e_t, "o-", label="e_t")
    ax[2].plot(angles, spin, "s-", label="omega R (m/s)")
    ax[2].set(xlabel="impact angle (deg)", title="oblique, mu = 0.3")
    ax[2].legend(fontsize=7)
    fig.tight_layout()
    tmp = args.output + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, args.output)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
