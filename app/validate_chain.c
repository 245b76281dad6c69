/* Wang, Faes, Shi, Cheng & Pan (2025), section 4: granular chains.
 * A horizontal chain of 70 stainless-steel beads struck at 1.77 m/s (4.2), a
 * vertical chain on a base under gravity (4.1) and the Hopkinson-bar chain of
 * 50 beads struck at 13 m/s (4.3), each with the wang-kv law and the EDEM law
 * (hertz + tsuji), the horizontal one also purely elastic (Hertz, no damping)
 * against Nesterenko's solitary wave. The worlds are built with the library
 * API (the same engine as the example scenes examples/002-chain-*.yaml,
 * examples/002-hopkinson.yaml). Readings and figures: docs/case-chains.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "validate.h"

#define PI 3.14159265358979323846
#define MAX_PROBES 8

enum { LAW_WANG, LAW_EDEM, LAW_HERTZ, NLAWS };
static const char *const law_names[NLAWS] = {"wang-kv", "EDEM (hertz + tsuji)", "Hertz, no damping"};

typedef struct chain_def {
    int n;                         /* beads of the chain (a separate striker not counted) */
    double radius, mass;           /* of a chain bead */
    double E, nu, sy;              /* stainless steel */
    bool striker;                  /* a separate striker bead before bead 1 */
    double striker_radius, striker_mass;
    double v0;                     /* speed of the striker (or of bead 1 without one) */
    bool vertical;                 /* along -z, gravity, a base plane under bead n */
    double preload;                /* N: a constant downward force on the top chain bead (case 2's magnet) */
    int law;
    double e, e_p, psi, eps;
    double dt, duration;
    int rec_every;                 /* steps between samples */
    int nprobe, probe[MAX_PROBES]; /* chain bead numbers, 1-based; 0 = the base */
    int vel_bead;                  /* bead whose velocity is recorded; 0 = none */
} chain_def;

typedef struct chain_out {
    size_t ns;
    double *t, *f[MAX_PROBES], *v; /* sensor force at each probe; velocity of vel_bead */
    double *cmax;                  /* max force of contact k (bodies k, k+1), over the run */
    double max_overlap;            /* largest bead-bead overlap seen at a sample */
    double p0, p1;                 /* chain momentum (x) at the start and the end (horizontal) */
    double balance;                /* |total energy change| / initial kinetic energy */
    double wall_s;
    bool ok;
} chain_out;

static void chain_out_free(chain_out *o) {
    free(o->t);
    for (int k = 0; k < MAX_PROBES; k++) free(o->f[k]);
    free(o->v);
    free(o->cmax);
    memset(o, 0, sizeof *o);
}

/* Static Hertz overlap of a pair of the chain's beads (R* = R/2) or bead-base (R* = R). */
static double hertz_overlap(const chain_def *d, double force, bool wall) {
    double Es = d->E / (2.0 * (1.0 - d->nu * d->nu));
    double Rs = wall ? d->radius : d->radius / 2.0;
    double K = 4.0 / 3.0 * Es * sqrt(Rs);
    return force > 0 ? pow(force / K, 2.0 / 3.0) : 0.0;
}

