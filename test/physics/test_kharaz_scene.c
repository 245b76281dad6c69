/* The Kharaz oblique impact as a scene (examples/000-kharaz-oblique.yaml, Li et
 * al. 2022 section 3.1): an alumina sphere falling vertically at 4 m/s onto a
 * glass anvil tilted by theta, law M1 (hertz + tsuji + mindlin, true history,
 * Coulomb test on the spring), measured with the paper's indicators
 * (tl_impact_measure, eq. 20-23).
 *
 *   a. the impact does not depend on where along the anvil it happens (the
 *      sticking regime, theta = 10 and 20 degrees, three points down the slope);
 *   b. it converges as dt -> 0: at first order with the Verlet scheme (the
 *      tangential history runs half a step ahead, see below), at second order
 *      or better with leapfrog (the paper's integrator); e_t and omega at the
 *      paper's 1e-8 s against 2.5e-9 s;
 *   c. the energy ledger closes: kinetic energy in + potential change =
 *      out + dissipated;
 *   d. the scene's indicators at 30 degrees agree with the collision lab's
 *      (tl_collide, no gravity, horizontal wall) within 1e-3.
 *
 * The worlds of a and b are built through the API with the example's materials
 * and law; the test first checks that they are the scene's (same law, same
 * pair estimate).
 *
 * Measuring: v_in and v_out are the sphere's velocities at first touch and at
 * separation (the collision log's t_begin, t_end), obtained from the velocities
 * before and after the run by removing the free flight under gravity, g t,
 * before and after the contact (the raw velocities are reported too).
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

#ifndef TALUS_SOURCE_DIR
#define TALUS_SOURCE_DIR "."
#endif

#define KH_RADIUS 2.5e-3 /* m */
#define KH_GAP 5.0e-6    /* m, fall before first touch, along -z */
#define KH_SPEED 4.0     /* m/s */
#define KH_G 9.81        /* m/s2 */
#define KH_MU 0.092
#define KH_E 0.98
#define KH_DURATION 6.0e-5 /* s, as the example's stage */
#define KH_DT 1.0e-8       /* s, the paper's step */
#define KH_DEG (M_PI / 180.0)

/* ---- the example's materials and law ---- */

static tl_material_def kh_alumina(void) {
    tl_material_def m = tl_material_default();
    m.name = "alumina";
    m.density = 3500.0;
    m.youngs_modulus = 380e9;
    m.poisson_ratio = 0.23;
    return m;
}

static tl_material_def kh_glass(void) {
    tl_material_def m = tl_material_default();
    m.name = "glass";
    m.youngs_modulus = 70e9;
    m.poisson_ratio = 0.25;
    return m;
}

static tl_law_def kh_law_m1(void) {
    tl_law_def law = tl_law_default();
    law.normal = "hertz";
    law.damping = "tsuji";
    law.tangential = "mindlin";
    law.history = "true";
    law.coulomb_test = TL_COULOMB_SPRING;
    tl_law_set(&law, "e", KH_E);
    tl_law_set(&law, "e_t", KH_E);
    tl_law_set(&law, "mu", KH_MU);
    return law;
}

static tl_vec3 kh_normal(double theta) { return (tl_vec3){-sin(theta), 0.0, cos(theta)}; }

/* ---- a world built through the API, as the example ---- */

typedef struct kh_world {
    tl_world *w;
    uint32_t id;
    int alumina, glass;
    tl_vec3 normal;
} kh_world;

