#!/usr/bin/env python3
"""The scaling model of docs/scaling.md (issue 15), fitted to the runs of bench/scaling.sh.

    python3 bench/scaling_model.py bench/work/scaling.jsonl

Reads `talus bench --json` lines (serial, and on MPI ranks with their "parallel" costs) and
prints, in Markdown: the measured inputs, the fitted per-unit costs, and the predicted parallel
efficiency at 64 and 1024 ranks for 1e7, 1e8 and 1e9 particles, with the memory each rank needs
today. The model, per step and per code, on P ranks holding n = N / P particles each:

  T(P) = n t_p                          the code's serial work of the owned particles
       + h(n) x_g                       per particle within reach of the subdomain's faces: the
                                        code's 2-rank cost beyond half its serial step, per
                                        particle within reach of the cut (fitted)
       + m alpha + f h(n) b / beta      the ghost exchange: m neighbour messages, f ghosts sent per
                                        ghost within reach, b bytes each
       + c 2 alpha log2 P               the small collectives of a step (measured count c)
      [+ s N / beta + alpha log2 P]     Talus: the gather of the domain sums (s bytes per particle)

with h(n) = 6 w rho^(1/3) n^(2/3) the particles within reach of a cubic subdomain (a shell of
width w diameters, rho particles per diameter cubed), checked against the measured beds. The
network parameters (alpha, beta) are assumptions for a cluster (stated in the output), not
measurements: this machine has no network.
"""
import json
import math
import sys

ALPHA = 2e-6          # s per message (an InfiniBand-class cluster, MPI level)
BETA = 1e9            # bytes/s per rank (a node's link shared by its ranks)
RHO = 1.22            # particles per d^3 in a settled monodisperse bed (packing 0.64)
W = 1.2               # halo width in diameters: contact reach 1 d + the skin 0.2 d


