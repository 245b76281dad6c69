/* A cohesive agglomerate thrown at a wall (issue 46; validation/cases/agglomerate/checks.yaml):
 * the break-up as the impact speed rises, the classic test of adhesive DEM (Thornton, Yin &
 * Adams 1996 and their followers; no paper's numbers are compared). Beads of one size, bonded by
 * JKR adhesion (hertz + jkr, Mindlin friction, a dashpot), packed face-centred cubic a little
 * closer than touching within a ball, fly at a plane wall (no adhesion to it) at speeds that
 * double from one run to the next. After the agglomerate has travelled its diameter past the
 * touch, the section counts the bonds of the start still held (the damage ratio is the fraction
 * lost), the fragments (bodies joined by contacts) and the largest one's share of the beads, and
 * the ledger's balance. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "validate.h"

#define MAX_SPEEDS 8

typedef struct agg_geom {
    double radius, density, E, nu, e, mu, w, closer, size, gap, dt, speed0;
    int speeds;
} agg_geom;

typedef struct agg_out {
    double speed, damage, largest, books, lost, seconds;
    int beads, bonds, fragments;
    bool ok;
} agg_out;

/* the root of i's fragment (path halving) */
static uint32_t root(uint32_t *up, uint32_t i) {
    while (up[i] != i) {
        up[i] = up[up[i]];
        i = up[i];
    }
    return i;
}

/* the bonds of the world now (particle pairs in contact, held apart or touching), as ids a < b
 * packed in 64 bits, sorted; *n of them */
static uint64_t *bonds_of(tl_world *w, size_t *n) {
    size_t nc = tl_world_contact_count(w), k = 0;
    uint64_t *b = malloc((nc + 1) * sizeof *b);
    if (!b) return NULL;
    for (size_t i = 0; i < nc; i++) {
        tl_contact_info c;
        if (tl_world_get_contact(w, i, &c) != TL_OK || c.with_wall) continue;
        uint32_t lo = c.id_a < c.id_b ? c.id_a : c.id_b, hi = c.id_a < c.id_b ? c.id_b : c.id_a;
        b[k++] = (uint64_t)lo << 32 | hi;
    }
    for (size_t i = 1; i < k; i++) /* insertion sort: the lists are short and nearly sorted */
        for (size_t j = i; j > 0 && b[j - 1] > b[j]; j--) {
            uint64_t t = b[j];
            b[j] = b[j - 1];
            b[j - 1] = t;
        }
    *n = k;
    return b;
}

