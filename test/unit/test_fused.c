/* The fused Hertz-Mindlin kernel (law->fused, src/laws/fused.h) against the
 * generic slot composition (tl_law_eval_slots, src/laws/law.h) on random
 * contacts: overlaps from 1e-9 to 1e-4 m, random rates, normals, tangential
 * velocities, displacements, radii, masses and histories, both Coulomb
 * tests, clamping on and off, mindlin and mindlin-renzo, sliding and
 * sticking. Every output must agree to 1e-13 relative; the sliding flag must
 * be identical except at an exact tie of the Coulomb test.
 * Also: only the Hertz-Mindlin compositions get a fused kernel.
 * Reaches into src/ (law.h, fused.h, registry.h, materials.h, world.h). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "fused.h"
#include "law.h"
#include "materials.h"
#include "registry.h"
#include "talus/talus.h"
#include "test.h"
#include "vec.h"
#include "world_probe.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static double urand(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) * 0x1.0p-53;
}
static double urange(double lo, double hi) { return lo + (hi - lo) * urand(); }
static double logrange(double lo, double hi) { return exp(urange(log(lo), log(hi))); }
static void unit_vector(double n[3]) {
    for (;;) {
        double v[3] = {urange(-1, 1), urange(-1, 1), urange(-1, 1)};
        double r2 = v3_norm2(v);
        if (r2 > 1e-4 && r2 <= 1.0) {
            v3_scale(n, v, 1.0 / sqrt(r2));
            return;
        }
    }
}

#define HIST 32 /* TL_MAX_HIST */

static tl_material material(const char *name, double E, double nu, double density) {
    tl_material m;
    memset(&m, 0, sizeof m);
    m.name = (char *)(uintptr_t)name; /* never freed: only read by prepare */
    m.density = density;
    m.youngs_modulus = E;
    m.poisson_ratio = nu;
    m.shear_modulus = E / (2.0 * (1.0 + nu)); /* as tl_world_add_material derives it */
    return m;
}

/* Assembles and prepares a law for materials a and b; returns 0 on success. */
static int make_law(const tl_law_def *def, const tl_material *a, const tl_material *b, tl_law *law,
                    tl_pair_law *pl) {
    char msg[768];
    if (tl_law_assemble(def, law, msg, sizeof msg) != TL_OK) {
        fprintf(stderr, "assemble: %s\n", msg);
        return -1;
    }
    tl_fused_attach(law);
    memset(pl, 0, sizeof *pl);
    if (tl_law_prepare(law, a, b, pl, msg, sizeof msg) != TL_OK) {
        fprintf(stderr, "prepare: %s\n", msg);
        return -1;
    }
    tl_fused_prepare(law, pl);
    pl->split = 0.5;
    return 0;
}

/* relative error of a against b on the scale s (0 when both are exactly equal) */
static double rel(double a, double b, double s) {
    if (a == b) return 0.0;
    return fabs(a - b) / s;
}
static double rel3(const double a[3], const double b[3], double s) {
    double d[3];
    v3_sub(d, a, b);
    double n = v3_norm(d);
    return n == 0.0 ? 0.0 : n / s;
}

static bool same_outputs(const tl_contact *a, const tl_contact *b) {
    bool same = a->fn == b->fn && a->fn_el == b->fn_el && a->fn_damp == b->fn_damp &&
                a->e_el_n == b->e_el_n && a->e_el_t == b->e_el_t && a->sliding == b->sliding &&
                a->k == b->k;
    for (int q = 0; q < 3; q++) same = same && a->ft[q] == b->ft[q] && a->xi[q] == b->xi[q];
    return same;
}

typedef struct stats {
    int cases, sliding, sticking, clamped, ties, flag_mismatch;
    double worst[12];
} stats;

static const char *field_names[12] = {"fn", "fn_el", "fn_damp", "ft", "xi", "history",
                                      "e_el_n", "e_el_t", "k", "ft_damp", "ft (component)", "-"};