static int chain_run(const chain_def *d, chain_out *o) {
    memset(o, 0, sizeof *o);
    if (!(d->duration > 0.0 && d->duration < 1.0)) return -1; /* a case file's duration refused */
    int off = d->striker ? 1 : 0, nb = d->n + off; /* bodies; ids 1..nb in chain order */
    tl_world_def wd = tl_world_default();
    wd.dt = d->dt;
    wd.integrator = TL_INTEGRATOR_VERLET;
    wd.threads = 1;
    wd.track_orientation = false;
    if (d->vertical) wd.gravity = (tl_vec3){0, 0, -9.81};
    tl_world *w = NULL;
    if (tl_world_create(&wd, &w) != TL_OK) return -1;
    double vol = 4.0 / 3.0 * PI * d->radius * d->radius * d->radius;
    tl_material_def md = validate_material("steel", d->mass / vol, d->E, d->nu, d->sy);
    int mat = 0;
    tl_law_def law = tl_law_default();
    law.tangential = "none";
    law.history = "none";
    law.clamp_tensile = d->law != LAW_HERTZ; /* Wang et al. clamp (their Fig. 7) */
    if (d->law == LAW_WANG) {
        law.normal = "wang-kv";
        law.damping = "wang-kv";
        tl_law_set(&law, "e", d->e);
        tl_law_set(&law, "e_p", d->e_p);
        tl_law_set(&law, "psi", d->psi);
        tl_law_set(&law, "epsilon", d->eps);
    } else if (d->law == LAW_EDEM) {
        law.normal = "hertz";
        law.damping = "tsuji";
        tl_law_set(&law, "e", d->e);
    } else {
        law.normal = "hertz";
        law.damping = "none";
    }
    tl_status st = tl_world_add_material(w, &md, &mat);
    if (st == TL_OK) st = tl_world_set_law(w, mat, mat, &law);
    /* positions: horizontal along +x from the striker; vertical from the base (z = 0) up,
     * bead n on the base, each contact at its static Hertz overlap under the weight above */
    double g = 9.81, z = 0.0;
    double *pos = calloc((size_t)nb + 1, sizeof *pos);
    if (!pos) st = TL_ERROR_MEMORY;
    if (st == TL_OK) {
        if (d->vertical) {
            for (int j = d->n; j >= 1; j--) { /* chain bead j, id j + off */
                double above = (double)j * d->mass * g + d->preload;
                if (j == d->n) z = d->radius - hertz_overlap(d, above, true);
                else z += 2.0 * d->radius - hertz_overlap(d, above, false);
                pos[j + off] = z;
            }
            if (d->striker) pos[1] = pos[2] + d->radius + d->striker_radius;
        } else {
            double x = 0.0;
            for (int i = 1; i <= nb; i++) {
                double r = (i == 1 && d->striker) ? d->striker_radius : d->radius;
                double rprev = (i == 2 && d->striker) ? d->striker_radius : d->radius;
                x = i == 1 ? r : x + rprev + r;
                pos[i] = x;
            }
        }
    }
    for (int i = 1; st == TL_OK && i <= nb; i++) {
        tl_particle_def p = tl_particle_default();
        p.id = (uint32_t)i;
        p.material = mat;
        bool s = d->striker && i == 1;
        p.radius = s ? d->striker_radius : d->radius;
        p.mass = s ? d->striker_mass : d->mass;
        p.position = d->vertical ? (tl_vec3){0, 0, pos[i]} : (tl_vec3){pos[i], 0, 0};
        if (i == 1) p.velocity = d->vertical ? (tl_vec3){0, 0, -d->v0} : (tl_vec3){d->v0, 0, 0};
        st = tl_world_add_particle(w, &p, NULL);
    }
    free(pos);
    if (st == TL_OK && d->vertical && d->preload > 0.0)
        st = tl_world_set_particle_force(w, (uint32_t)(1 + off), (tl_vec3){0, 0, -d->preload});
    if (st == TL_OK && d->vertical) {
        tl_wall_def wl = tl_wall_default();
        wl.name = "base";
        wl.kind = TL_WALL_PLANE;
        wl.material = mat;
        wl.point = (tl_vec3){0, 0, 0};
        wl.normal = (tl_vec3){0, 0, 1};
        st = tl_world_add_wall(w, &wl, NULL);
    }
    if (st == TL_OK) st = tl_world_prepare(w);
    if (st != TL_OK) {
        fprintf(stderr, "talus validate: chain: %s\n", tl_world_error(w));
        tl_world_destroy(w);
        return -1;
    }
    int64_t steps = llround(d->duration / d->dt);
    size_t cap = (size_t)(steps / d->rec_every) + 2;
    o->t = malloc(cap * sizeof *o->t);
    o->v = malloc(cap * sizeof *o->v);
    o->cmax = calloc((size_t)nb + 2, sizeof *o->cmax);
    double *cf = calloc((size_t)nb + 2, sizeof *cf); /* cf[k]: bodies k, k+1; cf[nb]: base */
    bool mem = o->t && o->v && o->cmax && cf;
    for (int k = 0; k < d->nprobe; k++) mem = mem && (o->f[k] = malloc(cap * sizeof(double))) != NULL;
    if (!mem) {
        free(cf);
        chain_out_free(o);
        tl_world_destroy(w);
        return -1;
    }
    tl_energy e0, e1;
    tl_world_energy(w, &e0);
    double ke0 = e0.kinetic_translational;
    tl_particle_state ps;
    for (int i = 1; i <= nb; i++)
        if (tl_world_get_particle(w, (uint32_t)i, &ps) == TL_OK) o->p0 += ps.mass * ps.velocity.x;
    for (int64_t s = 0;; s += d->rec_every) {
        memset(cf, 0, ((size_t)nb + 2) * sizeof *cf);
        size_t nc = tl_world_contact_count(w);
        for (size_t c = 0; c < nc; c++) {
            tl_contact_info ci;
            if (tl_world_get_contact(w, c, &ci) != TL_OK) continue;
            int k;
            if (ci.with_wall) k = nb;
            else {
                uint32_t a = ci.id_a < ci.id_b ? ci.id_a : ci.id_b, b = ci.id_a ^ ci.id_b ^ a;
                if (b != a + 1) continue;
                k = (int)a;
                if (ci.overlap > o->max_overlap) o->max_overlap = ci.overlap;
            }
            if (ci.overlap > 0) cf[k] = ci.normal_force;
        }
        for (int k = 1; k <= nb; k++)
            if (cf[k] > o->cmax[k]) o->cmax[k] = cf[k];
        o->t[o->ns] = tl_world_time(w);
        for (int k = 0; k < d->nprobe; k++) {
            int j = d->probe[k];
            if (j == 0) o->f[k][o->ns] = cf[nb];
            else {
                int i = j + off; /* sensor in bead i: the mean of its two contact forces */
                double right = i < nb ? cf[i] : (d->vertical ? cf[nb] : 0.0);
                o->f[k][o->ns] = 0.5 * (cf[i - 1] + right);
            }
        }
        o->v[o->ns] = 0;
        if (d->vel_bead > 0 && tl_world_get_particle(w, (uint32_t)(d->vel_bead + off), &ps) == TL_OK)
            o->v[o->ns] = d->vertical ? -ps.velocity.z : ps.velocity.x;
        o->ns++;
        if (s >= steps || o->ns >= cap) break;
        if (tl_world_step(w, d->rec_every) != TL_OK) {
            fprintf(stderr, "talus validate: chain: %s\n", tl_world_error(w));
            break;
        }
    }
    free(cf);
    for (int i = 1; i <= nb; i++)
        if (tl_world_get_particle(w, (uint32_t)i, &ps) == TL_OK) o->p1 += ps.mass * ps.velocity.x;
    tl_world_energy(w, &e1);
    o->balance = fabs(e1.total - e0.total) / (ke0 > 0 ? ke0 : 1.0);
    o->ok = true;
    tl_world_destroy(w);
    return 0;
}