static agg_out run_speed(const agg_geom *g, double v) {
    agg_out out;
    memset(&out, 0, sizeof out);
    out.speed = v;
    double t0 = omp_get_wtime();
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, 0};
    wd.dt = g->dt;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return out;
    tl_material_def md = validate_material("glass", g->density, g->E, g->nu, 0.0);
    tl_law_def bead = tl_law_default(), wall_law = tl_law_default();
    bead.tangential = wall_law.tangential = "mindlin";
    tl_law_set(&bead, "e", g->e);
    tl_law_set(&bead, "mu", g->mu);
    tl_law_set(&wall_law, "e", g->e);
    tl_law_set(&wall_law, "mu", g->mu);
    int m = -1, mw = -1, wall = -1;
    bool ok = tl_world_add_material(w, &md, &m) == TL_OK;
    md.name = "wall";
    ok = ok && tl_world_add_material(w, &md, &mw) == TL_OK;
    ok = ok && tl_law_choose(&bead, "cohesion", "jkr") == TL_OK && tl_law_set(&bead, "w_adhesion", g->w) == TL_OK;
    ok = ok && tl_world_set_law(w, m, m, &bead) == TL_OK && tl_world_set_law(w, m, mw, &wall_law) == TL_OK;
    /* face-centred cubic, nearest neighbours 2 r (1 - closer) apart, within the ball of radius
     * size - r about the centre (size + gap from the wall) */
    const double a = 2.0 * g->radius * (1.0 - g->closer) * sqrt(2.0), reach = g->size - g->radius;
    const int n = (int)(g->size / a) + 2;
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    for (int i = -n; i <= n && ok; i++)
        for (int j = -n; j <= n && ok; j++)
            for (int k = -n; k <= n && ok; k++)
                for (int q = 0; q < 4 && ok; q++) {
                    double p[3] = {(i + basis[q][0]) * a, (j + basis[q][1]) * a, (k + basis[q][2]) * a};
                    if (sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) > reach) continue;
                    tl_particle_def pd = tl_particle_default();
                    pd.material = m;
                    pd.radius = g->radius;
                    pd.position = (tl_vec3){p[0] + g->size + g->gap, p[1], p[2]};
                    pd.velocity = (tl_vec3){-v, 0, 0};
                    ok = tl_world_add_particle(w, &pd, NULL) == TL_OK;
                    out.beads++;
                }
    tl_wall_def wl = tl_wall_default();
    wl.material = mw;
    wl.point = (tl_vec3){0, 0, 0};
    wl.normal = (tl_vec3){1, 0, 0};
    ok = ok && tl_world_add_wall(w, &wl, &wall) == TL_OK && tl_world_prepare(w) == TL_OK;
    size_t nb0 = 0, nb1 = 0;
    uint64_t *b0 = ok ? bonds_of(w, &nb0) : NULL, *b1 = NULL;
    tl_energy e0, e1;
    ok = ok && b0 && tl_world_energy(w, &e0) == TL_OK;
    /* to the touch, then the agglomerate's diameter */
    const int64_t steps = llround((g->gap + 2.0 * g->size) / v / g->dt);
    ok = ok && tl_world_step(w, steps) == TL_OK && tl_world_energy(w, &e1) == TL_OK;
    if (ok && (b1 = bonds_of(w, &nb1)) != NULL) {
        /* the bonds of the start still held (both lists sorted) */
        size_t kept = 0;
        for (size_t i = 0, j = 0; i < nb0 && j < nb1;) {
            if (b0[i] == b1[j]) kept++, i++, j++;
            else if (b0[i] < b1[j]) i++;
            else j++;
        }
        /* fragments: the beads joined by the contacts now (ids 1..beads) */
        uint32_t *up = malloc(((size_t)out.beads + 1) * sizeof *up), *size = calloc((size_t)out.beads + 1, sizeof *size);
        if (up && size) {
            for (uint32_t i = 0; i <= (uint32_t)out.beads; i++) up[i] = i;
            for (size_t i = 0; i < nb1; i++) {
                uint32_t x = root(up, (uint32_t)(b1[i] >> 32)), y = root(up, (uint32_t)(b1[i] & 0xffffffffu));
                if (x != y) up[x] = y;
            }
            int largest = 0;
            for (uint32_t i = 1; i <= (uint32_t)out.beads; i++) {
                uint32_t r = root(up, i);
                if (size[r]++ == 0) out.fragments++;
                if ((int)size[r] > largest) largest = (int)size[r];
            }
            out.bonds = (int)nb0;
            out.damage = nb0 ? 1.0 - (double)kept / (double)nb0 : NAN;
            out.largest = (double)largest / out.beads;
            out.books = fabs(e1.total - e0.total) / fmax(validate_largest_term(&e0), validate_largest_term(&e1));
            out.lost = e1.dissipated_cohesion - e0.dissipated_cohesion;
            out.ok = true;
        }
        free(up);
        free(size);
    }
    free(b0);
    free(b1);
    tl_world_destroy(w);
    out.seconds = omp_get_wtime() - t0;
    return out;
}

