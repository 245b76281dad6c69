/* The complete Mindlin-Deresiewicz tangential force (tangential `mindlin-deresiewicz`,
 * Li et al. 2022 model M4) through the public API: a prescribed sphere pressed into a
 * wall and driven along it, checked against the closed forms (Li et al. eq. 3 and 14,
 * the Masing loop and the Mindlin-Deresiewicz energy per cycle), and an oblique impact
 * of a free sphere against the no-slip `mindlin` model. Reaches into src/ (registry.h) for
 * the last test, which calls the kernel directly. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "registry.h"
#include "talus/talus.h"
#include "test.h"

static const double R = 0.001, RHO = 2500.0, E = 1e8, NU = 0.3, MU = 0.3;

/* ---- the pair constants, by hand ---- */

static double shear_modulus(void) { return E / (2.0 * (1.0 + NU)); }
/* 1/G* = sum (2 - nu)/G (Li et al. eq. 4); sphere and wall of the same material */
static double g_star(void) { return 1.0 / (2.0 * (2.0 - NU) / shear_modulus()); }
/* 1/E* = sum (1 - nu^2)/E */
static double e_star(void) { return 1.0 / (2.0 * (1.0 - NU * NU) / E); }
/* kappa with compliances (Li et al. eq. 3; docs/readings.md, li-kappa) */
static double kappa(void) {
    double g = shear_modulus();
    return (2.0 * (1.0 - NU) / g) / (2.0 * (1.0 - 0.5 * NU) / g);
}
static double kt0(double delta) { return 8.0 * g_star() * sqrt(R * delta); }
static double hertz(double delta) { return 4.0 / 3.0 * e_star() * sqrt(R) * pow(delta, 1.5); }

/* the virgin curve, Li et al. eq. 14: f = mu P [1 - (1 - x / ds)^3/2], ds = mu delta / kappa */
static double virgin(double x, double mup, double ds) {
    if (x >= ds) return mup;
    return -mup * expm1(1.5 * log1p(-x / ds));
}

/* ---- a prescribed sphere pressed into the wall z = 0 ---- */

typedef struct press {
    tl_world *w;
    uint32_t id;
    double dt;
} press;

static int press_open(press *c, double delta0, double dt) {
    tl_world_def wd = tl_world_default();
    wd.dt = dt;
    c->dt = dt;
    if (tl_world_create(&wd, &c->w) != TL_OK) return -1;
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = RHO;
    md.youngs_modulus = E;
    md.poisson_ratio = NU;
    int m;
    tl_world_add_material(c->w, &md, &m);
    tl_law_def law = tl_law_default();
    law.damping = "none";
    law.tangential = "mindlin-deresiewicz";
    tl_law_set(&law, "mu", MU);
    tl_law_set(&law, "e_t", 1.0); /* no tangential dashpot */
    if (tl_world_set_law(c->w, m, m, &law) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(c->w));
        return -1;
    }
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    if (tl_world_add_wall(c->w, &wl, NULL) != TL_OK) return -1;
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, R - delta0};
    pd.flags = TL_PARTICLE_PRESCRIBED;
    if (tl_world_add_particle(c->w, &pd, &c->id) != TL_OK) return -1;
    return tl_world_prepare(c->w) == TL_OK ? 0 : -1;
}

/* One step with the sphere moving at (vx, 0, vz); returns the contact after it. */
static tl_contact_info press_step(press *c, double vx, double vz) {
    tl_world_set_particle_velocity(c->w, c->id, (tl_vec3){vx, 0, vz}, (tl_vec3){0, 0, 0});
    tl_world_step(c->w, 1);
    tl_contact_info ci;
    memset(&ci, 0, sizeof ci);
    ENSURE_OK(tl_world_get_contact(c->w, 0, &ci));
    return ci;
}

/* T: the force resisting a displacement along +x (the force on the sphere is -T x) */
static double resisting(const tl_contact_info *ci) { return -ci->tangential_force.x; }

/* ---- 1. monotonic loading at constant normal force: Li et al. eq. 14 ---- */

