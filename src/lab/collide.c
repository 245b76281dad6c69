/*
 * The collision lab (include/talus/lab.h): one collision of two bodies, run by
 * an ordinary world built through the public API, and measured.
 *
 *   geometry   b at the origin (a sphere at rest, or the plane z = 0 with normal
 *              +z); a arrives with v_in = speed (sin angle, 0, -cos angle) and is
 *              placed so that it first touches b, with the contact normal n = +z,
 *              LAB_TOUCH_STEPS steps after t = 0. No gravity.
 *   time step  def.dt, or the law's elastic contact time for this pair at the
 *              normal impact speed (tl_world_estimate_pair) / steps_per_contact.
 *   run        step by step until the contact has started and ended (guarded by
 *              LAB_GUARD_CONTACTS contact times), then LAB_STEPS_AFTER steps so
 *              that the collision log and the energy ledger are complete.
 *   measures   Li et al. 2022 eq. 20-23 (restitution, rebound angles, Maw's psi,
 *              energies) with n = +z and t = +x, the duration and peaks from the
 *              collision log, and the dissipation split of tl_world_energy.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"

#define LAB_PI 3.14159265358979323846
#define LAB_TOUCH_STEPS 3.37     /* a first touches b this many steps after t = 0 */
#define LAB_GUARD_CONTACTS 50.0  /* give up after this many elastic contact times */
#define LAB_GUARD_STEPS 2.0e7    /* and never run more steps than this */
#define LAB_STEPS_AFTER 2        /* the log and the ledger complete one step after separation */

/* ---- small vector helpers on tl_vec3 ---- */

