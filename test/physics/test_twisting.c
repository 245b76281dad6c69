/* Twisting resistance (the twisting slot, src/laws/twisting.c: sds, marshall) against closed
 * forms. A sphere (R = 1 cm) rests on a plane at its Hertzian overlap under gravity and is given
 * a spin about the vertical, the contact normal; its contact point lies on the axis of the spin,
 * so neither the tangential nor the rolling slot sees anything and the twisting torque alone
 * acts on the spin (I = 2/5 m R^2 about the normal):
 *   - sds, undamped, below the limit: a torsional oscillator, period 2 pi sqrt(I / k_tw),
 *     angle amplitude w0 sqrt(I / k_tw), its spring energy (elastic_twisting) at most I w0^2 / 2;
 *   - sds at the limit (a spin whose dashpot torque exceeds mu_tw F_n from the start): the spin
 *     decelerates at mu_tw F_n / I, stops at w0 I / (mu_tw F_n) and stays stopped (the dashpot
 *     quiets the spring's recoil); what it had is in dissipated_twisting;
 *   - sds, damped, below the limit: the kinetic energy goes to dissipated_twisting, the ledger
 *     closing;
 *   - marshall with Hertz and Mindlin: its period gives k_tw = 1/2 K_t0 a^2, a = sqrt(R delta);
 *   - an ellipsoid spinning about the vertical on a plane (the shape stage) with rolling epsd and
 *     twisting sds comes to rest; with rolling epsd alone it spins on;
 *   - a bed of spheres and ellipsoids with twisting: bit-identical on 1 and 2 threads and across
 *     a save and load;
 *   - the law's errors: an unknown twisting model, a coefficient missing, marshall without a
 *     tangential model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"
#include "world_hash.h"

#define PI 3.14159265358979323846

static const double R = 0.01, RHO = 2500, E = 1e8, NU = 0.3, G = 9.81;

typedef struct twist_law {
    const char *twisting; /* "sds", "marshall" or NULL */
    double k, gamma, mu;  /* sds */
    double e_t;           /* mindlin's tangential restitution (0: the default) */
} twist_law;

static int material(tl_world *w, double youngs, const twist_law *tw, double mu_r) {
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = RHO;
    md.youngs_modulus = youngs;
    md.poisson_ratio = NU;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    law.damping = "tsuji";
    law.tangential = "mindlin";
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.8);
    if (tw->e_t > 0.0) tl_law_set(&law, "e_t", tw->e_t);
    if (mu_r > 0.0) {
        law.rolling = "epsd";
        tl_law_set(&law, "mu_r", mu_r);
        tl_law_set(&law, "eta_r", 0.5);
    }
    law.twisting = tw->twisting;
    if (tw->twisting && strcmp(tw->twisting, "sds") == 0) {
        tl_law_set(&law, "k_twist", tw->k);
        tl_law_set(&law, "gamma_twist", tw->gamma);
        tl_law_set(&law, "mu_twist", tw->mu);
    }
    if (tl_world_set_law(w, m, m, &law) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    return m;
}

/* the sphere's mass, moment about the normal and resting overlap on the plane (Hertz, the wall of
 * the same material: E* = E / (2 (1 - nu^2))) */
static double sphere_mass(void) { return RHO * 4.0 / 3.0 * PI * R * R * R; }
static double sphere_inertia(void) { return 0.4 * sphere_mass() * R * R; }
static double rest_overlap(void) {
    return pow(sphere_mass() * G / (4.0 / 3.0 * (E / (2 * (1 - NU * NU))) * sqrt(R)), 2.0 / 3.0);
}

/* The spin history of a sphere set down at rest on the plane with the spin w0 about the vertical:
 * w_z and the twist angle at every step up to t_end, the energy at the start and the end. */
typedef struct spin_run {
    size_t n;
    double dt, *wz, *angle;
    tl_energy e0, e1;
} spin_run;

static spin_run spin(const twist_law *tw, double w0, double t_end) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -G};
    wd.impact_speed = 0.05;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, E, tw, 0.0);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, R - rest_overlap()};
    pd.angular_velocity = (tl_vec3){0, 0, w0};
    uint32_t id;
    spin_run r;
    memset(&r, 0, sizeof r);
    ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
    ENSURE(tl_world_prepare(w) == TL_OK);
    tl_world_energy(w, &r.e0);
    r.dt = tl_world_dt(w);
    r.n = (size_t)llround(t_end / r.dt) + 1;
    r.wz = calloc(r.n, sizeof *r.wz);
    r.angle = calloc(r.n, sizeof *r.angle);
    for (size_t k = 0; k < r.n; k++) {
        if (k) ENSURE(tl_world_step(w, 1) == TL_OK);
        tl_particle_state p;
        tl_world_get_particle(w, id, &p);
        r.wz[k] = p.angular_velocity.z;
        r.angle[k] = 2.0 * atan2(p.orientation.z, p.orientation.w);
    }
    tl_world_energy(w, &r.e1);
    tl_world_destroy(w);
    return r;
}

