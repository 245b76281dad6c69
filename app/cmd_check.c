/* talus check: validates a scene (loading does every check) and prints what
 * its laws derive for the smallest bodies of each material: stiffness,
 * damping, contact duration, and the critical and chosen time steps. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "load_scene.h"
#include "options.h"
#include "progress.h"

typedef struct material_summary {
    size_t count, moving, fixed;
    double rmin, mmin; /* smallest moving body */
    double rfixed;     /* smallest fixed body */
    int walls;
} material_summary;

static void summarize(tl_world *w, material_summary *ms, int nm) {
    for (int m = 0; m < nm; m++) {
        memset(&ms[m], 0, sizeof ms[m]);
        ms[m].rmin = ms[m].mmin = ms[m].rfixed = INFINITY;
    }
    for (size_t i = 0; i < tl_world_particle_count(w); i++) {
        tl_particle_state p;
        tl_world_particle_at(w, i, &p);
        material_summary *s = &ms[p.material];
        s->count++;
        if (p.flags & TL_PARTICLE_FIXED) {
            s->fixed++;
            if (p.radius < s->rfixed) s->rfixed = p.radius;
            continue;
        }
        s->moving++;
        if (p.radius < s->rmin) s->rmin = p.radius;
        if (p.mass < s->mmin) s->mmin = p.mass;
    }
    for (int k = 0; k < tl_world_wall_count(w); k++) {
        tl_wall_state ws;
        tl_world_get_wall(w, k, &ws);
        ms[ws.material].walls++;
    }
}

static void print_law(tl_world *w, int a, int b) {
    tl_law_def law;
    if (tl_world_get_law(w, a, b, &law) != TL_OK) return;
    /* the slots in table order: the first four always, an optional one when used */
    char models[400];
    size_t used = 0;
    models[0] = '\0';
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const char *m;
        if (!app_slot_shown(&law, s, &m)) continue;
        int n = snprintf(models + used, sizeof models - used, "%s%s %s", s ? ", " : "", tl_slot_name((tl_slot)s), m);
        if (n < 0 || (size_t)n >= sizeof models - used) break;
        used += (size_t)n;
    }
    static const char *const tests[] = {"", ", coulomb_test spring", ", coulomb_test spring-capped",
                                         ", coulomb_test lammps", ", coulomb_test liggghts"};
    printf("  law %s - %s: %s%s%s%s%s\n", tl_world_material_name(w, a), tl_world_material_name(w, b), models,
           law.clamp_tensile ? ", clamp_tensile" : "",
           (unsigned)law.coulomb_test < 5 ? tests[law.coulomb_test] : "",
           law.contact_point == TL_CONTACT_POINT_SURFACE ? ", contact_point surface" : "",
           law.entry_displacement == TL_ENTRY_WHOLE_STEP ? ", entry_displacement whole-step" : "");
    if (law.coeff_count) {
        printf("    coefficients:");
        for (int k = 0; k < law.coeff_count; k++) {
            if (isnan(law.coeffs[k].value)) printf(" %s = (from materials)", law.coeffs[k].name);
            else printf(" %s = %g", law.coeffs[k].name, law.coeffs[k].value);
            printf(k + 1 < law.coeff_count ? "," : "\n");
        }
    }
}

static void print_estimate(tl_world *w, int a, int b, double ra, double ma, double rb, double mb,
                           const char *what) {
    tl_pair_estimate e;
    if (tl_world_estimate_pair(w, a, b, ra, ma, rb, mb, 0.0, &e) != TL_OK) {
        printf("    %s: %s\n", what, tl_world_error(w));
        return;
    }
    printf("    %s (R* = %.4g m, m* = %.4g kg, v = %.4g m/s):\n", what, e.r_eff, e.m_eff,
           e.impact_speed);
    printf("      stiffness %.4g N/m, damping %.4g N s/m, tangential stiffness %.4g N/m\n",
           e.stiffness, e.damping, e.tangential_stiffness);
    printf("      elastic contact time %.4g s, peak overlap %.4g m (%.3g%% of R*)\n", e.contact_time,
           e.max_overlap, 100.0 * e.max_overlap / e.r_eff);
}

