/* Step-by-step parity with the field's classic history laws (issue 40): Talus under the options
 * that reproduce LAMMPS's `gran/hertz/history` and `gran/hooke/history` and LIGGGHTS's
 * `gran model hertz tangential history` (docs/models.md, "To reproduce LAMMPS and LIGGGHTS")
 * runs 20 steps from the start of LAMMPS's own regression test of those styles (32 spheres on a
 * perturbed fcc lattice, periodic, random velocities; test/physics/peers/start.data) and is compared,
 * particle by particle, with the peers' dumps at steps 0, 1, 2, 3, 5, 10 and 20
 * (test/physics/peers/CASE.ref, made by test/physics/peers/make_reference.sh with Debian's LAMMPS 29 Sep 2021
 * and LIGGGHTS 3.8): positions, velocities, angular velocities, forces and torques agree to
 * 1e-9 of each quantity's largest value (what the test asserts; measured about 1e-13).
 *
 * The cases hold contacts that begin during the run and contacts that slide. Then the
 * readings in which Talus's defaults depart from the peers are shown to be the difference, each
 * alone moving a case off its peer by far more than 1e-9: `entry_displacement: in-contact` (a
 * new contact's first step counts only its part in contact), `coulomb_test: total` (xi rescaled
 * so that the spring alone carries the capped force), `coulomb_test: spring` (a contact without
 * normal force has no tangential dashpot either) and, for a law with a force at zero overlap
 * (hooke with its dashpot), the contact boundary correction. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

#ifndef TALUS_SOURCE_DIR
#define TALUS_SOURCE_DIR "."
#endif

#define NATOMS 32
#define NFRAMES 7
#define NCOL 16 /* id x y z vx vy vz wx wy wz fx fy fz tx ty tz */

typedef struct frame {
    int step;
    double a[NATOMS][NCOL]; /* sorted by id */
} frame;

typedef struct reference {
    frame f[NFRAMES];
    int n;
    double box; /* the period (a cube from 0), from start.data */
} reference;

static const char *const QUANTITY[5] = {"position", "velocity", "angular velocity", "force", "torque"};

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

/* a LAMMPS dump of the kept steps */
static bool read_reference(const char *path, reference *r) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char line[1024];
    r->n = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        if (strncmp(line, "ITEM: TIMESTEP", 14) == 0) {
            if (r->n == NFRAMES || !fgets(line, sizeof line, f)) { ok = false; break; }
            r->f[r->n].step = atoi(line);
        } else if (strncmp(line, "ITEM: ATOMS", 11) == 0) {
            frame *fr = &r->f[r->n];
            for (int k = 0; ok && k < NATOMS; k++) {
                double v[NCOL];
                ok = fgets(line, sizeof line, f) != NULL;
                char *p = line;
                for (int c = 0; ok && c < NCOL; c++) {
                    char *end;
                    v[c] = strtod(p, &end);
                    ok = end != p;
                    p = end;
                }
                int id = ok ? (int)v[0] : 0;
                ok = ok && id >= 1 && id <= NATOMS;
                if (ok) memcpy(fr->a[id - 1], v, sizeof v);
            }
            r->n++;
        }
    }
    fclose(f);
    return ok && r->n == NFRAMES;
}

/* the period, from the start's header (the dumps of LIGGGHTS print the box with 6 digits) */
static double read_box(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0.0;
    char line[256];
    double lo = 1.0, hi = 0.0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "xlo xhi") && sscanf(line, "%lf %lf", &lo, &hi) == 2) break;
    fclose(f);
    return lo == 0.0 ? hi : 0.0;
}

/* the largest difference of each quantity over the particles, in units of the quantity's
 * largest value in the reference frame (at least 1) */
static void compare(tl_world *w, const frame *fr, double box, double err[5]) {
    tl_particle_arrays pa;
    ENSURE(tl_world_particle_arrays(w, &pa) == TL_OK);
    ENSURE(pa.count == NATOMS);
    double scale[5] = {1.0, 1.0, 1.0, 1.0, 1.0};
    for (int k = 0; k < NATOMS; k++)
        for (int q = 0; q < 5; q++)
            for (int c = 0; c < 3; c++) scale[q] = fmax(scale[q], fabs(fr->a[k][1 + 3 * q + c]));
    for (int q = 0; q < 5; q++) err[q] = 0.0;
    for (size_t i = 0; i < pa.count; i++) {
        uint32_t id = pa.id[i];
        ENSURE(id >= 1 && id <= NATOMS);
        if (id < 1 || id > NATOMS) continue;
        const double *ref = fr->a[id - 1];
        const double *mine[5] = {pa.position + 3 * i, pa.velocity + 3 * i, pa.angular_velocity + 3 * i,
                                 pa.force + 3 * i, pa.torque + 3 * i};
        for (int q = 0; q < 5; q++)
            for (int c = 0; c < 3; c++) {
                double d = mine[q][c] - ref[1 + 3 * q + c];
                if (q == 0) d -= box * nearbyint(d / box); /* LAMMPS wraps, Talus may not yet */
                err[q] = fmax(err[q], fabs(d) / scale[q]);
            }
    }
    tl_world_release_particle_arrays(w, pa.generation);
}