/* theta in rad; shift: m down the slope from the example's point of impact (the origin) */
static tl_status kh_build(double theta, double dt, double shift, tl_integrator scheme,
                          kh_world *kw) {
    memset(kw, 0, sizeof *kw);
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0.0, 0.0, -KH_G};
    wd.dt = dt;
    wd.integrator = scheme;
    tl_status s = tl_world_create(&wd, &kw->w);
    if (s != TL_OK) return s;
    tl_material_def ma = kh_alumina(), mg = kh_glass();
    tl_law_def law = kh_law_m1();
    s = tl_world_add_material(kw->w, &ma, &kw->alumina);
    if (s == TL_OK) s = tl_world_add_material(kw->w, &mg, &kw->glass);
    if (s == TL_OK) s = tl_world_set_law(kw->w, kw->alumina, kw->glass, &law);
    if (s == TL_OK) s = tl_world_set_law(kw->w, kw->alumina, kw->alumina, &law);
    kw->normal = kh_normal(theta);
    tl_vec3 down = {-cos(theta), 0.0, -sin(theta)};
    tl_particle_def p = tl_particle_default();
    p.id = 1;
    p.material = kw->alumina;
    p.radius = KH_RADIUS;
    /* R n + gap e_z: falling by gap, the sphere touches the plane at the shifted origin */
    p.position = (tl_vec3){KH_RADIUS * kw->normal.x + shift * down.x, 0.0,
                           KH_RADIUS * kw->normal.z + KH_GAP + shift * down.z};
    p.velocity = (tl_vec3){0.0, 0.0, -KH_SPEED};
    if (s == TL_OK) s = tl_world_add_particle(kw->w, &p, &kw->id);
    tl_wall_def wl = tl_wall_default();
    wl.name = "anvil";
    wl.kind = TL_WALL_PLANE;
    wl.material = kw->glass;
    wl.point = (tl_vec3){0.0, 0.0, 0.0};
    wl.normal = kw->normal;
    if (s == TL_OK) s = tl_world_add_wall(kw->w, &wl, NULL);
    if (s == TL_OK) s = tl_world_prepare(kw->w);
    if (s != TL_OK) fprintf(stderr, "kh_build: %s\n", tl_world_error(kw->w));
    return s;
}

/* ---- measuring one impact ---- */

typedef struct kh_impact {
    tl_impact_indicators ind; /* v at first touch and at separation */
    tl_impact_indicators raw; /* v before the run and after it */
    tl_vec3 v_in, v_out;      /* at first touch, at separation */
    double t_begin, t_end, duration;
    size_t collisions, contacts_after;
    tl_energy e0, e1; /* the ledger before and after the run */
} kh_impact;

#define KH_NIND 5 /* the indicators compared: e_n, e_t, omega, alpha_v, alpha_c */

static const char *kh_ind_name(int k) {
    switch (k) {
    case 0: return "e_n";
    case 1: return "e_t";
    case 2: return "omega";
    case 3: return "alpha_v";
    default: return "alpha_c";
    }
}

static double kh_ind(const tl_impact_indicators *ind, int k) {
    switch (k) {
    case 0: return ind->e_n;
    case 1: return ind->e_t;
    case 2: return ind->omega_roll;
    case 3: return ind->alpha_v;
    default: return ind->alpha_c;
    }
}

/* The scale of indicator k for relative differences: its magnitude, except for alpha_c,
 * the small difference of the centre's angle and the spin's contribution (-0.6 degrees
 * at 10 degrees), which is compared on the scale of alpha_v. */
static double kh_scale(const tl_impact_indicators *ind, int k) {
    return k == 4 ? fmax(fabs(ind->alpha_c), fabs(ind->alpha_v)) : fabs(kh_ind(ind, k));
}

static tl_vec3 kh_add(tl_vec3 a, tl_vec3 b, double s) {
    return (tl_vec3){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z};
}

static void kh_indicators(const tl_particle_state *p0, const tl_particle_state *p1, tl_vec3 normal,
                          tl_vec3 v_in, tl_vec3 v_out, tl_impact_indicators *out) {
    tl_material_def ma = kh_alumina(), mg = kh_glass();
    tl_impact_input in;
    memset(&in, 0, sizeof in);
    in.normal = normal;
    in.v_in = v_in;
    in.v_out = v_out;
    in.omega_in = p0->angular_velocity;
    in.omega_out = p1->angular_velocity;
    in.radius_a = p0->radius;
    in.radius_b = INFINITY;
    in.mass_a = p0->mass;
    in.inertia_a = p0->inertia;
    in.kappa = tl_kappa(&ma, &mg);
    in.mu = KH_MU;
    tl_impact_measure(&in, out);
}

