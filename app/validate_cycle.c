/* One contact taken round a closed cycle of normal load and tangential displacement under Li et
 * al. (2022)'s M1 and M4 (issue 44, item 2; validation/cases/cycle/checks.yaml): the energy each
 * creates per cycle, against the closed form. A sphere held in place (so heavy that it does not
 * move) and a plane wall that the section moves round a rectangle in (overlap, displacement):
 * at delta_lo the wall slides by U, at that held displacement it presses to delta_hi, there it
 * slides back, at zero displacement it returns to delta_lo; e = e_t = 1, below the Coulomb
 * limit. M1's total-form spring creates W = 1/2 (K_t0(delta_hi) - K_t0(delta_lo)) U^2 per cycle
 * (docs/models.md, `mindlin`); the reversed cycle takes it in. The energy a cycle creates is
 * what the wall takes out of the contact over it (minus its boundary work), measured over the
 * fourth cycle (M4's state is periodic from the third). */
#include <math.h>
#include <stdio.h>

#include "cases.h"
#include "validate.h"

typedef struct cycle_geom {
    double radius, E, nu, mu, d_lo, d_hi, u;
    int steps; /* per side of the rectangle */
    double dt;
} cycle_geom;

typedef struct cycle_out {
    double created;   /* what the wall took out over the measured cycle, J */
    double stiffness; /* the ledger's tangential_stiffness_work over it, J */
    double lost;      /* the ledger's tangential dissipation over it, J */
    double books;     /* |change of the ledger's total| over it, J */
    bool ok;
} cycle_out;

static void side(tl_world *w, int wall, const cycle_geom *g, double dx, double dz, bool *ok) {
    const double T = g->steps * g->dt;
    if (tl_world_set_wall_velocity(w, wall, (tl_vec3){dx / T, 0, dz / T}) != TL_OK ||
        tl_world_step(w, g->steps) != TL_OK)
        *ok = false;
}

static cycle_out run_cycle(const cycle_geom *g, const char *tangential, bool reversed) {
    cycle_out out = {NAN, NAN, NAN, NAN, false};
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, 0};
    wd.dt = g->dt;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return out;
    tl_material_def md = validate_material("grain", 2500, g->E, g->nu, 0.0);
    int m, wall;
    tl_law_def law = tl_law_default();
    law.tangential = tangential;
    law.history = "true";
    tl_law_set(&law, "e", 1.0);
    tl_law_set(&law, "e_t", 1.0);
    tl_law_set(&law, "mu", g->mu);
    tl_particle_def pd = tl_particle_default();
    pd.radius = g->radius;
    pd.mass = 1e12; /* held in place: the contact's forces move it by less than 1e-15 m */
    tl_wall_def wl = tl_wall_default();
    wl.point = (tl_vec3){0, 0, -g->radius + g->d_lo};
    wl.normal = (tl_vec3){0, 0, 1};
    uint32_t id;
    bool ok = tl_world_add_material(w, &md, &m) == TL_OK && tl_world_set_law(w, m, m, &law) == TL_OK;
    pd.material = wl.material = m;
    ok = ok && tl_world_add_particle(w, &pd, &id) == TL_OK && tl_world_add_wall(w, &wl, &wall) == TL_OK &&
         tl_world_prepare(w) == TL_OK;
    tl_energy e0, e1;
    const double dd = g->d_hi - g->d_lo;
    for (int c = 0; c < 4 && ok; c++) {
        if (c == 3) ok = tl_world_energy(w, &e0) == TL_OK;
        if (!reversed) {
            side(w, wall, g, g->u, 0, &ok);
            side(w, wall, g, 0, dd, &ok);
            side(w, wall, g, -g->u, 0, &ok);
            side(w, wall, g, 0, -dd, &ok);
        } else {
            side(w, wall, g, 0, dd, &ok);
            side(w, wall, g, g->u, 0, &ok);
            side(w, wall, g, 0, -dd, &ok);
            side(w, wall, g, -g->u, 0, &ok);
        }
    }
    if (ok && tl_world_energy(w, &e1) == TL_OK) {
        out.created = -(e1.boundary_work - e0.boundary_work);
        out.stiffness = e1.tangential_stiffness_work - e0.tangential_stiffness_work;
        out.lost = (e1.dissipated_tangential_damping - e0.dissipated_tangential_damping) +
                   (e1.dissipated_friction - e0.dissipated_friction);
        out.books = fabs(e1.total - e0.total);
        out.ok = true;
    }
    tl_world_destroy(w);
    return out;
}

