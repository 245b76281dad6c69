/* A bed that heats itself (issue 44, item 1): the Brazil nut's bed of Li et al. (2022, section
 * 3.2) with the box held still and no dashpots (e = e_t = 1), under M1 and M4, with analytic
 * ellipsoids and with the paper's meshes under both readings of the polygonal contact, at three
 * steps (`--long`; validation/cases/held/checks.yaml). Each run samples the ledger every
 * `sample` seconds; over [measure_from, duration] the bed has settled by friction, and its
 * kinetic energy and the ledger's stiffness work show whether the contact model heats a resting
 * bed and how fast. The runs go side by side, one thread each. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "talus/scene.h"
#include "validate.h"

#define HELD_RUNS 18 /* 3 bodies x 2 laws x 3 steps, in the case file's order */

static const char *const BODY_TAG[3] = {"ell", "pcm", "pot"};
static const char *const BODY_NAME[3] = {"ellipsoids", "meshes, PCM reading", "meshes, conservative reading"};
static const char *const LAW_NAME[2] = {"M1", "M4"};
static const char *const DT_NAME[3] = {"1e-5", "2e-5", "5e-5"};

typedef struct held_run {
    char scene[32];
    int body, law, dt;
    int ok;                      /* 1 ran, 0 not run, -1 failed */
    double ke_from, ke_end, stiff_from, stiff_end, fric_from, fric_end;
    double fall;                 /* the largest fall of a tangential dissipation column, J */
    double balance;              /* |total - total_0| / the largest term's magnitude */
    double t_from, t_end, wall_s, dt_s;
    char error[256];
} held_run;

static double kinetic(const tl_energy *e) { return e->kinetic_translational + e->kinetic_rotational; }

/* one run: the world stepped in samples of `sample` seconds */
static void run_one(vcase *c, report *r, held_run *h, double duration, double from, double sample) {
    tl_scene *sc;
#pragma omp critical(held_case)
    sc = vcase_scene(c, r, h->scene, h->scene);
    if (!sc) {
        h->ok = -1;
        snprintf(h->error, sizeof h->error, "the scene could not be made");
        return;
    }
    tl_world *w = tl_scene_world(sc);
    double t0 = omp_get_wtime();
    if (tl_world_set_threads(w, 1) != TL_OK || tl_world_prepare(w) != TL_OK) {
        h->ok = -1;
        snprintf(h->error, sizeof h->error, "%s", tl_world_error(w));
        tl_scene_destroy(sc);
        return;
    }
    const double dt = tl_world_dt(w);
    h->dt_s = dt;
    const int64_t per = llround(sample / dt), total = llround(duration / dt), at_from = llround(from / dt);
    tl_energy e, e0;
    tl_world_energy(w, &e0);
    double damp = e0.dissipated_tangential_damping, fric = e0.dissipated_friction, scale = validate_largest_term(&e0);
    double bal = 0.0;
    h->fall = 0.0;
    for (int64_t done = 0; done < total;) {
        int64_t n = total - done < per ? total - done : per;
        if (tl_world_step(w, n) != TL_OK) {
            h->ok = -1;
            snprintf(h->error, sizeof h->error, "%s", tl_world_error(w));
            break;
        }
        done += n;
        tl_world_energy(w, &e);
        h->fall = fmax(h->fall, fmax(damp - e.dissipated_tangential_damping, fric - e.dissipated_friction));
        damp = e.dissipated_tangential_damping;
        fric = e.dissipated_friction;
        scale = fmax(scale, validate_largest_term(&e));
        bal = fmax(bal, fabs(e.total - e0.total));
        if (done == at_from) {
            h->t_from = (double)done * dt;
            h->ke_from = kinetic(&e);
            h->stiff_from = e.tangential_stiffness_work;
            h->fric_from = e.dissipated_friction;
        }
    }
    if (h->ok == 0) {
        h->ok = 1;
        h->t_end = (double)total * dt;
        h->ke_end = kinetic(&e);
        h->stiff_end = e.tangential_stiffness_work;
        h->fric_end = e.dissipated_friction;
        h->balance = scale > 0.0 ? bal / scale : 0.0;
    }
    h->wall_s = omp_get_wtime() - t0;
    tl_scene_destroy(sc);
}

int validate_held(report *r, const validate_opts *o) {
    if (!o->long_runs || o->quick) return 0;
    vcase *c = vcase_load("held", false);
    if (!c) return -1;
    report_section(r, 2, "A held bed's energy (Li et al. 2022, section 3.2; issue 44)");
    report_text(r,
                "The Brazil nut's bed (151 bodies) with the box held still, no dashpots (e = e_t = 1: friction is the "
                "only loss), from the example's loose start: the bodies fall and settle by friction in the first "
                "second; over the next the bed lies still, and whatever its kinetic energy does then is what the "
                "contact model does to a resting bed. M1's Mindlin spring is total-form: its stiffness follows the "
                "overlap, and the energy that puts in at a held displacement is the ledger's "
                "`tangential_stiffness_work` (docs/models.md, `mindlin`; one contact's cycle in "
                "`test_tangential_cycle`). Every run samples the ledger each %g s.\n\n",
                vcase_param(c, "sample"));
    const double duration = vcase_param(c, "duration"), from = vcase_param(c, "measure_from");
    const double sample = vcase_param(c, "sample"), books = vcase_param(c, "books");
    const int bodies = vcase_int(c, "bodies", 1, 3);
    held_run runs[HELD_RUNS];
    int n = 0;
    for (int b = 0; b < bodies; b++)
        for (int l = 0; l < 2; l++)
            for (int d = 0; d < 3; d++) {
                held_run *h = &runs[n++];
                memset(h, 0, sizeof *h);
                snprintf(h->scene, sizeof h->scene, "%s-%s-%s", BODY_TAG[b], LAW_NAME[l], DT_NAME[d]);
                h->body = b;
                h->law = l;
                h->dt = d;
            }
    int nt = o->threads > 0 ? o->threads : 1;
    fprintf(stderr, "talus validate: a held bed, %d runs of %g s, %d at a time\n", n, duration, nt);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (int k = 0; k < n; k++) run_one(c, r, &runs[k], duration, from, sample);
    int rc = 0;
    for (int k = 0; k < n; k++) {
        const held_run *h = &runs[k];
        if (h->ok != 1) {
            report_text(r, "\n**FAIL**: %s could not run: %s\n\n", h->scene, h->error);
            rc = -1;
            continue;
        }
        const double span = h->t_end - h->t_from;
        vcase_word(c, "body", BODY_NAME[h->body]);
        vcase_word(c, "law", LAW_NAME[h->law]);
        vcase_word(c, "dt", DT_NAME[h->dt]);
        vcase_measure(c, "from", h->t_from);
        vcase_measure(c, "end", h->t_end);
        vcase_measure(c, "ke_from", h->ke_from);
        vcase_measure(c, "ke_end", h->ke_end);
        vcase_measure(c, "stiffness_rate", (h->stiff_end - h->stiff_from) / span);
        vcase_measure(c, "friction_rate", (h->fric_end - h->fric_from) / span);
        vcase_measure(c, "stiffness", h->stiff_end);
        vcase_measure(c, "fall", h->fall);
        vcase_measure(c, "balance", h->balance);
        vcase_measure(c, "books_bound", books * (h->dt_s / 1e-5) * (h->dt_s / 1e-5));
        if (vcase_rows(c, r, "run") != 0) rc = -1;
        fprintf(stderr, "talus validate: held bed %s: %.0f s of wall time\n", h->scene, h->wall_s);
    }
    report_table_end(r);
    vcase_free(c);
    return rc;
}
