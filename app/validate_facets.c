/* Li, Zeng, Wen & Zhang (2022), section 3.1 on faceted bodies: the Kharaz
 * impact with the sphere as a triangle mesh (icospheres of 162 to 10242
 * vertices, the paper's is 2562) on a triangulated anvil, through the
 * polygonal contact model, against the analytic sphere on the same anvil. The
 * paper leaves "the influence of the facet number" for future work; this is
 * it. Then the same for an ellipsoid: the analytic contact (common normal)
 * against triangulated ellipsoids. Everything here is Talus against Talus
 * (internal checks) plus one timing against the paper's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"
#include "validate.h"

static const double PI = 3.14159265358979323846;
static const double R = 0.0025, DT = 1e-8;

#define NK 4
#define NANG 5
#define NORIENT 8
#define NMOD 2
static const int subdivisions[NK] = {2, 3, 4, 5};
static const int models[NMOD] = {0, 3}; /* M1, M4 */
static const char *const model_names[NMOD] = {"M1", "M4"};

typedef struct impact {
    double e_n, e_t, omega, alpha_v, psi2, energy_rel;
    bool ok;
} impact;

/* mean and standard deviation of the orientations' results */
typedef struct stats {
    impact mean, sd;
    bool ok;
} stats;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Attitudes: the identity, then uniformly random ones (Shoemake's method) from a
 * fixed seed, so the report is the same on every run. */
static void orientations(tl_quat *q, int n) {
    uint64_t s = 0x2545F4914F6CDD1DULL;
    q[0] = (tl_quat){1.0, 0.0, 0.0, 0.0};
    for (int k = 1; k < n; k++) {
        double u[3];
        for (int j = 0; j < 3; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            u[j] = (double)(s >> 11) * (1.0 / 9007199254740992.0);
        }
        double a = sqrt(1.0 - u[0]), b = sqrt(u[0]);
        q[k] = (tl_quat){a * sin(2 * PI * u[1]), a * cos(2 * PI * u[1]), b * sin(2 * PI * u[2]), b * cos(2 * PI * u[2])};
    }
}

/* The volume of the icosphere of k subdivisions with its vertices on the unit sphere. */
static double icosphere_volume(int k) {
    tl_world_def wd = tl_world_default();
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return NAN;
    tl_shape_def sd = tl_shape_default();
    sd.kind = TL_SHAPE_MESH;
    sd.source = TL_MESH_ICOSPHERE;
    sd.subdivisions = k;
    sd.radius = 1.0;
    int s;
    tl_shape_info si;
    double v = NAN;
    if (tl_world_add_shape(w, &sd, &s) == TL_OK && tl_world_get_shape(w, s, &si) == TL_OK) v = si.volume;
    tl_world_destroy(w);
    return v;
}

/* The anvil: a flat square of 10 mm, n x n cells each cut along a diagonal
 * chosen at random (fixed seed), top at z = 0. n = 43: 1936 vertices and 3698
 * facets (the paper's anvil: 1906 / 3638). */
typedef struct anvil {
    double *xyz;
    uint32_t *tri;
    size_t nv, nt;
} anvil;

static bool anvil_make(anvil *a, int n, double L) {
    a->nv = (size_t)(n + 1) * (size_t)(n + 1);
    a->nt = 2 * (size_t)n * (size_t)n;
    a->xyz = malloc(a->nv * 3 * sizeof *a->xyz);
    a->tri = malloc(a->nt * 3 * sizeof *a->tri);
    if (!a->xyz || !a->tri) return false;
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            size_t v = (size_t)j * (size_t)(n + 1) + (size_t)i;
            a->xyz[3 * v] = -0.5 * L + L * i / n;
            a->xyz[3 * v + 1] = -0.5 * L + L * j / n;
            a->xyz[3 * v + 2] = 0.0;
        }
    uint64_t s = 12345;
    size_t t = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            uint32_t p = (uint32_t)(j * (n + 1) + i), q = p + 1, r = p + (uint32_t)(n + 1), u = r + 1;
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            const uint32_t *f = (s >> 63) ? (const uint32_t[6]){p, q, u, p, u, r} : (const uint32_t[6]){p, q, r, q, u, r};
            memcpy(a->tri + 3 * t, f, 6 * sizeof *f);
            t += 2;
        }
    return true;
}

