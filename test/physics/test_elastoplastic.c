/* Elastoplastic normal laws of Wang et al. (2025): the Ma-Liu loading curve
 * and its Hertzian unloading with a residual overlap, the Wang Kelvin-Voigt
 * law (continuous and as printed), and the EDEM law being hertz + tsuji.
 * A prescribed steel sphere (R = 0.01 on a wall: R* = 0.01 as for the
 * paper's two spheres of R = 0.02) is pressed and released slowly. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

static const double E_STEEL = 2.07e11, NU = 0.3, SY = 1.03e9, RHO = 7800.0, R = 0.01;

typedef struct press {
    tl_world *w;
    uint32_t id;
    double mass;
} press;

static press press_make(const char *normal, const char *damping, double e, double ep) {
    press p;
    tl_world_def wd = tl_world_default();
    wd.dt = 1e-8;
    wd.allow_unresolved_contacts = true;
    tl_world_create(&wd, &p.w);
    tl_material_def md = tl_material_default();
    md.name = "steel";
    md.density = RHO;
    md.youngs_modulus = E_STEEL;
    md.poisson_ratio = NU;
    md.yield_stress = SY;
    int m;
    tl_world_add_material(p.w, &md, &m);
    tl_law_def law = tl_law_default();
    law.normal = normal;
    law.damping = damping;
    law.tangential = "none";
    law.history = "none";
    if (e > 0) tl_law_set(&law, "e", e);
    if (ep > 0) tl_law_set(&law, "e_p", ep);
    if (tl_world_set_law(p.w, m, m, &law) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(p.w));
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(p.w, &wl, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, R};
    pd.flags = TL_PARTICLE_PRESCRIBED;
    tl_world_add_particle(p.w, &pd, &p.id);
    tl_particle_state ps;
    tl_world_get_particle(p.w, p.id, &ps);
    p.mass = ps.mass;
    return p;
}

/* moves the sphere to overlap `target` at speed v (m/s), steps of dt = 1e-8 s */
static void press_to(press *p, double target, double v, tl_contact_info *ci) {
    tl_particle_state ps;
    tl_world_get_particle(p->w, p->id, &ps);
    double now = R - ps.position.z;
    double dir = target > now ? -1.0 : 1.0;
    int64_t n = (int64_t)llround(fabs(target - now) / (v * 1e-8));
    tl_world_set_particle_velocity(p->w, p->id, (tl_vec3){0, 0, dir * v}, (tl_vec3){0, 0, 0});
    tl_world_step(p->w, n);
    memset(ci, 0, sizeof *ci);
    if (tl_world_get_contact(p->w, 0, ci) != TL_OK) ci->overlap = R - (ps.position.z);
}

/* the Ma-Liu loading curve, eq. 1-2, written out here independently */
typedef struct ml {
    double E, dy, dp, Fy, Fp, c1, c2, c3, k1, Kh;
} ml;

static ml ml_make(double psi, double eps) {
    ml m;
    double E = 1.0 / (2.0 * (1.0 - NU * NU) / E_STEEL), py = 1.61 * SY, L = log(eps * eps / 2.0);
    m.E = E;
    m.dy = M_PI * M_PI * R * py * py / (4.0 * E * E);
    m.dp = eps * eps * m.dy / 2.0;
    m.Fy = pow(M_PI, 3) * R * R * pow(py, 3) / (6.0 * E * E);
    m.k1 = 2.0 * M_PI * R * psi * SY;
    m.c1 = (py * (1.0 + L) - 2.0 * psi * SY) / L * M_PI * R;
    m.c2 = (2.0 * psi * SY - py) / L * M_PI * R;
    m.c3 = m.Fy - m.c1 * m.dy;
    m.Fp = m.dp * (m.c1 + m.c2 * L) + m.c3;
    m.Kh = 4.0 / 3.0 * E * sqrt(R);
    return m;
}

static double ml_F(const ml *m, double d) {
    if (d < m->dy) return m->Kh * pow(d, 1.5);
    if (d < m->dp) return d * (m->c1 + m->c2 * log(d / m->dy)) + m->c3;
    return m->Fp + m->k1 * (d - m->dp);
}

static double ml_work(const ml *m, double d) { /* integral of F from 0 to d (numerical) */
    int n = 200000;
    double s = 0.0, h = d / n;
    for (int i = 0; i < n; i++) s += ml_F(m, (i + 0.5) * h) * h;
    return s;
}

