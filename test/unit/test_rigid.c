/* Rigid-body rotation with a full inertia tensor (bodies.c, rigid.h; Li et
 * al. 2022 eq. 19), on free ellipsoids (no gravity, no contact):
 *
 *   - a torque-free symmetric top: the symmetry axis turns about the fixed
 *     angular momentum L at the closed-form rate |L| / I_1 at a constant angle
 *     (cos theta = L_3 / |L|), and the body-frame angular velocity turns about
 *     the symmetry axis at (I_3 - I_1)/I_1 w_3;
 *   - the intermediate-axis theorem (Dzhanibekov): spun about its intermediate
 *     axis with a small perturbation the body flips over and back, while its
 *     kinetic energy and |L| stay constant (1e-6 over 1e5 steps);
 *   - a body spun about a principal axis keeps that spin exactly, and the
 *     attitude stays a unit quaternion;
 *   - both integrators (verlet, predictor-corrector) and 1 or 2 threads.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"
#include "vec.h"

#define PI 3.14159265358979323846

typedef struct body {
    tl_world *w;
    uint32_t id;
    double I[3];
} body;

static int make_body(body *b, tl_vec3 semi, tl_vec3 omega, double dt, tl_integrator integ, int threads) {
    tl_world_def wd = tl_world_default();
    wd.dt = dt;
    wd.integrator = integ;
    wd.threads = threads;
    if (tl_world_create(&wd, &b->w) != TL_OK) return -1;
    tl_material_def md = tl_material_default();
    md.name = "steel";
    md.density = 7800;
    md.youngs_modulus = 2e11;
    int m;
    if (tl_world_add_material(b->w, &md, &m) != TL_OK) return -1;
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.3);
    if (tl_world_set_law(b->w, m, m, &law) != TL_OK) return -1;
    tl_shape_def sd = tl_shape_default();
    sd.kind = TL_SHAPE_ELLIPSOID;
    sd.name = "body";
    sd.semi_axes = semi;
    int s;
    if (tl_world_add_shape(b->w, &sd, &s) != TL_OK) return -1;
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    pd.angular_velocity = omega;
    if (tl_world_add_particle(b->w, &pd, &b->id) != TL_OK) return -1;
    tl_particle_state ps;
    tl_world_get_particle(b->w, b->id, &ps);
    b->I[0] = ps.principal_inertia.x;
    b->I[1] = ps.principal_inertia.y;
    b->I[2] = ps.principal_inertia.z;
    return 0;
}

/* the body axis k in the world */
static void body_axis(tl_quat q, int k, double out[3]) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    for (int r = 0; r < 3; r++) out[r] = R[r][k];
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* body-frame components of a world vector */
static void to_body(tl_quat q, tl_vec3 v, double out[3]) {
    double e[3], vv[3] = {v.x, v.y, v.z};
    for (int k = 0; k < 3; k++) {
        body_axis(q, k, e);
        out[k] = dot3(e, vv);
    }
}