/* One random contact through both paths. */
static void one_case(const tl_law *law, const tl_pair_law *pl, stats *st) {
    tl_contact c;
    memset(&c, 0, sizeof c);
    c.delta = logrange(1e-9, 1e-4);
    /* approach and separation, from quasi-static to fast (tensile fn when clamping is off) */
    c.delta_rate = (urand() < 0.5 ? -1.0 : 1.0) * logrange(1e-6, 3.0);
    unit_vector(c.n);
    double t[3];
    unit_vector(t);
    v3_reject(t, t, c.n);
    double tn = v3_norm(t);
    if (tn > 0.0) v3_scale(t, t, 1.0 / tn);
    double vts = urand() < 0.1 ? 0.0 : logrange(1e-6, 2.0);
    v3_scale(c.vt, t, vts);
    c.r_eff = logrange(1e-5, 5e-2);
    c.m_eff = logrange(1e-9, 1.0);
    c.dt = logrange(1e-8, 1e-4);
    c.first = urand() < 0.1;
    c.v_impact = 0.0;
    /* the drift displacement: mostly along the tangential velocity, with some normal part */
    double dn[3];
    unit_vector(dn);
    v3_scale(c.dxi, c.vt, c.dt);
    v3_axpy(c.dxi, urand() * 0.1 * vts * c.dt, dn);

    /* a history sized against the Coulomb limit: |K_t xi| from 0 to 2 mu F_el, so that
     * both sticking and sliding contacts come up */
    const double *pt = pl->p[TL_SLOT_TANGENTIAL], *pn = pl->p[TL_SLOT_NORMAL];
    double K = pn[0] * sqrt(c.r_eff);
    double fel = K * c.delta * sqrt(c.delta);
    double kt = pt[4] * pt[1] * sqrt(c.r_eff * c.delta);
    double mu = pt[0];
    double target = (mu > 0.0 ? mu : 0.3) * fel / kt * urange(0.0, 2.0);
    double h0[3], hn[3];
    unit_vector(h0);
    v3_reject(h0, h0, c.n); /* the stored history lies in the previous contact plane: */
    unit_vector(hn);        /* give it a small out-of-plane part as a rotating normal would */
    v3_axpy(h0, 0.05 * urand(), hn);
    double h0n = v3_norm(h0);
    if (h0n > 0.0) v3_scale(h0, h0, target / h0n);

    /* the record of a new contact: zero but for the tangential history (a fused kernel may
     * keep its own values after the slots' history; they start at zero) */
    const int ho = law->hist_offset[TL_SLOT_HISTORY];
    double hist_s[HIST], hist_new[HIST], hist_f[HIST];
    memset(hist_s, 0, sizeof hist_s);
    v3_copy(hist_s + ho, h0);
    memcpy(hist_new, hist_s, sizeof hist_s);
    /* and of a steady one: what the fused kernel kept at an earlier step of this pair, with
     * the same tangential history */
    memcpy(hist_f, hist_s, sizeof hist_s);
    {
        tl_contact earlier = c;
        tl_law_eval(law, pl, &earlier, hist_f);
        v3_copy(hist_f + ho, h0);
    }

    tl_contact cf = c, cs = c, cn = c;
    tl_law_eval(law, pl, &cf, hist_f);        /* the fused kernel, steady contact */
    tl_law_eval(law, pl, &cn, hist_new);      /* the fused kernel, new contact */
    tl_law_eval_slots(law, pl, &cs, hist_s);  /* the slots in order */
    st->cases++;
    /* a new and a steady contact give the same numbers */
    if (!(same_outputs(&cf, &cn) && memcmp(hist_f, hist_new, sizeof hist_f) == 0)) {
        tl_test_checks++;
        tl_test_failures++;
        fprintf(stderr, "the fused kernel differs between a new and a steady contact\n");
    }

    /* the Coulomb test as the slot path made it: is this an exact tie? */
    double eta = 1.8257418583505538 * pt[2] * sqrt(pt[1] * sqrt(c.r_eff * c.delta) * c.m_eff);
    double xs[3], fs[3], fd[3], ftr[3];
    v3_add(xs, h0, c.dxi);
    v3_reject(xs, xs, c.n);
    v3_scale(fs, xs, -kt);
    v3_scale(fd, c.vt, -eta);
    v3_add(ftr, fs, fd);
    double trial = (int)pt[3] == TL_COULOMB_SPRING ? v3_norm(fs) : v3_norm(ftr);
    double limit = mu * fmax(cs.fn, 0.0);
    bool tie = fabs(trial - limit) <= 1e-12 * (trial + limit);

    if (cf.sliding != cs.sliding) {
        if (tie) {
            st->ties++;
            return; /* the values differ by the branch taken; nothing to compare */
        }
        st->flag_mismatch++;
        fprintf(stderr, "sliding flag differs: fused %d, slots %d, trial %.17g limit %.17g\n",
                cf.sliding, cs.sliding, trial, limit);
        return;
    }
    if (cs.sliding) st->sliding++;
    else st->sticking++;
    if (cs.fn_el + cs.fn_damp < 0.0 && law->clamp_tensile) st->clamped++;

    double sfn = fabs(cs.fn_el) + fabs(cs.fn_damp);
    double sft = kt * v3_norm(xs) + eta * v3_norm(c.vt) + v3_norm(cs.ft);
    double sxi = v3_norm(xs) + v3_norm(cs.xi);
    double e[12] = {0};
    e[0] = rel(cf.fn, cs.fn, sfn);
    e[1] = rel(cf.fn_el, cs.fn_el, fabs(cs.fn_el));
    e[2] = rel(cf.fn_damp, cs.fn_damp, fabs(cs.fn_damp));
    e[3] = sft > 0.0 ? rel3(cf.ft, cs.ft, sft) : rel3(cf.ft, cs.ft, 1.0);
    e[4] = sxi > 0.0 ? rel3(cf.xi, cs.xi, sxi) : rel3(cf.xi, cs.xi, 1.0);
    const double *hf = hist_f + ho, *hs = hist_s + ho;
    e[5] = sxi > 0.0 ? rel3(hf, hs, sxi) : rel3(hf, hs, 1.0);
    e[6] = rel(cf.e_el_n, cs.e_el_n, fabs(cs.e_el_n));
    e[7] = rel(cf.e_el_t, cs.e_el_t, 0.5 * kt * v3_norm2(xs) + fabs(cs.e_el_t));
    e[8] = rel(cf.k, cs.k, fabs(cs.k));
    e[9] = rel3(cf.ft_damp, cs.ft_damp, sft > 0.0 ? sft : 1.0);
    /* the history stored is the xi of the evaluation, in both paths */
    e[10] = rel3(hs, cs.xi, sxi > 0.0 ? sxi : 1.0);
    for (int i = 0; i < 11; i++) {
        if (!(e[i] <= st->worst[i])) st->worst[i] = e[i];
        if (!(e[i] <= 1e-13)) {
            tl_test_checks++;
            tl_test_failures++;
            fprintf(stderr,
                    "fused and slots differ in %s by %.3g relative (delta %.3g, rate %.3g, R* %.3g, "
                    "m* %.3g, sliding %d, clamp %d)\n",
                    field_names[i], e[i], c.delta, c.delta_rate, c.r_eff, c.m_eff, cs.sliding,
                    law->clamp_tensile);
        }
    }
    /* nothing beyond the law's history is touched */
    bool untouched = true;
    for (int i = law->hist_count; i < HIST; i++) untouched &= hist_f[i] == 0.0 && hist_s[i] == 0.0;
    ENSURE(untouched);
}

