#define _DEFAULT_SOURCE
/* Restarts that lose nothing (scene key checkpoint:, tl_run_options.resume):
 * a scene with a moving wall, an inflow, two stages (the second ended by its
 * condition), CSV outputs of every kind and VTK frames, run straight, and
 * run with an interrupt at about half way then resumed from the checkpoint
 * the interrupt left, give the same final world (particles in id order,
 * contacts, energy) and the same output files, byte for byte; so does a
 * resume from an earlier periodic checkpoint (named as a file, on two
 * threads, across the stage boundary), and one whose CSV is the .part a
 * killed process left (stopped once more and resumed again). A
 * checkpoint with one byte flipped, a truncated one, a changed scene, or an
 * output file that lost bytes is refused with a message that says so, and
 * nothing in the output directory changes. A directory whose newest
 * checkpoint is corrupted resumes from the newest intact one before it (and
 * the summary says so); when none is intact, it is refused. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "talus/talus.h"
#include "test.h"
#include "world_hash.h"

static const char *const SCENE =
    "talus: 1\n"
    "name: restart\n"
    "seed: 5\n"
    "gravity: [0, 0, -9.81]\n"
    "domain: {min: [-0.005, -0.005, -0.005], max: [0.025, 0.025, 0.06]}\n"
    "materials:\n"
    "  glass: {density: 2500, youngs_modulus: 5.0e6, poisson_ratio: 0.25}\n"
    "  steel: {density: 7800, youngs_modulus: 5.0e6, poisson_ratio: 0.3}\n"
    "laws:\n"
    "  - {between: [glass, any], normal: hertz, damping: tsuji, tangential: mindlin, e: 0.5, mu: 0.4}\n"
    "walls:\n"
    "  - {name: box, type: box, material: steel, min: [0, 0, 0], max: [0.02, 0.02, 0.05], open: [+z]}\n"
    "  - {name: paddle, type: rectangle, material: steel, center: [0.001, 0.01, 0.004],\n"
    "     normal: [1, 0, 0], axis: [0, 1, 0], half_length: 0.008, half_width: 0.003,\n"
    "     velocity: [0.1, 0, 0]}\n"
    "particles:\n"
    "  - random:\n"
    "      region: {min: [0, 0, 0], max: [0.02, 0.02, 0.02]}\n"
    "      count: 300\n"
    "      diameter: {distribution: uniform, min: 1.5e-3, max: 2.0e-3}\n"
    "      material: glass\n"
    "      velocity: [0, 0, -0.2]\n"
    "      velocity_jitter: 0.05\n"
    "  - inflow:\n"
    "      region: {min: [0, 0, 0.03], max: [0.02, 0.02, 0.04]}\n"
    "      rate: 3000\n"
    "      diameter: {distribution: uniform, min: 1.4e-3, max: 1.8e-3}\n"
    "      material: glass\n"
    "      velocity: [0, 0, -0.5]\n"
    "      velocity_jitter: 0.05\n"
    "      stop: 0.04\n"
    "stages:\n"
    "  - {name: fill, steps: 1500}\n"
    "  - {name: settle, until: {kinetic_energy_below: 1.0}, check_every: 600, steps: 1500}\n"
    "checkpoint: {every_steps: 400, keep: 3}\n"
    "outputs:\n"
    "  - {type: energy, file: energy.csv, every_steps: 50}\n"
    "  - {type: particles, file: csv/particles.csv, every_steps: 300,\n"
    "     fields: [position, velocity, angular_velocity, force]}\n"
    "  - {type: contacts, file: contacts.csv, every_steps: 250}\n"
    "  - {type: collisions, file: collisions.csv}\n"
    "  - {type: vtk, file: frames, every: 0.004}\n";

static const char *const CSV_FILES[] = {"energy.csv", "csv/particles.csv", "contacts.csv",
                                        "collisions.csv", "frames.pvd"};

/* ---- helpers ---- */

static char *path_of(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", dir, name);
    return s;
}

static unsigned char *slurp(const char *path, size_t *size) {
    *size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) *size = (size_t)n;
    return buf;
}