static void symmetric_top(tl_integrator integ, int threads) {
    /* a prolate spheroid a = b = 1 cm, c = 2 cm: I_1 = I_2 = m (a^2 + c^2)/5, I_3 = 2 m a^2 / 5 */
    body b;
    const double dt = 1e-4;
    ENSURE(make_body(&b, (tl_vec3){0.01, 0.01, 0.02}, (tl_vec3){3.0, 0.0, 10.0}, dt, integ, threads) == 0);
    ENSURE_REL(b.I[0], b.I[1], 1e-15);
    tl_particle_state s0;
    tl_world_get_particle(b.w, b.id, &s0);
    double L0[3] = {s0.angular_momentum.x, s0.angular_momentum.y, s0.angular_momentum.z};
    double Ln = sqrt(dot3(L0, L0)), Lu[3] = {L0[0] / Ln, L0[1] / Ln, L0[2] / Ln};
    double e3[3];
    body_axis(s0.orientation, 2, e3);
    double cos0 = dot3(e3, Lu);
    /* a reference direction perpendicular to L for the azimuth of the axis */
    double ref[3] = {e3[0] - cos0 * Lu[0], e3[1] - cos0 * Lu[1], e3[2] - cos0 * Lu[2]};
    double rn = sqrt(dot3(ref, ref));
    for (int k = 0; k < 3; k++) ref[k] /= rn;
    double ref2[3] = {Lu[1] * ref[2] - Lu[2] * ref[1], Lu[2] * ref[0] - Lu[0] * ref[2],
                      Lu[0] * ref[1] - Lu[1] * ref[0]};
    const int steps = 20000; /* 2 s */
    double phi_unwrapped = 0.0, prev = 0.0, max_dcos = 0.0, max_dl = 0.0;
    double w3_0;
    {
        double wb[3];
        to_body(s0.orientation, s0.angular_velocity, wb);
        w3_0 = wb[2];
    }
    double body_phase = 0.0, body_prev = 0.0;
    for (int n = 1; n <= steps; n++) {
        ENSURE(tl_world_step(b.w, 1) == TL_OK);
        tl_particle_state s;
        tl_world_get_particle(b.w, b.id, &s);
        body_axis(s.orientation, 2, e3);
        double c = dot3(e3, Lu);
        max_dcos = fmax(max_dcos, fabs(c - cos0));
        double phi = atan2(dot3(e3, ref2), dot3(e3, ref));
        double d = phi - prev;
        if (d > PI) d -= 2 * PI;
        if (d < -PI) d += 2 * PI;
        phi_unwrapped += d;
        prev = phi;
        double L[3] = {s.angular_momentum.x, s.angular_momentum.y, s.angular_momentum.z};
        double dl = sqrt((L[0] - L0[0]) * (L[0] - L0[0]) + (L[1] - L0[1]) * (L[1] - L0[1]) +
                         (L[2] - L0[2]) * (L[2] - L0[2]));
        max_dl = fmax(max_dl, dl / Ln);
        /* the body-frame angular velocity turns about e3 */
        double wb[3];
        to_body(s.orientation, s.angular_velocity, wb);
        double bp = atan2(wb[1], wb[0]);
        double db = bp - body_prev;
        if (db > PI) db -= 2 * PI;
        if (db < -PI) db += 2 * PI;
        body_phase += db;
        body_prev = bp;
    }
    double T = steps * dt;
    double rate = phi_unwrapped / T, expected = Ln / b.I[0];
    double body_rate = body_phase / T, body_expected = (b.I[2] - b.I[0]) / b.I[0] * w3_0;
    fprintf(stderr,
            "symmetric top (%s, %d thread%s): precession %.9g rad/s (closed form |L|/I1 = %.9g), "
            "body-frame rate %.9g (closed form %.9g), |cos theta - cos theta0| <= %.2g, |dL|/|L| <= %.2g\n",
            integ == TL_INTEGRATOR_VERLET ? "verlet" : "predictor-corrector", threads, threads > 1 ? "s" : "",
            rate, expected, body_rate, body_expected, max_dcos, max_dl);
    ENSURE_REL(rate, expected, 1e-7);
    ENSURE_REL(body_rate, body_expected, 1e-7);
    ENSURE(max_dcos < 1e-7); /* the splitting's second-order nutation error */
    ENSURE(max_dl < 1e-13);
    tl_world_destroy(b.w);
}

