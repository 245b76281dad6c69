/* Periodic boundaries:
 *   (a) a head-on collision across the x boundary has the restitution and
 *       duration of the same collision in the middle of the domain;
 *   (b) a sphere rolling down a tilted floor across the x boundary many times
 *       follows the non-periodic trajectory, its floor contact keeping its
 *       tangential history through every wrap;
 *   (c) a pair touching across the boundary keeps its tangential spring
 *       through the wrap;
 *   (d) positions are wrapped into [min, max) at every rebuild and particles
 *       are never removed along periodic axes;
 *   (e) the energy balance of an inclined periodic chute closes (the wrap books
 *       the potential jump as boundary work);
 *   (f) a period shorter than twice the interaction range is refused with a
 *       message that names the axis and the numbers.
 * Reaches into src/ (world.h) to read the neighbor skin and the image codes. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"
#include "world_probe.h"

static const double PI = 3.14159265358979323846;

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}
static double urand(uint64_t *s) { return (double)lcg(s) * 0x1.0p-53; }

typedef struct setup {
    tl_world *w;
    int mat;
} setup;

/* A world with one material (E, nu 0.3, 2500 kg/m3) and hertz + tsuji + mindlin. */
static setup make_world(const tl_world_def *wd, double E, double e, double mu) {
    setup s;
    s.w = NULL;
    s.mat = -1;
    if (tl_world_create(wd, &s.w) != TL_OK) {
        fprintf(stderr, "create: %s\n", tl_world_error(s.w));
        return s;
    }
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = 2500;
    md.youngs_modulus = E;
    md.poisson_ratio = 0.3;
    tl_world_add_material(s.w, &md, &s.mat);
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", e);
    tl_law_set(&law, "mu", mu);
    tl_world_set_law(s.w, s.mat, s.mat, &law);
    return s;
}

static uint32_t add_sphere(setup *s, double r, tl_vec3 x, tl_vec3 v, tl_vec3 om, unsigned flags) {
    tl_particle_def pd = tl_particle_default();
    pd.material = s->mat;
    pd.radius = r;
    pd.position = x;
    pd.velocity = v;
    pd.angular_velocity = om;
    pd.flags = flags;
    uint32_t id = 0;
    tl_world_add_particle(s->w, &pd, &id);
    return id;
}

static void add_plane(setup *s, tl_vec3 point, tl_vec3 normal) {
    tl_wall_def wl = tl_wall_default();
    wl.kind = TL_WALL_PLANE;
    wl.material = s->mat;
    wl.point = point;
    wl.normal = normal;
    tl_world_add_wall(s->w, &wl, NULL);
}

/* ---- (a) a head-on collision across the boundary ---- */

typedef struct collision_out {
    double restitution, duration, max_overlap, max_force;
    int wraps_in_contact; /* steps at which a's centre jumped back by a period while touching */
    int images;           /* steps whose touching pair was found in a shifted image */
    size_t logged;
} collision_out;

static const double A_R = 0.005, A_L = 0.05, A_GAP = 0.001, A_DRIFT = 0.3, A_V = 0.5;

static collision_out head_on(double xa) {
    collision_out o;
    memset(&o, 0, sizeof o);
    tl_world_def wd = tl_world_default();
    wd.dt = 5e-5;
    wd.has_domain = true;
    wd.domain_min = (tl_vec3){0, -0.05, -0.05};
    wd.domain_max = (tl_vec3){A_L, 0.05, 0.05};
    wd.periodic[0] = true;
    setup s = make_world(&wd, 1e6, 0.6, 0.5);
    /* a moves +x, b -x, both drifting +x; touching after a gap of 1 mm, b at the right of a
     * (in a's image) */
    double xb = xa + 2.0 * A_R + A_GAP;
    if (xb >= A_L) xb -= A_L;
    uint32_t ia = add_sphere(&s, A_R, (tl_vec3){xa, 0.001, 0}, (tl_vec3){A_DRIFT + A_V, 0, 0},
                             (tl_vec3){0, 0, 0}, 0);
    add_sphere(&s, A_R, (tl_vec3){xb, 0.001, 0}, (tl_vec3){A_DRIFT - A_V, 0, 0}, (tl_vec3){0, 0, 0}, 0);
    tl_world_log_collisions(s.w, true);
    if (tl_world_prepare(s.w) != TL_OK) {
        fprintf(stderr, "head-on: %s\n", tl_world_error(s.w));
        tl_world_destroy(s.w);
        return o;
    }
    double x_prev = xa;
    for (int k = 0; k < 400 && tl_world_collision_count(s.w) == 0; k++) {
        if (tl_world_step(s.w, 1) != TL_OK) break;
        tl_particle_state pa;
        tl_world_get_particle(s.w, ia, &pa);
        bool touching = tl_world_contact_count(s.w) > 0;
        if (touching && pa.position.x < x_prev - 0.5 * A_L) o.wraps_in_contact++;
        x_prev = pa.position.x;
        if (touching && tl_probe_parts_of(s.w).pp->count > 0) {
            for (size_t c = 0; c < tl_probe_parts_of(s.w).pp->count; c++)
                if ((tl_probe_parts_of(s.w).pp->state[c] & TL_PAIR_TOUCH) && tl_probe_parts_of(s.w).pp->img[c] != TL_IMAGE_NONE) o.images++;
        }
    }
    o.logged = tl_world_collision_count(s.w);
    if (o.logged > 0) {
        const tl_collision *c = tl_world_collisions(s.w);
        o.restitution = c[0].restitution;
        o.duration = c[0].t_end - c[0].t_begin;
        o.max_overlap = c[0].max_overlap;
        o.max_force = c[0].max_normal_force;
    }
    tl_world_destroy(s.w);
    return o;
}