static void test_monotonic(void) {
    const double delta0 = 1e-6, dt = 1e-7;
    press c;
    ENSURE_OK(press_open(&c, delta0, dt));
    double ds = MU * delta0 / kappa(); /* the slip displacement */
    double P = hertz(delta0), mup = MU * P;
    /* (2/3) K_t0 / (mu P) = kappa / (mu delta) for Hertz: the exact integration of the
     * incremental law is eq. 14 */
    double lhs = 2.0 / 3.0 * kt0(delta0) / mup, rhs = kappa() / (MU * delta0);
    fprintf(stderr, "identity 2/3 K_t0/(mu P) = %.15e, kappa/(mu delta) = %.15e (rel %.1e)\n", lhs,
            rhs, lhs / rhs - 1.0);
    ENSURE_REL(lhs, rhs, 1e-13);
    const int n_slip = 2000;
    double v = ds / (n_slip * dt);
    double worst = 0.0, worst_slide = 0.0;
    bool stick_ok = true, slide_ok = true;
    for (int s = 1; s <= 3 * n_slip / 2; s++) {
        tl_contact_info ci = press_step(&c, v, 0.0);
        double x = s * v * dt;
        if (s == 1) {
            ENSURE_REL(ci.normal_force, P, 1e-12);
            ENSURE_REL(ci.overlap, delta0, 1e-12);
        }
        double f = virgin(x, mup, ds), t = resisting(&ci);
        if (x < ds * (1.0 - 1e-9)) {
            worst = fmax(worst, fabs(t - f) / f);
            stick_ok = stick_ok && !ci.sliding;
        } else if (x > ds * (1.0 + 1e-9)) {
            worst_slide = fmax(worst_slide, fabs(t - mup) / mup);
            slide_ok = slide_ok && ci.sliding;
        }
        ENSURE(fabs(ci.tangential_force.y) + fabs(ci.tangential_force.z) == 0.0);
    }
    fprintf(stderr, "monotonic: |F_t - eq. 14| / eq. 14 <= %.2e over %d steps; sliding at mu P "
            "within %.2e\n", worst, n_slip, worst_slide);
    ENSURE(worst < 1e-9);
    ENSURE(worst_slide < 1e-12);
    ENSURE(stick_ok);
    ENSURE(slide_ok);
    tl_world_destroy(c.w);
}

/* ---- 2. a cycle below the slip displacement: Masing loop and dissipated energy ---- */

/* Mindlin & Deresiewicz energy per cycle from the virgin curve f: W = 8 int_0^A f - 4 A T*. */
static double loop_energy(double a, double mup, double ds) {
    double r = a / ds;
    return 8.0 * mup * (a + 0.4 * ds * (pow(1.0 - r, 2.5) - 1.0)) - 4.0 * a * virgin(a, mup, ds);
}

/* The same in Johnson's form (Contact Mechanics eq. 7.59), with (2 - nu)/G the pair's 1/G*
 * and a the contact radius: W = 9 mu^2 P^2 / (10 a G*) {1 - q^5/3 - 5/6 Q* / (mu P) (1 + q^2/3)},
 * q = 1 - Q* / (mu P). */
static double johnson_energy(double qstar, double mup, double a) {
    double x = qstar / mup, q = 1.0 - x;
    return 0.9 * mup * mup / (a * g_star()) *
           (1.0 - pow(q, 5.0 / 3.0) - 5.0 / 6.0 * x * (1.0 + pow(q, 2.0 / 3.0)));
}

