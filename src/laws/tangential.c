/*
 * Tangential slot: the tangential force on body a from the tangential
 * displacement xi (given by the history mode) and the tangential velocity
 * vt, with the Coulomb limit mu F_n (F_n the total normal force, no friction
 * under tension).
 *
 *   none           no tangential force
 *   linear         F_t = -f k_t xi - (eta_t + f gamma_t m*) vt; eta_t = 2 beta(e_t) sqrt(m* k_t)
 *                  (Li et al. 2022 eq. 1 with Appendix A damping; Fleischmann et al. 2015 eq. 1)
 *   mindlin        F_t = -K_t0 xi - eta_t vt, K_t0 = 8 G* sqrt(R* delta),
 *                  eta_t = 2 sqrt(5/6) beta(e_t) sqrt(K_t0 m*) (Li et al. 2022 eq. 4-6)
 *   mindlin-renzo  as mindlin with K_tA = 2/3 K_t0 (Di Renzo & Di Maio 2005; Li et al. 2022
 *                  eq. 13, 17); the dashpot keeps eta_t of eq. 6
 *   mindlin-deresiewicz  the complete incremental Mindlin-Deresiewicz force f_MD (virgin
 *                  loading with normal-force changes as eq. 3, Masing unloading/reloading,
 *                  gross slip at mu P), kept in its own history; F_t = f_MD - eta_t vt below
 *                  the limit, mu F_n along f_MD at it (Li et al. 2022 eq. 2-4, 14, 18;
 *                  Thornton & Yin 1991). It ignores xi and the coulomb_test option.
 *
 * The Coulomb test (law option coulomb_test):
 *   total   the trial force spring + dashpot is tested; when it exceeds mu F_n the
 *           force is mu F_n along it and the spring is relaxed to carry that force
 *           alone, |k xi| = mu F_n (Fleischmann et al. 2015 eq. 6 with the test on the
 *           whole force). LAMMPS tests the same but stores xi so that spring plus
 *           dashpot equals the capped force; with a spring that stiffens as the overlap
 *           grows (Mindlin) that stored dashpot part turns the force against the
 *           sliding direction for some steps after an oblique impact, which this
 *           reading avoids;
 *   spring  the spring force alone is tested; when it reaches mu F_n the force
 *           is mu F_n along -xi, without dashpot (Li et al. 2022 eq. 1, 5, 17; what
 *           LIGGGHTS 3.8 does, with mu |F_n| under tension where Talus has zero).
 */
#include <math.h>
#include <string.h>

#include "coulomb.h"
#include "submodel.h"
#include "vec.h"

/* ---- none ---- */

static void none_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    v3_zero(c->ft);
    c->kt = c->eta_t = c->mu_t = 0.0;
}

/* ---- linear ---- */
/* p: 0 mu, 1 k_t, 2 beta(e_t), 3 gamma_t, 4 coulomb test */

static tl_status linear_prepare(const tl_prep *in, double *p) {
    double kt = in->coeff[1];
    if (isnan(kt)) {
        if (!(in->a->k_t > 0.0) || !(in->b->k_t > 0.0)) {
            tl_prep_fail(in,
                         "tangential 'linear' needs k_t: give k_t in the law, or k_t (per body) "
                         "in materials '%s' and '%s'",
                         in->a->name, in->b->name);
            return TL_ERROR_ARGUMENT;
        }
        kt = tl_series(in->a->k_t, in->b->k_t);
    }
    p[0] = in->coeff[0];
    p[1] = kt;
    p[2] = tl_damping_ratio(in->coeff[2]);
    p[3] = in->coeff[3];
    p[4] = (double)in->coulomb_test;
    return TL_OK;
}

static void linear_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    double k = p[1] * c->area;
    double eta = 2.0 * p[2] * sqrt(c->m_eff * p[1]) + p[3] * c->m_eff * c->area;
    tl_spring_dashpot_coulomb(c, k, eta, p[0], (int)p[4]);
}

/* ---- mindlin, mindlin-renzo ---- */
/* p: 0 mu, 1 8 G*, 2 beta(e_t), 3 coulomb test, 4 stiffness factor (1 or 2/3) */

static tl_status mindlin_prepare_factor(const tl_prep *in, double *p, double factor,
                                        const char *who) {
    const tl_material *m[2] = {in->a, in->b};
    for (int i = 0; i < 2; i++) {
        if (!(m[i]->youngs_modulus > 0.0)) {
            tl_prep_fail(in, "tangential '%s' needs youngs_modulus and poisson_ratio of material '%s'",
                         who, m[i]->name);
            return TL_ERROR_ARGUMENT;
        }
    }
    double et = in->coeff[1];
    if (isnan(et)) et = in->law_coeff(in->law, "e"); /* e_t defaults to the normal e */
    p[0] = in->coeff[0];
    p[1] = 8.0 * tl_material_g_star(in->a, in->b);
    p[2] = isnan(et) ? 0.0 : tl_damping_ratio(et);
    p[3] = (double)in->coulomb_test;
    p[4] = factor;
    return TL_OK;
}