def bench_medians(path):
    """Median seconds per step of `make bench` runs: {(size, code, np): s}"""
    got = {}
    try:
        with open(path) as f:
            for line in f:
                kv = dict(x.split("=", 1) for x in line.split()[2:] if "=" in x)
                code = line.split()[1]
                if kv.get("rc") != "0" or "loop_s" not in kv:
                    continue
                key = (kv["N"], code, int(kv["np"]))
                got.setdefault(key, []).append(float(kv["loop_s"]) / float(kv["steps"]))
    except OSError:
        return {}
    return {k: sorted(v)[len(v) // 2] if len(v) % 2 else 0.5 * (sorted(v)[len(v) // 2 - 1] + sorted(v)[len(v) // 2])
            for k, v in got.items()}


def load(path):
    runs = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                runs.append(json.loads(line))
    return runs


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/work/scaling.jsonl"
    runs = load(path)
    by = {}
    for r in runs:
        by[(r["size"], r["ranks"])] = r
    sizes = sorted({r["size"] for r in runs}, key=lambda s: by[(s, 1)]["N"] if (s, 1) in by else 0)
    out = []
    P = out.append
    P("### Measured (this machine, %d runs of bench/scaling.sh)" % len(runs))
    P("")
    P("| bed | ranks | N | s / step | ghosts (all ranks) | within reach | ghosts / owned | partners | "
      "refresh s / step | pack + unpack us / ghost | domain sums bytes | collectives / step |")
    P("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    fits = []
    for s in sizes:
        for p in sorted(q for (t, q) in by if t == s):
            r = by[(s, p)]
            st = r["steps"]
            line = "| %s | %d%s | %d | %.4g |" % (s, p, " (over)" if r.get("oversubscribed") else "", r["N"],
                                                 r["seconds"] / st)
            par = r.get("parallel")
            if not par:
                P(line + " - | - | - | - | - | - | - | - |")
                continue
            g, need = par["ghosts_total"], par["ghosts_needed_total"]
            nref = max(par["refreshes"], 1)
            ref = (par["pack_s"] + par["exchange_s"] + par["unpack_s"]) / st
            per_ghost = (par["pack_s"] + par["unpack_s"]) / nref / max(par["ghosts_max"], 1) * 1e6
            P(line + " %d | %d | %.3f | %d | %.3g | %.3g | %d | %.1f |" % (
                g, need, g / r["N"], par["partners_max"], ref, per_ghost, par["sums_bytes"],
                par["collectives"] / st))
            if not r.get("oversubscribed"):
                fits.append((s, p, r))
    P("")
    # per-unit costs. The step times: the medians of `make bench` (bench/work/runs.txt: two
    # repetitions of 500 steps, 1 thread / rank and 2 ranks), else this script's own runs
    bench = bench_medians(sys.argv[2] if len(sys.argv) > 2 else "bench/work/runs.txt")
    rows = []
    for s_, p_, r in fits:
        if p_ != 2 or (s_, 1) not in by:
            continue
        st, par, N = r["steps"], r["parallel"], r["N"]
        lo, hi = r.get("box", [[0, 0, 0], [0, 0, 0]])
        dx, dy = (hi[0] - lo[0]) / 1e-3, (hi[1] - lo[1]) / 1e-3
        depth = N / (dx * dy * RHO)
        h_law = 2 * min(dx, dy) * depth * W * RHO  # within reach of the cut, per rank
        nref = max(par["refreshes"], 1)
        g_rank = par["ghosts_max"]
        refresh = (par["pack_s"] + par["exchange_s"] + par["unpack_s"]) / st
        for code, t1_, t2_, src in (
                ("Talus", by[(s_, 1)]["seconds"] / st, r["seconds"] / st, "bench/scaling.sh"),
                ("Talus", bench.get((s_, "talus", 1)), bench.get((s_, "talus-mpi", 2)), "make bench"),
                ("LIGGGHTS", bench.get((s_, "liggghts", 1)), bench.get((s_, "liggghts", 2)), "make bench"),
                ("LAMMPS", bench.get((s_, "lammps", 1)), bench.get((s_, "lammps", 2)), "make bench")):
            if not t1_ or not t2_:
                continue
            rows.append(dict(size=s_, N=N, code=code, src=src, t_p=t1_ / N, t1=t1_, t2=t2_,
                             x_g=(t2_ - t1_ / 2.0) / h_law, h_law=h_law,
                             need=par["ghosts_needed_total"] / 2.0, sent=g_rank,
                             refresh=refresh, per_sent=refresh / max(g_rank, 1),
                             pk=(par["pack_s"] + par["unpack_s"]) / nref / max(g_rank, 1),
                             f=par["ghosts_total"] / max(par["ghosts_needed_total"], 1),
                             c=par["collectives"] / st, sums=par["sums_bytes"], pb=par["particle_bytes"]))
    P("### Fitted: 2 ranks against 1 (1 thread each)")
    P("")
    P("x_g: what a code's step on 2 ranks takes beyond half its serial step, per particle within "
      "reach of the cut (per rank: the law's count, the same for the three codes). It holds the "
      "ghost exchange, the pairs across the cut evaluated twice (all three evaluate them on both "
      "sides: LIGGGHTS and LAMMPS run `newton off` here) and the waits at the step's collectives.")
    P("")
    P("| bed | code | step times from | serial us / particle-step | 2 ranks s / step | efficiency on 2 | "
      "x_g us |")
    P("|---|---|---|---:|---:|---:|---:|")
    for q in rows:
        P("| %s | %s | %s | %.3f | %.4g | %.0f %% | %.2f |" % (q["size"], q["code"], q["src"], q["t_p"] * 1e6,
                                                         q["t2"], 100 * q["t1"] / (2 * q["t2"]), q["x_g"] * 1e6))
    P("")
    tal = [q for q in rows if q["code"] == "Talus" and q["src"] == "make bench"] or \
        [q for q in rows if q["code"] == "Talus"]
    if not tal:
        print("\n".join(out))
        return
    big = max(tal, key=lambda q: q["N"])
    P("Talus's ghosts on the %s bed, 2 ranks: %d sent to the rank that receives most, for %d within "
      "reach per rank (f = %.1f over both: the ghost boxes are the bounding boxes of the other "
      "ranks' domains, boxes of space since the reordering of 2026-11-28), %d bytes each, refreshed "
      "every step in %.3g s (pack + unpack %.3f us per ghost, the rest the exchange through "
      "shared memory); %.1f small collectives per step; %.3g bytes of domain sums per particle "
      "of the whole gathered to every rank per step." % (
          big["size"], big["sent"], big["need"], big["f"], big["pb"], big["refresh"], big["pk"] * 1e6, big["c"],
          big["sums"] / big["N"]))
    P("")
    # the model per code: T = n t_p + h(n) x_g (+ the network's latency and bandwidth terms)
    codes = {}
    for q in rows:
        if q["size"] == big["size"] and q["src"] == "make bench":
            codes[q["code"]] = q
    if "Talus" not in codes:
        codes["Talus"] = big
    # Talus with only the ghosts within reach sent: x_g less the refresh of the surplus
    t = dict(codes["Talus"])
    t["x_g"] = t["x_g"] - max(t["sent"] - t["need"], 0.0) * t["per_sent"] / t["h_law"]
    t["f"] = 1.0
    codes["Talus, within reach"] = t
    BYTES = {"Talus": big["pb"], "Talus, within reach": big["pb"], "LIGGGHTS": 72, "LAMMPS": 72}
    FACT = {"Talus": big["f"], "Talus, within reach": 1.0, "LIGGGHTS": 1.0, "LAMMPS": 1.0}

    def model(q, code, N, Pn):
        n = N / Pn
        h = 6.0 * W * RHO ** (1.0 / 3.0) * n ** (2.0 / 3.0)  # a cube's shell within reach
        m = 26 if Pn >= 27 else Pn - 1
        net = m * ALPHA + FACT[code] * h * BYTES[code] / BETA + q.get("c", 3.5) * 2 * ALPHA * math.log2(Pn)
        if code.startswith("Talus"):
            net += big["sums"] / big["N"] * N / BETA + ALPHA * math.log2(Pn)
        T = n * q["t_p"] + h * q["x_g"] + net
        return T, N * q["t_p"] / (Pn * T)

    order = [c for c in ("Talus", "Talus, within reach", "LIGGGHTS", "LAMMPS") if c in codes]
    P("### Predicted: parallel efficiency and seconds per step (1 thread per rank)")
    P("")
    P("Cubic subdomains; the network assumed (alpha = %.0f us per message, beta = %.0f GB/s per "
      "rank; not measured: this machine has none); the peers' ghosts are those within reach (their "
      "ghost cutoff is the contact reach), %d bytes each (position, velocity, angular velocity); "
      "`Talus, within reach`: the first fix below (only the ghosts within reach sent), not built." % (
          ALPHA * 1e6, BETA / 1e9, BYTES.get("LAMMPS", 72)))
    P("")
    P("| N | ranks | particles per rank | within reach per rank | " +
      " | ".join("%s: efficiency, s / step" % c for c in order) + " | Talus memory per rank today |")
    P("|---:|---:|---:|---:|" + "---:|" * len(order) + "---:|")
    engine = max((r["engine_bytes_per_particle"] for r in runs), default=750.0)
    for N in (1e7, 1e8, 1e9):
        for Pn in (64, 1024):
            n = N / Pn
            h = 6.0 * W * RHO ** (1.0 / 3.0) * n ** (2.0 / 3.0)
            cells = []
            for c_ in order:
                T, E = model(codes[c_], c_, N, Pn)
                cells.append("%.0f %%, %.3g" % (100 * E, T))
            # today every rank builds the whole world first (replicated setup) and keeps O(N)
            # arrays (the cell grid's start, the reordering's keys): about N (engine + 12) bytes
            P("| %.0e | %d | %.3g | %.3g | %s | %.3g GB |" % (N, Pn, n, h, " | ".join(cells),
                                                            N * (engine + 12.0) / 1e9))
    P("")
    P("### The halo law against the measured beds")
    P("")
    P("The beds are slabs (periodic in x and y, some 21 particles deep); cut in two, each rank has "
      "two faces across the slab (the cut and its periodic image). Ghosts within reach per rank "
      "by the law (area x w x rho) against Talus's count of the ghosts some owned particle has as "
      "a candidate:")
    P("")
    P("| bed | law per rank | measured per rank |")
    P("|---|---:|---:|")
    seen = set()
    for q in rows:
        if q["size"] in seen:
            continue
        seen.add(q["size"])
        P("| %s | %.0f | %.0f |" % (q["size"], q["h_law"], q["need"]))
    P("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