static void test_ma_liu(void) {
    ml m = ml_make(3.0, 13.0);
    fprintf(stderr, "Ma-Liu for the paper's spheres: delta_y = %.5e m, delta_p = %.5e m, F_y = %.2f N\n",
            m.dy, m.dp, m.Fy);
    ENSURE_NEAR(m.dy, 5.2453e-6, 5e-10); /* Wang et al.: 5.2453e-6 m */
    ENSURE_NEAR(m.dp, 4.4323e-4, 5e-8);  /* 4.4323e-4 m */
    const double dmaxes[3] = {3e-6, 1e-4, 6e-4}; /* elastic, elastoplastic, plastic */
    for (int k = 0; k < 3; k++) {
        press p = press_make("ma-liu", "none", -1, -1);
        tl_contact_info ci;
        double dmax = dmaxes[k];
        /* loading follows eq. 1 */
        press_to(&p, 0.5 * dmax, 0.5, &ci);
        ENSURE_REL(ci.normal_force, ml_F(&m, ci.overlap), 1e-9);
        press_to(&p, dmax, 0.5, &ci);
        double Fmax = ml_F(&m, ci.overlap), dm = ci.overlap;
        ENSURE_REL(ci.normal_force, Fmax, 1e-9);
        /* unloading: Hertzian through (delta_max, F_max) with a = sqrt(R delta_max) */
        double span = 3.0 * Fmax / (4.0 * m.E * sqrt(R * dm)), dr = dm - span;
        double Ke = Fmax / pow(span, 1.5);
        press_to(&p, dr + 0.5 * span, 0.5, &ci);
        ENSURE_REL(ci.normal_force, Ke * pow(ci.overlap - dr, 1.5), 1e-9);
        /* reloading below delta_max follows the same curve, beyond it the virgin one */
        press_to(&p, dr + 0.9 * span, 0.5, &ci);
        ENSURE_REL(ci.normal_force, Ke * pow(ci.overlap - dr, 1.5), 1e-9);
        press_to(&p, 1.2 * dmax, 0.5, &ci);
        ENSURE_REL(ci.normal_force, ml_F(&m, ci.overlap), 1e-9);
        dm = ci.overlap;
        Fmax = ml_F(&m, dm);
        span = 3.0 * Fmax / (4.0 * m.E * sqrt(R * dm));
        dr = dm - span;
        /* full release: the plastic work is the loop area */
        press_to(&p, -1e-6, 0.5, &ci);
        tl_energy e;
        tl_world_energy(p.w, &e);
        double loop = ml_work(&m, dm) - 0.4 * Fmax * span;
        fprintf(stderr, "Ma-Liu to %.2e m: residual %.4e m, plastic work %.6e J (loop area %.6e J)\n",
                dm, dr, e.dissipated_plastic, loop);
        if (k == 0) {
            ENSURE(fabs(dr) < 1e-15);
            ENSURE(fabs(e.dissipated_plastic) < 1e-9 * ml_work(&m, dm));
        } else {
            ENSURE(dr > 0.0);
            ENSURE_REL(e.dissipated_plastic, loop, 1e-4);
        }
        tl_world_destroy(p.w);
    }
}

static void test_wang_kv(void) {
    ml m = ml_make(3.0, 13.0);
    double Kp = (m.Fp - m.Fy) / (m.dp - m.dy);
    /* continuous: no jump at delta_y; as printed: from F_y = 182 N to K_p delta_y = 859 N */
    const char *names[2] = {"wang-kv", "wang-kv-printed"};
    for (int k = 0; k < 2; k++) {
        press p = press_make(names[k], "none", -1, -1);
        tl_contact_info a, b;
        press_to(&p, m.dy * (1 - 1e-4), 0.01, &a); /* steps of 1e-10 m */
        press_to(&p, m.dy * (1 + 1e-4), 0.01, &b);
        fprintf(stderr, "%s across delta_y: %.2f N -> %.2f N\n", names[k], a.normal_force, b.normal_force);
        ENSURE(a.overlap < m.dy && b.overlap > m.dy);
        ENSURE_NEAR(a.normal_force, 182.2, 0.1);
        if (k == 0) ENSURE_NEAR(b.normal_force, a.normal_force, 0.2);
        else ENSURE_NEAR(b.normal_force, Kp * m.dy, 0.01 * Kp * m.dy);
        if (k == 1) ENSURE_NEAR(b.normal_force, 859.0, 1.0);
        tl_world_destroy(p.w);
    }
    /* the dashpot: g2 sqrt(K_h m) delta^1/4 below delta_y, g1 sqrt(K_p m) above */
    press p = press_make("wang-kv", "wang-kv", 0.86, 0.70);
    double g2 = 9 * sqrt(5.0) * (1 - 0.86 * 0.86) / (0.86 * (0.86 * (9 * M_PI - 16) + 16));
    double l = log(0.70), g1 = 2 * fabs(l) / sqrt(M_PI * M_PI + l * l);
    tl_contact_info ci;
    press_to(&p, 0.5 * m.dy, 0.05, &ci);
    ENSURE_REL(ci.normal_damping_force, g2 * sqrt(m.Kh * p.mass) * pow(ci.overlap, 0.25) * 0.05, 1e-6);
    press_to(&p, 3 * m.dy, 0.05, &ci);
    ENSURE_REL(ci.normal_damping_force, g1 * sqrt(Kp * p.mass) * 0.05, 1e-6);
    tl_world_destroy(p.w);
}

static void test_edem_is_tsuji(void) {
    /* Wang et al. eq. 26: F = K_h delta^3/2 + sqrt(5)/2 g1 sqrt(K_h M) delta^1/4 delta_dot, g1 of eq. 11 */
    press p = press_make("hertz", "tsuji", 0.7, -1);
    ml m = ml_make(3.0, 13.0);
    tl_contact_info ci;
    press_to(&p, 2e-6, 0.05, &ci);
    double l = log(0.70), g1 = 2 * fabs(l) / sqrt(M_PI * M_PI + l * l);
    double edem = sqrt(5.0) / 2.0 * g1 * sqrt(m.Kh * p.mass) * pow(ci.overlap, 0.25) * 0.05;
    ENSURE_REL(ci.normal_damping_force, edem, 1e-9);
    ENSURE_REL(ci.normal_force - ci.normal_damping_force, m.Kh * pow(ci.overlap, 1.5), 1e-9);
    tl_world_destroy(p.w);
}

int main(void) {
    test_ma_liu();
    test_wang_kv();
    test_edem_is_tsuji();
    return tl_test_report("test_elastoplastic");
}