static void test_head_on(void) {
    /* across: a's centre 1.5 mm below the top of the period (its sphere sticks out),
     * b's 9.5 mm above the bottom; a crosses the boundary while they touch */
    collision_out across = head_on(A_L - 0.0015);
    collision_out middle = head_on(0.02);
    fprintf(stderr,
            "head-on across the boundary: e = %.15f, duration %.9e s, max overlap %.6e m "
            "(%d wraps and %d shifted-image steps in contact)\n",
            across.restitution, across.duration, across.max_overlap, across.wraps_in_contact,
            across.images);
    fprintf(stderr, "head-on in the middle:       e = %.15f, duration %.9e s, max overlap %.6e m\n",
            middle.restitution, middle.duration, middle.max_overlap);
    ENSURE(across.logged == 1 && middle.logged == 1);
    ENSURE(across.wraps_in_contact == 1); /* the wrap happened during the contact */
    ENSURE(across.images > 10);
    ENSURE(middle.images == 0);
    ENSURE(across.restitution > 0.5 && across.restitution < 0.7);
    ENSURE_REL(across.restitution, middle.restitution, 1e-12);
    ENSURE_REL(across.duration, middle.duration, 1e-12);
    ENSURE_REL(across.max_overlap, middle.max_overlap, 1e-12);
    ENSURE_REL(across.max_force, middle.max_force, 1e-12);
}

/* ---- (b) rolling down a tilted floor across the boundary ---- */

typedef struct roll_sample {
    double x, y, z, v[3], w[3], ft[3], hist[3];
    bool contact;
    bool wrapped; /* the position was wrapped in this step */
} roll_sample;

static const double B_R = 0.003, B_L = 0.015, B_DT = 1e-5, B_TILT = 10.0 * PI / 180.0;
#define B_STEPS 30000