static bool spit(const char *path, const void *data, size_t size) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return false;
    bool ok = fwrite(data, 1, size, fp) == size;
    return fclose(fp) == 0 && ok;
}

static bool same_file(const char *a, const char *b) {
    size_t na, nb;
    unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    if (!same) fprintf(stderr, "  differ: %s (%zu bytes) and %s (%zu bytes)\n", a, na, b, nb);
    free(x);
    free(y);
    return same;
}

static void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char *p = path_of(path, e->d_name);
            if (p) remove_tree(p);
            free(p);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* names, sizes and contents of every file under dir (sorted by name) */
static uint64_t tree_hash(const char *dir, uint64_t h, int *files) {
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *nm = list[i]->d_name;
        if (strcmp(nm, ".") != 0 && strcmp(nm, "..") != 0) {
            char *p = path_of(dir, nm);
            struct stat st;
            if (p && stat(p, &st) == 0) {
                h = tl_test_fnv(nm, strlen(nm), h);
                if (S_ISDIR(st.st_mode)) {
                    h = tree_hash(p, h, files);
                } else {
                    size_t size;
                    unsigned char *data = slurp(p, &size);
                    h = tl_test_fnv(&size, sizeof size, h);
                    if (data) h = tl_test_fnv(data, size, h);
                    free(data);
                    (*files)++;
                }
            }
            free(p);
        }
        free(list[i]);
    }
    free(list);
    return h;
}

static tl_scene *load(const char *text) {
    tl_scene *sc = NULL;
    tl_scene_error err;
    if (tl_scene_load_string(text, "restart.yaml", &sc, &err) != TL_OK) {
        char buf[2048];
        tl_scene_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "scene refused: %s\n", buf);
        return NULL;
    }
    return sc;
}

typedef struct stopper {
    volatile sig_atomic_t flag;
    int64_t at;
} stopper;

static void stop_at(const tl_progress *p, void *user) {
    stopper *s = user;
    if (p->step >= s->at) s->flag = 1;
}

typedef struct run_result {
    tl_status status;
    uint64_t hash;
    tl_run_summary sum;
    char error[1100];
} run_result;

/* runs the scene into dir: straight, stopped at step `stop` (> 0), or
 * resumed from `resume` */
static run_result run(const char *text, const char *dir, int64_t stop, const char *resume,
                      int threads) {
    run_result res;
    memset(&res, 0, sizeof res);
    tl_scene *sc = load(text);
    if (!sc) {
        res.status = TL_ERROR_SCENE;
        return res;
    }
    tl_run_options o = tl_run_options_default();
    o.output_dir = dir;
    o.resume = resume;
    o.threads = threads;
    stopper st = {0, stop};
    if (stop > 0) {
        o.interrupt = &st.flag;
        o.progress = stop_at;
        o.progress_user = &st;
        o.progress_interval = 1e-9; /* after every chunk */
    }
    res.status = tl_scene_run(sc, &o, &res.sum);
    snprintf(res.error, sizeof res.error, "%s", tl_scene_run_error(sc));
    res.hash = tl_test_world_hash(tl_scene_world(sc));
    tl_scene_destroy(sc);
    return res;
}

static int count_frames(const char *dir) {
    char *fd = path_of(dir, "frames");
    int n = 0;
    DIR *d = fd ? opendir(fd) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strstr(e->d_name, ".vtp")) n++;
        closedir(d);
    }
    free(fd);
    return n;
}

/* every output file of a and b equal, byte for byte; no .part left in b */
static void ensure_same_outputs(const char *a, const char *b) {
    for (size_t i = 0; i < sizeof CSV_FILES / sizeof CSV_FILES[0]; i++) {
        char *pa = path_of(a, CSV_FILES[i]), *pb = path_of(b, CSV_FILES[i]);
        ENSURE(same_file(pa, pb));
        char part[1200];
        snprintf(part, sizeof part, "%s.part", pb);
        ENSURE(access(part, F_OK) != 0);
        free(pa);
        free(pb);
    }
    int na = count_frames(a), nb = count_frames(b);
    ENSURE(na > 5);
    ENSURE(na == nb);
    for (int k = 0; k < na; k++) {
        char name[64];
        snprintf(name, sizeof name, "frames/frames_%06d.vtp", k);
        char *pa = path_of(a, name), *pb = path_of(b, name);
        ENSURE(same_file(pa, pb));
        free(pa);
        free(pb);
    }
}