static void test_agreement(void) {
    const char *tangentials[2] = {"mindlin", "mindlin-renzo"};
    const tl_coulomb_test tests[2] = {TL_COULOMB_TOTAL, TL_COULOMB_SPRING};
    stats all;
    memset(&all, 0, sizeof all);
    for (int ti = 0; ti < 2; ti++)
        for (int ci = 0; ci < 2; ci++)
            for (int clamp = 0; clamp < 2; clamp++)
                for (int mat = 0; mat < 6; mat++) {
                    /* random materials, coefficients and friction for each block of contacts */
                    tl_material a = material("a", logrange(1e5, 1e11), urange(-0.5, 0.49), 2500.0);
                    tl_material b = material("b", logrange(1e5, 1e11), urange(-0.5, 0.49), 7800.0);
                    tl_law_def def = tl_law_default();
                    def.tangential = tangentials[ti];
                    def.coulomb_test = tests[ci];
                    def.clamp_tensile = clamp != 0;
                    tl_law_set(&def, "e", urange(0.05, 1.0));
                    tl_law_set(&def, "mu", mat == 0 ? 0.0 : urange(0.05, 1.2));
                    if (mat % 2) tl_law_set(&def, "e_t", urange(0.05, 1.0));
                    tl_law law;
                    tl_pair_law pl;
                    int ok = make_law(&def, &a, &b, &law, &pl);
                    ENSURE(ok == 0);
                    if (ok != 0) continue;
                    ENSURE(law.fused != NULL);
                    ENSURE(law.fused_kind == TL_FUSED_HERTZ_MINDLIN);
                    ENSURE(law.hist_count >= 3 && law.hist_count <= HIST);
                    stats st;
                    memset(&st, 0, sizeof st);
                    for (int k = 0; k < 2000; k++) one_case(&law, &pl, &st);
                    all.cases += st.cases;
                    all.sliding += st.sliding;
                    all.sticking += st.sticking;
                    all.clamped += st.clamped;
                    all.ties += st.ties;
                    all.flag_mismatch += st.flag_mismatch;
                    for (int i = 0; i < 11; i++) all.worst[i] = fmax(all.worst[i], st.worst[i]);
                    /* each block sees both regimes (mu = 0 always slides) */
                    ENSURE(st.sliding > 100);
                    if (mat != 0) ENSURE(st.sticking > 100);
                }
    fprintf(stderr, "%d random contacts: %d sliding, %d sticking, %d clamped, %d ties, %d flag mismatches\n",
            all.cases, all.sliding, all.sticking, all.clamped, all.ties, all.flag_mismatch);
    fprintf(stderr, "largest relative differences:");
    for (int i = 0; i < 11; i++) fprintf(stderr, " %s %.2g", field_names[i], all.worst[i]);
    fprintf(stderr, "\n");
    ENSURE(all.flag_mismatch == 0);
    ENSURE(all.clamped > 100);
    ENSURE(all.ties < all.cases / 1000 + 1);
    for (int i = 0; i < 11; i++) ENSURE(all.worst[i] <= 1e-13);
}