/* Time of the largest sample, refined by a parabola through its neighbours. */
static double peak_time(const chain_out *o, int k, double *fmax) {
    size_t im = 0;
    for (size_t i = 1; i < o->ns; i++)
        if (o->f[k][i] > o->f[k][im]) im = i;
    *fmax = o->f[k][im];
    if (im == 0 || im + 1 >= o->ns) return o->t[im];
    double a = o->f[k][im - 1], b = o->f[k][im], c = o->f[k][im + 1], den = a - 2 * b + c;
    double h = o->t[im + 1] - o->t[im];
    return den < 0 ? o->t[im] + 0.5 * h * (a - c) / den : o->t[im];
}

/* Least-squares speed through (bead position, peak time) of probes k0..k1. */
static double wave_speed(const chain_def *d, const double *tp, int k0, int k1) {
    double st = 0, sx = 0, stt = 0, stx = 0;
    int n = 0;
    for (int k = k0; k <= k1; k++) {
        double x = 2.0 * d->radius * d->probe[k];
        st += tp[k], sx += x, stt += tp[k] * tp[k], stx += tp[k] * x, n++;
    }
    return (n * stx - st * sx) / (n * stt - st * st);
}

/* Nesterenko's long-wave solitary wave in a Hertzian chain of identical spheres
 * (diameter a, density rho), against its largest contact force F_m:
 *   V_s = (2/sqrt 5) c xi_m^{1/4},  c^2 = 2E/(pi rho (1 - nu^2)),  xi_m = delta_m / a,
 *   i.e. V_s = 0.6802 (2E/(a rho^{3/2} (1 - nu^2)))^{1/3} F_m^{1/6}
 * (Nesterenko 1983; Nesterenko 2001, Dynamics of Heterogeneous Materials, ch. 1;
 * Daraio et al. 2006, Phys. Rev. E 73, 026610). */