static void anvil_free(anvil *a) {
    free(a->xyz);
    free(a->tri);
}

static impact run(const tl_collide_def *d) {
    impact m = {NAN, NAN, NAN, NAN, NAN, NAN, false};
    tl_collide_result res;
    char err[512];
    if (tl_collide(d, &res, err, sizeof err) != TL_OK) {
        fprintf(stderr, "talus validate: faceted bodies: %s\n", err);
        return m;
    }
    m.e_n = res.e_n;
    m.e_t = res.e_t;
    m.omega = res.omega_out.y;
    m.alpha_v = res.alpha_v * 180.0 / PI;
    m.psi2 = res.psi2;
    m.energy_rel = res.energy_error / res.energy_in;
    m.ok = isfinite(m.e_n) && isfinite(m.e_t) && isfinite(m.omega);
    tl_collide_result_free(&res);
    return m;
}

#define FIELDS(X) X(e_n) X(e_t) X(omega) X(alpha_v) X(psi2) X(energy_rel)

/* The Kharaz impact (model m, angle in degrees) on the triangulated anvil, and,
 * for level >= 0, an icosphere of that level and radius as body a (else
 * the analytic sphere). */
static tl_collide_def on_anvil(int m, double angle, const anvil *av, int level, double radius, tl_mesh_depth depth) {
    tl_collide_def d = validate_kharaz_def(m, angle, 1.0, DT);
    d.anvil_xyz = av->xyz;
    d.anvil_vertex_count = av->nv;
    d.anvil_triangles = av->tri;
    d.anvil_triangle_count = av->nt;
    if (level >= 0) {
        d.shape_a = tl_shape_default();
        d.shape_a.kind = TL_SHAPE_MESH;
        d.shape_a.source = TL_MESH_ICOSPHERE;
        d.shape_a.subdivisions = level;
        d.shape_a.radius = radius;
        d.shape_a.mesh_depth = depth;
    }
    return d;
}

static stats over_orientations(tl_collide_def d, const tl_quat *q, int nq) {
    stats s;
    memset(&s, 0, sizeof s);
    s.ok = true;
    for (int k = 0; k < nq; k++) {
        d.orientation_a = q[k];
        impact m = run(&d);
        if (!m.ok) s.ok = false;
#define ADD(f)                                                                                                         \
    s.mean.f += m.f / nq;                                                                                              \
    s.sd.f += m.f * m.f / nq;
        FIELDS(ADD)
#undef ADD
    }
#define SD(f) s.sd.f = sqrt(fmax(0.0, s.sd.f - s.mean.f * s.mean.f));
    FIELDS(SD)
#undef SD
    s.mean.ok = s.ok;
    return s;
}

/* the largest deviation over the angles of the mean from the analytic value, and the largest spread */
typedef struct deviation {
    double e_n, e_t, omega_rel, alpha_v, sd_e_n, sd_e_t, sd_omega_rel, energy_rel;
} deviation;

static const char *const READING[2] = {"the paper's PCM reading (contact_depth: volume)",
                                       "the conservative reading, Talus's default (contact_depth: potential)"};

/* the case's angles (a list of degrees, at most NANG) into ang; their count */
static int angle_list(vcase *cs, double *ang) {
    const char *t = vcase_text(cs, "angles");
    int n = 0;
    char *end;
    for (; n < NANG; t = end) {
        double v = strtod(t, &end);
        if (end == t) break;
        ang[n++] = v;
    }
    return n;
}