static void test_cycle(void) {
    const double delta0 = 1e-6, dt = 1e-7;
    press c;
    ENSURE_OK(press_open(&c, delta0, dt));
    double ds = MU * delta0 / kappa(), mup = MU * hertz(delta0);
    const int n = 1000;        /* steps per quarter cycle */
    double amp = 0.6 * ds;     /* below the slip displacement */
    double v = amp / (n * dt), h = v * dt;
    for (int s = 0; s < n; s++) press_step(&c, v, 0.0);
    tl_contact_info ci;
    double tstar = 0.0, x = amp, t_prev, area = 0.0, worst = 0.0;
    ENSURE_OK(tl_world_get_contact(c.w, 0, &ci));
    tstar = resisting(&ci);
    ENSURE_REL(tstar, virgin(amp, mup, ds), 1e-10);
    t_prev = tstar;
    tl_energy e0, e1;
    tl_world_energy(c.w, &e0);
    /* unloading to -amp, reloading to +amp */
    for (int s = 0; s < 4 * n; s++) {
        bool down = s < 2 * n;
        ci = press_step(&c, down ? -v : v, 0.0);
        double x_new = down ? amp - (s + 1) * h : -amp + (s + 1 - 2 * n) * h;
        double t = resisting(&ci);
        double expect = down ? tstar - 2.0 * virgin(0.5 * (amp - x_new), mup, ds)
                             : -tstar + 2.0 * virgin(0.5 * (x_new + amp), mup, ds);
        worst = fmax(worst, fabs(t - expect) / mup);
        ENSURE(!ci.sliding);
        area += 0.5 * (t + t_prev) * (x_new - x);
        t_prev = t;
        x = x_new;
    }
    tl_world_energy(c.w, &e1);
    double booked = e1.dissipated_tangential_damping + e1.dissipated_friction -
                    e0.dissipated_tangential_damping - e0.dissipated_friction;
    double w_md = loop_energy(amp, mup, ds);
    double w_j = johnson_energy(tstar, mup, sqrt(R * delta0));
    fprintf(stderr, "cycle at 0.6 slip displacement: Masing branches within %.2e mu P; loop closes "
            "at "
            "%.2e mu P; dissipated %.6e J, closed form %.6e J (rel %.2e), Johnson 7.59 %.6e J\n",
            worst, fabs(t_prev - tstar) / mup, area, w_md, area / w_md - 1.0, w_j);
    ENSURE(worst < 1e-9);
    ENSURE_NEAR(t_prev, tstar, 1e-9 * mup);
    fprintf(stderr, "cycle: the ledger books %.6e J of tangential dissipation (rel %.2e), elastic "
            "tangential energy %.3e J at T*\n", booked, booked / w_md - 1.0, e1.elastic_tangential);
    ENSURE_REL(area, w_md, 1e-2);
    ENSURE_REL(booked, w_md, 1e-2);
    ENSURE_REL(e1.elastic_tangential, e0.elastic_tangential, 1e-9);
    ENSURE_REL(w_j, w_md, 1e-12);
    /* small amplitudes: W -> Q*^3 / (36 mu P a G*) (Johnson eq. 7.60) */
    double a_small = 1e-3 * ds, q_small = virgin(a_small, mup, ds);
    ENSURE_REL(loop_energy(a_small, mup, ds),
               pow(q_small, 3) / (36.0 * mup * sqrt(R * delta0) * g_star()), 2e-3);
    tl_world_destroy(c.w);
}

/* A nested loop: load to A, unload to B, reload to C < A, unload to D > B, reload. The
 * inner loop closes at C and the force continues on the reloading branch from B (Masing
 * memory), which reaches T_A at A and continues on the virgin curve beyond it. */
static void test_memory(void) {
    const double delta0 = 1e-6, dt = 1e-7;
    press c;
    ENSURE_OK(press_open(&c, delta0, dt));
    double ds = MU * delta0 / kappa(), mup = MU * hertz(delta0);
    const int unit = 100; /* steps per 0.1 ds */
    double h = 0.1 * ds / unit, v = h / dt;
    /* positions in steps of h: A = 6, B = -2, C = 3, D = 0 (tenths of ds), then on to 9 */
    const int legs[] = {6, -2, 3, 0, 9};
    int pos = 0;
    double ta = virgin(0.6 * ds, mup, ds);
    double tb = ta - 2.0 * virgin(0.5 * 0.8 * ds, mup, ds); /* at B, from A */
    double tc = tb + 2.0 * virgin(0.5 * 0.5 * ds, mup, ds); /* at C, from B */
    double td = tc - 2.0 * virgin(0.5 * 0.3 * ds, mup, ds); /* at D, from C */
    double worst = 0.0;
    bool sliding = false;
    for (int l = 0; l < 5; l++) {
        int target = legs[l] * unit, dir = target > pos ? 1 : -1;
        while (pos != target) {
            tl_contact_info ci = press_step(&c, dir * v, 0.0);
            pos += dir;
            double x = pos * h, t = resisting(&ci), expect;
            if (l == 0 || (l == 4 && x > 0.6 * ds)) expect = virgin(x, mup, ds);
            else if (l == 1) expect = ta - 2.0 * virgin(0.5 * (0.6 * ds - x), mup, ds);
            else if (l == 3) expect = tc - 2.0 * virgin(0.5 * (0.3 * ds - x), mup, ds); /* from C */
            else if (l == 4 && x <= 0.3 * ds) /* from D */
                expect = td + 2.0 * virgin(0.5 * x, mup, ds);
            else expect = tb + 2.0 * virgin(0.5 * (x + 0.2 * ds), mup, ds); /* from B */
            worst = fmax(worst, fabs(t - expect) / mup);
            sliding = sliding || ci.sliding;
        }
    }
    fprintf(stderr, "nested loop (0 -> 0.6 -> -0.2 -> 0.3 -> 0 -> 0.9 ds): every step within %.2e "
            "mu P of the Masing branches with memory\n", worst);
    ENSURE(worst < 1e-9);
    ENSURE(!sliding);
    tl_world_destroy(c.w);
}