static double nesterenko_speed(const chain_def *d, double fm) {
    double a = 2.0 * d->radius, rho = d->mass / (4.0 / 3.0 * PI * pow(d->radius, 3));
    double c = sqrt(2.0 * d->E / (PI * rho * (1.0 - d->nu * d->nu)));
    double xi = hertz_overlap(d, fm, false) / a;
    return 2.0 / sqrt(5.0) * c * pow(xi, 0.25);
}

/* delta_y of the Ma-Liu curve with the effective E*, R* of two equal beads
 * (docs/readings.md, wang-effective-er). */
static double yield_overlap(double E, double nu, double sy, double R) {
    double Es = E / (2.0 * (1.0 - nu * nu)), Rs = R / 2.0, py = 1.61 * sy;
    return PI * PI * Rs * py * py / (4.0 * Es * Es);
}

static void write_series(report *r, const char *name, const chain_def *d, chain_out *o, int nlaws,
                         const char *const *labels, bool velocity, int stride) {
    FILE *f = report_data_open(r, name);
    if (!f) return;
    for (int l = 0; l < nlaws; l++) {
        if (!o[l].ok) continue;
        fprintf(f, "# %s: time (us)", labels[l]);
        if (velocity) fprintf(f, ", velocity of bead %d (m/s)\n", d->vel_bead);
        else
            for (int k = 0; k < d->nprobe; k++)
                fprintf(f, d->probe[k] ? ", bead %d (N)" : ", base (N)", d->probe[k]);
        if (!velocity) fprintf(f, "\n");
        for (size_t i = 0; i < o[l].ns; i += (size_t)stride) {
            fprintf(f, "%.4f", o[l].t[i] * 1e6);
            if (velocity) fprintf(f, " %.6g", o[l].v[i]);
            else
                for (int k = 0; k < d->nprobe; k++) fprintf(f, " %.6g", o[l].f[k][i]);
            fprintf(f, "\n");
        }
        fprintf(f, "\n\n");
    }
    report_data_close(r, f, name);
}

/* ---- 4.2: the horizontal chain ---- */

static chain_def horizontal_def(int law, vcase *cs) {
    chain_def d = {0};
    d.n = 70;
    d.radius = 2.38e-3;
    d.mass = 0.45e-3; /* density 0.45 g / (4/3 pi R^3) = 7969 kg/m3 */
    d.E = 193e9, d.nu = 0.3, d.sy = 940e6;
    d.v0 = 1.77; /* bead 1 is the striker */
    d.law = law;
    d.e = 0.89, d.e_p = 0.70, d.psi = 2.84, d.eps = 13;
    d.dt = 1e-8;
    d.duration = vcase_param(cs, "horizontal_duration");
    d.rec_every = 5;
    int probes[] = {9, 16, 24, 31, 40, 50, 56, 63};
    d.nprobe = vcase_int(cs, "horizontal_probes", 1, 8);
    for (int k = 0; k < d.nprobe; k++) d.probe[k] = probes[k];
    return d;
}

