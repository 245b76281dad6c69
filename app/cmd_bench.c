/* talus bench: the throughput benchmark of one scene, in the form of the peers' figures.
 *
 *   talus bench SCENE.yaml [--data FILE] [--material NAME] [--warmup N] [--steps N]
 *               [--threads N] [--warmup-threads N] [--ke-every N] [--velocity X,Y,Z]
 *               [--write-state FILE] [--warm-state FILE] [--json]
 *
 * Loads the scene, adds the particles of a LAMMPS data file (atom_style sphere/granular:
 * `id type diameter density x y z`), runs the untimed warm-up, then times the timed steps
 * (CLOCK_MONOTONIC around tl_world_step only, like the `Loop time` of LAMMPS/LIGGGHTS) and
 * prints N, steps, seconds, particle-steps per second, the coordination number Z (particle-
 * particle contacts counted for both particles, 2 N_pp / N: LIGGGHTS's `compute contact/atom`
 * averaged; wall contacts excluded), the neighbor-list builds of the timed run, and memory per
 * particle (the engine's own allocations, tl_world_bytes, and the process's peak RSS). With
 * --ke-every N the kinetic energy (translational, rotational) and Z every N steps of the warm-up
 * and of the timed run, outside the timed intervals: the parity check of bench/parity.sh.
 * With --warm-state FILE the warm-up is made once: its end state (tl_world_save_state) is saved
 * to FILE, and a later run of the same scene, build and --warmup loads it instead of stepping
 * (bench/shapes.sh times each bed on one and two threads from one warm-up).
 * See docs/bench.md. Public API only. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "commands.h"
#include "load_scene.h"
#include "options.h"
#include "write_file.h"

static const app_cli CLI = {"talus bench", "talus bench --help lists the options"};

static void usage(FILE *f) {
    fprintf(f,
            "usage: talus bench SCENE.yaml [options]\n"
            "\n"
            "Times the steps of a scene, as the LAMMPS/LIGGGHTS `Loop time` (see docs/bench.md).\n"
            "\n"
            "  --data FILE       add the particles of a LAMMPS data file (Atoms section\n"
            "                    `id type diameter density x y z`, SI units; ids kept, mass from the\n"
            "                    file's density); its box is printed, the scene's domain must match it\n"
            "  --material NAME   the material of those particles (default: the material of the\n"
            "                    scene's first particle, else the scene's first material)\n"
            "  --warmup N        untimed steps first (default 200)\n"
            "  --steps N         timed steps (default 2000)\n"
            "  --threads N       worker threads (default 1; 0 = all available); overrides the scene\n"
            "  --warmup-threads N  worker threads of the warm-up only (default: --threads); the\n"
            "                    results do not depend on the thread count, so a long warm-up\n"
            "                    can use every core before a one-thread timed run\n"
            "  --ke-every N      print the kinetic energy (translational, rotational) and Z every\n"
            "                    N steps of the warm-up and the timed run (outside the timed\n"
            "                    intervals); JSON: \"ke\": [[step, trans, rot, Z], ...]\n"
            "  --velocity X,Y,Z  set every free particle's velocity (m/s) before the warm-up\n"
            "                    (angular velocity zero): the perturbed start of the parity check\n"
            "  --write-state FILE  the bed after the warm-up, the one the timed steps start from,\n"
            "                    as CSV (id, x, y, z in m; qw, qx, qy, qz: the orientation as the\n"
            "                    shape was given, its file's frame): a peer code's start\n"
            "  --warm-state FILE the bed after the warm-up, as the engine's own state: loaded from\n"
            "                    FILE when it exists, in place of the warm-up (the same scene, build\n"
            "                    and --warmup only: anything else is refused), else made by the\n"
            "                    warm-up and saved there; the timed steps from it are those of a\n"
            "                    run that warms up itself, bit for bit (serial runs only)\n"
            "  --json            one JSON object instead of the text report\n");
}

/* ---- options ---- */

typedef struct bench_opts {
    const char *scene, *data, *material, *state, *warm_state;
    long long warmup, steps, ke_every;
    int threads, warmup_threads; /* warmup_threads < 0: as threads */
    bool json, set_velocity;
    tl_vec3 velocity;
} bench_opts;

static int count_option(const char *opt, const char *value, long long min, long long *out) {
    double v;
    if (!app_parse_number(value, &v) || v != floor(v) || v < (double)min || v > 1e15)
        return app_usage_error(&CLI, "%s needs a whole number >= %lld, got '%s'", opt, min, value);
    *out = (long long)v;
    return 0;
}