static tl_status mindlin_prepare(const tl_prep *in, double *p) {
    return mindlin_prepare_factor(in, p, 1.0, "mindlin");
}

static tl_status renzo_prepare(const tl_prep *in, double *p) {
    return mindlin_prepare_factor(in, p, 2.0 / 3.0, "mindlin-renzo");
}

static void mindlin_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    const double two_sqrt_5_6 = 1.8257418583505538; /* 2 sqrt(5/6) */
    double kt0 = p[1] * sqrt(c->r_eff * c->delta);
    double eta = two_sqrt_5_6 * p[2] * sqrt(kt0 * c->m_eff);
    tl_spring_dashpot_coulomb(c, p[4] * kt0, eta, p[0], (int)p[3]);
}

/* ---- mindlin-deresiewicz ---- */
/* The complete incremental Mindlin-Deresiewicz force (Li et al. 2022 model M4, eq. 2-3, 18;
 * Thornton & Yin 1991; Vu-Quoc & Zhang 1999): a 1D hysteretic law along an axis in the
 * contact plane, an elastic K_t0 spring across it, Coulomb on top. docs/models.md derives it.
 * p: as mindlin (0 mu, 1 8 G*, 2 beta(e_t)); history: md_slot. */

#define MD_DEPTH 4 /* turning points remembered: two nested loops */

enum md_slot {
    MD_AXIS = 0,      /* unit axis of the 1D law (3 values); zero until the first displacement */
    MD_FP = 3,        /* force on a across the axis (3 values), N */
    MD_T = 6,         /* force along the axis resisting the displacement, N (on a: -T axis) */
    MD_P,             /* elastic normal force P of the last advancing evaluation, N */
    MD_N,             /* turning points in use */
    MD_TP,            /* the turning points T*, T**, ... (MD_DEPTH values), N */
    MD_K = MD_TP + MD_DEPTH, /* K_t0 of the last evaluation, N/m: what its energy was taken with */
    MD_HIST
};

typedef struct md_state {
    double axis[3], fp[3], t, p;
    int n;
    double tp[MD_DEPTH];
} md_state;

static void md_load(md_state *s, const double *h) {
    v3_copy(s->axis, h + MD_AXIS);
    v3_copy(s->fp, h + MD_FP);
    s->t = h[MD_T];
    s->p = h[MD_P];
    s->n = (int)h[MD_N];
    for (int i = 0; i < MD_DEPTH; i++) s->tp[i] = h[MD_TP + i];
}

static void md_store(const md_state *s, double *h) {
    v3_copy(h + MD_AXIS, s->axis);
    v3_copy(h + MD_FP, s->fp);
    h[MD_T] = s->t;
    h[MD_P] = s->p;
    h[MD_N] = (double)s->n;
    for (int i = 0; i < MD_DEPTH; i++) h[MD_TP + i] = s->tp[i];
}

static double md_sign(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }

/* Branch directions alternate: d1 for the odd branches, -d1 for the even ones. */
static double md_alt(double d1, int i) { return (i % 2) ? d1 : -d1; }

/* Direction of the Masing branch leaving turning point i (1-based): the first reverses the
 * virgin loading that reached T*, the next ones alternate. */
static double md_dir(const md_state *s, int i) { return md_alt(s->tp[0] > 0.0 ? -1.0 : 1.0, i); }

/* Where branch i ends: at -T* the first meets the virgin curve of the other direction; the
 * others close their loop at the turning point before them (Masing memory). */
static double md_target(const md_state *s, int i) { return i == 1 ? -s->tp[0] : s->tp[i - 2]; }

/* One branch at constant normal force: s (>= 0) is the distance of the force from the
 * branch's origin, len its scale (mu P virgin, 2 mu P Masing), ds/dd = K (1 - s/len)^(1/3).
 * u = (1 - s/len)^(2/3) falls linearly, du/dd = -2/3 K / len: the displacement d is taken
 * exactly. Stops at s_end (<= len); returns true when it got there, with the displacement
 * left over in *left. */