static int horizontal(report *r, const validate_opts *o, vcase *cs) {
    report_section(r, 3, "Horizontal chain (4.2, Table 5, Fig. 16–17)");
    report_text(r, "70 beads, R = 2.38 mm, m = 0.45 g (density 7969 kg/m³), E = 193 GPa, ν = 0.3, "
                   "σ_y = 940 MPa, ψ = 2.84, ε = 13; bead 1 is the striker, given 1.77 m/s, the others touch "
                   "and rest; the far end is free; Δt = 0.01 µs (velocity Verlet), 600 µs. wang-kv with "
                   "e = 0.89, e_p = 0.70 and EDEM with e = 0.89 (tensile forces clamped), and the elastic "
                   "chain (Hertz, no damping) for Nesterenko's theory. The force at a bead is what the "
                   "embedded piezo sensor of the experiment reads: the mean of the bead's two contact "
                   "forces.%s\n",
                o->quick ? " Quick mode: 200 µs, the probes at beads 9, 16 and 24." : "");
    chain_def d[NLAWS];
    chain_out out[NLAWS];
    double tp[NLAWS][MAX_PROBES], fp[NLAWS][MAX_PROBES], speed[NLAWS];
    for (int l = 0; l < NLAWS; l++) {
        d[l] = horizontal_def(l, cs);
        if (chain_run(&d[l], &out[l]) != 0) {
            report_crash(r, "the horizontal chain");
            return 0;
        }
        for (int k = 0; k < d[l].nprobe; k++) tp[l][k] = peak_time(&out[l], k, &fp[l][k]);
        speed[l] = wave_speed(&d[l], tp[l], 0, d[l].nprobe - 1);
    }
    int np = d[0].nprobe;
    report_text(r, "\nArrival time of the force peak (µs) and peak sensor force (N) at each probe:\n\n"
                   "| bead |");
    for (int l = 0; l < NLAWS; l++) report_text(r, " %s: t (µs) | F (N) |", law_names[l]);
    report_text(r, "\n|---|");
    for (int l = 0; l < NLAWS; l++) report_text(r, "---|---|");
    report_text(r, "\n");
    for (int k = 0; k < np; k++) {
        report_text(r, "| %d |", d[0].probe[k]);
        for (int l = 0; l < NLAWS; l++) report_text(r, " %.2f | %.1f |", tp[l][k] * 1e6, fp[l][k]);
        report_text(r, "\n");
    }
    report_text(r, "\n| law | wave speed, fit over the probes (m/s) | Nesterenko's V_s at the mean largest contact "
                   "force over the probes' stretch (m/s) | peak force, last probe / first | largest contact force (N) | "
                   "largest overlap (m) |\n|---|---|---|---|---|---|\n");
    for (int l = 0; l < NLAWS; l++) {
        double cm = 0, fmean = 0;
        for (int k = 1; k < 70; k++) cm = fmax(cm, out[l].cmax[k]);
        for (int k = d[l].probe[0]; k <= d[l].probe[np - 1]; k++) fmean += out[l].cmax[k];
        fmean /= d[l].probe[np - 1] - d[l].probe[0] + 1;
        report_text(r, "| %s | %.1f | %.1f | %.3f | %.1f | %.4g |\n", law_names[l], speed[l],
                    nesterenko_speed(&d[l], fmean), fp[l][np - 1] / fp[l][0], cm, out[l].max_overlap);
    }
    /* Nesterenko: the elastic chain's speed against the theory at its own F_m (the contact
     * forces in the probes' stretch, the formed wave) */
    chain_def *de = &d[LAW_HERTZ];
    double fm = 0;
    int nf = 0;
    for (int k = de->probe[0]; k <= de->probe[np - 1]; k++, nf++) fm += out[LAW_HERTZ].cmax[k];
    fm /= nf;
    double vn = nesterenko_speed(de, fm);
    report_text(r, "\nNesterenko's solitary wave (docs/case-chains.md): V_s = (2/√5) c ξ_m^{1/4}, "
                   "c² = 2E/(πρ(1−ν²)), ξ_m = δ_m/(2R). With the elastic chain's mean largest contact force "
                   "between beads %d and %d, F_m = %.1f N (δ_m = %.4g m), V_s = %.1f m/s.\n",
                de->probe[0], de->probe[np - 1], fm, hertz_overlap(de, fm, false), vn);
    double dy = yield_overlap(193e9, 0.3, 940e6, 2.38e-3);
    vcase_measure(cs, "nesterenko", vn);
    vcase_measure(cs, "dy", dy);
    static const char *const tags[NLAWS] = {"wang", "edem", "hertz"};
    for (int l = 0; l < NLAWS; l++) {
        char name[64];
        snprintf(name, sizeof name, "%s.speed", tags[l]);
        vcase_measure(cs, name, speed[l]);
        snprintf(name, sizeof name, "%s.max_overlap", tags[l]);
        vcase_measure(cs, name, out[l].max_overlap);
    }
    vcase_measure(cs, "hertz.balance", out[LAW_HERTZ].balance);
    vcase_measure(cs, "hertz.momentum", fabs(out[LAW_HERTZ].p1 - out[LAW_HERTZ].p0) / out[LAW_HERTZ].p0);
    /* "the solitary wave obtained using the new contact model is almost the same as the results
     * using the model used in EDEM" */
    vcase_measure(cs, "speed_ratio", speed[LAW_WANG] / speed[LAW_EDEM] - 1.0);
    int rc = vcase_rows(cs, r, "horizontal");
    /* the same claim of the wave's height: the peak sensor force at each probe (issue 44: the wave
     * speed alone was compared) */
    for (int k = 0; k < np && rc == 0; k++) {
        vcase_measure(cs, "bead", d[0].probe[k]);
        vcase_measure(cs, "wang.peak", fp[LAW_WANG][k]);
        vcase_measure(cs, "edem.peak", fp[LAW_EDEM][k]);
        vcase_measure(cs, "peak_ratio", fp[LAW_WANG][k] / fp[LAW_EDEM][k] - 1.0);
        rc = vcase_rows(cs, r, "horizontal_peak");
    }
    report_table_end(r);
    /* data and figures */
    const char *labels[NLAWS] = {"wang-kv", "EDEM", "Hertz elastic"};
    write_series(r, "chain_horizontal_force.dat", &d[0], out, NLAWS, labels, false, 10);
    FILE *f = report_data_open(r, "chain_horizontal_peaks.dat");
    if (f) {
        fprintf(f, "# bead, peak sensor force (N) and its time (us): wang-kv, EDEM, Hertz elastic\n");
        for (int k = 0; k < np; k++)
            fprintf(f, "%d %.6g %.4f %.6g %.4f %.6g %.4f\n", d[0].probe[k], fp[0][k], tp[0][k] * 1e6, fp[1][k],
                    tp[1][k] * 1e6, fp[2][k], tp[2][k] * 1e6);
        report_data_close(r, f, "chain_horizontal_peaks.dat");
    }
    char plot[2048];
    int n = 0;
    for (int k = 0; k < np; k++)
        n += snprintf(plot + n, sizeof plot - (size_t)n, "%s'chain_horizontal_force.dat' index 0 u 1:%d w l lc %d %s, "
                      "'' index 1 u 1:%d w l dt 2 lc %d notitle",
                      k ? ", " : "", k + 2, k + 1, k == 0 ? "t 'wang-kv (solid), EDEM (dashed)'" : "notitle", k + 2,
                      k + 1);
    report_figure(r, "chain_horizontal_force.png",
                  "002 4.2: sensor force at beads 9, 16, 24, 31, 40, 50, 56, 63 (70 beads, 1.77 m/s)", "time (us)",
                  "force (N)", "", plot);
    report_figure(r, "chain_horizontal_peaks.png", "002 4.2: peak force along the chain", "bead", "peak force (N)",
                  "set key top right",
                  "'chain_horizontal_peaks.dat' u 1:2 w lp t 'wang-kv', '' u 1:4 w lp t 'EDEM', "
                  "'' u 1:6 w lp t 'Hertz, elastic'");
    for (int l = 0; l < NLAWS; l++) chain_out_free(&out[l]);
    return rc;
}