static size_t sliding_contacts(const tl_world *w, size_t *touching) {
    size_t n = tl_world_contact_count(w), s = 0;
    for (size_t k = 0; k < n; k++) {
        tl_contact_info c;
        if (tl_world_get_contact(w, k, &c) == TL_OK && c.sliding) s++;
    }
    *touching = n;
    return s;
}

/* Runs the case's scene (its text changed by `from` -> `to` when given) for 20 steps against its
 * reference; returns the largest error of each quantity over the kept steps. */
static bool run_case(const char *name, const char *from, const char *to, double worst[5], size_t *slid,
                     size_t *contacts_max, bool verbose) {
    char path[1024], ref_path[1024];
    snprintf(path, sizeof path, "%s/test/physics/peers/%s.yaml", TALUS_SOURCE_DIR, name);
    snprintf(ref_path, sizeof ref_path, "%s/test/physics/peers/%s.ref", TALUS_SOURCE_DIR, name);
    static reference ref;
    char box_path[1024];
    snprintf(box_path, sizeof box_path, "%s/test/physics/peers/start.data", TALUS_SOURCE_DIR);
    ref.box = read_box(box_path);
    ENSURE(ref.box > 3.0);
    if (!read_reference(ref_path, &ref)) {
        fprintf(stderr, "cannot read %s\n", ref_path);
        return false;
    }
    char *text = read_text(path);
    if (!text) return false;
    if (from) {
        char *at = strstr(text, from);
        ENSURE(at != NULL && strlen(to) <= strlen(from));
        if (!at || strlen(to) > strlen(from)) {
            free(text);
            return false;
        }
        size_t nf = strlen(from), nt = strlen(to);
        memcpy(at, to, nt);
        memmove(at + nt, at + nf, strlen(at + nf) + 1);
    }
    tl_scene *s = NULL;
    tl_scene_error e;
    tl_status st = tl_scene_load_string(text, path, &s, &e);
    free(text);
    if (st != TL_OK) {
        char msg[1024];
        tl_scene_error_format(&e, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return false;
    }
    tl_world *w = tl_scene_world(s);
    for (int q = 0; q < 5; q++) worst[q] = 0.0;
    *slid = 0;
    *contacts_max = 0;
    int step = 0;
    for (int k = 0; k < ref.n; k++) {
        if (ref.f[k].step > step) {
            for (; step < ref.f[k].step; step++) {
                ENSURE(tl_world_step(w, 1) == TL_OK);
                size_t touching = 0;
                *slid += sliding_contacts(w, &touching);
                if (touching > *contacts_max) *contacts_max = touching;
            }
        }
        double err[5];
        compare(w, &ref.f[k], ref.box, err);
        if (verbose)
            fprintf(stderr, "  %s step %2d: %.2e %.2e %.2e %.2e %.2e\n", name, ref.f[k].step, err[0], err[1], err[2],
                    err[3], err[4]);
        for (int q = 0; q < 5; q++) worst[q] = fmax(worst[q], err[q]);
    }
    tl_scene_destroy(s);
    return true;
}

static void test_case(const char *name, bool friction) {
    double worst[5];
    size_t slid = 0, most = 0;
    ENSURE(run_case(name, NULL, NULL, worst, &slid, &most, true));
    fprintf(stderr, "%s: largest relative difference over steps 0-20: position %.2e, velocity %.2e, angular "
                    "velocity %.2e, force %.2e, torque %.2e; up to %zu contacts, %zu contact-steps sliding\n",
            name, worst[0], worst[1], worst[2], worst[3], worst[4], most, slid);
    for (int q = 0; q < 5; q++) {
        if (!(worst[q] <= 1e-9)) fprintf(stderr, "  %s: %s departs by %.3g\n", name, QUANTITY[q], worst[q]);
        ENSURE(worst[q] <= 1e-9);
    }
    ENSURE(most > 100);
    if (friction) ENSURE(slid > 50);
}

/* Talus's own readings, where they depart from the peers': each alone moves a run off the peer's */
static void test_named_readings(void) {
    const char *const swaps[4][3] = {
        {"lammps-hertz", "entry_displacement: whole-step", "entry_displacement: in-contact"},
        {"lammps-hertz", "coulomb_test: lammps", "coulomb_test: total"},
        {"lammps-hooke", "contact_boundary_correction: false", "contact_boundary_correction: true"},
        {"liggghts-hertz", "coulomb_test: liggghts", "coulomb_test: spring"}};
    for (int k = 0; k < 4; k++) {
        double worst[5];
        size_t slid = 0, most = 0;
        ENSURE(run_case(swaps[k][0], swaps[k][1], swaps[k][2], worst, &slid, &most, false));
        double f = fmax(worst[3], worst[4]);
        fprintf(stderr, "%s with %s: force/torque depart from the peer by %.3g (relative)\n", swaps[k][0],
                swaps[k][2], f);
        ENSURE(f > 1e-5);
    }
}

int main(void) {
    test_case("lammps-hertz", true);
    test_case("lammps-hertz-undamped", true);
    test_case("lammps-hooke", true);
    test_case("liggghts-hertz", true);
    test_case("liggghts-hertz-tensile", true);
    test_named_readings();
    return tl_test_report("test_peer_steps");
}