/* The fused kernel is found only for hertz + tsuji + mindlin|mindlin-renzo + true. */
static void test_selection(void) {
    tl_material a = material("a", 1e7, 0.3, 2500.0);
    tl_material b = material("b", 2e8, 0.25, 2500.0);
    a.k_n = a.k_t = b.k_n = b.k_t = 1e4;
    a.yield_stress = b.yield_stress = 1e6;
    typedef struct row {
        const char *normal, *damping, *tangential, *history;
        bool fused;
    } row;
    const row rows[] = {
        {"hertz", "tsuji", "mindlin", "true", true},
        {"hertz", "tsuji", "mindlin-renzo", "true", true},
        {"hertz", "tsuji", "mindlin", "pseudo", false},
        {"hertz", "tsuji", "mindlin", "none", false},
        {"hertz", "tsuji", "linear", "true", false},
        {"hertz", "tsuji", "mindlin-deresiewicz", "true", false},
        {"hertz", "tsuji", "none", "none", false},
        {"hertz", "none", "mindlin", "true", false},
        {"hertz", "viscous", "mindlin", "true", false},
        {"hertz", "hunt-crossley", "mindlin", "true", false},
        {"hertz-stiffness", "tsuji", "mindlin", "true", false},
        {"linear", "restitution", "linear", "true", false},
        {"hooke", "mass-proportional", "linear", "true", false},
        {"wang-kv", "wang-kv", "mindlin", "true", false},
    };
    int fused_seen = 0, plain_seen = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        tl_law_def def = tl_law_default();
        def.normal = rows[r].normal;
        def.damping = rows[r].damping;
        def.tangential = rows[r].tangential;
        def.history = rows[r].history;
        const char *dn = rows[r].damping;
        if (!strcmp(dn, "tsuji") || !strcmp(dn, "restitution") || !strcmp(dn, "hunt-crossley") ||
            !strcmp(dn, "wang-kv"))
            tl_law_set(&def, "e", 0.5);
        if (!strcmp(dn, "wang-kv")) tl_law_set(&def, "e_p", 0.4);
        if (!strcmp(dn, "viscous")) tl_law_set(&def, "d", 0.1);
        if (!strcmp(dn, "mass-proportional")) tl_law_set(&def, "gamma_n", 10.0);
        if (!strcmp(rows[r].normal, "hertz-stiffness") || !strcmp(rows[r].normal, "hooke"))
            tl_law_set(&def, "k_n", 1e4);
        if (strcmp(rows[r].tangential, "none")) tl_law_set(&def, "mu", 0.4);
        tl_law law;
        tl_pair_law pl;
        int ok = make_law(&def, &a, &b, &law, &pl);
        if (ok != 0) fprintf(stderr, "law %zu (%s + %s + %s + %s) not built\n", r, rows[r].normal,
                             rows[r].damping, rows[r].tangential, rows[r].history);
        ENSURE(ok == 0);
        if (ok != 0) continue;
        ENSURE((law.fused != NULL) == rows[r].fused);
        ENSURE((law.fused_kind == TL_FUSED_HERTZ_MINDLIN) == rows[r].fused);
        if (rows[r].fused) {
            fused_seen++;
            /* the fused constants are the square roots the kernel shares */
            ENSURE_REL(pl.fused[0], sqrt(pl.p[TL_SLOT_NORMAL][0]), 1e-15);
            ENSURE_REL(pl.fused[1], sqrt(pl.p[TL_SLOT_TANGENTIAL][1]), 1e-15);
        } else {
            plain_seen++;
            ENSURE(law.fused_kind == TL_FUSED_NONE);
            /* tl_law_eval then runs the slots: the same numbers as tl_law_eval_slots */
            tl_contact c;
            memset(&c, 0, sizeof c);
            c.delta = 1e-6;
            c.delta_rate = 0.1;
            v3_set(c.n, 0, 0, 1);
            v3_set(c.vt, 0.01, 0, 0);
            v3_set(c.dxi, 1e-8, 0, 0);
            c.r_eff = 1e-3;
            c.m_eff = 1e-5;
            c.dt = 1e-6;
            c.v_impact = 0.1;
            c.first = true;
            double h1[32] = {0}, h2[32] = {0};
            tl_contact c1 = c, c2 = c;
            tl_law_eval(&law, &pl, &c1, h1);
            tl_law_eval_slots(&law, &pl, &c2, h2);
            ENSURE(c1.fn == c2.fn && c1.ft[0] == c2.ft[0] && memcmp(h1, h2, sizeof h1) == 0);
        }
    }
    ENSURE(fused_seen == 2);
    ENSURE(plain_seen >= 10);

    /* and the world picks it up: a law set on a world keeps its fused kernel */
    tl_world_def wd = tl_world_default();
    tl_world *w;
    ENSURE_OK(tl_world_create(&wd, &w));
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = 2500;
    md.youngs_modulus = 1e7;
    int m;
    ENSURE_OK(tl_world_add_material(w, &md, &m));
    tl_law_def def = tl_law_default();
    tl_law_set(&def, "e", 0.5);
    tl_law_set(&def, "mu", 0.5);
    ENSURE_OK(tl_world_set_law(w, m, m, &def));
    tl_law_def got;
    ENSURE_OK(tl_world_get_law(w, m, m, &got));
    ENSURE(strcmp(got.normal, "hertz") == 0 && strcmp(got.tangential, "mindlin") == 0);
    ENSURE(tl_probe_law(w, m, m)->fused_kind == TL_FUSED_HERTZ_MINDLIN);
    def.history = "pseudo";
    ENSURE_OK(tl_world_set_law(w, m, m, &def));
    ENSURE(tl_probe_law(w, m, m)->fused == NULL);
    tl_world_destroy(w);
}

int main(void) {
    test_agreement();
    test_selection();
    return tl_test_report("test_fused");
}