static void spin_free(spin_run *r) {
    free(r->wz);
    free(r->angle);
}

/* the times at which w_z changes sign (linear interpolation between steps), at most cap */
static size_t crossings(const spin_run *r, double *t, size_t cap) {
    size_t n = 0;
    for (size_t k = 1; k < r->n && n < cap; k++)
        if ((r->wz[k - 1] > 0.0) != (r->wz[k] > 0.0))
            t[n++] = r->dt * ((double)(k - 1) + r->wz[k - 1] / (r->wz[k - 1] - r->wz[k]));
    return n;
}

/* the period from the sign changes of w_z: two per period */
static double period_of(const spin_run *r, size_t *count) {
    double t[64];
    size_t n = crossings(r, t, 64);
    *count = n;
    return n >= 3 ? 2.0 * (t[n - 1] - t[0]) / (double)(n - 1) : NAN;
}

static void torsional_oscillation(void) {
    const double I = sphere_inertia(), k = 1e-4, w0 = 0.5;
    twist_law tw = {"sds", k, 0.0, 1.0, 0.0}; /* mu_tw F_n = 0.1 N m: far above k theta */
    double T = 2 * PI * sqrt(I / k);
    spin_run r = spin(&tw, w0, 3.3 * T);
    size_t nc;
    double Tm = period_of(&r, &nc);
    double amp = 0.0, emax = 0.0;
    for (size_t i = 0; i < r.n; i++) amp = fmax(amp, fabs(r.angle[i]));
    double amp_cf = w0 * sqrt(I / k);
    emax = r.e1.elastic_twisting;
    double bal = r.e1.total - r.e0.total, ke0 = 0.5 * I * w0 * w0;
    fprintf(stderr,
            "sphere on a plane, twisting sds k_tw = %g N m/rad undamped, w0 = %g rad/s, dt = %.3g s (%.0f steps a "
            "period): period %.9g s from %zu sign changes (2 pi sqrt(I/k_tw) = %.9g s, %+.2e); angle amplitude "
            "%.9g rad (w0 sqrt(I/k_tw) = %.9g, %+.2e); at the end spring %.4g J + spin %.4g J of %.4g J, "
            "dissipated_twisting %.3g J, balance %.2g J\n",
            k, w0, r.dt, T / r.dt, Tm, nc, T, Tm / T - 1, amp, amp_cf, amp / amp_cf - 1, emax,
            r.e1.kinetic_rotational, ke0, r.e1.dissipated_twisting, bal);
    ENSURE(nc >= 6);
    ENSURE_REL(Tm, T, 1e-5);
    ENSURE_REL(amp, amp_cf, 1e-5);
    ENSURE(r.e1.dissipated_twisting == 0.0);
    ENSURE_REL(r.e1.elastic_twisting + r.e1.kinetic_rotational, ke0, 1e-4);
    ENSURE(fabs(bal) < 1e-6 * ke0);
    spin_free(&r);
    /* without twisting resistance the spin goes on untouched */
    twist_law none = {NULL, 0, 0, 0, 0};
    spin_run f = spin(&none, w0, 0.1);
    ENSURE(f.wz[f.n - 1] == w0);
    spin_free(&f);
}