static int faceted_spheres(report *r, const validate_opts *o, vcase *cs, const anvil *av, tl_mesh_depth depth) {
    const int rd = depth == TL_MESH_DEPTH_POTENTIAL;
    int nk = vcase_int(cs, "subdivisions", 1, NK), nor = vcase_int(cs, "attitudes", 2, NORIENT);
    int nmod = vcase_int(cs, "laws", 1, NMOD);
    double ang[NANG];
    int nang = angle_list(cs, ang);
    if (nang == 0) {
        fprintf(stderr, "talus validate: validation/cases/facets/checks.yaml: parameters.angles: expected degrees\n");
        return -1;
    }
    tl_quat q[NORIENT];
    orientations(q, NORIENT);
    report_section(r, 3, rd ? "Under the conservative reading (Talus's default)" : "Under the paper's PCM reading");
    if (!rd)
        report_text(r, "\nThe sphere of 5 mm as icospheres (an icosahedron subdivided k times, vertices pushed onto "
                       "the sphere) scaled to the sphere's volume, so that mass, inertia and the volume-equivalent "
                       "radius of the contact law (docs/geometry.md) stay the sphere's:\n\n"
                       "| k | vertices | facets | volume / sphere's at the same vertex radius | radius scale |\n"
                       "|---|---|---|---|---|\n");
    double scale[NK];
    for (int k = 0; k < nk; k++) {
        int s = subdivisions[k];
        double v = icosphere_volume(s), ratio = v / (4.0 / 3.0 * PI);
        scale[k] = cbrt(1.0 / ratio);
        if (!rd)
            report_text(r, "| %d | %d | %d | %.6f | %.6f |\n", s, 10 * (1 << (2 * s)) + 2, 20 * (1 << (2 * s)),
                        ratio, scale[k]);
    }
    report_text(r, "\nThe anvil is a triangulated square of 10 mm (%zu vertices, %zu facets, each cell cut along a "
                   "random diagonal; the paper's anvil: 1906 / 3638), a mesh wall. A faceted sphere meets the anvil "
                   "with a vertex, an edge or a facet first, depending on its attitude: each impact is run in %d "
                   "attitudes (the identity and random ones from a fixed seed) and the table gives the mean's "
                   "largest deviation from the analytic sphere on the same anvil over the angles %s, and the largest "
                   "standard deviation over the attitudes. 4 m/s, step 10⁻⁸ s, laws as above; %s, with the "
                   "volume-equivalent radius (docs/geometry.md).\n\n",
                av->nv, av->nt, nor, o->quick ? "30°" : "10°–50°", READING[rd]);
    const char *dat = rd ? "facets-potential.dat" : "facets.dat";
    FILE *f = report_data_open(r, dat);
    if (f)
        fprintf(f, "# model vertices |d e_n| |d e_t| |d omega|/omega |d alpha_v| (deg) sd(e_n) sd(e_t) "
                   "|energy error|/E_in\n");
    report_text(r, "| law | vertices | Δe_n | Δe_t | Δω/ω | Δα_v (°) | sd e_n | sd e_t | energy error / E_in |\n"
                   "|---|---|---|---|---|---|---|---|---|\n");
    deviation dev[NMOD][NK];
    for (int m = 0; m < nmod; m++) {
        impact ref[NANG];
        for (int a = 0; a < nang; a++) {
            tl_collide_def d = on_anvil(models[m], ang[a], av, -1, 0.0, depth);
            ref[a] = run(&d);
            if (!ref[a].ok) report_crash(r, "analytic sphere on the triangulated anvil");
        }
        for (int k = 0; k < nk; k++) {
            deviation *dv = &dev[m][k];
            memset(dv, 0, sizeof *dv);
            for (int a = 0; a < nang; a++) {
                tl_collide_def d = on_anvil(models[m], ang[a], av, subdivisions[k], R * scale[k], depth);
                stats s = over_orientations(d, q, nor);
                if (!s.ok) {
                    char what[96];
                    snprintf(what, sizeof what, "%s, k = %d at %g°", model_names[m], subdivisions[k], ang[a]);
                    report_crash(r, what);
                }
                dv->e_n = fmax(dv->e_n, fabs(s.mean.e_n - ref[a].e_n));
                dv->e_t = fmax(dv->e_t, fabs(s.mean.e_t - ref[a].e_t));
                dv->omega_rel = fmax(dv->omega_rel, fabs(s.mean.omega - ref[a].omega) / fabs(ref[a].omega));
                dv->alpha_v = fmax(dv->alpha_v, fabs(s.mean.alpha_v - ref[a].alpha_v));
                dv->sd_e_n = fmax(dv->sd_e_n, s.sd.e_n);
                dv->sd_e_t = fmax(dv->sd_e_t, s.sd.e_t);
                dv->sd_omega_rel = fmax(dv->sd_omega_rel, s.sd.omega / fabs(ref[a].omega));
                dv->energy_rel = fmax(dv->energy_rel, fabs(s.mean.energy_rel) + s.sd.energy_rel);
            }
            int nv = 10 * (1 << (2 * subdivisions[k])) + 2;
            report_text(r, "| %s | %d | %.2e | %.2e | %.2e | %.3f | %.2e | %.2e | %.1e |\n", model_names[m], nv,
                        dv->e_n, dv->e_t, dv->omega_rel, dv->alpha_v, dv->sd_e_n, dv->sd_e_t, dv->energy_rel);
            if (f)
                fprintf(f, "%d %d %.6e %.6e %.6e %.6e %.6e %.6e %.6e\n", m, nv, dv->e_n, dv->e_t, dv->omega_rel,
                        dv->alpha_v, dv->sd_e_n, dv->sd_e_t, dv->energy_rel);
        }
        if (f) fprintf(f, "\n\n");
    }
    if (f) report_data_close(r, f, dat);
    if (!rd)
        report_text(r, "\nThe energy error is what the ledger cannot account for: the aggregated PCM force is not "
                       "the gradient of a potential (docs/geometry.md, \"What one force per patch cannot do\"), so a "
                       "coarse faceted sphere gains or loses energy in the contact; it vanishes with the facets.\n");
    else
        report_text(r, "\nUnder the conservative reading the force is the gradient of the law's energy of the "
                       "overlap (docs/geometry.md, \"Two meshes\"): what the ledger cannot account for is the "
                       "integrator's error alone, at every facet count.\n");
    if (!o->quick) {
        char fig[600];
        snprintf(fig, sizeof fig,
                 "'%s' i 0 u 2:3 w lp pt 7 t 'M1 e_n', '' i 0 u 2:4 w lp pt 5 t 'M1 e_t', '' i 0 u 2:5 "
                 "w lp pt 9 t 'M1 omega (rel.)', '' i 1 u 2:3 w lp pt 6 dt 2 t 'M4 e_n', '' i 1 u 2:4 w lp pt 4 "
                 "dt 2 t 'M4 e_t', '' i 1 u 2:5 w lp pt 8 dt 2 t 'M4 omega (rel.)'",
                 dat);
        report_figure(r, rd ? "facets-potential.png" : "facets.png",
                      rd ? "Faceted sphere against the analytic one, conservative reading (Kharaz, 10-50 deg)"
                         : "Faceted sphere against the analytic one, PCM reading (Kharaz, 10-50 deg)",
                      "vertices", "largest deviation of the mean", "set logscale xy; set key bottom left", fig);
    }
    /* checks: each subdivision halves the facets' size; once the facets are smaller
     * than the contact, the mean must come closer at least in proportion (first
     * order), for e_n, e_t and omega, unless it is already within twice the standard
     * error of a mean over the attitudes (sd / sqrt(n)), where the sampling, not the
     * facets, sets what is seen */
    vcase_word(cs, "reading", rd ? "potential" : "PCM");
    vcase_measure(cs, "attitudes", nor);
    for (int m = 0; m < nmod; m++) {
        vcase_word(cs, "model", model_names[m]);
        for (int k = 1; k < nk; k++) {
            const deviation *c = &dev[m][k - 1], *f2 = &dev[m][k];
            const double se = 2.0 / sqrt((double)nor);
            const struct {
                const char *name;
                double coarse, fine, noise;
            } q3[3] = {{"Δe_n", c->e_n, f2->e_n, se * f2->sd_e_n},
                       {"Δe_t", c->e_t, f2->e_t, se * f2->sd_e_t},
                       {"Δω/ω", c->omega_rel, f2->omega_rel, se * f2->sd_omega_rel}};
            /* from 162 to 642 vertices the facets are still larger than the contact (its
             * radius is about 0.1 mm, a 642-vertex facet's edge 0.3 mm): closer only */
            double order = subdivisions[k - 1] >= 3 ? 2.0 : 1.0;
            vcase_measure(cs, "k0", subdivisions[k - 1]);
            vcase_measure(cs, "k", subdivisions[k]);
            vcase_measure(cs, "order", order);
            vcase_word(cs, "order_text", order > 1.0 ? "first order in the facet size" : "closer");
            for (int j = 0; j < 3; j++) {
                vcase_word(cs, "name", q3[j].name);
                vcase_measure(cs, "fine", q3[j].fine);
                vcase_measure(cs, "noise", q3[j].noise);
                vcase_measure(cs, "ratio", q3[j].coarse / q3[j].fine);
                if (vcase_rows(cs, r, q3[j].fine <= q3[j].noise ? "within_noise" : "order") != 0) return -1;
            }
        }
    }
    return 0;
}