static void intermediate_axis(void) {
    /* semi-axes 1, 2, 3 cm: I_x > I_y > I_z; spun about y (intermediate) */
    body b;
    const double dt = 1e-4;
    ENSURE(make_body(&b, (tl_vec3){0.01, 0.02, 0.03}, (tl_vec3){1e-3, 10.0, 1e-3}, dt, TL_INTEGRATOR_VERLET,
                     1) == 0);
    ENSURE(b.I[0] > b.I[1] && b.I[1] > b.I[2]);
    tl_particle_state s;
    tl_world_get_particle(b.w, b.id, &s);
    double E0 = tl_particle_rotational_energy(&s);
    double L0 = sqrt(s.angular_momentum.x * s.angular_momentum.x + s.angular_momentum.y * s.angular_momentum.y +
                     s.angular_momentum.z * s.angular_momentum.z);
    double max_de = 0.0, max_dl = 0.0, max_dq = 0.0;
    int flips = 0, sign = 1;
    const int steps = 100000;
    for (int n = 1; n <= steps; n++) {
        ENSURE(tl_world_step(b.w, 1) == TL_OK);
        tl_world_get_particle(b.w, b.id, &s);
        double E = tl_particle_rotational_energy(&s);
        double L = sqrt(s.angular_momentum.x * s.angular_momentum.x + s.angular_momentum.y * s.angular_momentum.y +
                        s.angular_momentum.z * s.angular_momentum.z);
        max_de = fmax(max_de, fabs(E / E0 - 1.0));
        max_dl = fmax(max_dl, fabs(L / L0 - 1.0));
        tl_quat q = s.orientation;
        max_dq = fmax(max_dq, fabs(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z - 1.0));
        double wb[3];
        to_body(q, s.angular_velocity, wb);
        int sg = wb[1] >= 0 ? 1 : -1;
        if (sg != sign) {
            flips++;
            sign = sg;
        }
    }
    fprintf(stderr,
            "intermediate axis: %d flips of the spin in 1e5 steps (10 s), |dE/E| <= %.2g, |d|L|/|L|| <= %.2g, "
            "||q|^2 - 1| <= %.2g\n",
            flips, max_de, max_dl, max_dq);
    ENSURE(flips >= 2);
    ENSURE(max_de < 1e-6);
    ENSURE(max_dl < 1e-6);
    ENSURE(max_dq < 1e-14);
    tl_world_destroy(b.w);
}

static void principal_spin(void) {
    /* a spin about a principal axis stays exactly that */
    body b;
    ENSURE(make_body(&b, (tl_vec3){0.01, 0.02, 0.03}, (tl_vec3){0.0, 0.0, 7.0}, 1e-4, TL_INTEGRATOR_VERLET, 1) == 0);
    ENSURE(tl_world_step(b.w, 5000) == TL_OK);
    tl_particle_state s;
    tl_world_get_particle(b.w, b.id, &s);
    ENSURE_NEAR(s.angular_velocity.z, 7.0, 1e-12);
    ENSURE_NEAR(s.angular_velocity.x, 0.0, 1e-12);
    ENSURE_NEAR(s.angular_velocity.y, 0.0, 1e-12);
    /* turned by 3.5 rad about z: q = (cos 1.75, 0, 0, sin 1.75) */
    ENSURE_NEAR(s.orientation.w, cos(1.75), 1e-9);
    ENSURE_NEAR(s.orientation.z, sin(1.75), 1e-9);
    tl_world_destroy(b.w);
}

/* the sub-flows' sin and cos (small_sincos): the series below |x| = 1e-3 against libm, within an
 * ulp or two, on both sides of the switch */
static void series_sincos(void) {
    double worst_s = 0.0, worst_c = 0.0;
    for (int k = -20000; k <= 20000; k++) {
        double x = 1.1e-3 * k / 20000.0 * (1.0 + 1e-7 * (k % 7)), s, c;
        small_sincos(x, &s, &c);
        worst_s = fmax(worst_s, fabs(s - sin(x)) / fmax(fabs(sin(x)), 1e-300));
        worst_c = fmax(worst_c, fabs(c - cos(x)));
    }
    fprintf(stderr, "small_sincos against libm on |x| <= 1.1e-3: sin %.2g relative, cos %.2g absolute\n", worst_s,
            worst_c);
    ENSURE(worst_s <= 4.5e-16 && worst_c <= 2.3e-16);
}

int main(void) {
    series_sincos();
    symmetric_top(TL_INTEGRATOR_VERLET, 1);
    symmetric_top(TL_INTEGRATOR_VERLET, 2);
    symmetric_top(TL_INTEGRATOR_PREDICTOR_CORRECTOR, 1);
    intermediate_axis();
    principal_spin();
    return tl_test_report("test_rigid");
}