/* The impact, after the run: p0 and e0 are the sphere and the ledger before it (at t = 0). */
static void kh_measure(tl_world *w, uint32_t id, tl_vec3 normal, const tl_particle_state *p0,
                       const tl_energy *e0, kh_impact *out) {
    tl_particle_state p1;
    tl_world_get_particle(w, id, &p1);
    out->e0 = *e0;
    tl_world_energy(w, &out->e1);
    out->collisions = tl_world_collision_count(w);
    out->contacts_after = tl_world_contact_count(w);
    const tl_vec3 g = {0.0, 0.0, -KH_G};
    const tl_collision *c = tl_world_collisions(w);
    out->t_begin = out->collisions ? c[0].t_begin : 0.0;
    out->t_end = out->collisions ? c[0].t_end : tl_world_time(w);
    out->duration = out->t_end - out->t_begin;
    /* the run starts at t = 0; free flight before the touch and after the separation */
    out->v_in = kh_add(p0->velocity, g, out->t_begin);
    out->v_out = kh_add(p1.velocity, g, -(tl_world_time(w) - out->t_end));
    kh_indicators(p0, &p1, normal, out->v_in, out->v_out, &out->ind);
    kh_indicators(p0, &p1, normal, p0->velocity, p1.velocity, &out->raw);
}

static tl_status kh_run_api(double theta, double dt, double shift, tl_integrator scheme,
                            kh_impact *out) {
    memset(out, 0, sizeof *out);
    kh_world kw;
    tl_status s = kh_build(theta, dt, shift, scheme, &kw);
    if (s != TL_OK) {
        tl_world_destroy(kw.w);
        return s;
    }
    tl_world_log_collisions(kw.w, true);
    tl_particle_state p0;
    tl_energy e0;
    tl_world_get_particle(kw.w, kw.id, &p0);
    tl_world_energy(kw.w, &e0);
    s = tl_world_step(kw.w, (int64_t)llround(KH_DURATION / dt));
    if (s == TL_OK) kh_measure(kw.w, kw.id, kw.normal, &p0, &e0, out);
    else fprintf(stderr, "kh_run_api: %s\n", tl_world_error(kw.w));
    tl_world_destroy(kw.w);
    return s;
}

static void kh_print(const char *label, const kh_impact *k) {
    fprintf(stderr,
            "  %-28s e_n %.10f  e_t %.10f  omega %.6f rad/s  alpha_v %.6f deg  alpha_c %.6f deg"
            "  (contact %.4e s)\n",
            label, k->ind.e_n, k->ind.e_t, k->ind.omega_roll, k->ind.alpha_v / KH_DEG,
            k->ind.alpha_c / KH_DEG, k->duration);
}

/* ---- c. the energy ledger ---- */

static void check_energy(const char *label, const kh_impact *k) {
    const tl_energy *a = &k->e0, *b = &k->e1;
    double in = a->kinetic_translational + a->kinetic_rotational;
    /* the Mindlin spring is total-form: what its stiffness puts in at a held displacement is work
     * from outside the books (step/tangential_books.h); the integration's error is its own term */
    double put_in = b->tangential_stiffness_work - a->tangential_stiffness_work;
    double lhs = in + (a->potential - b->potential) + put_in;
    double rhs = b->kinetic_translational + b->kinetic_rotational + b->dissipated_normal +
                 b->dissipated_plastic + b->dissipated_tangential_damping + b->dissipated_friction +
                 b->integration_residual - a->integration_residual;
    double err = fabs(lhs - rhs) / in;
    fprintf(stderr,
            "  %s: in %.9e J (+ potential %.3e J, + stiffness work %.4e J) = translational %.9e + "
            "rotational %.9e + normal damping %.4e + tangential damping %.4e + friction %.4e J + "
            "residual %.3e J; error %.2e of the energy in\n",
            label, in, a->potential - b->potential, put_in, b->kinetic_translational, b->kinetic_rotational,
            b->dissipated_normal, b->dissipated_tangential_damping, b->dissipated_friction,
            b->integration_residual - a->integration_residual, err);
    /* the dashpot's own work, and friction's, only grow */
    ENSURE(b->dissipated_tangential_damping >= 0.0 && b->dissipated_friction >= 0.0);
    ENSURE(k->contacts_after == 0);
    ENSURE(fabs(b->elastic_normal) + fabs(b->elastic_tangential) < 1e-15);
    ENSURE(b->dissipated_plastic == 0.0);
    ENSURE(err < 1e-6);
}