static bool md_advance(double *s, double len, double s_end, double k, double d, double *left) {
    double rate = 2.0 / 3.0 * k / len;
    double u0 = pow(1.0 - dmin(*s / len, 1.0), 2.0 / 3.0);
    double u_end = pow(1.0 - dmin(s_end / len, 1.0), 2.0 / 3.0);
    double u1 = u0 - rate * d;
    *left = 0.0;
    if (u1 > u_end) {
        *s = -len * expm1(1.5 * log(u1)); /* len (1 - u1^3/2), accurate for small s */
        return false;
    }
    *s = s_end;
    *left = dmax(d - (u0 - u_end) / rate, 0.0);
    return true;
}

/* Virgin loading (|T| grows) with the normal-force change of the step (Li et al. eq. 3 =
 * Thornton & Yin 1991): the first mu dP / K_t0 of displacement sticks (slope K_t0), the rest
 * follows the virgin curve of the new P from |T'| + mu dP. A decrease (dP < 0) lowers the
 * start to |T'| - mu |dP| (not below zero) and lengthens the rest by as much. */
static void md_virgin(md_state *s, double k, double m, double mu_dp, double d, double dir,
                      bool *slid) {
    double dv = s->t != 0.0 ? md_sign(s->t) : dir;
    double sv = fabs(s->t), rest, left;
    if (mu_dp > 0.0 && k * d < mu_dp) {
        s->t = dv * (sv + k * d);
        return;
    }
    if (mu_dp >= 0.0) {
        sv += mu_dp;
        rest = d - mu_dp / k;
    } else {
        double e = dmin(-mu_dp, sv);
        sv -= e;
        rest = d + e / k;
    }
    sv = dmin(sv, m);
    /* the virgin curve exhausted: gross slip */
    if (md_advance(&sv, m, m, k, rest, &left)) *slid = true;
    s->t = dv * sv;
}

/* The Masing branches: unloading from T* (scale 2 mu P), reloading from T**, ...; a branch
 * that reaches its target hands the rest of the displacement to the branch below it. */
static void md_masing(md_state *s, double k, double m, double d, bool *slid) {
    while (s->n > 0) {
        int n = s->n;
        double dir = md_dir(s, n), o = s->tp[n - 1], len = 2.0 * m, left;
        double send = dclamp(dir * (md_target(s, n) - o), 0.0, len);
        double sv = dclamp(dir * (s->t - o), 0.0, send);
        if (!md_advance(&sv, len, send, k, d, &left)) {
            s->t = o + dir * sv;
            return;
        }
        s->t = md_target(s, n);
        s->n = n == 1 ? 0 : n - 2;
        d = left;
    }
    md_virgin(s, k, m, 0.0, d, 0.0, slid);
}

static bool md_reversed(const md_state *s, double dir) {
    if (dir == 0.0) return false;
    if (s->n == 0) return s->t != 0.0 && dir * s->t < 0.0;
    return dir != md_dir(s, s->n);
}

static void md_reverse(md_state *s) {
    if (s->n == MD_DEPTH) s->n -= 2; /* too deep: forget the innermost loop */
    s->tp[s->n++] = s->t;
}

/* A change of normal force moves the turning points (Thornton & Yin 1991: T* += mu dP,
 * T** -= mu dP, i.e. each one along the direction that reached it). A decrease shrinks
 * the loops: a loop that closes is forgotten, a turning point passed by the force is
 * moved onto it, a target passed ends its branch. */
static void md_normal_change(md_state *s, double m, double mu_dp) {
    if (s->n == 0 || mu_dp == 0.0) return;
    double sg = md_sign(s->tp[0]), d1 = -sg;
    for (int i = 1; i <= s->n; i++)
        s->tp[i - 1] = dclamp(s->tp[i - 1] - md_alt(d1, i) * mu_dp, -m, m);
    if (sg * s->tp[0] <= 0.0) {
        s->n = 0;
        return;
    }
    for (int i = 1; i < s->n; i++)
        if (md_alt(d1, i) * (s->tp[i] - s->tp[i - 1]) <= 0.0) {
            s->n = i - 1;
            break;
        }
    while (s->n > 0) {
        int n = s->n;
        double dn = md_dir(s, n);
        if (dn * (s->t - s->tp[n - 1]) < 0.0) s->tp[n - 1] = s->t;
        if (dn * (s->t - md_target(s, n)) < 0.0) break;
        s->n = n == 1 ? 0 : n - 2;
    }
}