/* ---- 3. normal force and displacement both increasing: Li et al. eq. 3 ---- */

typedef struct eq3_case {
    double vx, vz;   /* the step's velocity, in units of ds / (100 dt) */
    bool stick;      /* expected: the increment sticks */
} eq3_case;

static void run_eq3(const eq3_case *k) {
    const double delta0 = 1e-6, dt = 1e-7;
    press c;
    ENSURE_OK(press_open(&c, delta0, dt));
    double ds = MU * delta0 / kappa(), unit = ds / (100.0 * dt);
    for (int s = 0; s < 30; s++) press_step(&c, unit, 0.0); /* loaded to 0.3 ds */
    tl_contact_info c0;
    ENSURE_OK(tl_world_get_contact(c.w, 0, &c0));
    tl_contact_info c1 = press_step(&c, k->vx * unit, -k->vz * unit);
    double t0 = resisting(&c0), t1 = resisting(&c1);
    double p0 = c0.normal_force, p1 = c1.normal_force, dp = p1 - p0;
    double K = kt0(c1.overlap), d = k->vx * unit * dt, mup = MU * p1;
    ENSURE_REL(c1.overlap - c0.overlap, k->vz * unit * dt, 1e-6);
    ENSURE_REL(p1, hertz(c1.overlap), 1e-12);
    double d_stick = MU * dp / K;
    ENSURE(k->stick == (d < d_stick));
    if (d < d_stick) {
        /* eq. 3, first case: f = f' + K_t0 Delta */
        fprintf(stderr, "eq. 3 sticking: Delta = %.3f mu dP / K_t0, dT = %.10e, K_t0 Delta = "
                "%.10e\n",
                d / d_stick, t1 - t0, K * d);
        ENSURE_REL(t1 - t0, K * d, 1e-9);
        tl_world_destroy(c.w);
        return;
    }
    /* eq. 3, second case: dT = mu dP + K_t,MD (Delta - mu dP / K_t0) with K_t,MD = K_t0 theta,
     * theta^3 = 1 - (T' + mu dP) / (mu P): the first-order form of the exact integral */
    double rest = d - d_stick, s0 = t0 + MU * dp;
    double theta = cbrt(1.0 - s0 / mup);
    double dt_eq3 = MU * dp + K * theta * rest;
    double u1 = pow(1.0 - s0 / mup, 2.0 / 3.0) - 2.0 / 3.0 * K * rest / mup;
    double dt_exact = mup * (1.0 - pow(u1, 1.5)) - t0;
    /* |exact - Euler| <= 1/2 max|T''| rest^2, T'' = -K^2 / (3 mu P theta(T)) */
    double bound = 0.5 * K * K / (3.0 * mup * cbrt(1.0 - t1 / mup)) * rest * rest;
    fprintf(stderr, "eq. 3 micro-slip: Delta = %.3f mu dP / K_t0, dT = %.10e, exact %.10e, "
            "eq. 3 %.10e (differs by %.2e of dT, bound %.2e)\n",
            d / d_stick, t1 - t0, dt_exact, dt_eq3, (dt_eq3 - (t1 - t0)) / (t1 - t0),
            bound / (t1 - t0));
    ENSURE_REL(t1 - t0, dt_exact, 1e-9);
    ENSURE(fabs(t1 - t0 - dt_eq3) <= bound);
    ENSURE(fabs(t1 - t0 - dt_eq3) < 5e-3 * (t1 - t0));
    tl_world_destroy(c.w);
}