/* 0 = parsed, 1 = --help printed, 2 = usage error */
static int parse_args(int argc, char **argv, bench_opts *o) {
    memset(o, 0, sizeof *o);
    o->warmup = 200;
    o->steps = 2000;
    o->threads = 1;
    o->warmup_threads = -1;
    for (int i = 1; i < argc; i++) {
        app_arg a;
        app_arg_split(argv[i], &a);
        const char *n = a.name;
        if (strcmp(n, "--help") == 0 || strcmp(n, "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (strcmp(n, "--json") == 0) {
            if (app_arg_value(&CLI, &a, false, argc, argv, &i)) return 2;
            o->json = true;
            continue;
        }
        if (n[0] == '-' && n[1] != '\0') {
            static const char *const with_value[] = {"--data",     "--material",       "--warmup",
                                                     "--steps",    "--threads",        "--warmup-threads",
                                                     "--ke-every", "--velocity",     "--write-state",
                                                     "--warm-state"};
            bool known = false;
            for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
                if (strcmp(n, with_value[k]) == 0) known = true;
            if (!known) return app_usage_error(&CLI, "unknown option '%s'", argv[i]);
            if (app_arg_value(&CLI, &a, true, argc, argv, &i)) return 2;
            long long v = 0;
            if (strcmp(n, "--data") == 0) {
                o->data = a.value;
            } else if (strcmp(n, "--material") == 0) {
                o->material = a.value;
            } else if (strcmp(n, "--write-state") == 0) {
                o->state = a.value;
            } else if (strcmp(n, "--warm-state") == 0) {
                o->warm_state = a.value;
            } else if (strcmp(n, "--warmup") == 0) {
                if (count_option(n, a.value, 0, &o->warmup)) return 2;
            } else if (strcmp(n, "--steps") == 0) {
                if (count_option(n, a.value, 1, &o->steps)) return 2;
            } else if (strcmp(n, "--ke-every") == 0) {
                if (count_option(n, a.value, 1, &o->ke_every)) return 2;
            } else if (strcmp(n, "--threads") == 0 || strcmp(n, "--warmup-threads") == 0) {
                if (count_option(n, a.value, 0, &v)) return 2;
                if (v > 4096) return app_usage_error(&CLI, "%s: %lld is too many", n, v);
                if (strcmp(n, "--threads") == 0)
                    o->threads = (int)v;
                else
                    o->warmup_threads = (int)v;
            } else {
                if (app_vector_option(&CLI, n, a.value, "m/s", &o->velocity)) return 2;
                o->set_velocity = true;
            }
            continue;
        }
        if (o->scene) return app_usage_error(&CLI, "one scene at a time ('%s' and '%s')", o->scene, argv[i]);
        o->scene = argv[i];
    }
    if (!o->scene) return app_usage_error(&CLI, "no scene file given");
    return 0;
}

/* ---- the bed's state, for a peer ---- */

/* q1 q2 (Hamilton) */
static tl_quat quat_mul(tl_quat a, tl_quat b) {
    return (tl_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

/* Every particle's id, position and orientation as its shape was given (the body frame's
 * orientation times the conjugate of the shape's frame: a shape's vertices as in its file, turned
 * by it and moved to the position, are the body's), to a temporary name renamed into place. */
typedef struct state_rows {
    tl_world *w;
    const tl_particle_arrays *pa;
} state_rows;

static void write_state_rows(FILE *f, const void *data) {
    const state_rows *r = data;
    const tl_particle_arrays *pa = r->pa;
    fprintf(f, "id,x,y,z,qw,qx,qy,qz\n");
    for (size_t i = 0; i < pa->count; i++) {
        const double *x = pa->position + 3 * i, *o = pa->orientation + 4 * i;
        tl_quat q = {o[0], o[1], o[2], o[3]};
        if (pa->shape[i] != TL_SPHERE) {
            tl_shape_info si;
            if (tl_world_get_shape(r->w, pa->shape[i], &si) == TL_OK)
                q = quat_mul(q, (tl_quat){si.frame.w, -si.frame.x, -si.frame.y, -si.frame.z});
        }
        fprintf(f, "%u,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", pa->id[i], x[0], x[1], x[2], q.w, q.x,
                q.y, q.z);
    }
}

static int write_state(const tl_world *cw, const char *path) {
    tl_world *w = (tl_world *)cw;
    tl_particle_arrays pa;
    if (tl_world_particle_arrays(w, &pa) != TL_OK) {
        fprintf(stderr, "talus bench: --write-state: %s\n", tl_world_error(w));
        return 1;
    }
    const state_rows rows = {w, &pa};
    return app_write_file("talus bench: --write-state", path, write_state_rows, &rows);
}

/* ---- the warm-up, saved and loaded (--warm-state) ---- */

/* Loads FILE into the world when it exists: 0 = loaded, -1 = no such file (warm up), 1 = error
 * (printed). The state must be that of this scene and build at step `warmup`. */
static int load_warm_state(tl_world *w, const char *path, long long warmup) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return -1;
        fprintf(stderr, "talus bench: --warm-state: cannot read '%s': %s\n", path, strerror(errno));
        return 1;
    }
    int rc = 1;
    unsigned char *buf = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "talus bench: --warm-state: cannot read '%s': %s\n", path, strerror(errno));
        goto out;
    }
    buf = malloc(size ? (size_t)size : 1);
    if (!buf) {
        fprintf(stderr, "talus bench: --warm-state: '%s': out of memory (%ld bytes)\n", path, size);
        goto out;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "talus bench: --warm-state: cannot read '%s': %s\n", path,
                ferror(f) ? strerror(errno) : "shorter than its size");
        goto out;
    }
    if (tl_world_load_state(w, buf, (size_t)size) != TL_OK) { /* it prepares the world first */
        fprintf(stderr,
                "talus bench: --warm-state: '%s' is not a state of this scene and build: %s (delete it to warm "
                "up again)\n",
                path, tl_world_error(w));
        goto out;
    }
    if (tl_world_step_count(w) != warmup) {
        fprintf(stderr,
                "talus bench: --warm-state: '%s' holds the bed at step %lld, not at the end of --warmup %lld "
                "(delete it to warm up again)\n",
                path, (long long)tl_world_step_count(w), warmup);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    fclose(f);
    return rc;
}