/* ---- 4.1: the vertical chain ---- */

static void vertical(report *r, vcase *cs) {
    report_section(r, 3, "Vertical chain (4.1, Fig. 11–14)");
    report_text(r, "Readings (the text leaves the chain's length and geometry to its refs. [86, 92, 93]): 20 beads "
                   "of R = 2.38 mm stacked on a rigid steel base (a plane, stainless steel 316 of Table 4: "
                   "E = 193 GPa, ν = 0.3, σ_y = 940 MPa), resting at their static Hertz overlaps under gravity; "
                   "the striker is the magnetic steel ball (R = 2.5 mm, 0.5115 g), dropped onto the top bead at "
                   "0.44 m/s; beads are numbered from the top; the force at bead 13 and 17 is the sensor mean of "
                   "the bead's two contact forces, the base's the bead–base force; Δt = 0.01 µs (the paper's "
                   "0.03 µs is for Matlab's ode45), 450 µs. Case 1: bead mass 0.47 g, ψ = 2.38, ε = 13, "
                   "e = 0.99, e_p = 0.93, no magnetic force. Case 2: bead mass 1.23 g, ψ = 2.6, ε = 21, "
                   "e = 0.98, e_p = 0.87, with the magnetic preload of 2.38 N read as a constant downward force on the "
                   "top bead (a particle's `external_force`), which compresses every contact of the chain by 2.38 N "
                   "more than its weight; the beads start at the static overlaps of that load (the text does not "
                   "say where the magnet acts; see docs/case-chains.md and [readings: wang-vertical-chain]"
                   "(../../docs/readings.md#wang-vertical-chain)).\n");
    struct {
        double mass, psi, eps, e, ep, preload;
    } cases[2] = {{0.47e-3, 2.38, 13, 0.99, 0.93, 0.0}, {1.23e-3, 2.6, 21, 0.98, 0.87, 2.38}};
    report_text(r, "\n| case | law | peak force bead 13 (N) at (µs) | bead 17 (N) at (µs) | base (N) at (µs) | "
                   "speed 13→17 (m/s) |\n|---|---|---|---|---|---|\n");
    const int ncase = vcase_int(cs, "vertical_cases", 1, 2);
    for (int c = 0; c < ncase; c++) {
        chain_def d[2];
        chain_out out[2];
        for (int l = 0; l < 2; l++) {
            chain_def *x = &d[l];
            memset(x, 0, sizeof *x);
            x->n = 20;
            x->radius = 2.38e-3;
            x->mass = cases[c].mass;
            x->E = 193e9, x->nu = 0.3, x->sy = 940e6;
            x->striker = true;
            x->striker_radius = 2.5e-3;
            x->striker_mass = 0.5115e-3;
            x->v0 = 0.44;
            x->vertical = true;
            x->law = l;
            x->e = cases[c].e, x->e_p = cases[c].ep, x->psi = cases[c].psi, x->eps = cases[c].eps;
            x->preload = cases[c].preload;
            x->dt = 1e-8;
            x->duration = vcase_param(cs, "vertical_duration");
            x->rec_every = 5;
            x->nprobe = 3;
            x->probe[0] = 13, x->probe[1] = 17, x->probe[2] = 0;
            if (chain_run(x, &out[l]) != 0) {
                report_crash(r, "the vertical chain");
                return;
            }
            double t[3], fm[3];
            for (int k = 0; k < 3; k++) t[k] = peak_time(&out[l], k, &fm[k]);
            /* first arrival at 13 and 17: the leading pulse (the global maximum can be a reflection) */
            report_text(r, "| %d | %s | %.2f at %.1f | %.2f at %.1f | %.2f at %.1f | %.0f |\n", c + 1, law_names[l],
                        fm[0], t[0] * 1e6, fm[1], t[1] * 1e6, fm[2], t[2] * 1e6,
                        4 * 2 * x->radius / (t[1] - t[0]));
        }
        char name[64], png[64], title[160], plot[1024];
        snprintf(name, sizeof name, "chain_vertical_case%d.dat", c + 1);
        const char *labels[2] = {"wang-kv", "EDEM"};
        write_series(r, name, &d[0], out, 2, labels, false, 10);
        snprintf(png, sizeof png, "chain_vertical_case%d.png", c + 1);
        snprintf(title, sizeof title,
                 "002 4.1 case %d: force at bead 13 (+25 N), bead 17, base (-30 N); wang-kv solid, EDEM dashed",
                 c + 1);
        snprintf(plot, sizeof plot,
                 "'%s' index 0 u 1:($2+25) w l lc 1 t 'bead 13', '' index 0 u 1:3 w l lc 2 t 'bead 17', "
                 "'' index 0 u 1:($4-30) w l lc 3 t 'base', '' index 1 u 1:($2+25) w l dt 2 lc 1 notitle, "
                 "'' index 1 u 1:3 w l dt 2 lc 2 notitle, '' index 1 u 1:($4-30) w l dt 2 lc 3 notitle",
                 name);
        report_figure(r, png, title, "time (us)", "force (N)", "", plot);
        for (int l = 0; l < 2; l++) chain_out_free(&out[l]);
    }
    report_text(r, "\nThe paper gives these cases as figures only (Fig. 11, 13: no numbers in the text), so the "
                   "rows above are Talus's; docs/case-chains.md discusses them.\n");
}