int validate_cycle(report *r, const validate_opts *o) {
    vcase *c = vcase_load("cycle", o->quick);
    if (!c) return -1;
    cycle_geom g = {vcase_param(c, "radius"), vcase_param(c, "youngs_modulus"), vcase_param(c, "poisson_ratio"),
                    vcase_param(c, "mu"), vcase_param(c, "delta_lo"), vcase_param(c, "delta_hi"),
                    vcase_param(c, "displacement"), vcase_int(c, "steps_per_side", 10, 1000000),
                    vcase_param(c, "dt")};
    report_section(r, 2, "A contact's load cycle (Li et al. 2022, M1 and M4; issue 44)");
    /* the closed form: K_t0 = 8 G* sqrt(R* delta), G* = G / (2 (2 - nu)) for a sphere and a wall of
     * one material; the Coulomb limit's margin at delta_lo */
    const double G = g.E / (2.0 * (1.0 + g.nu)), Gs = G / (2.0 * (2.0 - g.nu));
    const double k_lo = 8.0 * Gs * sqrt(g.radius * g.d_lo), k_hi = 8.0 * Gs * sqrt(g.radius * g.d_hi);
    const double W = 0.5 * (k_hi - k_lo) * g.u * g.u;
    const double Es = g.E / (2.0 * (1.0 - g.nu * g.nu)), fn_lo = 4.0 / 3.0 * Es * sqrt(g.radius) * pow(g.d_lo, 1.5);
    report_text(r,
                "A sphere (R = %g m, E = %g Pa, ν = %g) held in place and a plane wall of its material moved round a "
                "rectangle: at δ = %g m the wall slides by U = %g m, presses to δ = %g m at that held "
                "displacement, slides back and returns; e = e_t = 1, μ = %g (K_t0 U / μ F_n = %.3f at the "
                "smaller overlap: no sliding), %d steps of %g s per side. M1's total-form Mindlin spring stores "
                "½ K_t0 |ξ|² with K_t0 = 8 G* √(R δ) following the overlap: the cycle creates W = ½ (K_t0(δ_hi) "
                "− K_t0(δ_lo)) U² = %.6g J (K_t0 from %.6g to %.6g N/m), which the wall takes out; the reverse "
                "cycle puts it in. M4 (the incremental Mindlin–Deresiewicz force) is measured over its periodic "
                "state (the fourth cycle).\n\n",
                g.radius, g.E, g.nu, g.d_lo, g.u, g.d_hi, g.mu, k_lo * g.u / (g.mu * fn_lo), g.steps, g.dt, W, k_lo,
                k_hi);
    vcase_measure(c, "closed_form", W);
    vcase_measure(c, "closed_form_reversed", -W);
    static const char *const tangential[2] = {"mindlin", "mindlin-deresiewicz"};
    static const char *const tags[2] = {"m1", "m4"};
    int rc = 0;
    for (int l = 0; l < 2; l++)
        for (int rev = 0; rev < 2; rev++) {
            cycle_out x = run_cycle(&g, tangential[l], rev == 1);
            char name[64];
            snprintf(name, sizeof name, "%s%s.created", tags[l], rev ? "_reversed" : "");
            vcase_measure(c, name, x.created);
            snprintf(name, sizeof name, "%s%s.stiffness", tags[l], rev ? "_reversed" : "");
            vcase_measure(c, name, x.stiffness);
            snprintf(name, sizeof name, "%s%s.lost", tags[l], rev ? "_reversed" : "");
            vcase_measure(c, name, x.lost);
            snprintf(name, sizeof name, "%s%s.books", tags[l], rev ? "_reversed" : "");
            vcase_measure(c, name, x.books / W);
            if (!x.ok) rc = -1;
        }
    /* M4 at a quarter of the steps: its branches are integrated exactly at constant P, so what
     * it takes per cycle is its model's, not the step's */
    if (rc == 0) {
        cycle_geom coarse = g;
        coarse.steps = g.steps / 4;
        coarse.dt = g.dt * 4.0;
        cycle_out x = run_cycle(&coarse, "mindlin-deresiewicz", false);
        vcase_measure(c, "m4_coarse.created", x.created);
        if (!x.ok) rc = -1;
    }
    if (rc == 0) rc = vcase_rows(c, r, "main");
    else report_crash(r, "a contact's load cycle");
    vcase_free(c);
    return rc;
}