/* The world's state to FILE, through a temporary name renamed into place. */
static int save_warm_state(const tl_world *w, const char *path) {
    void *data = NULL;
    size_t size = 0;
    if (tl_world_save_state(w, &data, &size) != TL_OK) {
        fprintf(stderr, "talus bench: --warm-state: %s\n", tl_world_error(w));
        return 1;
    }
    int rc = app_write_bytes("talus bench: --warm-state", path, data, size);
    free(data);
    return rc;
}

/* ---- the LAMMPS data file ---- */

typedef struct data_info {
    long long atoms_declared, atoms_read, types, velocities;
    double lo[3], hi[3];
    bool box[3];
} data_info;

/* a failure at FILE:LINE */
static int data_error(const char *file, long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int data_error(const char *file, long line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (line > 0) fprintf(stderr, "talus bench: %s:%ld: ", file, line);
    else fprintf(stderr, "talus bench: %s: ", file);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* the words of a line, the comment after '#' dropped; returns how many (at most max) */
static int split_words(char *s, char **w, int max) {
    char *hash = strchr(s, '#');
    if (hash) *hash = '\0';
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == max) return max + 1;
        w[n++] = t;
    }
    return n;
}

static bool parse_ll(const char *s, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || end == s) return false;
    *out = v;
    return true;
}