/* ---- the example, and d. against the lab ---- */

static tl_scene *load_example(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/000-kharaz-oblique.yaml", TALUS_SOURCE_DIR);
    tl_scene *s = NULL;
    tl_scene_error err;
    if (tl_scene_load_file(path, &s, &err) != TL_OK) {
        char buf[2048];
        tl_scene_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        return NULL;
    }
    return s;
}

static double law_coeff(const tl_law_def *law, const char *name) {
    for (int i = 0; i < law->coeff_count; i++)
        if (strcmp(law->coeffs[i].name, name) == 0) return law->coeffs[i].value;
    return NAN;
}

/* The API worlds of a and b are the scene's: the same law as used, the same pair estimate. */
static void check_same_world(tl_world *scene_w) {
    kh_world kw;
    ENSURE_OK(kh_build(30.0 * KH_DEG, KH_DT, 0.0, TL_INTEGRATOR_VERLET, &kw));
    int sa = -1, sg = -1;
    ENSURE_OK(tl_world_find_material(scene_w, "alumina", &sa));
    ENSURE_OK(tl_world_find_material(scene_w, "glass", &sg));
    tl_law_def ls, la;
    ENSURE_OK(tl_world_get_law(scene_w, sa, sg, &ls));
    ENSURE_OK(tl_world_get_law(kw.w, kw.alumina, kw.glass, &la));
    ENSURE(strcmp(ls.normal, la.normal) == 0 && strcmp(ls.damping, la.damping) == 0 &&
           strcmp(ls.tangential, la.tangential) == 0 && strcmp(ls.history, la.history) == 0);
    ENSURE(ls.coulomb_test == TL_COULOMB_SPRING && la.coulomb_test == TL_COULOMB_SPRING);
    ENSURE(ls.clamp_tensile == la.clamp_tensile);
    ENSURE(law_coeff(&ls, "e") == KH_E && law_coeff(&ls, "e_t") == KH_E &&
           law_coeff(&ls, "mu") == KH_MU);
    double m = 3500.0 * M_PI / 6.0 * pow(2.0 * KH_RADIUS, 3);
    tl_pair_estimate es, ea;
    ENSURE_OK(tl_world_estimate_pair(scene_w, sa, sg, KH_RADIUS, m, INFINITY, INFINITY, KH_SPEED,
                                     &es));
    ENSURE_OK(tl_world_estimate_pair(kw.w, kw.alumina, kw.glass, KH_RADIUS, m, INFINITY, INFINITY,
                                     KH_SPEED, &ea));
    ENSURE_REL(es.stiffness, ea.stiffness, 1e-14);
    ENSURE_REL(es.damping, ea.damping, 1e-14);
    ENSURE_REL(es.tangential_stiffness, ea.tangential_stiffness, 1e-14);
    ENSURE_REL(es.contact_time, ea.contact_time, 1e-14);
    ENSURE_NEAR(tl_world_dt(scene_w), KH_DT, 0.0);
    tl_world_destroy(kw.w);
}