int validate_agglomerate(report *r, const validate_opts *o) {
    vcase *c = vcase_load("agglomerate", o->quick);
    if (!c) return -1;
    agg_geom g = {vcase_param(c, "radius"),  vcase_param(c, "density"), vcase_param(c, "youngs_modulus"),
                  vcase_param(c, "poisson_ratio"), vcase_param(c, "e"), vcase_param(c, "mu"),
                  vcase_param(c, "w_adhesion"), vcase_param(c, "closer"), vcase_param(c, "size"),
                  vcase_param(c, "gap"), vcase_param(c, "dt"), vcase_param(c, "speed0"),
                  vcase_int(c, "speeds", 2, MAX_SPEEDS)};
    const double Rs = 0.5 * g.radius, Es = g.E / (2.0 * (1.0 - g.nu * g.nu)), pi = 3.14159265358979323846;
    const double mass = g.density * 4.0 / 3.0 * pi * g.radius * g.radius * g.radius;
    /* a bond's sticking speed (an undamped pair: sqrt(2 (-U(0)) / m*), -U(0) = 7.09 (w^5 R*^4 /
     * E*^2)^(1/3), docs/models.md) */
    const double v_stick = sqrt(2.0 * 7.0922 * cbrt(pow(g.w, 5) * pow(Rs, 4) / (Es * Es)) / (0.5 * mass));
    report_section(r, 2, "A cohesive agglomerate thrown at a wall (issue 46)");
    report_text(r,
                "Beads of radius %g m (density %g kg/m³, E = %g Pa, ν = %g) bonded by JKR adhesion (hertz + jkr, "
                "w = %g J/m², Mindlin friction μ = %g, Tsuji's dashpot for e = %g), packed face-centred cubic "
                "with their neighbours %g of a diameter closer than touching within a ball of radius %g m, fly "
                "at a plane wall of their material (no adhesion to it) from %g m away; dt = %g s. The speeds "
                "double from %g m/s; a bond's sticking speed (two beads, undamped) is %.3g m/s. Each run stops "
                "when the agglomerate has travelled its diameter past the touch, and counts the bonds of the "
                "start still held (the damage ratio is the share lost), the fragments (beads joined by contacts) "
                "and the largest one's share of the beads. No paper's numbers are compared (the test is the "
                "classic one of Thornton, Yin & Adams 1996, whose agglomerates and materials are not these); "
                "the rows show the break-up growing with the speed.\n\n",
                g.radius, g.density, g.E, g.nu, g.w, g.mu, g.e, g.closer, g.size, g.gap, g.dt, g.speed0, v_stick);
    agg_out res[MAX_SPEEDS];
    const int nt = o->threads > 0 ? o->threads : 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (int k = 0; k < g.speeds; k++) res[k] = run_speed(&g, g.speed0 * pow(2.0, k));
    int rc = 0;
    double rise = INFINITY;
    for (int k = 0; k < g.speeds; k++) {
        if (!res[k].ok) {
            report_text(r, "\n**FAIL**: the run at %g m/s could not run\n\n", res[k].speed);
            rc = -1;
            continue;
        }
        char word[32];
        snprintf(word, sizeof word, "%g", res[k].speed);
        vcase_word(c, "speed", word);
        vcase_measure(c, "beads", res[k].beads);
        vcase_measure(c, "bonds", res[k].bonds);
        vcase_measure(c, "damage", res[k].damage);
        vcase_measure(c, "fragments", res[k].fragments);
        vcase_measure(c, "largest", res[k].largest);
        vcase_measure(c, "lost", res[k].lost);
        vcase_measure(c, "books", res[k].books);
        if (vcase_rows(c, r, "run") != 0) rc = -1;
        if (k > 0) rise = fmin(rise, res[k].damage - res[k - 1].damage);
        fprintf(stderr, "talus validate: agglomerate at %g m/s: %.0f s of wall time\n", res[k].speed, res[k].seconds);
    }
    report_table_end(r);
    if (rc == 0) {
        vcase_measure(c, "damage_rise", rise);
        vcase_measure(c, "largest_slow", res[0].largest);
        vcase_measure(c, "largest_fast", res[g.speeds - 1].largest);
        rc = vcase_rows(c, r, "trend");
        report_table_end(r);
    }
    vcase_free(c);
    return rc;
}