/* the paper's CPU time for one collision (2562 vertices, dt = 1e-8 s) against Talus's */
static int cost(report *r, vcase *cs, const anvil *av) {
    tl_collide_def d = on_anvil(0, 30.0, av, 4, R * cbrt(4.0 / 3.0 * PI / icosphere_volume(4)), TL_MESH_DEPTH_VOLUME);
    const int repeat = vcase_int(cs, "timing_runs", 1, 1000);
    double t0 = now_seconds();
    bool ok = true;
    for (int k = 0; k < repeat; k++) ok = ok && run(&d).ok;
    double t = (now_seconds() - t0) / repeat;
    if (!ok) {
        report_crash(r, "the timed collision");
        return 0;
    }
    vcase_measure(cs, "t_collision", t);
    if (vcase_rows(cs, r, "cost") != 0) return -1;
    report_text(r, "\nThe paper gives 570 to 625 s of CPU time for this collision (Intel Xeon Silver 4216); Talus "
                   "takes %.3g s here (the mean of %d runs, on whatever machine ran this report): %.0f to %.0f "
                   "times less.\n",
                t, repeat, 570.0 / t, 625.0 / t);
    return 0;
}

/* the analytic ellipsoid against triangulated ones, same attitudes */
static int ellipsoids(report *r, vcase *cs) {
    static const int counts[3] = {810, 2864, 11000};
    int nc = vcase_int(cs, "ellipsoid_meshes", 1, 3), nor = vcase_int(cs, "attitudes", 2, NORIENT);
    tl_quat q[NORIENT];
    orientations(q, NORIENT);
    report_section(r, 3, "Ellipsoids: the analytic contact against triangulated ellipsoids");
    report_text(r, "An alumina ellipsoid of semi-axes 6 × 5 × 5 mm (the paper's peanut) hits the glass plane at 4 "
                   "m/s, 30°, law M1, in %d attitudes: analytically (the common-normal contact, docs/ellipsoid.md) "
                   "and as triangulated ellipsoids (docs/geometry.md) through the paper's polygonal contact model. The "
                   "table gives the largest difference over the attitudes (ω relative to the largest |ω|).\n\n"
                   "| vertices | Δe_n | Δe_t | Δω / max ω |\n|---|---|---|---|\n",
                nor);
    double dn[3], dt_[3], dw[3];
    for (int c = 0; c < nc; c++) {
        dn[c] = dt_[c] = dw[c] = 0.0;
        double wmax = 0.0;
        for (int k = 0; k < nor; k++) {
            tl_collide_def d = validate_kharaz_def(0, 30.0, 1.0, DT);
            d.radius_a = 0.005;
            d.orientation_a = q[k];
            d.shape_a = tl_shape_default();
            d.shape_a.kind = TL_SHAPE_ELLIPSOID;
            d.shape_a.semi_axes = (tl_vec3){0.006, 0.005, 0.005};
            impact a = run(&d);
            d.shape_a.kind = TL_SHAPE_MESH;
            d.shape_a.source = TL_MESH_ELLIPSOID;
            d.shape_a.vertices = counts[c];
            d.shape_a.mesh_depth = TL_MESH_DEPTH_VOLUME; /* the paper's reading, as the text says */
            impact m = run(&d);
            if (!a.ok || !m.ok) report_crash(r, "ellipsoid impact");
            dn[c] = fmax(dn[c], fabs(a.e_n - m.e_n));
            dt_[c] = fmax(dt_[c], fabs(a.e_t - m.e_t));
            dw[c] = fmax(dw[c], fabs(a.omega - m.omega));
            wmax = fmax(wmax, fabs(a.omega));
        }
        dw[c] /= wmax;
        report_text(r, "| %d | %.2e | %.2e | %.2e |\n", counts[c], dn[c], dt_[c], dw[c]);
    }
    /* closer with every refinement (the maxima over 8 attitudes are too few for an
     * order), and the finest within 1e-3 in e_n and e_t: the analytic contact and the
     * polygonal contact model agree */
    for (int c = 1; c < nc; c++) {
        const struct {
            const char *name;
            double coarse, fine;
        } q3[3] = {{"Δe_n", dn[c - 1], dn[c]}, {"Δe_t", dt_[c - 1], dt_[c]}, {"Δω", dw[c - 1], dw[c]}};
        vcase_measure(cs, "count0", counts[c - 1]);
        vcase_measure(cs, "count", counts[c]);
        for (int j = 0; j < 3; j++) {
            vcase_word(cs, "name", q3[j].name);
            vcase_measure(cs, "coarse", q3[j].coarse);
            vcase_measure(cs, "fine", q3[j].fine);
            if (vcase_rows(cs, r, "ellipsoid_refine") != 0) return -1;
        }
    }
    double lim = vcase_param(cs, "ellipsoid_limit");
    vcase_measure(cs, "count", counts[nc - 1]);
    vcase_measure(cs, "limit", lim);
    vcase_measure(cs, "limit_omega", vcase_param(cs, "ellipsoid_omega_factor") * lim);
    vcase_measure(cs, "d_e_n", dn[nc - 1]);
    vcase_measure(cs, "d_e_t", dt_[nc - 1]);
    vcase_measure(cs, "d_omega", dw[nc - 1]);
    return vcase_rows(cs, r, "ellipsoid_finest");
}