static void test_eq3(void) {
    /* stick when vx / vz < mu / kappa (= 0.364 here): mu dP / K_t0 = mu / kappa * d delta */
    eq3_case slip = {1.0, 0.5, false}, stick = {0.1, 1.0, true};
    run_eq3(&slip);
    run_eq3(&stick);
}

/* ---- 4. an oblique impact: energy balance, and agreement with mindlin ---- */

typedef struct impact {
    const char *tangential;
    double angle_deg;   /* incidence, from the normal */
    /* results */
    double e_t;         /* tangential restitution of the centre, v_x out / v_x in */
    double omega;       /* rebound spin, rad/s */
    double max_error;   /* max |total - total0| / E0 over the steps */
    double over_limit;  /* max (|F_t| - mu F_n) / (mu F_n) while sliding */
    double friction, damping; /* dissipated, fractions of E0 */
} impact;

static tl_world *impact_world(const impact *c, uint32_t *id) {
    const double v = 1.0, th = c->angle_deg * M_PI / 180.0;
    tl_world_def wd = tl_world_default();
    wd.impact_speed = v * cos(th);
    wd.steps_per_contact = 400;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return NULL;
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = RHO;
    md.youngs_modulus = E;
    md.poisson_ratio = NU;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default(); /* hertz + tsuji; e_t defaults to e */
    law.tangential = c->tangential;
    tl_law_set(&law, "e", 0.9);
    tl_law_set(&law, "mu", MU);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, R + 1e-6};
    pd.velocity = (tl_vec3){v * sin(th), 0, -v * cos(th)};
    if (tl_world_set_law(w, m, m, &law) != TL_OK || tl_world_add_wall(w, &wl, NULL) != TL_OK ||
        tl_world_add_particle(w, &pd, id) != TL_OK || tl_world_prepare(w) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        tl_world_destroy(w);
        return NULL;
    }
    return w;
}

static int run_impact(impact *c) {
    uint32_t id;
    tl_world *w = impact_world(c, &id);
    if (!w) return -1;
    tl_energy e0, e;
    tl_world_energy(w, &e0);
    double scale = e0.kinetic_translational;
    c->max_error = c->over_limit = 0.0;
    bool started = false;
    int after = -1;
    for (int s = 0; s < 200000 && after < 2; s++) {
        tl_world_step(w, 1);
        tl_world_energy(w, &e);
        c->max_error = fmax(c->max_error, fabs(e.total - e0.total) / scale);
        tl_contact_info ci;
        if (tl_world_get_contact(w, 0, &ci) == TL_OK) {
            started = true;
            tl_vec3 f = ci.tangential_force;
            double lim = MU * fmax(ci.normal_force, 0.0);
            double fa = sqrt(f.x * f.x + f.y * f.y + f.z * f.z);
            if (ci.sliding && lim > 0.0) c->over_limit = fmax(c->over_limit, (fa - lim) / lim);
        } else if (started) {
            after++;
        }
    }
    tl_particle_state ps;
    tl_world_get_particle(w, id, &ps);
    c->e_t = ps.velocity.x / sin(c->angle_deg * M_PI / 180.0);
    c->omega = ps.angular_velocity.y;
    c->friction = e.dissipated_friction / scale;
    c->damping = e.dissipated_tangential_damping / scale;
    tl_world_destroy(w);
    return started && after >= 2 ? 0 : -1;
}

static void test_impact(void) {
    const double angles[] = {10.0, 45.0, 70.0};
    for (int k = 0; k < 3; k++) {
        impact md = {"mindlin-deresiewicz", angles[k], 0, 0, 0, 0, 0, 0};
        impact m1 = {"mindlin", angles[k], 0, 0, 0, 0, 0, 0};
        impact m3 = {"mindlin-renzo", angles[k], 0, 0, 0, 0, 0, 0};
        ENSURE_OK(run_impact(&md));
        ENSURE_OK(run_impact(&m1));
        ENSURE_OK(run_impact(&m3));
        fprintf(stderr, "impact at %.0f deg: e_t %.4f (mindlin %.4f, rel %+.2e; mindlin-renzo "
                "%.4f), "
                "spin %.1f (%.1f) rad/s; dissipated: friction %.4f, tangential damping %.4f of E0; "
                "balance error %.1e\n",
                angles[k], md.e_t, m1.e_t, md.e_t / m1.e_t - 1.0, m3.e_t, md.omega, m1.omega,
                md.friction, md.damping, md.max_error);
        ENSURE(md.max_error < 1e-3);
        ENSURE(md.over_limit < 1e-12);
        if (angles[k] == 10.0) {
            /* near-normal impacts: the models differ (Li et al. 2022); the MD force starts
             * with K_t0 and softens, and lands between the no-slip spring and 2/3 of it */
            ENSURE(m3.e_t < md.e_t && md.e_t < m1.e_t);
        } else if (angles[k] == 45.0) {
            ENSURE_REL(md.e_t, m1.e_t, 0.05);
        } else { /* gross sliding throughout: the spring law does not matter */
            ENSURE_REL(md.e_t, m1.e_t, 2e-3);
        }
    }
}