static bool is_number_start(const char *s) {
    return (s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '+' || s[0] == '.';
}

typedef enum { SEC_HEADER, SEC_ATOMS, SEC_VELOCITIES, SEC_OTHER } data_section;

static int read_data(tl_world *w, const char *path, int material, data_info *info) {
    FILE *f = fopen(path, "r");
    if (!f) return data_error(path, 0, "cannot open: %s", strerror(errno));
    memset(info, 0, sizeof *info);
    info->atoms_declared = -1;
    char line[4096];
    long ln = 0;
    data_section sec = SEC_HEADER;
    int rc = 0;
    const double pi = 3.14159265358979323846;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            rc = data_error(path, ln, "line longer than %zu characters", sizeof line - 2);
            break;
        }
        if (ln == 1) continue; /* the title line */
        char *wd[16];
        int n = split_words(line, wd, 15);
        if (n == 0) continue;
        if (!is_number_start(wd[0])) { /* a section keyword */
            if (strcmp(wd[0], "Atoms") == 0) {
                if (info->atoms_declared < 0) {
                    rc = data_error(path, ln, "Atoms section before the 'N atoms' header line");
                    break;
                }
                sec = SEC_ATOMS;
            } else if (strcmp(wd[0], "Velocities") == 0) {
                sec = SEC_VELOCITIES;
            } else {
                sec = SEC_OTHER; /* Masses, Pair Coeffs, ...: not needed */
            }
            continue;
        }
        if (sec == SEC_HEADER) {
            long long v;
            if (n == 2 && strcmp(wd[1], "atoms") == 0) {
                if (!parse_ll(wd[0], &v) || v < 0) {
                    rc = data_error(path, ln, "bad atom count '%s'", wd[0]);
                    break;
                }
                info->atoms_declared = v;
            } else if (n == 3 && strcmp(wd[1], "atom") == 0 && strcmp(wd[2], "types") == 0) {
                if (!parse_ll(wd[0], &v) || v < 1) {
                    rc = data_error(path, ln, "bad atom type count '%s'", wd[0]);
                    break;
                }
                info->types = v;
            } else if (n == 4 && strlen(wd[2]) == 3 && strcmp(wd[2] + 1, "lo") == 0 &&
                       wd[2][0] >= 'x' && wd[2][0] <= 'z') {
                int k = wd[2][0] - 'x';
                if (!app_parse_number(wd[0], &info->lo[k]) || !app_parse_number(wd[1], &info->hi[k]) ||
                    !(info->hi[k] > info->lo[k])) {
                    rc = data_error(path, ln, "bad box bounds '%s %s %s %s'", wd[0], wd[1], wd[2], wd[3]);
                    break;
                }
                info->box[k] = true;
            } else if (n == 6 && strcmp(wd[3], "xy") == 0) {
                rc = data_error(path, ln, "triclinic boxes are not supported");
                break;
            }
            continue; /* other header lines (bonds, ...) do not concern spheres */
        }
        if (sec == SEC_ATOMS) {
            if (n != 7 && n != 10) {
                rc = data_error(path, ln,
                                "an Atoms line needs 7 values 'id type diameter density x y z' "
                                "(atom_style sphere), optionally 3 image flags; got %d",
                                n > 15 ? 15 : n);
                break;
            }
            long long id, type;
            double d, rho, x[3];
            if (!parse_ll(wd[0], &id) || id < 1 || id >= 0x80000000LL) {
                rc = data_error(path, ln, "bad atom id '%s' (1 ... 2^31-1)", wd[0]);
                break;
            }
            if (!parse_ll(wd[1], &type) || type < 1 || (info->types > 0 && type > info->types)) {
                rc = data_error(path, ln, "bad atom type '%s' (1 ... %lld)", wd[1], info->types);
                break;
            }
            if (!app_parse_number(wd[2], &d) || !(d > 0.0)) {
                rc = data_error(path, ln, "bad diameter '%s' (m, > 0)", wd[2]);
                break;
            }
            if (!app_parse_number(wd[3], &rho) || !(rho > 0.0)) {
                rc = data_error(path, ln, "bad density '%s' (kg/m3, > 0)", wd[3]);
                break;
            }
            bool ok = true;
            for (int k = 0; k < 3; k++) ok = ok && app_parse_number(wd[4 + k], &x[k]);
            if (!ok) {
                rc = data_error(path, ln, "bad position '%s %s %s'", wd[4], wd[5], wd[6]);
                break;
            }
            if (info->atoms_read >= info->atoms_declared) {
                rc = data_error(path, ln, "more atoms than the %lld declared", info->atoms_declared);
                break;
            }
            tl_particle_def pd = tl_particle_default();
            pd.id = (uint32_t)id;
            pd.material = material;
            pd.radius = 0.5 * d;
            pd.position = (tl_vec3){x[0], x[1], x[2]};
            pd.mass = rho * 4.0 / 3.0 * pi * pd.radius * pd.radius * pd.radius;
            if (tl_world_add_particle(w, &pd, NULL) != TL_OK) {
                rc = data_error(path, ln, "%s", tl_world_error(w));
                break;
            }
            info->atoms_read++;
        } else if (sec == SEC_VELOCITIES) {
            if (n != 7) {
                rc = data_error(path, ln, "a Velocities line needs 'id vx vy vz wx wy wz'; got %d values",
                                n > 15 ? 15 : n);
                break;
            }
            long long id;
            double v[6];
            bool ok = parse_ll(wd[0], &id) && id >= 1 && id < 0x80000000LL;
            for (int k = 0; k < 6 && ok; k++) ok = app_parse_number(wd[1 + k], &v[k]);
            if (!ok) {
                rc = data_error(path, ln, "bad Velocities line");
                break;
            }
            if (tl_world_set_particle_velocity(w, (uint32_t)id, (tl_vec3){v[0], v[1], v[2]},
                                               (tl_vec3){v[3], v[4], v[5]}) != TL_OK) {
                rc = data_error(path, ln, "%s (Velocities must follow Atoms)", tl_world_error(w));
                break;
            }
            info->velocities++;
        }
    }
    if (!rc && ferror(f)) rc = data_error(path, ln, "read error: %s", strerror(errno));
    fclose(f);
    if (rc) return rc;
    if (info->atoms_declared < 0) return data_error(path, 0, "no 'N atoms' header line: not a LAMMPS data file");
    if (info->atoms_read != info->atoms_declared)
        return data_error(path, 0, "%lld atoms declared, %lld in the Atoms section", info->atoms_declared,
                          info->atoms_read);
    for (int k = 0; k < 3; k++)
        if (!info->box[k]) return data_error(path, 0, "no '%clo %chi' box line", 'x' + k, 'x' + k);
    return 0;
}