static tl_vec3 vec(double x, double y, double z) { return (tl_vec3){x, y, z}; }
static tl_vec3 vsub(tl_vec3 a, tl_vec3 b) { return vec(a.x - b.x, a.y - b.y, a.z - b.z); }
static tl_vec3 vscale(tl_vec3 a, double s) { return vec(s * a.x, s * a.y, s * a.z); }
static double vdot(tl_vec3 a, tl_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* the lab frame: n from b to a at first touch, t along the incoming tangential velocity,
 * s = n x t across it */
static const tl_vec3 LAB_N = {0.0, 0.0, 1.0};
static const tl_vec3 LAB_T = {1.0, 0.0, 0.0};
static const tl_vec3 LAB_S = {0.0, 1.0, 0.0};

static tl_status lab_fail(char *err, size_t size, tl_status status, const char *fmt, ...) {
    if (err && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
    }
    return status;
}

tl_collide_def tl_collide_default(void) {
    tl_collide_def d;
    memset(&d, 0, sizeof d);
    d.material_a = tl_material_default();
    d.material_b = tl_material_default();
    d.same_material = true;
    d.law = tl_law_default();
    d.wall = false;
    d.radius_a = d.radius_b = 0.01;
    d.speed = 1.0;
    d.angle = 0.0;
    d.steps_per_contact = 1000.0;
    d.dt = 0.0;
    d.integrator = TL_INTEGRATOR_VERLET;
    d.contact_boundary_correction = true;
    d.record = false;
    return d;
}

void tl_collide_result_free(tl_collide_result *r) {
    if (!r) return;
    free(r->samples);
    r->samples = NULL;
    r->nsamples = 0;
}

/* ---- the world ---- */

typedef struct lab {
    tl_world *w;
    int ma, mb;           /* materials of a and of b (the wall's for a wall) */
    uint32_t ida, idb;    /* particle ids (idb unused for a wall) */
    double mass_a, mass_b;/* kg; mass_b = INFINITY for a wall */
    double vn;            /* normal impact speed, m/s */
    double dt;            /* s; 0 = not to be stepped */
    double t_touch;       /* s, when a first touches b */
    tl_vec3 v_in;         /* m/s */
    int shape_a;          /* a's shape (TL_SPHERE: the sphere of radius_a) */
    double reach_a;       /* a's bounding radius, m */
} lab;

static const tl_material_def *material_b_of(const tl_collide_def *d) {
    return d->same_material ? &d->material_a : &d->material_b;
}

static double sphere_mass(const tl_material_def *m, double radius, double given) {
    return given > 0.0 ? given : m->density * 4.0 / 3.0 * LAB_PI * radius * radius * radius;
}

static tl_status validate(const tl_collide_def *d, char *err, size_t n) {
    if (!(d->radius_a > 0.0) || !isfinite(d->radius_a) ||
        (!d->wall && (!(d->radius_b > 0.0) || !isfinite(d->radius_b))))
        return lab_fail(err, n, TL_ERROR_ARGUMENT, "the radii must be > 0 m");
    if (!(d->speed > 0.0) || !isfinite(d->speed))
        return lab_fail(err, n, TL_ERROR_ARGUMENT, "the impact speed must be > 0 m/s, got %g",
                        d->speed);
    if (!(d->angle >= 0.0 && d->angle < 0.5 * LAB_PI))
        return lab_fail(err, n, TL_ERROR_ARGUMENT,
                        "the impact angle must be in 0 <= angle < 90 degrees, got %g degrees",
                        d->angle * 180.0 / LAB_PI);
    if (!(d->dt >= 0.0) || !isfinite(d->dt))
        return lab_fail(err, n, TL_ERROR_ARGUMENT, "dt must be >= 0 s (0 = automatic), got %g",
                        d->dt);
    if (d->dt == 0.0 && (!(d->steps_per_contact >= 1.0) || !isfinite(d->steps_per_contact)))
        return lab_fail(err, n, TL_ERROR_ARGUMENT, "steps per contact must be >= 1, got %g",
                        d->steps_per_contact);
    if (!(d->mass_a >= 0.0) || !(d->mass_b >= 0.0) || !isfinite(d->mass_a) || !isfinite(d->mass_b))
        return lab_fail(err, n, TL_ERROR_ARGUMENT, "the masses must be > 0 kg (0 = from the density)");
    double ma = sphere_mass(&d->material_a, d->radius_a, d->mass_a);
    double mb = d->wall ? 1.0 : sphere_mass(material_b_of(d), d->radius_b, d->mass_b);
    if (d->shape_a.kind != TL_SHAPE_SPHERE && d->mass_a == 0.0 && !(d->material_a.density > 0.0))
        return lab_fail(err, n, TL_ERROR_ARGUMENT, "a shaped body needs a mass: give the material's density or the mass");
    if (d->anvil_xyz && (!d->wall || !d->anvil_triangles || d->anvil_vertex_count < 3 || d->anvil_triangle_count < 1))
        return lab_fail(err, n, TL_ERROR_ARGUMENT, "a triangulated anvil needs a wall, vertices and facets");
    if (d->shape_a.kind != TL_SHAPE_SPHERE) ma = 1.0; /* a shape's mass: from its volume, later */
    if (!(ma > 0.0) || !(mb > 0.0))
        return lab_fail(err, n, TL_ERROR_ARGUMENT,
                        "a sphere needs a mass: give the material's density or the mass");
    return TL_OK;
}

static tl_status world_fail(lab *lb, tl_status s, char *err, size_t n) {
    return lab_fail(err, n, s, "%s", tl_world_error(lb->w));
}

static tl_status add_materials(const tl_collide_def *d, lab *lb, char *err, size_t n) {
    tl_material_def ma = d->material_a;
    if (!ma.name) ma.name = "a";
    tl_status s = tl_world_add_material(lb->w, &ma, &lb->ma);
    if (s != TL_OK) return world_fail(lb, s, err, n);
    lb->mb = lb->ma;
    if (d->same_material) return TL_OK;
    tl_material_def mb = d->material_b;
    if (!mb.name) mb.name = d->wall ? "wall" : "b";
    s = tl_world_add_material(lb->w, &mb, &lb->mb);
    return s == TL_OK ? TL_OK : world_fail(lb, s, err, n);
}

/* every pair of materials that can meet needs the law, the pair a-a included */
static tl_status set_laws(const tl_collide_def *d, lab *lb, char *err, size_t n) {
    tl_status s = tl_world_set_law(lb->w, lb->ma, lb->mb, &d->law);
    if (s == TL_OK && lb->mb != lb->ma) s = tl_world_set_law(lb->w, lb->ma, lb->ma, &d->law);
    if (s == TL_OK && lb->mb != lb->ma && !d->wall) s = tl_world_set_law(lb->w, lb->mb, lb->mb, &d->law);
    return s == TL_OK ? TL_OK : world_fail(lb, s, err, n);
}

/* A world with the materials and the law, no bodies yet. dt = 0: not to be stepped. */
static tl_status lab_create(const tl_collide_def *d, double dt, lab *lb, char *err, size_t n) {
    memset(lb, 0, sizeof *lb);
    lb->v_in = vec(d->speed * sin(d->angle), 0.0, -d->speed * cos(d->angle));
    lb->vn = d->speed * cos(d->angle);
    lb->dt = dt;
    lb->mass_a = sphere_mass(&d->material_a, d->radius_a, d->mass_a);
    lb->mass_b = d->wall ? INFINITY : sphere_mass(material_b_of(d), d->radius_b, d->mass_b);
    tl_world_def wd = tl_world_default();
    wd.blowup_overlap = 0.0; /* a collision measured to any depth: the overlap is a result here */
    wd.dt = dt;
    wd.steps_per_contact = d->steps_per_contact >= 1.0 ? d->steps_per_contact : 1.0;
    wd.impact_speed = lb->vn;
    /* the lab chooses dt for this pair itself; the world's own bound pairs the smallest
     * bodies of each material, stricter than needed for two spheres of different sizes */
    wd.allow_unresolved_contacts = true;
    wd.integrator = d->integrator;
    wd.contact_boundary_correction = d->contact_boundary_correction;
    tl_status s = tl_world_create(&wd, &lb->w);
    if (s != TL_OK) {
        s = world_fail(lb, s, err, n);
        tl_world_destroy(lb->w);
        lb->w = NULL;
        return s;
    }
    s = add_materials(d, lb, err, n);
    if (s == TL_OK) s = set_laws(d, lb, err, n);
    lb->shape_a = TL_SPHERE;
    lb->reach_a = d->radius_a;
    if (s == TL_OK && d->shape_a.kind != TL_SHAPE_SPHERE) {
        tl_shape_def sd = d->shape_a;
        if (!sd.name) sd.name = "a";
        tl_shape_info si;
        s = tl_world_add_shape(lb->w, &sd, &lb->shape_a);
        if (s == TL_OK) s = tl_world_get_shape(lb->w, lb->shape_a, &si);
        if (s != TL_OK) s = world_fail(lb, s, err, n);
        else {
            lb->reach_a = si.radius;
            lb->mass_a = d->mass_a > 0.0 ? d->mass_a : d->material_a.density * si.volume;
        }
    }
    if (s != TL_OK) {
        tl_world_destroy(lb->w);
        lb->w = NULL;
    }
    return s;
}

static tl_status add_bodies(const tl_collide_def *d, lab *lb, char *err, size_t n) {
    /* a world not to be stepped (dt = 0) only serves the estimate: a waits far away */
    lb->t_touch = lb->dt > 0.0 ? LAB_TOUCH_STEPS * lb->dt : 1.0;
    double reach = lb->reach_a + (d->wall ? 0.0 : d->radius_b);
    tl_particle_def pa = tl_particle_default();
    pa.material = lb->ma;
    pa.radius = d->radius_a;
    pa.shape = lb->shape_a;
    pa.orientation = d->orientation_a;
    pa.mass = d->mass_a;
    pa.position = vsub(vec(0.0, 0.0, reach), vscale(lb->v_in, lb->t_touch));
    pa.velocity = lb->v_in;
    pa.angular_velocity = d->spin_a;
    tl_status s = tl_world_add_particle(lb->w, &pa, &lb->ida);
    if (s != TL_OK) return world_fail(lb, s, err, n);
    if (d->wall) {
        tl_wall_def wl = tl_wall_default();
        wl.name = "anvil";
        wl.kind = TL_WALL_PLANE;
        wl.material = lb->mb;
        wl.point = vec(0.0, 0.0, 0.0);
        wl.normal = LAB_N;
        if (d->anvil_xyz) {
            wl.kind = TL_WALL_MESH;
            wl.mesh_xyz = d->anvil_xyz;
            wl.mesh_vertex_count = d->anvil_vertex_count;
            wl.mesh_triangles = d->anvil_triangles;
            wl.mesh_triangle_count = d->anvil_triangle_count;
        }
        s = tl_world_add_wall(lb->w, &wl, NULL);
    } else {
        tl_particle_def pb = tl_particle_default();
        pb.material = lb->mb;
        pb.radius = d->radius_b;
        pb.mass = d->mass_b;
        pb.angular_velocity = d->spin_b;
        s = tl_world_add_particle(lb->w, &pb, &lb->idb);
    }
    return s == TL_OK ? TL_OK : world_fail(lb, s, err, n);
}

static tl_status estimate(const tl_collide_def *d, lab *lb, tl_pair_estimate *est, char *err,
                          size_t n) {
    double rb = d->wall ? INFINITY : d->radius_b;
    tl_status s = tl_world_estimate_pair(lb->w, lb->ma, lb->mb, d->radius_a, lb->mass_a, rb,
                                         lb->mass_b, lb->vn, est);
    return s == TL_OK ? TL_OK : world_fail(lb, s, err, n);
}

/* Builds the world to run: the step from the contact-time estimate unless given. The
 * estimate is taken from a prepared world (the pair's constants derived). */
static tl_status lab_build(const tl_collide_def *d, lab *lb, tl_pair_estimate *est, char *err,
                           size_t n) {
    tl_status s = lab_create(d, d->dt, lb, err, n);
    if (s != TL_OK) return s;
    s = add_bodies(d, lb, err, n);
    if (s == TL_OK) {
        s = tl_world_prepare(lb->w);
        if (s != TL_OK) s = world_fail(lb, s, err, n);
    }
    if (s == TL_OK) s = estimate(d, lb, est, err, n);
    if (s == TL_OK && d->dt == 0.0) {
        double dt = est->contact_time / d->steps_per_contact;
        tl_world_destroy(lb->w);
        lb->w = NULL;
        if (!(dt > 0.0) || !isfinite(dt))
            return lab_fail(err, n, TL_ERROR_ARGUMENT,
                            "the law gives no finite contact time for this pair at %g m/s (%g s): "
                            "give the time step dt",
                            lb->vn, est->contact_time);
        s = lab_create(d, dt, lb, err, n);
        if (s != TL_OK) return s;
        s = add_bodies(d, lb, err, n);
    }
    if (s != TL_OK) {
        tl_world_destroy(lb->w);
        lb->w = NULL;
    }
    return s;
}

/* ---- running ---- */

typedef struct body_states {
    tl_particle_state a, b; /* b zero for a wall */
} body_states;

static void get_states(const lab *lb, bool wall, body_states *bs) {
    memset(bs, 0, sizeof *bs);
    tl_world_get_particle(lb->w, lb->ida, &bs->a);
    if (!wall) tl_world_get_particle(lb->w, lb->idb, &bs->b);
}

static tl_status push_sample(tl_collide_result *r, size_t *cap, const tl_collide_sample *smp) {
    if (r->nsamples == *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        tl_collide_sample *ns = realloc(r->samples, nc * sizeof *ns);
        if (!ns) return TL_ERROR_MEMORY;
        r->samples = ns;
        *cap = nc;
    }
    r->samples[r->nsamples++] = *smp;
    return TL_OK;
}

/* one row of the time series; t is absolute here, shifted to the first touch later */
static void take_sample(const lab *lb, bool wall, tl_collide_sample *smp) {
    tl_contact_info ci;
    memset(smp, 0, sizeof *smp);
    if (tl_world_get_contact(lb->w, 0, &ci) != TL_OK) return;
    /* the contact's a may be the lab's b: then its normal and force are the other way */
    double sign = (!ci.with_wall && ci.id_a != lb->ida) ? 1.0 : -1.0;
    tl_vec3 n = vscale(ci.normal, sign);           /* from b to a */
    tl_vec3 ft = vscale(ci.tangential_force, -sign); /* on a */
    body_states bs;
    get_states(lb, wall, &bs);
    smp->t = tl_world_time(lb->w);
    smp->overlap = ci.overlap;
    smp->overlap_rate = -vdot(vsub(bs.a.velocity, bs.b.velocity), n);
    smp->fn = ci.normal_force;
    smp->fn_damping = ci.normal_damping_force;
    smp->fn_elastic = ci.normal_force - ci.normal_damping_force;
    smp->ft = vdot(ft, LAB_T);
    smp->ft_normal = vdot(ft, LAB_S);
}

static tl_status step_once(lab *lb, char *err, size_t n) {
    tl_status s = tl_world_step(lb->w, 1);
    return s == TL_OK ? TL_OK : world_fail(lb, s, err, n);
}

/* Steps until the contact has started and ended; records the samples. */
static tl_status run_contact(const tl_collide_def *d, lab *lb, double t_contact,
                             tl_collide_result *r, char *err, size_t n) {
    double dt = lb->dt;
    double guard = ceil(LAB_TOUCH_STEPS) + 2.0 + LAB_GUARD_CONTACTS * t_contact / dt;
    if (!(guard <= LAB_GUARD_STEPS)) guard = LAB_GUARD_STEPS;
    size_t cap = 0;
    bool started = false;
    for (int64_t k = 0; k < (int64_t)guard; k++) {
        tl_status s = step_once(lb, err, n);
        if (s != TL_OK) return s;
        if (tl_world_contact_count(lb->w) == 0) {
            if (started) return TL_OK;
            continue;
        }
        started = true;
        if (!d->record) continue;
        tl_collide_sample smp;
        take_sample(lb, d->wall, &smp);
        if (push_sample(r, &cap, &smp) != TL_OK)
            return lab_fail(err, n, TL_ERROR_MEMORY, "out of memory (time series)");
    }
    if (!started)
        return lab_fail(err, n, TL_ERROR_STATE, "the bodies never touched within %.0f steps", guard);
    return lab_fail(err, n, TL_ERROR_STATE,
                    "the bodies did not separate within %.0f steps (%g s, %g elastic contact times "
                    "of %.4g s): the collision is over-damped or the bodies stick (restitution "
                    "near zero?)",
                    guard, guard * dt, LAB_GUARD_CONTACTS, t_contact);
}

/* ---- measuring ---- */

/* the friction coefficient of the law as it is used; NAN without one */
static double mu_of(const lab *lb) {
    tl_law_def law;
    if (tl_world_get_law(lb->w, lb->ma, lb->mb, &law) != TL_OK) return NAN;
    for (int i = 0; i < law.coeff_count; i++)
        if (strcmp(law.coeffs[i].name, "mu") == 0) return law.coeffs[i].value;
    return NAN;
}

static void measure_kinematics(const tl_collide_def *d, const lab *lb, tl_collide_result *r) {
    body_states bs;
    get_states(lb, d->wall, &bs);
    tl_impact_input in;
    memset(&in, 0, sizeof in);
    in.normal = LAB_N;
    in.v_in = lb->v_in;
    in.v_out = vsub(bs.a.velocity, bs.b.velocity);
    in.omega_in = d->spin_a;
    in.omega_out = bs.a.angular_velocity;
    in.omega_b_in = d->wall ? vec(0, 0, 0) : d->spin_b;
    in.omega_b_out = bs.b.angular_velocity;
    in.radius_a = d->radius_a;
    in.radius_b = d->wall ? INFINITY : d->radius_b;
    in.mass_a = bs.a.mass;
    in.inertia_a = bs.a.inertia;
    in.kappa = tl_kappa(&d->material_a, material_b_of(d));
    in.mu = mu_of(lb);
    tl_impact_indicators ind;
    tl_impact_measure(&in, &ind);
    r->v_in = in.v_in;
    r->v_out = in.v_out;
    r->omega_out = bs.a.angular_velocity;
    r->omega_out_b = bs.b.angular_velocity;
    r->e_n = ind.e_n;
    r->e_t = ind.e_t;
    r->vc_out = ind.vc_out;
    r->alpha_v = ind.alpha_v;
    r->alpha_c = ind.alpha_c;
    r->kappa = in.kappa;
    r->psi1 = ind.psi1;
    r->psi2 = ind.psi2;
}

static void measure_energy(const lab *lb, double energy_in, tl_collide_result *r) {
    tl_energy e;
    tl_world_energy(lb->w, &e);
    r->energy_in = energy_in;
    r->energy_out_translational = e.kinetic_translational;
    r->energy_out_rotational = e.kinetic_rotational;
    r->diss_normal = e.dissipated_normal;
    r->diss_plastic = e.dissipated_plastic;
    r->diss_tangential_damping = e.dissipated_tangential_damping;
    r->diss_friction = e.dissipated_friction;
    r->integration_residual = e.integration_residual;
    /* what came in, plus the work put in from outside the books, less every booked and stored term
     * (laws/energy_table.c, in its order; the lab has no potential energy of its own) */
    double err = energy_in;
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++)
        if (tl_energy_term_get(k)->sign < 0) err += e.term[k];
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) {
        const tl_energy_term_info *ti = tl_energy_term_get(k);
        if (ti->sign > 0 && ti->kind != TL_ENERGY_KIND_POTENTIAL) err -= e.term[k];
    }
    r->energy_error = err;
    r->energy = e;
}