static void sliding_limit(void) {
    const double I = sphere_inertia(), k = 1e-2, mu = 1e-3, w0 = 20.0;
    const double gam = 2.0 * sqrt(k * I); /* critical: the recoil after the stop dies out */
    twist_law tw = {"sds", k, gam, mu, 0.0};
    const double fn = sphere_mass() * G, mc = mu * fn, alpha = mc / I, t_stop = w0 / alpha;
    spin_run r = spin(&tw, w0, 0.35);
    /* the deceleration between two times before the stop */
    size_t k1 = (size_t)llround(0.2 * t_stop / r.dt), k2 = (size_t)llround(0.8 * t_stop / r.dt);
    double a_m = (r.wz[k1] - r.wz[k2]) / ((double)(k2 - k1) * r.dt);
    double tc[4];
    size_t nc = crossings(&r, tc, 4);
    double wmax_after = 0.0;
    for (size_t i = (size_t)llround(3.0 * t_stop / r.dt); i < r.n; i++) wmax_after = fmax(wmax_after, fabs(r.wz[i]));
    double ke0 = 0.5 * I * w0 * w0, bal = r.e1.total - r.e0.total;
    /* the evaluation before the first step finds the trial torque (the dashpot's, gamma_tw w0)
     * above the limit: the spring takes the limit at once, M_c^2 / (2 k_tw) in elastic_twisting
     * from the start, which the dashpot takes after the stop */
    double el0 = mc * mc / (2.0 * k), lost = ke0 + r.e0.elastic_twisting - r.e1.kinetic_rotational - r.e1.elastic_twisting;
    fprintf(stderr,
            "sphere spun at %g rad/s, twisting sds k_tw = %g, gamma_tw = %.3g (critical), mu_tw = %g m: deceleration "
            "%.12g rad/s2 (mu_tw F_n / I = %.12g, %+.2e); stops at %.7g s (w0 I / (mu_tw F_n) = %.7g s, %+.2e, "
            "dt = %.3g s); after 3 t_stop |w| <= %.3g rad/s; elastic_twisting at the start %.9g J (M_c^2 / (2 k_tw) "
            "= %.9g J); dissipated_twisting %.9g J of I w0^2/2 + that = %.9g J (%+.2e), balance %.2g J\n",
            w0, k, gam, mu, a_m, alpha, a_m / alpha - 1, nc ? tc[0] : NAN, t_stop, nc ? tc[0] / t_stop - 1 : NAN,
            r.dt, wmax_after, r.e0.elastic_twisting, el0, r.e1.dissipated_twisting, lost,
            r.e1.dissipated_twisting / lost - 1, bal);
    ENSURE_REL(a_m, alpha, 1e-6);
    ENSURE(nc >= 1);
    ENSURE(nc >= 1 && fabs(tc[0] - t_stop) < 2.0 * r.dt);
    ENSURE(wmax_after < 1e-6 * w0);
    ENSURE_REL(r.e0.elastic_twisting, el0, 1e-9);
    ENSURE_REL(r.e1.dissipated_twisting, lost, 1e-6);
    ENSURE(fabs(bal) < 1e-6 * ke0);
    spin_free(&r);
}

static void damped_ledger(void) {
    const double I = sphere_inertia(), k = 1e-4, w0 = 1.0, zeta = 0.1;
    const double gam = 2.0 * zeta * sqrt(k * I);
    twist_law tw = {"sds", k, gam, 1.0, 0.0};
    spin_run r = spin(&tw, w0, 5.0);
    double ke0 = 0.5 * I * w0 * w0, bal = r.e1.total - r.e0.total;
    double left = r.e1.kinetic_rotational + r.e1.elastic_twisting;
    /* the envelope: the energy falls as exp(-2 zeta Omega t) */
    double left_cf = ke0 * exp(-2.0 * zeta * sqrt(k / I) * 5.0);
    fprintf(stderr,
            "sphere spun at %g rad/s, twisting sds k_tw = %g, gamma_tw = %.3g (zeta = %g), 5 s: dissipated_twisting "
            "%.9g J, left %.3g J (envelope %.3g J) of %.9g J; integration residual %.3g J; balance %.3g J (%.2e of "
            "the spin's energy)\n",
            w0, k, gam, zeta, r.e1.dissipated_twisting, left, left_cf, ke0, r.e1.integration_residual, bal,
            bal / ke0);
    ENSURE(left < 2.0 * left_cf);
    ENSURE(left > 0.2 * left_cf);
    ENSURE_REL(r.e1.dissipated_twisting + left, ke0, 1e-6);
    /* what is left: the leapfrog's (dt^2 / 8 I) (M_end^2 - M_0^2), M_0 = gamma_tw w0 the first dashpot torque */
    ENSURE(fabs(bal) < 1e-7 * ke0);
    spin_free(&r);
}

static void marshall_stiffness(void) {
    const double I = sphere_inertia(), w0 = 0.1;
    twist_law tw = {"marshall", 0, 0, 0, 1.0}; /* e_t = 1: no tangential dashpot, no twisting one */
    spin_run r = spin(&tw, w0, 0.6);
    size_t nc;
    double Tm = period_of(&r, &nc);
    double delta = rest_overlap(), a = sqrt(R * delta);
    double Gs = E / (2 * (1 + NU)), gstar = Gs / (2 * (2 - NU)), kt = 8 * gstar * a;
    double ktw = 0.5 * kt * a * a, ktw_m = I * pow(2 * PI / Tm, 2);
    double mc = 2.0 / 3.0 * 0.8 * a * sphere_mass() * G;
    fprintf(stderr,
            "sphere on a plane, twisting marshall (Hertz, Mindlin K_t0 = %.6g N/m at delta = %.6g m, a = %.6g m): "
            "period %.9g s from %zu sign changes, k_tw = I (2 pi / T)^2 = %.9g N m/rad (K_t0 a^2 / 2 = %.9g, "
            "%+.2e); peak torque %.3g N m below mu_tw F_n = 2/3 mu a F_n = %.3g N m\n",
            kt, delta, a, Tm, nc, ktw_m, ktw, ktw_m / ktw - 1, w0 * sqrt(ktw * I), mc);
    ENSURE(nc >= 4);
    ENSURE_REL(ktw_m, ktw, 1e-4);
    ENSURE(r.e1.dissipated_twisting == 0.0);
    spin_free(&r);
}