/* the checkpoint files in dir/checkpoint, smallest step first */
static int list_checkpoints(const char *dir, int64_t *steps, int max) {
    char *cd = path_of(dir, "checkpoint");
    int n = 0;
    DIR *d = cd ? opendir(cd) : NULL;
    if (d) {
        struct dirent *e;
        long long s;
        char tail[16];
        while ((e = readdir(d)) != NULL)
            if (sscanf(e->d_name, "checkpoint-%lld%15s", &s, tail) == 2 && strcmp(tail, ".tlck") == 0 &&
                n < max)
                steps[n++] = s;
        closedir(d);
    }
    free(cd);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && steps[j - 1] > steps[j]; j--) {
            int64_t t = steps[j];
            steps[j] = steps[j - 1];
            steps[j - 1] = t;
        }
    return n;
}

/* a refused resume: its status, its message, and nothing changed in dir */
static void ensure_refused(const char *text, const char *dir, const char *resume, const char *expect) {
    int files0 = 0, files1 = 0;
    uint64_t before = tree_hash(dir, 1, &files0);
    run_result r = run(text, dir, 0, resume, 0);
    uint64_t after = tree_hash(dir, 1, &files1);
    ENSURE(r.status != TL_OK && r.status != TL_INTERRUPTED);
    ENSURE(strstr(r.error, "cannot resume") == r.error);
    ENSURE(strstr(r.error, expect) != NULL);
    if (!strstr(r.error, expect)) fprintf(stderr, "  expected '%s' in: %s\n", expect, r.error);
    ENSURE(before == after && files0 == files1);
    fprintf(stderr, "refused (%s): %s\n", expect, r.error);
}

/* the scene key: refused with the place, the key and what was expected */
static void test_scene_key(void) {
    static const struct {
        const char *value, *key, *expect;
    } cases[] = {
        {"{every: 0.1, every_steps: 5}", "checkpoint.every_steps", "not both"},
        {"{dir: ck}", "checkpoint.every", "required key is missing"},
        {"{every_steps: 0}", "checkpoint.every_steps", "expected an integer >= 1"},
        {"{every: -1}", "checkpoint.every", "expected a number > 0"},
        {"{every: 1, keep: 0}", "checkpoint.keep", "from 1 to"},
        {"{every: 1, kep: 2}", "checkpoint", "did you mean 'keep'"},
        {"[every, 1]", "checkpoint", "expected a mapping"},
    };
    const char *at = strstr(SCENE, "checkpoint: {every_steps: 400, keep: 3}");
    size_t lead = (size_t)(at - SCENE), tail = strlen("checkpoint: {every_steps: 400, keep: 3}");
    int line = 1;
    for (const char *c = SCENE; c < at; c++) line += *c == '\n';
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[4096];
        snprintf(text, sizeof text, "%.*scheckpoint: %s%s", (int)lead, SCENE, cases[i].value,
                 at + tail);
        tl_scene *sc = NULL;
        tl_scene_error err;
        tl_status s = tl_scene_load_string(text, "ck.yaml", &sc, &err);
        ENSURE(s == TL_ERROR_SCENE);
        ENSURE(err.line == line);
        ENSURE(strcmp(err.key, cases[i].key) == 0);
        ENSURE(strstr(err.message, cases[i].expect) != NULL);
        char buf[2048];
        tl_scene_error_format(&err, buf, sizeof buf);
        if (s != TL_ERROR_SCENE || strcmp(err.key, cases[i].key) != 0 || err.line != line)
            fprintf(stderr, "  %s: %s\n", cases[i].value, buf);
        tl_scene_destroy(sc);
    }
}

/* Stages that act on the world: friction off with the lid under servo control, then
 * friction restored and a paddle set moving. Stopped in the frictionless stage and
 * resumed from where it stopped, or resumed from the checkpoint of the first stage
 * (before any action), the run ends bit-identical to the straight run, with the same
 * energy and walls records: the friction in force, the servo and the velocities set by
 * the stages come back from the checkpoint and the stage plan. */