int cmd_check(int argc, char **argv) {
    if (app_wants_help(argc, argv)) {
        printf("usage: talus check SCENE.yaml\n"
               "\n"
               "Loads a scene (every check of `talus run`, nothing is run or written) and prints\n"
               "what its laws derive for the smallest bodies of each material: stiffness,\n"
               "damping, contact duration, and the critical and chosen time steps.\n"
               "Exit status: 0 valid, 1 refused (the message names file:line:column and key),\n"
               "2 a usage error.\n");
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        if (argc > 2)
            fprintf(stderr, "talus check: one scene at a time ('%s' and '%s')\n", argv[1], argv[2]);
        else if (argc == 2)
            fprintf(stderr, "talus check: unknown option '%s'\n", argv[1]);
        fprintf(stderr, "usage: talus check SCENE.yaml\n");
        return 2;
    }
    tl_scene *scene = app_load_scene(argv[1]);
    if (!scene) return 1;
    tl_world *w = tl_scene_world(scene);
    int nm = tl_world_material_count(w);
    material_summary ms[256];
    summarize(w, ms, nm < 256 ? nm : 256);
    printf("scene %s: %s\n", argv[1], tl_scene_title(scene));
    printf("  %zu particles, %d walls, %d materials\n", tl_world_particle_count(w),
           tl_world_wall_count(w), nm);
    for (int m = 0; m < nm; m++) {
        printf("  material %s: %zu particles (%zu fixed)", tl_world_material_name(w, m), ms[m].count,
               ms[m].fixed);
        if (ms[m].moving) printf(", smallest moving R = %.4g m, m = %.4g kg", ms[m].rmin, ms[m].mmin);
        if (ms[m].walls) printf(", %d walls", ms[m].walls);
        printf("\n");
    }
    printf("\n");
    for (int a = 0; a < nm; a++) {
        if (!ms[a].moving) continue;
        for (int b = a; b < nm; b++) {
            if (!tl_world_has_law(w, a, b) || (!ms[b].count && !ms[b].walls)) continue;
            print_law(w, a, b);
            if (ms[b].moving && (a != b || ms[a].moving > 1))
                print_estimate(w, a, b, ms[a].rmin, ms[a].mmin, ms[b].rmin, ms[b].mmin,
                               "two smallest moving particles");
            if (ms[b].fixed)
                print_estimate(w, a, b, ms[a].rmin, ms[a].mmin, ms[b].rfixed, INFINITY,
                               "smallest moving particle on a fixed one");
            if (ms[b].walls)
                print_estimate(w, a, b, ms[a].rmin, ms[a].mmin, INFINITY, INFINITY,
                               "smallest moving particle on a wall");
        }
        for (int b = 0; b < a; b++) {
            if (!ms[b].count && ms[b].walls && tl_world_has_law(w, a, b)) {
                print_law(w, a, b);
                print_estimate(w, a, b, ms[a].rmin, ms[a].mmin, INFINITY, INFINITY,
                               "smallest particle on a wall");
            }
        }
    }
    tl_timestep_info ts;
    tl_world_timestep(w, &ts);
    printf("\ntime step\n");
    if (isfinite(ts.contact_time)) {
        printf("  shortest contact %.4g s (%s - %s%s) at %.4g m/s%s\n", ts.contact_time,
               tl_world_material_name(w, ts.material_a), ts.wall ? "wall " : "",
               tl_world_material_name(w, ts.material_b), ts.impact_speed,
               ts.impact_speed_estimated ? " (estimated impact speed)" : "");
        printf("  critical dt %.4g s (the contact time / steps_per_contact, or the dashpot's "
               "limit m*/(4 d) where that is shorter)\n", ts.dt_bound);
    } else {
        printf("  no contact among the particles present at the start (none, or all fixed)\n");
    }
    if (isfinite(ts.steps_per_contact))
        printf("  chosen dt   %.4g s: %.1f steps per shortest contact\n", ts.dt, ts.steps_per_contact);
    else
        printf("  chosen dt   %.4g s (an automatic dt also resolves the contacts of inflow particles)\n",
               ts.dt);
    printf("\nstages\n");
    for (int i = 0; i < tl_scene_stage_count(scene); i++) {
        char steps[32];
        double d = tl_scene_stage_duration(scene, i);
        app_format_count((long long)(d / ts.dt + 0.5), steps, sizeof steps);
        printf("  %-16s %.6g s, %s steps\n", tl_scene_stage_name(scene, i), d, steps);
    }
    if (tl_scene_output_count(scene)) printf("\noutputs\n");
    for (int i = 0; i < tl_scene_output_count(scene); i++) {
        const char *kind, *file;
        tl_scene_output(scene, i, &kind, &file);
        printf("  %-11s %s\n", kind, file);
    }
    printf("\nthe scene is valid\n");
    tl_scene_destroy(scene);
    return 0;
}