/* ---- 4.3: the Hopkinson-bar chain ---- */

static int hopkinson(report *r, vcase *cs) {
    const double duration = vcase_param(cs, "hopkinson_duration");
    report_section(r, 3, "Hopkinson-bar chain (4.3, Fig. 18–19)");
    report_text(r, "50 stainless-steel beads of diameter 6.35 mm; Table 6 is not in the text ([readings: "
                   "wang-hopkinson-e](../../docs/readings.md#wang-hopkinson-e)): E = 200 GPa "
                   "(with ν = 0.3, σ_y = 940 MPa it reproduces the stated δ_y = 7.4292e-7 m exactly), density "
                   "8000 kg/m³ (m = 1.073 g), ψ = 2.84, ε = 13 as in 4.2. Bead 1 is given the striker's 13 m/s "
                   "(the bar itself is not modelled); wang-kv e = 0.81, e_p = 0.23 and EDEM e = 0.81; "
                   "Δt = 0.01 µs, %.0f µs; the velocity of bead 40 against time (Fig. 19).\n",
                duration * 1e6);
    chain_def d[2];
    chain_out out[2];
    double R = 3.175e-3, rho = 8000;
    for (int l = 0; l < 2; l++) {
        chain_def *x = &d[l];
        memset(x, 0, sizeof *x);
        x->n = 50;
        x->radius = R;
        x->mass = rho * 4.0 / 3.0 * PI * R * R * R;
        x->E = 200e9, x->nu = 0.3, x->sy = 940e6;
        x->v0 = 13;
        x->law = l;
        x->e = 0.81, x->e_p = 0.23, x->psi = 2.84, x->eps = 13;
        x->dt = 1e-8;
        x->duration = duration;
        x->rec_every = 5;
        x->nprobe = 1;
        x->probe[0] = 40;
        x->vel_bead = 40;
        if (chain_run(x, &out[l]) != 0) {
            report_crash(r, "the Hopkinson-bar chain");
            return 0;
        }
    }
    report_text(r, "\n| law | peak velocity of bead 40 (m/s) | at (µs) | peak sensor force, bead 40 (N) | "
                   "largest overlap (m) |\n|---|---|---|---|---|\n");
    double vmax[2];
    for (int l = 0; l < 2; l++) {
        size_t im = 0;
        for (size_t i = 1; i < out[l].ns; i++)
            if (out[l].v[i] > out[l].v[im]) im = i;
        double fm;
        peak_time(&out[l], 0, &fm);
        vmax[l] = out[l].v[im];
        report_text(r, "| %s | %.3f | %.1f | %.1f | %.4g |\n", law_names[l], out[l].v[im], out[l].t[im] * 1e6, fm,
                    out[l].max_overlap);
    }
    vcase_measure(cs, "dy_hopkinson", yield_overlap(200e9, 0.3, 940e6, R));
    vcase_measure(cs, "wang.v40_peak", vmax[0]);
    vcase_measure(cs, "edem.v40_peak", vmax[1]);
    int rc = vcase_rows(cs, r, "hopkinson");
    report_table_end(r);
    const char *labels[2] = {"wang-kv", "EDEM"};
    write_series(r, "chain_hopkinson_v40.dat", &d[0], out, 2, labels, true, 10);
    report_figure(r, "chain_hopkinson_v40.png", "002 4.3: velocity of bead 40 (50 beads, 13 m/s)", "time (us)",
                  "velocity (m/s)", "",
                  "'chain_hopkinson_v40.dat' index 0 u 1:2 w l lw 2 t 'wang-kv', '' index 1 u 1:2 w l dt 2 t 'EDEM'");
    for (int l = 0; l < 2; l++) chain_out_free(&out[l]);
    return rc;
}

int validate_chains(report *r, const validate_opts *o) {
    report_section(r, 2, "Wang et al. (2025), section 4: granular chains");
    report_text(r, "Solitary waves in chains of stainless-steel beads with the `wang-kv` law and the EDEM law "
                   "(`hertz` + `tsuji`). The paper shows its results as figures (Fig. 11–19) against experiments; "
                   "the text states only a few numbers (the critical and largest overlaps), compared below. The "
                   "wave speed is checked against Nesterenko's theory on the elastic chain. Readings and "
                   "discussion: docs/case-chains.md.\n");
    vcase *cs = vcase_load("chain", o->quick);
    if (!cs) return -1;
    int rc = horizontal(r, o, cs);
    vertical(r, cs);
    if (rc == 0) rc = hopkinson(r, cs);
    vcase_free(cs);
    return rc;
}