static int roll(bool periodic, roll_sample *out, int *wraps, int *builds) {
    tl_world_def wd = tl_world_default();
    wd.dt = B_DT;
    const double g = 9.81;
    wd.gravity = (tl_vec3){g * sin(B_TILT), 0, -g * cos(B_TILT)};
    if (periodic) {
        wd.has_domain = true;
        wd.domain_min = (tl_vec3){0, -0.05, -0.05};
        wd.domain_max = (tl_vec3){B_L, 0.05, 0.1};
        wd.periodic[0] = true;
    }
    setup s = make_world(&wd, 1e6, 0.5, 0.5);
    add_plane(&s, (tl_vec3){0, 0, 0}, (tl_vec3){0, 0, 1});
    /* resting on the floor at the static overlap, sliding forwards without spin: it
     * slides, then rolls (mu > 2/7 tan(tilt)) */
    double m = 2500.0 * 4.0 / 3.0 * PI * B_R * B_R * B_R;
    double E_star = 1e6 / (2.0 * (1.0 - 0.09));
    double K = 4.0 / 3.0 * E_star * sqrt(B_R);
    double d0 = pow(m * g * cos(B_TILT) / K, 2.0 / 3.0);
    uint32_t id = add_sphere(&s, B_R, (tl_vec3){0.01, 0.0, B_R - d0}, (tl_vec3){0.5, 0.04, 0},
                             (tl_vec3){0, 0, 0}, 0);
    if (tl_world_prepare(s.w) != TL_OK) {
        fprintf(stderr, "roll: %s\n", tl_world_error(s.w));
        tl_world_destroy(s.w);
        return -1;
    }
    double prev = 0.01, shift = 0.0;
    *wraps = 0;
    for (int k = 0; k < B_STEPS; k++) {
        if (tl_world_step(s.w, 1) != TL_OK) return -1;
        tl_particle_state p;
        tl_world_get_particle(s.w, id, &p);
        roll_sample *o = &out[k];
        o->wrapped = p.position.x < prev - 0.5 * B_L;
        if (o->wrapped) {
            shift += B_L;
            (*wraps)++;
        }
        prev = p.position.x;
        o->x = p.position.x + shift;
        o->y = p.position.y;
        o->z = p.position.z;
        o->v[0] = p.velocity.x;
        o->v[1] = p.velocity.y;
        o->v[2] = p.velocity.z;
        o->w[0] = p.angular_velocity.x;
        o->w[1] = p.angular_velocity.y;
        o->w[2] = p.angular_velocity.z;
        o->contact = tl_world_contact_count(s.w) == 1;
        tl_contact_info ci;
        memset(&ci, 0, sizeof ci);
        if (o->contact && tl_world_get_contact(s.w, 0, &ci) == TL_OK && ci.with_wall &&
            ci.history_count >= 3) {
            o->ft[0] = ci.tangential_force.x;
            o->ft[1] = ci.tangential_force.y;
            o->ft[2] = ci.tangential_force.z;
            for (int q = 0; q < 3; q++) o->hist[q] = ci.history[q];
        } else {
            o->contact = false;
        }
    }
    *builds = (int)tl_world_neighbor_builds(s.w);
    tl_world_destroy(s.w);
    return 0;
}