/* An ellipsoid (3, 2, 1) cm resting flat on a plane, spun about the vertical at w0; its w_z
 * after t_end. */
static double ellipsoid_spin(const twist_law *tw, double w0, double t_end, tl_energy *e0, tl_energy *e1,
                             double *iz) {
    const double a = 0.03, b = 0.02, c = 0.01, Ey = 5e9;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -G};
    wd.impact_speed = 0.1;
    wd.steps_per_contact = 10;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, Ey, tw, 0.005);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL);
    tl_shape_def sd = tl_shape_default();
    sd.semi_axes = (tl_vec3){a, b, c};
    int s;
    tl_world_add_shape(w, &sd, &s);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    double mass = RHO * 4.0 / 3.0 * PI * a * b * c, Es = Ey / (2 * (1 - NU * NU)), Re = sqrt((a * a / c) * (b * b / c));
    double d_eq = pow(mass * G / (4.0 / 3.0 * Es * sqrt(Re)), 2.0 / 3.0);
    pd.position = (tl_vec3){0, 0, c - d_eq};
    pd.angular_velocity = (tl_vec3){0, 0, w0};
    uint32_t id;
    ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
    ENSURE(tl_world_prepare(w) == TL_OK);
    tl_world_energy(w, e0);
    ENSURE(tl_world_step(w, (int64_t)llround(t_end / tl_world_dt(w))) == TL_OK);
    tl_particle_state p;
    tl_world_get_particle(w, id, &p);
    tl_world_energy(w, e1);
    *iz = p.principal_inertia.z;
    tl_world_destroy(w);
    return p.angular_velocity.z;
}

static void ellipsoid_stops(void) {
    const double w0 = 2.0, t = 1.0;
    tl_energy e0, e1, f0, f1;
    double iz;
    twist_law none = {NULL, 0, 0, 0, 0};
    double wf = ellipsoid_spin(&none, w0, t, &f0, &f1, &iz);
    /* k_tw = 1e-2 N m/rad, critical damping, mu_tw = 1 mm: M_c = 0.62 mN m */
    twist_law tw = {"sds", 1e-2, 2.0 * sqrt(1e-2 * iz), 1e-3, 0.0};
    double wt = ellipsoid_spin(&tw, w0, t, &e0, &e1, &iz);
    double ke0 = 0.5 * iz * w0 * w0, bal = e1.total - e0.total;
    fprintf(stderr,
            "ellipsoid (3, 2, 1) cm flat on a plane spun at %g rad/s about the vertical (I_z = %.4g kg m2), rolling "
            "epsd mu_r = 0.005: after %g s w_z = %.9g rad/s without twisting resistance, %.3g rad/s with twisting "
            "sds (k_tw = 1e-2, gamma_tw = %.3g, mu_tw = 1e-3 m); dissipated_twisting %.6g J of I_z w0^2/2 = %.6g J, "
            "(+ the spring's %.6g J at the start), rolling %.3g J, balance %.2g J\n",
            w0, iz, t, wf, wt, tw.gamma, e1.dissipated_twisting, ke0, e0.elastic_twisting, e1.dissipated_rolling,
            bal);
    ENSURE(fabs(wf - w0) < 1e-3 * w0);
    ENSURE(fabs(wt) < 1e-6 * w0);
    ENSURE_REL(e1.dissipated_twisting, ke0 + e0.elastic_twisting, 1e-3);
    ENSURE(fabs(bal) < 1e-5 * ke0);
}