int validate_li_facets(report *r, const validate_opts *o) {
    report_section(r, 2, "Li et al. (2022), section 3.1 on faceted bodies: the influence of the facet number");
    report_text(r, "The paper's sphere is a triangle mesh of 2562 vertices and its anvil one of 1906, in contact "
                   "through the polygonal contact model; it leaves \"the influence of the facet number\" for future "
                   "work. Here the Kharaz impacts (M1 and M4, as in the section above) run with faceted spheres of "
                   "162 to 10242 vertices and with the analytic sphere, all on one triangulated anvil. No number of "
                   "the paper is compared: the rows are internal checks.\n");
    vcase *cs = vcase_load("facets", o->quick);
    if (!cs) return -1;
    anvil av;
    memset(&av, 0, sizeof av);
    if (!anvil_make(&av, 43, 0.01)) {
        anvil_free(&av);
        vcase_free(cs);
        return -1;
    }
    int rc = faceted_spheres(r, o, cs, &av, TL_MESH_DEPTH_VOLUME);
    if (rc == 0) rc = faceted_spheres(r, o, cs, &av, TL_MESH_DEPTH_POTENTIAL);
    if (rc == 0 && vcase_int(cs, "timing_runs", 0, 1000) > 0) rc = cost(r, cs, &av);
    anvil_free(&av);
    if (rc == 0) rc = ellipsoids(r, cs);
    vcase_free(cs);
    return rc;
}