static void test_scene_and_lab(void) {
    tl_scene *s = load_example();
    ENSURE(s != NULL);
    if (!s) return;
    tl_world *w = tl_scene_world(s);
    ENSURE(tl_world_particle_count(w) == 1 && tl_world_wall_count(w) == 1);
    check_same_world(w);

    /* the sphere: the paper's mass 2.29e-4 kg and inertia 5.73e-10 kg m2 */
    tl_particle_state p0;
    ENSURE_OK(tl_world_get_particle(w, 1, &p0));
    ENSURE_NEAR(p0.mass, 2.29e-4, 0.005e-4);
    ENSURE_NEAR(p0.inertia, 5.73e-10, 0.005e-10);

    tl_world_log_collisions(w, true);
    tl_energy e0;
    tl_world_energy(w, &e0);
    tl_run_options o = tl_run_options_default();
    o.write_outputs = false;
    tl_run_summary sum;
    tl_status st = tl_scene_run(s, &o, &sum);
    if (st != TL_OK) fprintf(stderr, "%s\n", tl_scene_run_error(s));
    ENSURE_OK(st);
    const double theta = 30.0 * KH_DEG;
    kh_impact k;
    kh_measure(w, 1, kh_normal(theta), &p0, &e0, &k);
    ENSURE(k.collisions == 1);
    fprintf(stderr, "000 kharaz oblique (the example, 30 degrees, dt = 1e-8 s):\n");
    kh_print("scene", &k);
    fprintf(stderr,
            "  %-28s e_n %.10f  e_t %.10f  (velocities before and after the run, without the "
            "free-flight correction)\n",
            "scene, raw", k.raw.e_n, k.raw.e_t);
    fprintf(stderr, "  arrival speed %.9f m/s at t = %.6e s; separation at %.6e s\n",
            sqrt(k.v_in.x * k.v_in.x + k.v_in.y * k.v_in.y + k.v_in.z * k.v_in.z), k.t_begin,
            k.t_end);
    /* c */
    check_energy("energy (scene)", &k);

    /* d: the same collision in the lab: horizontal wall, 4 m/s at 30 degrees, no gravity */
    tl_collide_def d = tl_collide_default();
    d.material_a = kh_alumina();
    d.material_b = kh_glass();
    d.same_material = false;
    d.law = kh_law_m1();
    d.wall = true;
    d.radius_a = KH_RADIUS;
    d.speed = KH_SPEED;
    d.angle = theta;
    d.dt = KH_DT;
    tl_collide_result r;
    char err[512];
    tl_status cs = tl_collide(&d, &r, err, sizeof err);
    ENSURE_OK(cs);
    if (cs != TL_OK) {
        fprintf(stderr, "tl_collide: %s\n", err);
        tl_scene_destroy(s);
        return;
    }
    double lab[5] = {r.e_n, r.e_t, r.omega_out.y, r.alpha_v, r.alpha_c};
    double lab_scale[5] = {r.e_n, r.e_t, r.omega_out.y, r.alpha_v,
                           fmax(fabs(r.alpha_c), fabs(r.alpha_v))};
    fprintf(stderr,
            "  %-28s e_n %.10f  e_t %.10f  omega %.6f rad/s  alpha_v %.6f deg  alpha_c %.6f deg"
            "  (contact %.4e s)\n",
            "lab (tl_collide)", r.e_n, r.e_t, r.omega_out.y, r.alpha_v / KH_DEG,
            r.alpha_c / KH_DEG, r.duration);
    for (int i = 0; i < KH_NIND; i++) {
        double sc = kh_ind(&k.ind, i), rel = fabs(sc - lab[i]) / lab_scale[i];
        double raw = fabs(kh_ind(&k.raw, i) - lab[i]) / lab_scale[i];
        fprintf(stderr, "  scene - lab, %-8s %+.4e (relative %.2e; raw velocities %.2e)\n",
                kh_ind_name(i), sc - lab[i], rel, raw);
        ENSURE(rel < 1e-3);
    }
    ENSURE_REL(k.duration, r.duration, 1e-3);
    tl_collide_result_free(&r);
    tl_scene_destroy(s);
}

/* ---- a. the same impact anywhere on the anvil ---- */

static void test_position_independence(void) {
    const double shifts[3] = {0.0, 7.3e-3, 21e-3};
    const double thetas[2] = {10.0, 20.0};
    fprintf(stderr, "a. the impact at three points down the slope (dt = 1e-8 s):\n");
    for (int a = 0; a < 2; a++) {
        kh_impact k[3];
        for (int i = 0; i < 3; i++) {
            ENSURE_OK(
                kh_run_api(thetas[a] * KH_DEG, KH_DT, shifts[i], TL_INTEGRATOR_VERLET, &k[i]));
            char label[64];
            snprintf(label, sizeof label, "%.0f deg, %.1f mm down", thetas[a], shifts[i] * 1e3);
            kh_print(label, &k[i]);
            ENSURE(k[i].collisions == 1);
        }
        for (int j = 0; j < KH_NIND; j++) {
            double ref = kh_ind(&k[0].ind, j), worst = 0.0;
            for (int i = 1; i < 3; i++)
                worst = fmax(worst, fabs(kh_ind(&k[i].ind, j) - ref) / kh_scale(&k[0].ind, j));
            fprintf(stderr, "  %.0f deg, %-8s largest relative difference %.2e\n", thetas[a],
                    kh_ind_name(j), worst);
            ENSURE(worst < 1e-9);
        }
        /* c, in the sticking regime too */
        char label[64];
        snprintf(label, sizeof label, "energy (%.0f deg)", thetas[a]);
        check_energy(label, &k[0]);
    }
}