/* ---- measurements ---- */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void kinetic_energy(const tl_world *w, double *trans, double *rot) {
    double t = 0.0, r = 0.0;
    size_t n = tl_world_particle_count(w);
    for (size_t i = 0; i < n; i++) {
        tl_particle_state p;
        if (tl_world_particle_at(w, i, &p) != TL_OK) continue;
        if (p.flags & TL_PARTICLE_FIXED) continue;
        t += 0.5 * p.mass *
             (p.velocity.x * p.velocity.x + p.velocity.y * p.velocity.y + p.velocity.z * p.velocity.z);
        r += tl_particle_rotational_energy(&p);
    }
    *trans = t;
    *rot = r;
}

/* touching contacts: particle-particle and particle-wall */
static int count_contacts(const tl_world *w, size_t *pp, size_t *pw) {
    *pp = *pw = 0;
    size_t n = tl_world_contact_count(w);
    for (size_t k = 0; k < n; k++) {
        tl_contact_info c;
        if (tl_world_get_contact(w, k, &c) != TL_OK) return 1;
        if (!(c.overlap > 0.0)) continue;
        if (c.with_wall) (*pw)++;
        else (*pp)++;
    }
    return 0;
}

typedef struct ke_sample {
    long long step;
    double trans, rot, z; /* J, J, particle-particle contacts per particle */
} ke_sample;

typedef struct ke_log {
    ke_sample *s;
    size_t n, cap;
    bool print; /* text mode: print as they come */
} ke_log;

static int ke_record(ke_log *log, const tl_world *w, long long step, const char *phase) {
    ke_sample k = {step, 0.0, 0.0, 0.0};
    kinetic_energy(w, &k.trans, &k.rot);
    size_t npp, npw, n = tl_world_particle_count(w);
    if (count_contacts(w, &npp, &npw)) return 1;
    k.z = n ? 2.0 * (double)npp / (double)n : 0.0;
    if (log->print) {
        printf("ke step=%lld phase=%s trans=%.10e rot=%.10e total=%.10e Z=%.6f\n", step, phase, k.trans,
               k.rot, k.trans + k.rot, k.z);
        fflush(stdout);
    }
    if (log->n == log->cap) {
        size_t cap = log->cap ? 2 * log->cap : 64;
        ke_sample *s = realloc(log->s, cap * sizeof *s);
        if (!s) return 1;
        log->s = s;
        log->cap = cap;
    }
    log->s[log->n++] = k;
    return 0;
}

/* runs `steps` steps in chunks of ke_every (all at once without), recording the kinetic energy
 * after each chunk; *seconds: the time spent inside tl_world_step. Prints why on failure. */
static int run_steps(tl_world *w, long long steps, long long ke_every, long long *step_no, ke_log *log,
                     const char *phase, double *seconds) {
    *seconds = 0.0;
    long long done = 0;
    while (done < steps) {
        long long chunk = steps - done;
        if (ke_every > 0) {
            long long to_next = ke_every - (*step_no % ke_every);
            if (chunk > to_next) chunk = to_next;
        }
        double t0 = now_seconds();
        tl_status s = tl_world_step(w, chunk);
        *seconds += now_seconds() - t0;
        if (s != TL_OK) {
            fprintf(stderr, "talus bench: %s run failed at step %lld: %s\n", phase, *step_no,
                    tl_world_error(w));
            return 1;
        }
        done += chunk;
        *step_no += chunk;
        if (ke_every > 0 && *step_no % ke_every == 0 && ke_record(log, w, *step_no, phase)) {
            fprintf(stderr, "talus bench: out of memory\n");
            return 1;
        }
    }
    return 0;
}