static const char *const STAGED =
    "talus: 1\n"
    "name: staged\n"
    "seed: 9\n"
    "gravity: [0, 0, -9.81]\n"
    "materials:\n"
    "  glass: {density: 2500, youngs_modulus: 5.0e6, poisson_ratio: 0.25}\n"
    "laws:\n"
    "  - {between: [glass, glass], normal: hertz, damping: tsuji, tangential: mindlin, e: 0.5, mu: 0.4}\n"
    "walls:\n"
    "  - {name: box, type: box, material: glass, min: [0, 0, 0], max: [0.02, 0.02, 0.04], open: [+z]}\n"
    "  - {name: lid, type: rectangle, material: glass, center: [0.01, 0.01, 0.016], normal: [0, 0, -1],\n"
    "     axis: [1, 0, 0], half_length: 0.01, half_width: 0.01}\n"
    "  - {name: paddle, type: rectangle, material: glass, center: [0.001, 0.01, 0.004],\n"
    "     normal: [1, 0, 0], axis: [0, 1, 0], half_length: 0.008, half_width: 0.003}\n"
    "particles:\n"
    "  - random: {region: {min: [0, 0, 0], max: [0.02, 0.02, 0.014]}, count: 250, diameter: 1.6e-3,\n"
    "             material: glass}\n"
    "stages:\n"
    "  - {name: fall, steps: 700}\n"
    "  - name: loose\n"
    "    set: {friction: 0, walls: [{wall: lid, servo: {direction: [0, 0, -1], stress: 300, gain: 2.0,\n"
    "          max_speed: 0.05}}]}\n"
    "    steps: 700\n"
    "  - {name: stir, set: {friction: restore, walls: [{wall: paddle, velocity: [0.05, 0, 0]}]}, steps: 700}\n"
    "checkpoint: {every_steps: 300, keep: 10}\n"
    "outputs:\n"
    "  - {type: energy, file: energy.csv, every_steps: 20}\n"
    "  - {type: walls, file: walls.csv, every_steps: 20}\n";

/* energy.csv and walls.csv of the two runs equal, byte for byte */
static void ensure_same_records(const char *a, const char *b) {
    const char *files[] = {"energy.csv", "walls.csv"};
    for (int i = 0; i < 2; i++) {
        char *fa = path_of(a, files[i]), *fb = path_of(b, files[i]);
        ENSURE(same_file(fa, fb));
        free(fa);
        free(fb);
    }
}

static void test_stage_actions_resume(const char *root) {
    char *straight = path_of(root, "staged-straight"), *stopped = path_of(root, "staged-stopped");
    run_result a = run(STAGED, straight, 0, NULL, 0);
    ENSURE(a.status == TL_OK);
    if (a.status != TL_OK) fprintf(stderr, "staged: %s\n", a.error);
    ENSURE(a.sum.steps == 2100);
    run_result b = run(STAGED, stopped, 1000, NULL, 0); /* in 'loose' */
    ENSURE(b.status == TL_INTERRUPTED);
    ENSURE(b.sum.steps > 700 && b.sum.steps < 1400);
    char *ckdir = path_of(stopped, "checkpoint");
    run_result c = run(STAGED, stopped, 0, ckdir, 0);
    ENSURE(c.status == TL_OK);
    if (c.status != TL_OK) fprintf(stderr, "staged resume: %s\n", c.error);
    ENSURE(c.hash == a.hash);
    ensure_same_records(straight, stopped);
    fprintf(stderr, "staged (friction off, servo, friction restored, paddle): stopped at step %lld in "
            "'loose', resumed: world %s\n", (long long)b.sum.steps, c.hash == a.hash ? "bit-identical" : "DIFFERENT");
    /* from the straight run's checkpoint of the first stage, across both actions */
    char *file = path_of(straight, "checkpoint/checkpoint-600.tlck");
    run_result d = run(STAGED, stopped, 0, file, 0);
    ENSURE(d.status == TL_OK);
    if (d.status != TL_OK) fprintf(stderr, "staged resume from 600: %s\n", d.error);
    ENSURE(d.hash == a.hash);
    ensure_same_records(straight, stopped);
    /* the friction action matters: with friction: 0.4 (the law's own) the run differs */
    const char *at = strstr(STAGED, "friction: 0,");
    ENSURE(at != NULL);
    /* STAGED with "friction: 0," made "friction: 0.4," */
    static const char was[] = "friction: 0,", now[] = "friction: 0.4,";
    char *same_mu = malloc(strlen(STAGED) + sizeof now);
    if (at && same_mu) {
        size_t head = (size_t)(at - STAGED), tail = strlen(at + strlen(was));
        memcpy(same_mu, STAGED, head);
        memcpy(same_mu + head, now, strlen(now));
        memcpy(same_mu + head + strlen(now), at + strlen(was), tail + 1);
    }
    char *other = path_of(root, "staged-mu");
    run_result e = run(same_mu, other, 0, NULL, 0);
    ENSURE(e.status == TL_OK);
    ENSURE(e.hash != a.hash);
    free(other);
    free(same_mu);
    free(file);
    free(ckdir);
    free(straight);
    free(stopped);
}