/* ---- b. convergence in dt ----
 *
 * The sticking regime at dt = 1e-8, 5e-9, 2.5e-9 s with both integrators:
 * the tangential spring takes the displacement of the step's drift (the
 * half-step velocity), the dashpots the predicted velocity. At 1e-8 s the
 * impact is converged to about 1e-6 (what is left is the phase of the first
 * touch within a step, which no longer decreases steadily), and the two
 * schemes agree. (Before the history took the drift displacement, Verlet
 * converged at first order here: 1.4e-3 off in omega at 10 degrees.) */

static const char *kh_scheme_name(tl_integrator s) {
    return s == TL_INTEGRATOR_LEAPFROG ? "leapfrog" : "verlet";
}

static void test_convergence(void) {
    const double dts[3] = {1e-8, 5e-9, 2.5e-9};
    const double thetas[2] = {10.0, 20.0};
    const tl_integrator schemes[2] = {TL_INTEGRATOR_VERLET, TL_INTEGRATOR_LEAPFROG};
    fprintf(stderr, "b. the impact as dt -> 0:\n");
    for (int a = 0; a < 2; a++) {
        kh_impact k[2][3];
        for (int sc = 0; sc < 2; sc++) {
            for (int i = 0; i < 3; i++) {
                ENSURE_OK(kh_run_api(thetas[a] * KH_DEG, dts[i], 0.0, schemes[sc], &k[sc][i]));
                char label[64];
                snprintf(label, sizeof label, "%.0f deg, %s, dt = %.2g s", thetas[a],
                         kh_scheme_name(schemes[sc]), dts[i]);
                kh_print(label, &k[sc][i]);
                /* e_n: the tsuji dashpot gives e exactly; what is left is the touch phase */
                ENSURE(fabs(k[sc][i].ind.e_n - KH_E) < 5e-6);
            }
        }
        for (int sc = 0; sc < 2; sc++) {
            for (int j = 1; j < KH_NIND; j++) {
                double x0 = kh_ind(&k[sc][0].ind, j), x1 = kh_ind(&k[sc][1].ind, j);
                double x2 = kh_ind(&k[sc][2].ind, j), scale = kh_scale(&k[sc][2].ind, j);
                double d1 = fabs(x0 - x1), d2 = fabs(x1 - x2), rel = fabs(x0 - x2) / scale;
                fprintf(stderr,
                        "  %.0f deg, %-8s %-8s |1e-8 - 5e-9| %.3e  |5e-9 - 2.5e-9| %.3e  ratio "
                        "%6.2f;  1e-8 vs 2.5e-9: %.2e relative\n",
                        thetas[a], kh_scheme_name(schemes[sc]), kh_ind_name(j), d1, d2, d1 / d2,
                        rel);
                /* converged at 1e-8 s: what is left is the phase of the first touch
                 * within a step, about 1e-6 and no longer decreasing steadily */
                (void)d1;
                (void)d2;
                ENSURE(rel < 5e-5);
            }
        }
        /* both schemes meet at the same answer */
        for (int j = 1; j < KH_NIND; j++) {
            double vv = kh_ind(&k[0][0].ind, j), lf = kh_ind(&k[1][0].ind, j);
            double scale = kh_scale(&k[1][0].ind, j);
            fprintf(stderr, "  %.0f deg, %-8s verlet %.9g, leapfrog %.9g at 1e-8 s: %.2e relative\n",
                    thetas[a], kh_ind_name(j), vv, lf, fabs(vv - lf) / scale);
            ENSURE(fabs(vv - lf) <= 5e-5 * scale);
        }
    }
}

int main(void) {
    test_scene_and_lab();
    test_position_independence();
    test_convergence();
    return tl_test_report("test_kharaz_scene");
}