/* The 1D law along the axis for the signed displacement da. */
static void md_axis_step(md_state *s, double k, double m, double mu_dp, double da, bool *slid) {
    double dir = md_sign(da), d = fabs(da);
    if (s->n == 0 && !md_reversed(s, dir)) {
        md_virgin(s, k, m, mu_dp, d, dir, slid);
        return;
    }
    if (s->n == 0) {
        bool ignored = false; /* the normal-force change, then the turn */
        md_virgin(s, k, m, mu_dp, 0.0, 0.0, &ignored);
    } else {
        md_normal_change(s, m, mu_dp);
        if (fabs(s->t) > m) { /* P fell below the force: it slips down to the new limit */
            s->t = copysign(m, s->t);
            s->n = 0;
        }
    }
    if (md_reversed(s, dir)) md_reverse(s);
    if (s->n == 0) md_virgin(s, k, m, 0.0, d, dir, slid);
    else md_masing(s, k, m, d, slid);
}

/* Carries the axis and the cross force into the current contact plane (a rotation). */
static void md_carry(md_state *s, const double n[3]) {
    double a[3], f[3];
    v3_reject(a, s->axis, n);
    double l = v3_norm(a);
    if (l > 1e-6) {
        v3_scale(s->axis, a, 1.0 / l);
    } else { /* unset, or the plane turned through a right angle: the 1D law restarts */
        v3_zero(s->axis);
        s->t = 0.0;
        s->n = 0;
    }
    double f0 = v3_norm(s->fp);
    v3_reject(f, s->fp, n);
    if (l > 1e-6) v3_reject(f, f, s->axis);
    double f1 = v3_norm(f);
    v3_scale(s->fp, f, f1 > 0.0 ? f0 / f1 : 0.0);
}

static void md_scale(md_state *s, double sc) {
    s->t *= sc;
    v3_scale(s->fp, s->fp, sc);
    s->n = 0; /* gross slip erases the memory */
}

static void md_vector(const md_state *s, double f[3]) {
    v3_scale(f, s->axis, -s->t);
    v3_add(f, f, s->fp);
}

/* Advances the state over the step's tangential displacement dxi. */
static void md_step(md_state *s, const tl_contact *c, double k, double m, double mu_dp,
                    bool *slid) {
    double dx[3], dp[3];
    v3_reject(dx, c->dxi, c->n);
    if (!(m > 0.0) || !(k > 0.0)) { /* no normal force: no tangential force */
        s->t = 0.0;
        s->n = 0;
        v3_zero(s->fp);
        *slid = true;
        return;
    }
    double l = v3_norm(dx);
    if (v3_norm2(s->axis) == 0.0 && l > 0.0) v3_scale(s->axis, dx, 1.0 / l);
    double da = v3_dot(dx, s->axis);
    v3_copy(dp, dx);
    v3_axpy(dp, -da, s->axis);
    md_axis_step(s, k, m, mu_dp, da, slid);
    v3_axpy(s->fp, -k, dp); /* across the axis: elastic */
}

/* The energy released by unloading the force f to zero along a Masing branch (scale 2 mu P):
 * (2 mu P)^2 / K [3/5 - 3/2 w + 9/10 w^5/3], w = 1 - f / (2 mu P); f^2 / (2 K) for small f. */
static double md_energy(double f, double m, double k) {
    if (!(f > 0.0) || !(m > 0.0) || !(k > 0.0)) return 0.0;
    double len = 2.0 * m, e = dmin(f / len, 1.0), b;
    if (e < 1e-2) {
        b = 0.5 * e * e * (1.0 + e / 9.0 + e * e / 27.0 + 7.0 * e * e * e / 405.0);
    } else {
        double w = 1.0 - e;
        b = 0.6 - 1.5 * w + 0.9 * pow(w, 5.0 / 3.0);
    }
    return len * len / k * b;
}

static tl_status md_prepare(const tl_prep *in, double *p) {
    return mindlin_prepare_factor(in, p, 1.0, "mindlin-deresiewicz");
}

/* Li et al. eq. 18: F_t = f_MD - eta_t vt below the limit; mu F_n along f_MD at it. */
static void md_coulomb(md_state *s, tl_contact *c, double mu, double eta, bool slid) {
    double f[3];
    md_vector(s, f);
    double fnorm = v3_norm(f), limit = mu * dmax(c->fn, 0.0);
    if (slid || fnorm >= limit) {
        c->sliding = true;
        v3_scale(c->ft, f, fnorm > 0.0 ? limit / fnorm : 0.0);
        v3_zero(c->ft_damp);
        if (fnorm > limit) md_scale(s, limit / fnorm);
    } else {
        v3_scale(c->ft_damp, c->vt, -eta);
        v3_add(c->ft, f, c->ft_damp);
    }
}