static double vdiff(const double a[3], const double b[3]) {
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}
static double vnorm(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static void test_rolling(void) {
    static roll_sample per[B_STEPS], ref[B_STEPS];
    int wraps = 0, wraps_ref = 0, builds = 0, builds_ref = 0;
    ENSURE_OK(roll(true, per, &wraps, &builds));
    ENSURE_OK(roll(false, ref, &wraps_ref, &builds_ref));
    /* scales: the largest values over the reference run */
    double sx = 0, sv = 0, sw = 0, sf = 0, sh = 0;
    for (int k = 0; k < B_STEPS; k++) {
        sx = fmax(sx, fabs(ref[k].x));
        sv = fmax(sv, vnorm(ref[k].v));
        sw = fmax(sw, vnorm(ref[k].w));
        sf = fmax(sf, vnorm(ref[k].ft));
        sh = fmax(sh, vnorm(ref[k].hist));
    }
    double ex = 0, ev = 0, ew = 0, ef = 0, eh = 0, jump_wrap = 0, jump_ref = 0, hjump = 0, hjump_ref = 0;
    int lost = 0, sliding_steps = 0, wrap_steps = 0;
    for (int k = 0; k < B_STEPS; k++) {
        double pos_p[3] = {per[k].x, per[k].y, per[k].z}, pos_r[3] = {ref[k].x, ref[k].y, ref[k].z};
        ex = fmax(ex, vdiff(pos_p, pos_r) / fmax(fabs(ref[k].x), sx * 1e-3));
        ev = fmax(ev, vdiff(per[k].v, ref[k].v) / sv);
        ew = fmax(ew, vdiff(per[k].w, ref[k].w) / sw);
        ef = fmax(ef, vdiff(per[k].ft, ref[k].ft) / sf);
        eh = fmax(eh, vdiff(per[k].hist, ref[k].hist) / sh);
        if (!per[k].contact || !ref[k].contact) lost++;
        /* the change of the tangential force and history in the steps of a wrap, against
         * the reference's in the same steps */
        if (k > 0 && per[k].wrapped) {
            wrap_steps++;
            jump_wrap = fmax(jump_wrap, vdiff(per[k].ft, per[k - 1].ft));
            jump_ref = fmax(jump_ref, vdiff(ref[k].ft, ref[k - 1].ft));
            hjump = fmax(hjump, vdiff(per[k].hist, per[k - 1].hist));
            hjump_ref = fmax(hjump_ref, vdiff(ref[k].hist, ref[k - 1].hist));
        }
        /* slip of the contact point: v + w x (0, 0, -l), l = R - delta / 2 its lever arm */
        double l = B_R - 0.5 * (B_R - ref[k].z);
        double slip = hypot(ref[k].v[0] - l * ref[k].w[1], ref[k].v[1] + l * ref[k].w[0]);
        if (slip > 1e-3) sliding_steps++;
    }
    fprintf(stderr,
            "rolling across the boundary: %d wraps, %d builds, x %.4f m after %d steps; "
            "max relative differences x %.2e, v %.2e, spin %.2e, ft %.2e, history %.2e; "
            "|ft| up to %.3e N, largest change in a wrap step %.3e N (reference %.3e N), of the "
            "history %.3e m (reference %.3e m); %d steps sliding\n",
            wraps, builds, per[B_STEPS - 1].x, B_STEPS, ex, ev, ew, ef, eh, sf, jump_wrap, jump_ref,
            hjump, hjump_ref, sliding_steps);
    ENSURE(wraps >= 8);
    ENSURE(wraps_ref == 0);
    ENSURE(builds > 2 * wraps);
    ENSURE(lost == 0); /* the floor contact never closed */
    ENSURE(sliding_steps > 100 && sliding_steps < B_STEPS - 1000); /* slides, then rolls */
    ENSURE(ex <= 1e-9);
    ENSURE(ev <= 1e-9);
    ENSURE(ew <= 1e-9);
    ENSURE(ef <= 1e-9);
    ENSURE(eh <= 1e-9);
    ENSURE(wrap_steps == wraps);
    ENSURE(fabs(jump_wrap - jump_ref) <= 1e-9 * sf);
    ENSURE(fabs(hjump - hjump_ref) <= 1e-9 * sh);
    ENSURE(sh > 0.0 && sf > 0.0);
}

/* ---- (c) a pair touching across the boundary keeps its tangential spring ---- */

typedef struct spring_sample {
    double xi[3], ft[3]; /* of the particle with the smaller id relative to the other */
    double xa;
    bool contact;
    int img;
} spring_sample;

static const double C_R = 0.005, C_L = 0.05, C_DT = 2e-5, C_U = 0.2, C_W = 0.01, C_DELTA = 5e-4;
#define C_STEPS 1500

/* Two prescribed spheres pressed together along x (overlap 0.5 mm), both drifting +x at
 * 0.2 m/s, b sliding past a along y at 1 cm/s: a's centre starts at xa. */
static int spring_run(double xa, spring_sample *out, int *wraps) {
    tl_world_def wd = tl_world_default();
    wd.dt = C_DT;
    wd.has_domain = true;
    wd.domain_min = (tl_vec3){0, -0.05, -0.05};
    wd.domain_max = (tl_vec3){C_L, 0.05, 0.05};
    wd.periodic[0] = true;
    setup s = make_world(&wd, 1e6, 0.5, 1.0);
    double xb = xa + 2.0 * C_R - C_DELTA;
    if (xb >= C_L) xb -= C_L;
    uint32_t ia = add_sphere(&s, C_R, (tl_vec3){xa, 0, 0}, (tl_vec3){C_U, 0, 0}, (tl_vec3){0, 0, 0},
                             TL_PARTICLE_PRESCRIBED);
    add_sphere(&s, C_R, (tl_vec3){xb, 0, 0}, (tl_vec3){C_U, C_W, 0}, (tl_vec3){0, 0, 0},
               TL_PARTICLE_PRESCRIBED);
    if (tl_world_prepare(s.w) != TL_OK) {
        fprintf(stderr, "spring: %s\n", tl_world_error(s.w));
        tl_world_destroy(s.w);
        return -1;
    }
    double prev = xa;
    *wraps = 0;
    for (int k = 0; k < C_STEPS; k++) {
        if (tl_world_step(s.w, 1) != TL_OK) return -1;
        tl_particle_state pa;
        tl_world_get_particle(s.w, ia, &pa);
        if (pa.position.x < prev - 0.5 * C_L) (*wraps)++;
        prev = pa.position.x;
        spring_sample *o = &out[k];
        memset(o, 0, sizeof *o);
        o->xa = pa.position.x;
        tl_contact_info ci;
        o->contact = tl_world_contact_count(s.w) == 1 && tl_world_get_contact(s.w, 0, &ci) == TL_OK &&
                     ci.history_count >= 3;
        if (!o->contact) continue;
        /* the contact reports a relative to b: turn it to the smaller id's view */
        double sg = ci.id_a == ia ? 1.0 : -1.0;
        for (int q = 0; q < 3; q++) o->xi[q] = sg * ci.history[q];
        o->ft[0] = sg * ci.tangential_force.x;
        o->ft[1] = sg * ci.tangential_force.y;
        o->ft[2] = sg * ci.tangential_force.z;
        for (size_t c = 0; c < tl_probe_parts_of(s.w).pp->count; c++)
            if (tl_probe_parts_of(s.w).pp->state[c] & TL_PAIR_TOUCH) o->img = tl_probe_parts_of(s.w).pp->img[c];
    }
    tl_world_destroy(s.w);
    return 0;
}

static void test_spring_through_wrap(void) {
    static spring_sample across[C_STEPS], middle[C_STEPS];
    int wraps = 0, wraps_mid = 0;
    /* a's centre 2 mm below the top of the period: it wraps after about 10 ms (500 steps) */
    ENSURE_OK(spring_run(C_L - 0.002, across, &wraps));
    ENSURE_OK(spring_run(0.02, middle, &wraps_mid));
    double step_ref = C_W * C_DT; /* the spring's stretch per step while sticking */
    double sxi = 0, sft = 0, max_step = 0, max_step_mid = 0, err_xi = 0, err_ft = 0;
    int lost = 0, images = 0, first_bad = -1;
    for (int k = 0; k < C_STEPS; k++) {
        sxi = fmax(sxi, vnorm(middle[k].xi));
        sft = fmax(sft, vnorm(middle[k].ft));
    }
    for (int k = 0; k < C_STEPS; k++) {
        if (!across[k].contact || !middle[k].contact) {
            lost++;
            continue;
        }
        if (across[k].img != TL_IMAGE_NONE) images++;
        if (k > 0) {
            max_step = fmax(max_step, vdiff(across[k].xi, across[k - 1].xi));
            max_step_mid = fmax(max_step_mid, vdiff(middle[k].xi, middle[k - 1].xi));
        }
        double exi = vdiff(across[k].xi, middle[k].xi) / sxi, eft = vdiff(across[k].ft, middle[k].ft) / sft;
        if ((exi > 1e-9 || eft > 1e-9) && first_bad < 0) first_bad = k;
        err_xi = fmax(err_xi, exi);
        err_ft = fmax(err_ft, eft);
    }
    fprintf(stderr,
            "tangential spring through the wrap: %d wraps, %d steps in a shifted image; |xi| up to "
            "%.3e m, largest change in a step %.3e m (middle of the domain %.3e m, expected %.3e m); "
            "against the middle: xi %.2e, ft %.2e relative",
            wraps, images, sxi, max_step, max_step_mid, step_ref, err_xi, err_ft);
    if (first_bad >= 0)
        fprintf(stderr, "; first differs at step %d: xi_y %.6e (middle %.6e), a at x = %.6f",
                first_bad, across[first_bad].xi[1], middle[first_bad].xi[1], across[first_bad].xa);
    fprintf(stderr, "\n");
    ENSURE(wraps == 1 && wraps_mid == 0);
    ENSURE(images > 100 && images < C_STEPS);
    ENSURE(lost == 0);
    ENSURE(sxi > 100 * step_ref); /* the spring was loaded */
    ENSURE(max_step_mid <= 1.5 * step_ref);
    /* the spring is continuous: no step changes it by more than the drift of a step, and it
     * equals the spring of the same pair in the middle of the domain. (When a wraps, the
     * pair is found from the other particle's cell: a record copied by its symmetric key
     * without keeping its sides would turn the spring around here.) */
    ENSURE(max_step <= 1.5 * step_ref);
    ENSURE(err_xi <= 1e-9);
    ENSURE(err_ft <= 1e-9);
}

/* ---- (d) wrapped positions, no removal along periodic axes ---- */

static void test_wrapping(void) {
    for (int variant = 0; variant < 2; variant++) {
        const double L[3] = {0.03, 0.025, 0.02};
        tl_world_def wd = tl_world_default();
        wd.has_domain = true;
        wd.domain_min = (tl_vec3){-0.01, 0.0, 0.0};
        wd.domain_max = (tl_vec3){-0.01 + L[0], L[1], L[2]};
        wd.periodic[0] = wd.periodic[1] = true;
        wd.periodic[2] = variant == 0; /* xyz, or xy between a floor and a lid */
        wd.allow_initial_overlaps = true; /* a random cloud, for the neighbor search */
    wd.blowup_every = -1;
        if (variant == 1) wd.gravity = (tl_vec3){3.0, -2.0, -9.81};
        setup s = make_world(&wd, 1e6, 0.8, 0.3);
        if (variant == 1) {
            add_plane(&s, (tl_vec3){0, 0, 0}, (tl_vec3){0, 0, 1});
            add_plane(&s, (tl_vec3){0, 0, L[2]}, (tl_vec3){0, 0, -1});
        }
        uint64_t seed = 77u + (uint64_t)variant;
        const int n = 300;
        for (int i = 0; i < n; i++) {
            double r = 0.0006 + 0.0006 * urand(&seed);
            tl_vec3 x = {-0.01 + L[0] * urand(&seed), L[1] * urand(&seed),
                         r + (L[2] - 2.0 * r) * urand(&seed)};
            tl_vec3 v = {2.0 * urand(&seed) - 1.0, 2.0 * urand(&seed) - 1.0, 2.0 * urand(&seed) - 1.0};
            add_sphere(&s, r, x, v, (tl_vec3){0, 0, 0}, 0);
        }
        ENSURE_OK(tl_world_prepare(s.w));
        const double lo[3] = {-0.01, 0.0, 0.0};
        double skin = tl_probe_parts_of(s.w).nb->skin;
        int64_t builds = tl_world_neighbor_builds(s.w);
        size_t outside_after_build = 0, outside_slack = 0, checked_builds = 0;
        for (int k = 0; k < 1500; k++) {
            if (tl_world_step(s.w, 1) != TL_OK) break;
            bool rebuilt = tl_world_neighbor_builds(s.w) != builds;
            builds = tl_world_neighbor_builds(s.w);
            if (rebuilt) checked_builds++;
            for (size_t i = 0; i < tl_world_particle_count(s.w); i++) {
                tl_particle_state p;
                tl_world_particle_at(s.w, i, &p);
                const double x[3] = {p.position.x, p.position.y, p.position.z};
                for (int q = 0; q < 3; q++) {
                    if (!wd.periodic[q]) continue;
                    if (rebuilt && !(x[q] >= lo[q] && x[q] < lo[q] + L[q])) outside_after_build++;
                    if (!(x[q] >= lo[q] - 0.5 * skin && x[q] < lo[q] + L[q] + 0.5 * skin)) outside_slack++;
                }
            }
        }
        fprintf(stderr,
                "wrapping (%s): %zu rebuilds checked, %zu contacts now, %zu removed; outside after a "
                "rebuild %zu, outside by more than skin/2 %zu\n",
                variant == 0 ? "periodic xyz" : "periodic xy, floor and lid", checked_builds,
                tl_world_contact_count(s.w), tl_world_particles_removed(s.w), outside_after_build,
                outside_slack);
        ENSURE(checked_builds > 20);
        ENSURE(outside_after_build == 0);
        ENSURE(outside_slack == 0);
        ENSURE(tl_world_particles_removed(s.w) == 0);
        ENSURE(tl_world_particle_count(s.w) == (size_t)n);
        tl_world_destroy(s.w);
    }
}

/* ---- (e) the energy balance of an inclined periodic chute ---- */

typedef struct chute_out {
    double worst;       /* max over the run of |total - total0| / the largest term */
    double boundary;    /* boundary work at the end, J */
    double wrap_work;   /* sum of m g_x L over the wraps seen (backwards ones negative), J */
    double scale_end;   /* the largest term at the end, J */
    double friction;    /* dissipated by friction, J */
    int wraps, n;
    size_t removed, contacts;
} chute_out;

/* 200 spheres (radii 1.8-2.2 mm) dropped on a lattice onto the floor of a chute tilted by
 * 25 degrees, periodic along x (period 4 cm), between two side walls. */
static chute_out chute(double mu, double dt, double t_end) {
    chute_out o;
    memset(&o, 0, sizeof o);
    const double g = 9.81, tilt = 25.0 * PI / 180.0, R = 0.002, L = 0.04, W = 0.02;
    const double gx = g * sin(tilt);
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){gx, 0, -g * cos(tilt)};
    wd.dt = dt;
    wd.has_domain = true;
    wd.domain_min = (tl_vec3){0, -0.01, -0.01};
    wd.domain_max = (tl_vec3){L, W + 0.01, 0.1};
    wd.periodic[0] = true;
    setup s = make_world(&wd, 1e6, 0.5, mu);
    add_plane(&s, (tl_vec3){0, 0, 0}, (tl_vec3){0, 0, 1});
    add_plane(&s, (tl_vec3){0, 0, 0}, (tl_vec3){0, 1, 0});
    add_plane(&s, (tl_vec3){0, W, 0}, (tl_vec3){0, -1, 0});
    uint64_t seed = 5;
    const double h = 2.3 * R;
    enum { N = 200 };
    uint32_t ids[N];
    double x_prev[N], mass[N];
    for (int layer = 0; o.n < N; layer++)
        for (int j = 0; j < (int)(W / h) && o.n < N; j++)
            for (int i = 0; i < (int)(L / h) && o.n < N; i++) {
                tl_vec3 x = {(i + 0.5) * h + 0.1 * R * (urand(&seed) - 0.5),
                             (j + 0.5) * h + 0.1 * R * (urand(&seed) - 0.5), 1.1 * R + layer * h};
                tl_vec3 v = {0.05 * (urand(&seed) - 0.5), 0.05 * (urand(&seed) - 0.5), 0};
                ids[o.n] = add_sphere(&s, R * (0.9 + 0.2 * urand(&seed)), x, v, (tl_vec3){0, 0, 0}, 0);
                x_prev[o.n] = x.x;
                o.n++;
            }
    if (tl_world_prepare(s.w) != TL_OK) {
        fprintf(stderr, "chute: %s\n", tl_world_error(s.w));
        tl_world_destroy(s.w);
        o.worst = INFINITY;
        return o;
    }
    for (int i = 0; i < N; i++) {
        tl_particle_state p;
        tl_world_get_particle(s.w, ids[i], &p);
        mass[i] = p.mass;
    }
    tl_energy e0, e;
    tl_world_energy(s.w, &e0);
    const int chunk = 100; /* a particle moves far less than half a period in a chunk */
    int64_t steps = (int64_t)(t_end / dt + 0.5);
    for (int64_t k = 0; k < steps; k += chunk) {
        if (tl_world_step(s.w, chunk) != TL_OK) break;
        tl_world_energy(s.w, &e);
        double terms[] = {e.kinetic_translational, e.kinetic_rotational, e.potential, e.elastic_normal,
                          e.elastic_tangential, e.dissipated_normal, e.dissipated_tangential_damping,
                          e.dissipated_friction, e.boundary_work};
        double scale = 0.0;
        for (size_t q = 0; q < sizeof terms / sizeof terms[0]; q++) scale = fmax(scale, fabs(terms[q]));
        o.worst = fmax(o.worst, fabs(e.total - e0.total) / scale);
        o.scale_end = scale;
        for (int i = 0; i < N; i++) {
            tl_particle_state p;
            if (tl_world_get_particle(s.w, ids[i], &p) != TL_OK) continue;
            if (p.position.x < x_prev[i] - 0.5 * L) {
                o.wrap_work += mass[i] * gx * L;
                o.wraps++;
            } else if (p.position.x > x_prev[i] + 0.5 * L) {
                o.wrap_work -= mass[i] * gx * L;
                o.wraps++;
            }
            x_prev[i] = p.position.x;
        }
    }
    o.boundary = e.boundary_work;
    o.friction = e.dissipated_friction;
    o.removed = tl_world_particles_removed(s.w);
    o.contacts = tl_world_contact_count(s.w);
    fprintf(stderr,
            "inclined chute, mu %.1f, dt %.0e s, %.2f s: kinetic %.4e J, potential %.4e J, dissipated "
            "%.4e J (friction %.4e), boundary work %.4e J (wraps %d: %.4e J), %zu contacts; max "
            "|total - total0| / largest term %.2e\n",
            mu, dt, tl_world_time(s.w), e.kinetic_translational + e.kinetic_rotational, e.potential,
            e.dissipated_normal + e.dissipated_tangential_damping + e.dissipated_friction,
            e.dissipated_friction, e.boundary_work, o.wraps, o.wrap_work, o.contacts, o.worst);
    tl_world_destroy(s.w);
    return o;
}