int main(void) {
    test_scene_key();
    char tmpl[] = "/tmp/talus-restart-XXXXXX";
    char *root = mkdtemp(tmpl);
    ENSURE(root != NULL);
    if (!root) return tl_test_report("test_restart");
    char *straight = path_of(root, "straight"), *stopped = path_of(root, "stopped"),
         *killed = path_of(root, "killed"), *bad = path_of(root, "bad");

    /* straight */
    run_result a = run(SCENE, straight, 0, NULL, 0);
    ENSURE(a.status == TL_OK);
    const int64_t N = a.sum.steps;
    ENSURE(N == 2100); /* the settle stage ends by its condition at its first check */
    ENSURE(a.sum.particles_inserted > 50);
    ENSURE(a.sum.checkpoint[0] != '\0');
    int64_t steps[16];
    int nck = list_checkpoints(straight, steps, 16);
    ENSURE(nck == 3); /* keep: 3 */
    ENSURE(nck == 3 && steps[2] == (N - 1) / 400 * 400); /* none at the end */
    fprintf(stderr, "straight: %lld steps, %zu particles (%zu inserted), %zu contacts, %d checkpoints "
                    "kept, last %s\n",
            (long long)N, a.sum.particles, a.sum.particles_inserted, a.sum.contacts, nck,
            a.sum.checkpoint);

    /* interrupted in the second stage, then resumed from the checkpoint it left */
    const int64_t stop = 3 * N / 4 + 37;
    run_result b = run(SCENE, stopped, stop, NULL, 0);
    ENSURE(b.status == TL_INTERRUPTED);
    ENSURE(b.sum.steps >= stop && b.sum.steps < N);
    ENSURE(strstr(b.sum.checkpoint, "checkpoint-") != NULL);
    char want[64];
    snprintf(want, sizeof want, "checkpoint-%lld.tlck", (long long)b.sum.steps);
    ENSURE(strstr(b.sum.checkpoint, want) != NULL); /* where it stopped */
    fprintf(stderr, "stopped: %s; %s\n", b.error, b.sum.checkpoint);
    char *ckdir = path_of(stopped, "checkpoint");
    size_t cksize = 0;
    unsigned char *ck = slurp(b.sum.checkpoint, &cksize);
    ENSURE(ck != NULL && cksize > 1000);

    /* the same, but as a killed process leaves it: energy.csv still a .part, with
     * rows after the checkpoint (the interrupt's last records, and junk) */
    remove_tree(killed);
    run_result k = run(SCENE, killed, N / 2 + 11, NULL, 0);
    ENSURE(k.status == TL_INTERRUPTED);
    {
        char *e = path_of(killed, "energy.csv");
        char part[1200];
        snprintf(part, sizeof part, "%s.part", e);
        ENSURE(rename(e, part) == 0);
        FILE *fp = fopen(part, "ab");
        if (fp) {
            fputs("0.5,junk after the checkpoint\n", fp);
            fclose(fp);
        }
        free(e);
    }

    /* refusals first, while the stopped run's files are as it left them */
    {
        mkdir(bad, 0777);
        char *file = path_of(bad, "checkpoint-1.tlck");
        unsigned char *copy = malloc(cksize);
        memcpy(copy, ck, cksize);
        copy[cksize / 2] ^= 0x10; /* one byte */
        ENSURE(spit(file, copy, cksize));
        ensure_refused(SCENE, stopped, file, "checksum mismatch (the file is corrupted)");
        ENSURE(spit(file, ck, cksize - 100)); /* truncated */
        char msg[128];
        snprintf(msg, sizeof msg, "truncated: %zu of %zu bytes", cksize - 100, cksize);
        ensure_refused(SCENE, stopped, file, msg);
        ENSURE(spit(file, ck, 20)); /* less than a header */
        ensure_refused(SCENE, stopped, file, "truncated");
        ensure_refused(SCENE, stopped, bad, "latest"); /* a directory without latest */
        free(copy);
        free(file);
        /* the scene changed */
        size_t n = strlen(SCENE);
        char *changed = malloc(n + 64);
        memcpy(changed, SCENE, n);
        strcpy(changed + n, "# a comment changes the text\n");
        ensure_refused(changed, stopped, ckdir, "restart.yaml changed since the checkpoint was written");
        free(changed);
        /* an output that lost bytes, or is gone */
        char *e = path_of(stopped, "contacts.csv"), *moved = path_of(root, "contacts.csv");
        size_t esize;
        unsigned char *edata = slurp(e, &esize);
        ENSURE(rename(e, moved) == 0);
        ensure_refused(SCENE, stopped, ckdir, "contacts.csv does not exist (nor its .part)");
        ENSURE(spit(e, edata, 100));
        ensure_refused(SCENE, stopped, ckdir, "contacts.csv has 100 bytes, the checkpoint needs");
        edata[50] ^= 1;
        ENSURE(spit(e, edata, esize));
        ensure_refused(SCENE, stopped, ckdir, "are not those the checkpoint was written with");
        ENSURE(rename(moved, e) == 0);
        free(edata);
        free(e);
        free(moved);
        /* a frame the checkpoint counts on is gone */
        char *f0 = path_of(stopped, "frames/frames_000001.vtp"), *f1 = path_of(root, "f.vtp");
        ENSURE(rename(f0, f1) == 0);
        ensure_refused(SCENE, stopped, ckdir, "frames_000001.vtp is missing");
        ENSURE(rename(f1, f0) == 0);
        free(f0);
        free(f1);
    }

    run_result c = run(SCENE, stopped, 0, ckdir, 0);
    ENSURE(c.status == TL_OK);
    if (c.status != TL_OK) fprintf(stderr, "resume failed: %s\n", c.error);
    ENSURE(c.hash == a.hash);
    ENSURE(c.sum.steps == N);
    ENSURE(c.sum.particles_inserted == a.sum.particles_inserted);
    ENSURE(c.sum.energy_balance_error == a.sum.energy_balance_error);
    ensure_same_outputs(straight, stopped);
    fprintf(stderr, "resumed from step %lld: world %s, outputs compared\n", (long long)b.sum.steps,
            c.hash == a.hash ? "bit-identical" : "DIFFERENT");

    /* a corrupted newest checkpoint: the resume falls back to the newest intact
     * one before it, says so, and still ends as the straight run */
    {
        char *fb = path_of(root, "fallback");
        run_result f = run(SCENE, fb, stop, NULL, 0);
        ENSURE(f.status == TL_INTERRUPTED);
        int64_t fs[16];
        int nf = list_checkpoints(fb, fs, 16);
        ENSURE(nf == 3 && fs[2] == f.sum.steps && fs[1] == fs[2] / 400 * 400);
        char *fdir = path_of(fb, "checkpoint");
        unsigned char *saved[3] = {NULL, NULL, NULL};
        size_t sizes[3] = {0, 0, 0};
        char *files[3] = {NULL, NULL, NULL};
        for (int i = 0; i < nf && i < 3; i++) {
            char name[96];
            snprintf(name, sizeof name, "checkpoint-%lld.tlck", (long long)fs[i]);
            files[i] = path_of(fdir, name);
            saved[i] = slurp(files[i], &sizes[i]);
            ENSURE(saved[i] != NULL && sizes[i] > 1000);
        }
        if (nf == 3 && saved[0] && saved[1] && saved[2]) {
            /* all three corrupted (a byte flipped, cut short, emptied): refused, nothing changed */
            unsigned char *copy = malloc(sizes[2]);
            memcpy(copy, saved[2], sizes[2]);
            copy[sizes[2] / 3] ^= 0x04;
            ENSURE(spit(files[2], copy, sizes[2]));
            ENSURE(spit(files[1], saved[1], sizes[1] / 2));
            ENSURE(spit(files[0], saved[0], 0));
            ensure_refused(SCENE, fb, fdir, "no older checkpoint in the folder is intact either");
            ensure_refused(SCENE, fb, fdir, "checksum mismatch");
            /* the older ones restored: the run resumes from the one before the newest */
            ENSURE(spit(files[1], saved[1], sizes[1]));
            ENSURE(spit(files[0], saved[0], sizes[0]));
            run_result g = run(SCENE, fb, 0, fdir, 0);
            ENSURE(g.status == TL_OK);
            if (g.status != TL_OK) fprintf(stderr, "fallback resume failed: %s\n", g.error);
            char want1[64];
            snprintf(want1, sizeof want1, "checkpoint-%lld.tlck, the newest intact", (long long)fs[1]);
            ENSURE(strstr(g.sum.warnings, "the newest checkpoint was refused") != NULL);
            ENSURE(strstr(g.sum.warnings, "checksum mismatch") != NULL);
            ENSURE(strstr(g.sum.warnings, want1) != NULL);
            ENSURE(g.hash == a.hash);
            ENSURE(g.sum.steps == N);
            ensure_same_outputs(straight, fb);
            fprintf(stderr, "fallback: %s\n", g.sum.warnings);
            free(copy);
        }
        for (int i = 0; i < 3; i++) {
            free(saved[i]);
            free(files[i]);
        }
        free(fdir);
        free(fb);
    }

    /* the killed run: its energy.csv.part is cut back and continued; stopped
     * again, and resumed again (from the files that run committed) */
    char *kdir = path_of(killed, "checkpoint");
    run_result k2 = run(SCENE, killed, N - 150, kdir, 0);
    ENSURE(k2.status == TL_INTERRUPTED);
    if (k2.status != TL_INTERRUPTED) fprintf(stderr, "resume (killed) failed: %s\n", k2.error);
    ENSURE(k2.sum.steps >= N - 150 && k2.sum.steps < N);
    run_result kk = run(SCENE, killed, 0, kdir, 0);
    ENSURE(kk.status == TL_OK);
    if (kk.status != TL_OK) fprintf(stderr, "resume (killed) failed: %s\n", kk.error);
    ENSURE(kk.hash == a.hash);
    ensure_same_outputs(straight, killed);
    free(kdir);

    /* from an earlier periodic checkpoint of the straight run (in the first
     * stage), named as a file, on two threads, into the resumed run's folder */
    nck = list_checkpoints(straight, steps, 16);
    ENSURE(nck == 3 && steps[0] < 1500);
    if (nck > 0) {
        char name[96];
        snprintf(name, sizeof name, "checkpoint/checkpoint-%lld.tlck", (long long)steps[0]);
        char *file = path_of(straight, name);
        run_result d = run(SCENE, stopped, 0, file, 2);
        ENSURE(d.status == TL_OK);
        if (d.status != TL_OK) fprintf(stderr, "resume from %s failed: %s\n", file, d.error);
        ENSURE(d.hash == a.hash);
        ensure_same_outputs(straight, stopped);
        fprintf(stderr, "resumed from %s (2 threads): world %s\n", name,
                d.hash == a.hash ? "bit-identical" : "DIFFERENT");
        free(file);
    }

    test_stage_actions_resume(root);
    free(ck);
    free(ckdir);
    remove_tree(root);
    free(straight);
    free(stopped);
    free(killed);
    free(bad);
    return tl_test_report("test_restart");
}