/* the first logged collision; the time series is shifted to its first touch */
static tl_status measure_log(lab *lb, tl_collide_result *r, char *err, size_t n) {
    for (int k = 0; k < 4 && tl_world_collision_count(lb->w) == 0; k++) {
        tl_status s = step_once(lb, err, n);
        if (s != TL_OK) return s;
    }
    if (tl_world_collision_count(lb->w) == 0)
        return lab_fail(err, n, TL_ERROR_STATE, "the collision was not logged");
    const tl_collision *c = tl_world_collisions(lb->w);
    r->duration = c[0].t_end - c[0].t_begin;
    r->max_overlap = c[0].max_overlap;
    r->max_normal_force = c[0].max_normal_force;
    for (size_t i = 0; i < r->nsamples; i++) r->samples[i].t -= c[0].t_begin;
    return TL_OK;
}

static tl_status collide_in(const tl_collide_def *d, lab *lb, double t_contact,
                            tl_collide_result *out, char *err, size_t n) {
    tl_energy e0;
    tl_world_energy(lb->w, &e0);
    double energy_in = e0.kinetic_translational + e0.kinetic_rotational;
    tl_world_log_collisions(lb->w, true);
    tl_status s = run_contact(d, lb, t_contact, out, err, n);
    for (int k = 0; s == TL_OK && k < LAB_STEPS_AFTER; k++) s = step_once(lb, err, n);
    if (s == TL_OK) s = measure_log(lb, out, err, n);
    if (s != TL_OK) return s;
    measure_kinematics(d, lb, out);
    measure_energy(lb, energy_in, out);
    out->dt = tl_world_dt(lb->w);
    out->steps = tl_world_step_count(lb->w);
    return TL_OK;
}

tl_status tl_collide(const tl_collide_def *def, tl_collide_result *out, char *err,
                     size_t err_size) {
    if (err && err_size) err[0] = '\0';
    if (!def || !out) return lab_fail(err, err_size, TL_ERROR_ARGUMENT, "no definition or result");
    memset(out, 0, sizeof *out);
    tl_status s = validate(def, err, err_size);
    if (s != TL_OK) return s;
    lab lb;
    tl_pair_estimate est;
    s = lab_build(def, &lb, &est, err, err_size);
    if (s != TL_OK) return s;
    s = collide_in(def, &lb, est.contact_time, out, err, err_size);
    tl_world_destroy(lb.w);
    if (s != TL_OK) tl_collide_result_free(out);
    return s;
}