static void test_chute_energy(void) {
    const double dt = 3e-6, t_end = 0.08;
    /* frictionless first: the balance then holds to the integrator's (second-order) accuracy,
     * and shows the wraps' potential jumps booked as boundary work */
    chute_out smooth = chute(0.0, dt, t_end);
    ENSURE(smooth.removed == 0);
    ENSURE(smooth.wraps > 30);
    ENSURE(smooth.contacts > 100);
    ENSURE(smooth.boundary > 0.2 * smooth.scale_end); /* the wraps matter to the balance */
    ENSURE_REL(smooth.boundary, smooth.wrap_work, 1e-9);
    ENSURE(smooth.worst <= 1e-6);

    /* with friction (e = 0.5, mu = 0.5), as specified.
     * KNOWN ENGINE ISSUE (not about periodicity; this check fails until it is fixed): the
     * balance error is first order in dt when contacts carry tangential forces (this chute:
     * 1.3e-5 at dt = 1e-5, 6.1e-6 at 5e-6, 2.9e-6 at 2.5e-6, 3.8e-6 here; the same without
     * periodic axes; a single oblique collision of two spheres too). The ledger books the
     * previous step's tangential force over this step's drift with this step's contact
     * normal and lever arms (contact_energy and contact_exit: ds from drift_slip at the
     * current n, la, lb), while that force's torques were applied with the previous ones.
     * Keeping n, la, lb of the last evaluation in the record and booking the previous force
     * over the drift slip at those makes it second order (2.8e-7 here). */    chute_out rough = chute(0.5, dt, t_end);
    ENSURE(rough.removed == 0);
    ENSURE(rough.wraps > 15);
    ENSURE(rough.friction > 0.0);
    ENSURE_REL(rough.boundary, rough.wrap_work, 1e-9);
    ENSURE(rough.worst <= 1e-6); /* KNOWN FAILING: friction ledger is first order in dt */
}