static void md_force(const double *p, tl_contact *c, double *hist) {
    const double two_sqrt_5_6 = 1.8257418583505538; /* 2 sqrt(5/6) */
    double k = p[1] * sqrt(c->r_eff * dmax(c->delta, 0.0));
    double pn = dmax(c->fn_el, 0.0), m = p[0] * pn;
    md_state s;
    memset(&s, 0, sizeof s);
    if (!c->first) md_load(&s, hist);
    bool slid = false;
    md_carry(&s, c->n);
    /* the energy the change of P and K_t0 puts in at the held force (the stages book it as
     * tangential_stiffness_work, step/tangential_books.h): its energy now less that of the last
     * evaluation, both of the last force */
    if (!c->first && c->ledger) {
        double f0[3];
        md_vector(&s, f0);
        const double f0n = v3_norm(f0);
        c->w_t = md_energy(f0n, m, k) - md_energy(f0n, p[0] * dmax(s.p, 0.0), hist[MD_K]);
    }
    if (c->dt > 0.0) md_step(&s, c, k, m, p[0] * (pn - s.p), &slid);
    s.p = pn;
    /* the MD force never exceeds mu P, whatever the cross part added */
    double f[3];
    md_vector(&s, f);
    double fnorm = v3_norm(f);
    if (fnorm > m) {
        md_scale(&s, fnorm > 0.0 ? m / fnorm : 0.0);
        slid = true;
    }
    const double eta = two_sqrt_5_6 * p[2] * sqrt(k * c->m_eff);
    md_coulomb(&s, c, p[0], eta, slid);
    c->kt = k; /* its initial stiffness K_t0: what a twisting model derived from it reads */
    c->eta_t = eta;
    c->mu_t = p[0];
    md_vector(&s, f);
    c->e_el_t = md_energy(v3_norm(f), m, k);
    /* evaluations without a step (dt = 0) change nothing, except that a contact
     * opened by one records its normal force, so that its first step sees no jump */
    if (c->dt > 0.0 || c->first) {
        md_store(&s, hist);
        hist[MD_K] = k;
    }
}

static const tl_coeff_info linear_coeffs[] = {
    {"mu", "", NAN, true, 0.0, INFINITY, false, false, "Coulomb friction coefficient"},
    {"k_t", "N/m (N/m^2 with hertz-stiffness)", NAN, false, 0.0, INFINITY, true, false,
     "tangential stiffness; when absent, the series value of the materials' per-body k_t"},
    {"e_t", "", 1.0, false, 0.0, 1.0, true, false,
     "tangential restitution setting the dashpot 2 beta(e_t) sqrt(m* k_t); 1 = none"},
    {"gamma_t", "1/s (1/(m s) with hertz-stiffness)", 0.0, false, 0.0, INFINITY, false, false,
     "mass-proportional tangential damping rate"},
};
static const tl_coeff_info mindlin_coeffs[] = {
    {"mu", "", NAN, true, 0.0, INFINITY, false, false, "Coulomb friction coefficient"},
    {"e_t", "", NAN, false, 0.0, 1.0, true, false,
     "tangential restitution for the dashpot of eq. 6; when absent, the law's e (else no "
     "dashpot)"},
};

const tl_submodel tl_tangential_models[] = {
    {{TL_SLOT_TANGENTIAL, "none", "no tangential force (frictionless)", "-", NULL, 0, 0}, 0, NULL,
     none_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_TANGENTIAL, "linear", "linear spring k_t + dashpot, Coulomb limit",
      "Cundall & Strack 1979; Li et al. 2022 eq. 1; Fleischmann et al. 2015 eq. 1", linear_coeffs,
      4, 0},
     0, linear_prepare, linear_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_TANGENTIAL, "mindlin", "no-slip Mindlin spring K_t0 = 8 G* sqrt(R* delta) + dashpot",
      "Mindlin 1949; Tsuji et al. 1992; Li et al. 2022 eq. 4-6", mindlin_coeffs, 2, 0},
     0, mindlin_prepare, mindlin_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_TANGENTIAL, "mindlin-renzo", "Di Renzo-Di Maio spring K_tA = 2/3 K_t0 + dashpot",
      "Di Renzo & Di Maio 2005; Li et al. 2022 eq. 13, 17", mindlin_coeffs, 2, 0},
     0, renzo_prepare, mindlin_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_TANGENTIAL, "mindlin-deresiewicz",
      "complete incremental Mindlin-Deresiewicz (loading, Masing unloading/reloading) + dashpot",
      "Mindlin & Deresiewicz 1953; Thornton & Yin 1991; Li et al. 2022 eq. 2-4, 14, 18",
      mindlin_coeffs, 2, MD_HIST},
     0, md_prepare, md_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_TANGENTIAL, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL, false, NULL, NULL, false},
};