static void json_string(const char *s) {
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* ---- the command ---- */

int cmd_bench(int argc, char **argv) {
    bench_opts o;
    int pr = parse_args(argc, argv, &o);
    if (pr == 1) return 0;
    if (pr) return pr;

    double t_load = now_seconds();
    tl_scene *scene = app_load_scene(o.scene);
    if (!scene) return 1;
    tl_world *w = tl_scene_world(scene);
    int rc = 1;
    ke_log log = {NULL, 0, 0, !o.json};

    int material = 0;
    if (o.material) {
        if (tl_world_find_material(w, o.material, &material) != TL_OK) {
            fprintf(stderr, "talus bench: --material: the scene has no material '%s'\n", o.material);
            goto done;
        }
    } else if (tl_world_particle_count(w) > 0) {
        tl_particle_state p0;
        if (tl_world_particle_at(w, 0, &p0) == TL_OK) material = p0.material;
    }
    if (tl_world_material_count(w) < 1) {
        fprintf(stderr, "talus bench: the scene has no material\n");
        goto done;
    }
    data_info di;
    memset(&di, 0, sizeof di);
    if (o.data && read_data(w, o.data, material, &di)) goto done;
    size_t n0 = tl_world_particle_count(w);
    if (n0 == 0) {
        fprintf(stderr, "talus bench: no particles (give --data FILE or particles in the scene)\n");
        goto done;
    }
    if (o.set_velocity) {
        for (size_t i = 0; i < n0; i++) {
            tl_particle_state p;
            if (tl_world_particle_at(w, i, &p) != TL_OK || (p.flags & TL_PARTICLE_FIXED)) continue;
            if (tl_world_set_particle_velocity(w, p.id, o.velocity, (tl_vec3){0.0, 0.0, 0.0}) != TL_OK) {
                fprintf(stderr, "talus bench: --velocity: %s\n", tl_world_error(w));
                goto done;
            }
        }
    }
    const int warm_threads = o.warmup_threads >= 0 ? o.warmup_threads : o.threads;
    if (tl_world_set_threads(w, warm_threads) != TL_OK) {
        fprintf(stderr, "talus bench: --%sthreads: %s\n", o.warmup_threads >= 0 ? "warmup-" : "",
                tl_world_error(w));
        goto done;
    }
    /* under mpirun: spread over the ranks (rank 0 reports; the timed loop is its wall clock,
     * waits for the others included) */
    const int ranks = tl_parallel_begin(&argc, &argv);
    if (ranks > 1) {
        if (tl_world_distribute(w) != TL_OK) {
            fprintf(stderr, "talus bench: %s\n", tl_world_error(w));
            goto done;
        }
        if (tl_world_rank(w) != 0 && !freopen("/dev/null", "w", stdout)) goto done;
    }
    t_load = now_seconds() - t_load;

    if (!o.json) {
        printf("talus %s bench: %s (%s)\n", tl_version(), tl_scene_title(scene), o.scene);
        if (o.data)
            printf("  data    %s: %lld atoms (%lld with velocities), box [%g, %g] x [%g, %g] x [%g, %g] m, "
               "material '%s'\n",
               o.data, di.atoms_read, di.velocities, di.lo[0], di.hi[0], di.lo[1], di.hi[1], di.lo[2], di.hi[2],
               tl_world_material_name(w, material));
        printf("  run     %zu particles, dt %.4g s, %lld warm-up + %lld timed steps, %d thread%s", n0,
               tl_world_dt(w), o.warmup, o.steps, o.threads, o.threads == 1 ? "" : "s");
        if (warm_threads != o.threads) printf(" (warm-up on %d)", warm_threads);
        printf("\n");
        fflush(stdout);
    }

    long long step_no = 0;
    double warm_s = 0.0, timed_s = 0.0;
    const char *warm_from = "stepped"; /* the warm-up: stepped, or loaded from --warm-state */
    int loaded = -1;
    if (o.warm_state) {
        if (ranks > 1) {
            fprintf(stderr, "talus bench: --warm-state: serial runs only (this one has %d ranks)\n", ranks);
            goto done;
        }
        loaded = load_warm_state(w, o.warm_state, o.warmup);
        if (loaded > 0) goto done;
    }
    if (loaded == 0) {
        warm_from = "loaded";
        step_no = o.warmup;
        if (!o.json) printf("  warm-up loaded from %s\n", o.warm_state);
        if (o.ke_every > 0 && ke_record(&log, w, step_no, "warm-up")) goto oom;
    } else {
        if (o.ke_every > 0 && ke_record(&log, w, 0, "start")) goto oom;
        if (run_steps(w, o.warmup, o.ke_every, &step_no, &log, "warm-up", &warm_s)) goto done;
        if (o.warm_state) {
            if (save_warm_state(w, o.warm_state)) goto done;
            warm_from = "saved";
        }
    }
    if (o.state && write_state(w, o.state)) goto done;
    if (warm_threads != o.threads && tl_world_set_threads(w, o.threads) != TL_OK) {
        fprintf(stderr, "talus bench: --threads: %s\n", tl_world_error(w));
        goto done;
    }
    size_t bytes_warm = tl_world_bytes(w);
    int64_t builds0 = tl_world_neighbor_builds(w);
    /* the ranks' costs over the timed run (collective) */
    tl_parallel_stats ps0, ps;
    if (tl_world_parallel_stats(w, &ps0) != TL_OK) goto oom;
    if (run_steps(w, o.steps, o.ke_every, &step_no, &log, "timed", &timed_s)) goto done;
    if (tl_world_parallel_stats(w, &ps) != TL_OK) goto oom;
    int64_t builds = tl_world_neighbor_builds(w) - builds0;
    size_t bytes = tl_world_bytes(w);
    if (bytes_warm > bytes) bytes = bytes_warm;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rss = (double)ru.ru_maxrss * 1024.0; /* Linux: kilobytes */

    /* the contacts of all ranks: counted by rank 0 in the gathered view */
    if (ranks > 1 && tl_world_view(w, TL_VIEW_RECORD) != TL_OK) goto oom;
    size_t n = tl_world_particle_total(w), npp = 0, npw = 0;
    if (tl_world_rank(w) == 0 && count_contacts(w, &npp, &npw)) goto oom;
    if (ranks > 1) tl_world_view(w, TL_VIEW_OFF);
    double z = n ? 2.0 * (double)npp / (double)n : 0.0;
    double rate = timed_s > 0.0 ? (double)n * (double)o.steps / timed_s : 0.0;
    double us = rate > 0.0 ? 1e6 / rate : 0.0;
    size_t removed = tl_world_particles_removed(w);

    if (o.json) {
        printf("{\"code\": \"talus\", \"version\": ");
        json_string(tl_version());
        printf(", \"scene\": ");
        json_string(o.scene);
        printf(", \"data\": ");
        if (o.data) json_string(o.data);
        else printf("null");
        printf(", \"ranks\": %d", ranks);
        printf(", \"particles_start\": %zu, \"N\": %zu, \"removed\": %zu, \"threads\": %d, \"warmup_threads\": %d, "
               "\"dt\": %.6g",
               n0, n, removed, o.threads, warm_threads, tl_world_dt(w));
        printf(", \"warmup\": %lld, \"steps\": %lld, \"load_seconds\": %.6f, \"warmup_seconds\": %.6f", o.warmup,
               o.steps, t_load, warm_s);
        printf(", \"warmup_state\": \"%s\"", warm_from);
        printf(", \"seconds\": %.6f, \"particle_steps_per_second\": %.6e, \"us_per_particle_step\": %.6g", timed_s,
               rate, us);
        printf(", \"contacts_pp\": %zu, \"contacts_wall\": %zu, \"Z\": %.6f, \"neighbor_builds\": %lld", npp, npw, z,
               (long long)builds);
        printf(", \"engine_bytes\": %zu, \"engine_bytes_per_particle\": %.1f", bytes,
               n ? (double)bytes / (double)n : 0.0);
        printf(", \"peak_rss_bytes\": %.0f, \"peak_rss_bytes_per_particle\": %.1f", rss, n ? rss / (double)n : 0.0);
        if (o.data) printf(", \"data_velocities\": %lld", di.velocities);
        /* how OpenMP's waiting threads behave (main.c sets 1000 spins unless the user chose) */
        const char *spin = getenv("GOMP_SPINCOUNT"), *policy = getenv("OMP_WAIT_POLICY");
        printf(", \"gomp_spincount\": \"%s\", \"omp_wait_policy\": \"%s\"", spin ? spin : "",
               policy ? policy : "");
        if (o.data)
            printf(", \"box\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]]", di.lo[0], di.lo[1], di.lo[2],
                   di.hi[0], di.hi[1], di.hi[2]);
        if (ranks > 1) {
            /* over the timed run; the times are the slowest rank's (its totals' differences) */
            printf(", \"parallel\": {\"owned_max\": %llu, \"ghosts_total\": %llu, \"ghosts_needed_total\": %llu, "
                   "\"ghosts_max\": %llu, "
                   "\"partners_max\": %llu, \"refreshes\": %llu, \"rebuilds\": %llu, \"sums\": %llu, "
                   "\"collectives\": %llu, \"packed_total\": %llu, \"particle_bytes\": %llu, "
                   "\"sums_bytes\": %llu, \"pack_s\": %.6f, \"exchange_s\": %.6f, \"unpack_s\": %.6f, "
                   "\"sums_s\": %.6f, \"rebuild_s\": %.6f}",
                   (unsigned long long)ps.owned_max, (unsigned long long)ps.ghosts_total,
                   (unsigned long long)ps.ghosts_needed_total, (unsigned long long)ps.ghosts_max, (unsigned long long)ps.partners_max,
                   (unsigned long long)(ps.refreshes - ps0.refreshes), (unsigned long long)(ps.rebuilds - ps0.rebuilds),
                   (unsigned long long)(ps.sums - ps0.sums), (unsigned long long)(ps.collectives - ps0.collectives),
                   (unsigned long long)(ps.packed_total - ps0.packed_total), (unsigned long long)ps.particle_bytes,
                   (unsigned long long)ps.sums_bytes, ps.pack_s - ps0.pack_s, ps.exchange_s - ps0.exchange_s,
                   ps.unpack_s - ps0.unpack_s, ps.sums_s - ps0.sums_s, ps.rebuild_s - ps0.rebuild_s);
        }
        if (o.ke_every > 0) {
            printf(", \"ke_every\": %lld, \"ke\": [", o.ke_every);
            for (size_t k = 0; k < log.n; k++)
                printf("%s[%lld, %.10e, %.10e, %.6f]", k ? ", " : "", log.s[k].step, log.s[k].trans, log.s[k].rot,
                       log.s[k].z);
            printf("]");
        }
        printf("}\n");
    } else {
        printf("  N                  %zu", n);
        if (removed) printf("  (%zu particles left the domain and were removed)", removed);
        printf("\n  steps              %lld timed (after %lld warm-up, %s, %.3f s)\n", o.steps, o.warmup, warm_from,
               warm_s);
        printf("  seconds            %.4f\n", timed_s);
        printf("  particle-steps/s   %.4e  (%.4g us per particle-step)\n", rate, us);
        printf("  Z                  %.4f  (%zu particle-particle contacts; %zu wall contacts)\n", z, npp, npw);
        printf("  neighbor builds    %lld during the timed run\n", (long long)builds);
        printf("  memory             engine %.0f B/particle (%.1f MB), peak RSS %.0f B/particle (%.1f MB)\n",
               n ? (double)bytes / (double)n : 0.0, (double)bytes / 1e6, n ? rss / (double)n : 0.0, rss / 1e6);
        if (ranks > 1) {
            uint64_t nref = ps.refreshes - ps0.refreshes, packed = ps.packed_total - ps0.packed_total;
            printf("  ranks              %d: %llu ghosts (%llu of them within reach) for %zu owned (largest share "
                   "%llu owned, %llu ghosts), up to %llu partners\n",
                   ranks, (unsigned long long)ps.ghosts_total, (unsigned long long)ps.ghosts_needed_total, n,
                   (unsigned long long)ps.owned_max,
                   (unsigned long long)ps.ghosts_max, (unsigned long long)ps.partners_max);
            printf("  per step           %.1f collectives; refresh %.3g s (pack %.3g, exchange %.3g, unpack %.3g) "
                   "of %.0f particles; domain sums %.3g s (%llu bytes); rebuilds %.3g s in all\n",
                   o.steps ? (double)(ps.collectives - ps0.collectives) / (double)o.steps : 0.0,
                   nref ? (ps.pack_s - ps0.pack_s + ps.exchange_s - ps0.exchange_s + ps.unpack_s - ps0.unpack_s) /
                              (double)nref : 0.0,
                   nref ? (ps.pack_s - ps0.pack_s) / (double)nref : 0.0,
                   nref ? (ps.exchange_s - ps0.exchange_s) / (double)nref : 0.0,
                   nref ? (ps.unpack_s - ps0.unpack_s) / (double)nref : 0.0, nref ? (double)packed / (double)nref : 0.0,
                   ps.sums > ps0.sums ? (ps.sums_s - ps0.sums_s) / (double)(ps.sums - ps0.sums) : 0.0,
                   (unsigned long long)ps.sums_bytes, ps.rebuild_s - ps0.rebuild_s);
        }
    }
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "talus bench: out of memory\n");
done:
    free(log.s);
    tl_scene_destroy(scene);
    return rc;
}