/* ---- (f) a period too short for the interaction range ---- */

static void test_short_period(void) {
    for (int axis = 0; axis < 3; axis++) {
        const double R = 0.005, skin = 0.001;
        double period = 0.015; /* < 2 (2 R + skin) = 0.022 */
        tl_world_def wd = tl_world_default();
        wd.dt = 1e-5;
        wd.skin = skin;
        wd.has_domain = true;
        wd.domain_min = (tl_vec3){0, 0, 0};
        wd.domain_max = (tl_vec3){0.1, 0.1, 0.1};
        if (axis == 0) wd.domain_max.x = period;
        if (axis == 1) wd.domain_max.y = period;
        if (axis == 2) wd.domain_max.z = period;
        wd.periodic[axis] = true;
        setup s = make_world(&wd, 1e6, 0.5, 0.5);
        add_sphere(&s, R, (tl_vec3){0.007, 0.007, 0.007}, (tl_vec3){0, 0, 0}, (tl_vec3){0, 0, 0}, 0);
        add_sphere(&s, 0.5 * R, (tl_vec3){0.005, 0.005, 0.005}, (tl_vec3){0, 0, 0}, (tl_vec3){0, 0, 0}, 0);
        tl_status st = tl_world_step(s.w, 10);
        const char *msg = tl_world_error(s.w);
        char want_axis[32], want_period[32], want_range[32];
        snprintf(want_axis, sizeof want_axis, "along %c", "xyz"[axis]);
        snprintf(want_period, sizeof want_period, "%g", period);
        snprintf(want_range, sizeof want_range, "%g", 2.0 * R + skin);
        fprintf(stderr, "period too short along %c: status %d, \"%s\"\n", "xyz"[axis], (int)st, msg);
        ENSURE(st == TL_ERROR_ARGUMENT);
        ENSURE(strstr(msg, want_axis) != NULL);
        ENSURE(strstr(msg, want_period) != NULL);
        ENSURE(strstr(msg, want_range) != NULL);
        ENSURE(tl_world_step_count(s.w) == 0);
        tl_world_destroy(s.w);
    }
    /* twice the range is enough */
    tl_world_def wd = tl_world_default();
    wd.dt = 1e-5;
    wd.skin = 0.001;
    wd.has_domain = true;
    wd.domain_min = (tl_vec3){0, 0, 0};
    wd.domain_max = (tl_vec3){0.022, 0.1, 0.1};
    wd.periodic[0] = true;
    setup s = make_world(&wd, 1e6, 0.5, 0.5);
    add_sphere(&s, 0.005, (tl_vec3){0.007, 0.05, 0.05}, (tl_vec3){0.1, 0, 0}, (tl_vec3){0, 0, 0}, 0);
    ENSURE_OK(tl_world_step(s.w, 10));
    tl_world_destroy(s.w);
}

int main(void) {
    test_head_on();
    test_rolling();
    test_spring_through_wrap();
    test_wrapping();
    test_chute_energy();
    test_short_period();
    return tl_test_report("test_periodic");
}