/* spheres and ellipsoids falling into a box, with rolling and twisting resistance */
static tl_world *bed(int threads) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.threads = threads;
    tl_world *w;
    tl_world_create(&wd, &w);
    twist_law tw = {"sds", 1e-5, 1e-8, 1e-4, 0.0};
    int m = material(w, 5e6, &tw, 0.2);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.kind = TL_WALL_BOX;
    wl.box_min = (tl_vec3){0, 0, 0};
    wl.box_max = (tl_vec3){0.05, 0.05, 0.2};
    tl_world_add_wall(w, &wl, NULL);
    tl_shape_def sd = tl_shape_default();
    sd.semi_axes = (tl_vec3){0.006, 0.004, 0.003};
    int s;
    tl_world_add_shape(w, &sd, &s);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    uint64_t seed = 7;
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                double r = (double)(seed >> 11) * 0x1.0p-53;
                pd.shape = (i + j + k) % 3 == 0 ? s : -1;
                pd.radius = 0.004 + 0.001 * r;
                pd.position = (tl_vec3){0.007 + 0.012 * i + 0.001 * r, 0.007 + 0.012 * j, 0.008 + 0.013 * k};
                pd.orientation = (tl_quat){cos(r), sin(r) * 0.6, sin(r) * 0.8, 0};
                pd.angular_velocity = (tl_vec3){10 * r, -5 * r, 20};
                tl_world_add_particle(w, &pd, NULL);
            }
    return w;
}

static void bed_determinism(void) {
    uint64_t h[3];
    tl_world *a = tl_test_three_runs(bed, 12000, h);
    ENSURE(a != NULL);
    if (!a) return;
    tl_energy e, e0;
    tl_world_energy(a, &e);
    tl_world *f = bed(1);
    tl_world_prepare(f);
    tl_world_energy(f, &e0);
    double scale = e0.potential - e.potential + e0.kinetic_rotational;
    fprintf(stderr,
            "128 spheres and ellipsoids with rolling and twisting resistance in a box, 12000 steps: %zu contacts, "
            "dissipated by twisting %.3g J, rolling %.3g J, twisting springs hold %.3g J, balance %.2g J of %.3g J; "
            "hash %016llx (1 thread) %016llx (2) %016llx (saved at 6000, loaded)\n",
            tl_world_contact_count(a), e.dissipated_twisting, e.dissipated_rolling, e.elastic_twisting,
            e.total - e0.total, scale, (unsigned long long)h[0], (unsigned long long)h[1], (unsigned long long)h[2]);
    ENSURE(tl_world_contact_count(a) > 50);
    ENSURE(e.dissipated_twisting > 0.0);
    ENSURE(fabs(e.total - e0.total) < 1e-5 * scale);
    ENSURE(h[0] == h[1]);
    ENSURE(h[0] == h[2]);
    tl_world_destroy(a);
    tl_world_destroy(f);
}

static void law_errors(void) {
    tl_world_def wd = tl_world_default();
    tl_world *w;
    tl_world_create(&wd, &w);
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = 2500;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.5);
    law.twisting = "sdss";
    ENSURE(tl_world_set_law(w, m, m, &law) != TL_OK);
    fprintf(stderr, "unknown twisting model: %s\n", tl_world_error(w));
    ENSURE(strstr(tl_world_error(w), "did you mean 'sds'") != NULL);
    law.twisting = "sds";
    tl_law_set(&law, "k_twist", 1.0);
    ENSURE(tl_world_set_law(w, m, m, &law) != TL_OK);
    fprintf(stderr, "mu_twist missing: %s\n", tl_world_error(w));
    ENSURE(strstr(tl_world_error(w), "mu_twist") != NULL);
    tl_law_set(&law, "mu_twist", -0.1);
    ENSURE(tl_world_set_law(w, m, m, &law) != TL_OK);
    fprintf(stderr, "mu_twist < 0: %s\n", tl_world_error(w));
    ENSURE(strstr(tl_world_error(w), "out of range") != NULL);
    law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    law.tangential = "none";
    law.history = "none";
    law.twisting = "marshall";
    ENSURE(tl_world_set_law(w, m, m, &law) != TL_OK);
    fprintf(stderr, "marshall without a tangential model: %s\n", tl_world_error(w));
    ENSURE(strstr(tl_world_error(w), "tangential") != NULL);
    law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.5);
    law.twisting = "sds";
    tl_law_set(&law, "k_twist", 1.0);
    tl_law_set(&law, "mu_twist", 0.001);
    ENSURE(tl_world_set_law(w, m, m, &law) == TL_OK);
    tl_law_def back;
    ENSURE(tl_world_get_law(w, m, m, &back) == TL_OK);
    ENSURE(back.twisting && strcmp(back.twisting, "sds") == 0);
    tl_world_destroy(w);
}

int main(void) {
    law_errors();
    torsional_oscillation();
    sliding_limit();
    damped_ledger();
    marshall_stiffness();
    ellipsoid_stops();
    bed_determinism();
    return tl_test_report("test_twisting");
}