/* ---- 5. the kernel on random 3D kinematics: invariants ---- */

static double rnd(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static void test_invariants(void) {
    const tl_submodel *row = tl_registry_lookup(TL_SLOT_TANGENTIAL, "mindlin-deresiewicz");
    ENSURE(row != NULL);
    if (!row) return;
    ENSURE(row->info.history_count > 0 && row->info.history_count <= 16);
    double p[TL_PARAMS] = {0};
    p[0] = MU;
    p[1] = 8.0 * g_star();
    p[2] = tl_damping_ratio(0.5);
    double hist[16] = {0}, copy[16];
    uint64_t seed = 12345;
    double delta = 1e-6, ang = 0.0, worst = 0.0;
    bool finite = true, positive = true, frozen = true;
    for (int s = 0; s < 20000; s++) {
        tl_contact c;
        memset(&c, 0, sizeof c);
        delta = fmax(1e-8, delta * (1.0 + 0.2 * (rnd(&seed) - 0.5)));
        ang += 1e-3 * (rnd(&seed) - 0.5); /* the contact plane turns */
        double n[3] = {sin(ang), 0.0, cos(ang)}, u[3] = {cos(ang), 0.0, -sin(ang)};
        double a = 2.0 * M_PI * (s % 500 < 250 ? 0.1 : rnd(&seed)), sp = 1e-3 * rnd(&seed);
        for (int i = 0; i < 3; i++) {
            c.n[i] = n[i];
            c.vt[i] = sp * (cos(a) * u[i]);
        }
        c.vt[1] = sp * sin(a);
        c.delta = delta;
        c.r_eff = R;
        c.m_eff = 1e-5;
        c.dt = s % 7 == 3 ? 0.0 : 1e-6 * rnd(&seed);
        c.first = s == 0;
        c.fn_el = hertz(delta);
        c.fn = c.fn_el * (1.0 + 0.5 * (rnd(&seed) - 0.5));
        memcpy(copy, hist, sizeof hist);
        row->force(p, &c, hist);
        if (c.dt == 0.0 && !c.first) frozen = frozen && memcmp(copy, hist, sizeof hist) == 0;
        double fmd[3], lim = MU * fmax(c.fn, 0.0);
        for (int i = 0; i < 3; i++) {
            fmd[i] = c.ft[i] - c.ft_damp[i];
            finite = finite && isfinite(c.ft[i]);
        }
        double f = sqrt(fmd[0] * fmd[0] + fmd[1] * fmd[1] + fmd[2] * fmd[2]);
        /* at the limit: mu F_n along f_MD, no dashpot; below it: |f_MD| < mu F_n and <= mu P */
        if (c.sliding) worst = fmax(worst, fabs(f - lim) / (MU * c.fn_el));
        else worst = fmax(worst, (f - fmin(lim, MU * c.fn_el)) / (MU * c.fn_el));
        finite = finite && isfinite(c.e_el_t);
        double across = fabs(fmd[0] * n[0] + fmd[2] * n[2]); /* the force stays in the plane */
        positive = positive && c.e_el_t >= 0.0 && across <= 1e-9 * f + 1e-30;
    }
    fprintf(stderr, "random kinematics: the Coulomb limits hold within %.1e mu P over 20000 calls\n",
            worst);
    ENSURE(worst < 1e-12);
    ENSURE(finite);
    ENSURE(positive);
    ENSURE(frozen);
}

int main(void) {
    test_monotonic();
    test_cycle();
    test_memory();
    test_eq3();
    test_impact();
    test_invariants();
    return tl_test_report("test_mindlin_deresiewicz");
}
