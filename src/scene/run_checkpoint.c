/*
 * Checkpoint files of a run: everything a run needs to continue exactly
 * where it was (docs/outputs.md, "Checkpoints and resuming").
 *
 * A file <dir>/checkpoint-<step>.tlck, written through a temporary name and
 * renamed into place (tl_file_write_atomic: fsync, rename), then <dir>/latest,
 * a line naming it, written the same way; the checkpoints beyond the scene's
 * `keep` latest are removed only after both are in place. Layout (integers
 * u64 and reals f64 in the machine's order; a file is for the build of
 * Talus that wrote it, like the world state inside it):
 *
 *   header      magic "TALUSCK1", format version, the file's length, FNV-1a 64
 *               of every byte after the header
 *   pieces      how many (0: the world's state is in this file), the step, the
 *               write's tag, and per piece its length and FNV-1a 64 (a run on P
 *               ranks: each rank writes <dir>/checkpoint-<step>.<tag>.piece<rank>,
 *               its share of the world's state, before rank 0 writes this file;
 *               the tag, new at each write, keeps the pieces of an earlier
 *               checkpoint of the same step intact until this file replaces it)
 *   build       the sizes of the structures stored as they are
 *   scene       the scene file's path, FNV-1a 64 of its text
 *   where       the world's step and time
 *   run         stage, its begin and end step, steps done and total, the
 *               world step and time at the start, dt, particle-steps, the
 *               energy at the start (the balance's reference, with the
 *               energy inserted so far) and the balance's scale, particles
 *               and energy inserted
 *   stages      how each went so far (tl_stage_run, field by field)
 *   inflows     each inflow's state (tl_inflow_state, field by field: counts,
 *               generators, the next size) and the time of its next round
 *   materials   which ones the world has particles of (with inflows)
 *   checkpoints the schedule of the next one
 *   outputs     per output: kind, file, schedule (k, next, last), records,
 *               the length and FNV-1a 64 of its file (CSV), the log state
 *               (collisions), the frames and their times (vtk)
 *   world       tl_world_save_state's bytes; with pieces, the frame
 *               (tl_world_save_frame), which joins them into those bytes
 *   end mark    the magic again
 *
 * Reading checks the length and the checksum before it reads anything
 * else, then the build, the scene's text, and every count and index against
 * the scene; then that each output's file still holds the bytes the
 * checkpoint counted. Nothing is written until all of it passed.
 */
#include "run_checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bytes.h"
#include "io_file.h"
#include "world_query.h"

#define MAGIC 0x314b4353554c4154ULL /* "TALUSCK1" */
#define FORMAT 3u /* 2: stage runs and inflow states field by field, no wall definitions; 3: pieces */
#define MAX_PIECES (1u << 20)
#define HEADER_BYTES 32u
#define MAX_NAME 4096u

struct tl_run_saved {
    char path[1100];         /* the checkpoint file */
    char dir[1100];          /* the directory whose `latest` named it ("" = a file was given) */
    int64_t named;           /* the step `latest` named (-1: none) */
    unsigned char *data;     /* all of it */
    size_t size;
    /* the run */
    uint64_t stage;
    int64_t stage_begin, stage_end, done, total, step0;
    double t0, dt, particle_steps, energy0, energy_scale, energy_inserted;
    tl_energy ctx_energy0;
    uint64_t inserted;
    tl_stage_run *runs;
    tl_inflow_state *inflows;
    double *inflow_next;
    uint8_t *present;
    size_t nstages, ninflows, nmat;
    int64_t ck[3];           /* k, next, last */
    /* the outputs */
    size_t nout;
    tl_output_saved *outs;
    int64_t (*sched)[3];
    double **times;
    /* the world: its state's bytes, or with pieces the frame */
    const unsigned char *world;
    size_t world_size;
    size_t body;             /* where the run's section begins */
    size_t npieces;
    void **pieces;
    size_t *piece_size;
};

static tl_status refuse(tl_run_state *r, tl_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "cannot resume: <message>" into run_error */
static tl_status refuse(tl_run_state *r, tl_status st, const char *fmt, ...) {
    char *e = r->scene->run_error;
    size_t size = sizeof r->scene->run_error;
    int n = snprintf(e, size, "cannot resume: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e + n, size - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

static tl_status ck_fail(tl_run_state *r, tl_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "<scene>:<line>: checkpoint: <message>" into run_error */
static tl_status ck_fail(tl_run_state *r, tl_status st, const char *fmt, ...) {
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const tl_scene *sc = r->scene;
    if (sc->path && sc->checkpoint.line > 0)
        snprintf(r->scene->run_error, sizeof r->scene->run_error, "%s:%d: checkpoint: %s", sc->path,
                 sc->checkpoint.line, msg);
    else
        snprintf(r->scene->run_error, sizeof r->scene->run_error, "checkpoint: %s", msg);
    return st;
}

/* ---- writing ---- */

static void put_i64(tl_wbuf *b, int64_t v) { tl_wbuf_u64(b, (uint64_t)v); }

static void put_string(tl_wbuf *b, const char *s) {
    size_t n = s ? strlen(s) : 0;
    tl_wbuf_u64(b, n);
    tl_wbuf_put(b, s, n);
}

static void put_schedule(tl_wbuf *b, const tl_schedule *s) {
    put_i64(b, s->k);
    put_i64(b, s->next);
    put_i64(b, s->last);
}

static const uint64_t *struct_sizes(void) {
    static const uint64_t sizes[4] = {sizeof(tl_inflow_state), sizeof(tl_stage_run),
                                      sizeof(tl_energy), sizeof(tl_wall_def)};
    return sizes;
}

static void put_run(tl_wbuf *b, const tl_run_state *r) {
    const tl_scene *sc = r->scene;
    tl_wbuf_put(b, struct_sizes(), 4 * sizeof(uint64_t));
    put_string(b, sc->path);
    tl_wbuf_u64(b, sc->text_hash);
    put_i64(b, tl_world_step_count(r->world));
    tl_wbuf_f64(b, tl_world_time(r->world));
    tl_wbuf_u64(b, (uint64_t)r->stage);
    put_i64(b, r->stage_begin);
    put_i64(b, r->stage_end);
    put_i64(b, r->done);
    put_i64(b, r->total);
    put_i64(b, r->step0);
    tl_wbuf_f64(b, r->t0);
    tl_wbuf_f64(b, r->dt);
    tl_wbuf_f64(b, r->particle_steps);
    tl_wbuf_f64(b, r->energy0);
    tl_wbuf_put(b, &r->ctx.energy0, sizeof r->ctx.energy0);
    tl_wbuf_f64(b, r->ctx.energy_scale);
    tl_wbuf_u64(b, r->inserted);
    tl_wbuf_f64(b, r->energy_inserted);
    tl_wbuf_u64(b, sc->nstages);
    for (size_t i = 0; i < sc->nstages; i++) {
        const tl_stage_run *s = &r->runs[i];
        tl_wbuf_u64(b, (uint64_t)s->ended_by);
        put_i64(b, s->steps);
        tl_wbuf_f64(b, s->t_begin);
        tl_wbuf_f64(b, s->t_end);
        tl_wbuf_f64(b, s->kinetic_energy);
    }
    tl_wbuf_u64(b, sc->ninflows);
    for (size_t i = 0; i < sc->ninflows; i++) {
        const tl_inflow_state *s = &sc->inflow_states[i];
        for (int k = 0; k < 4; k++) tl_wbuf_u64(b, s->size_rng.s[k]);
        for (int k = 0; k < 4; k++) tl_wbuf_u64(b, s->place_rng.s[k]);
        put_i64(b, s->inserted);
        tl_wbuf_f64(b, s->mass_inserted);
        tl_wbuf_f64(b, s->energy_inserted);
        tl_wbuf_f64(b, s->next_radius);
        put_i64(b, s->rounds);
        put_i64(b, s->failed_rounds);
        put_i64(b, s->shortfall);
        tl_wbuf_f64(b, s->last_round);
        tl_wbuf_bool(b, s->finished);
    }
    tl_wbuf_put(b, r->inflow_next, sc->ninflows * sizeof *r->inflow_next);
    size_t nmat = sc->ninflows ? (size_t)tl_world_material_count(r->world) : 0;
    tl_wbuf_u64(b, nmat);
    tl_wbuf_put(b, r->present, nmat);
    put_schedule(b, &r->ck);
}

static void put_output(tl_wbuf *b, const tl_output *o, const tl_schedule *s,
                       const tl_output_saved *v) {
    tl_wbuf_u64(b, (uint64_t)o->spec->kind);
    put_string(b, o->spec->file);
    put_schedule(b, s);
    put_i64(b, v->records);
    tl_wbuf_u64(b, v->length);
    tl_wbuf_u64(b, v->hash);
    tl_wbuf_u64(b, v->log_was_enabled ? 1u : 0u);
    tl_wbuf_u64(b, v->nframes);
    tl_wbuf_put(b, v->times, v->nframes * sizeof *v->times);
}

/* "checkpoint-<step>.tlck": its step, or -1 */
static int64_t checkpoint_step(const char *name) {
    static const char lead[] = "checkpoint-", tail[] = ".tlck";
    size_t n = strlen(name), nl = sizeof lead - 1, nt = sizeof tail - 1;
    if (n <= nl + nt || strncmp(name, lead, nl) != 0 || strcmp(name + n - nt, tail) != 0) return -1;
    int64_t step = 0;
    for (size_t i = nl; i < n - nt; i++) {
        if (name[i] < '0' || name[i] > '9' || step > (INT64_MAX - 9) / 10) return -1;
        step = step * 10 + (name[i] - '0');
    }
    return step;
}

/* "checkpoint-<step>.<tag>.piece<k>" (tag: 16 hex digits): its step, *tag and *k, or -1 */
static int64_t piece_step(const char *name, uint64_t *tag, int64_t *k) {
    const char *dot = strrchr(name, '.');
    if (!dot || strncmp(dot, ".piece", 6) != 0 || !dot[6] || strlen(dot + 6) > 9) return -1;
    int64_t v = 0;
    for (const char *c = dot + 6; *c; c++) {
        if (*c < '0' || *c > '9') return -1;
        v = v * 10 + (*c - '0');
    }
    size_t n = (size_t)(dot - name);
    if (n < 17 || name[n - 17] != '.') return -1;
    uint64_t t = 0;
    for (size_t i = n - 16; i < n; i++) {
        char c = name[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return -1;
        t = t << 4 | (uint64_t)d;
    }
    char stem[80];
    n -= 17;
    if (n + sizeof ".tlck" > sizeof stem) return -1;
    memcpy(stem, name, n);
    memcpy(stem + n, ".tlck", sizeof ".tlck");
    *k = v;
    *tag = t;
    return checkpoint_step(stem);
}

static int by_step_descending(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The steps of the checkpoint files in dir below `below`, other than `except`,
 * newest first (malloc'd, *n of them; NULL when none or out of memory). */
static int64_t *list_steps(const char *dir, int64_t except, int64_t below, size_t *n) {
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    int64_t *steps = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int64_t s = checkpoint_step(e->d_name);
        if (s < 0 || s == except || s >= below) continue;
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            int64_t *ns = realloc(steps, nc * sizeof *ns);
            if (!ns) break;
            steps = ns;
            cap = nc;
        }
        steps[(*n)++] = s;
    }
    closedir(d);
    if (*n) qsort(steps, *n, sizeof *steps, by_step_descending);
    return steps;
}

/* Keeps the newest (at `step`) and the keep - 1 before it; the others go,
 * also those of later steps (left by an earlier run that went further: the
 * outputs they count on are being rewritten). */
static void prune(const tl_run_state *r, int64_t step, uint64_t tag, size_t npieces) {
    int64_t keep = r->scene->checkpoint.keep > 0 ? r->scene->checkpoint.keep : 1;
    size_t n = 0;
    int64_t *steps = list_steps(r->ck_dir, step, INT64_MAX, &n);
    int64_t *kept = malloc((size_t)keep * sizeof *kept);
    size_t nkept = 0;
    if (kept) kept[nkept++] = step;
    for (size_t i = 0; i < n; i++) {
        if (steps[i] < step && nkept < (size_t)keep && kept) {
            kept[nkept++] = steps[i];
            continue;
        }
        char *path = tl_strdup_printf("%s/checkpoint-%lld.tlck", r->ck_dir, (long long)steps[i]);
        if (path) (void)unlink(path);
        free(path);
    }
    free(steps);
    /* the pieces of the checkpoints that went, those left by a write cut short, and those of
     * this step but another write (an earlier checkpoint of the step, replaced now) */
    DIR *d = kept ? opendir(r->ck_dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int64_t k = -1;
        uint64_t t = 0;
        int64_t s = piece_step(e->d_name, &t, &k);
        if (s < 0) continue;
        bool live = false;
        for (size_t i = 0; i < nkept && !live; i++)
            live = kept[i] == s && (s != step || (npieces && t == tag && (uint64_t)k < npieces));
        if (live) continue;
        char *path = tl_path_join(r->ck_dir, e->d_name);
        if (path) (void)unlink(path);
        free(path);
    }
    if (d) closedir(d);
    free(kept);
}

static tl_status write_checkpoint(tl_run_state *r, size_t npieces, uint64_t tag, const uint64_t *piece_desc);

tl_status tl_run_checkpoint_prepare(tl_run_state *r) {
    char err[900];
    char *latest = tl_path_join(r->ck_dir, "latest");
    if (!latest) return ck_fail(r, TL_ERROR_MEMORY, "out of memory");
    tl_status st = tl_mkdir_p(r->ck_dir, err, sizeof err);
    if (st == TL_OK) st = tl_file_can_replace(latest, err, sizeof err);
    free(latest);
    return st == TL_OK ? TL_OK : ck_fail(r, st, "%s", err);
}

static void piece_name(char *buf, size_t size, int64_t step, uint64_t tag, int64_t k) {
    snprintf(buf, size, "checkpoint-%lld.%016llx.piece%lld", (long long)step, (unsigned long long)tag, (long long)k);
}

/* a tag new at each write: the clock and the process, mixed (rank 0's, agreed by all) */
static uint64_t write_tag(tl_world *w) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    t ^= (uint64_t)getpid() << 40;
    t = tl_fnv1a(&t, sizeof t, TL_FNV_START);
    return (uint64_t)tl_world_agree_i64(w, (int64_t)t);
}

/* A distributed run: every rank writes its piece of the world's state (no gathering), then
 * rank 0 the file naming them, with their lengths and checksums; a piece or the file that
 * cannot be written stops all ranks with the message of the lowest rank that failed, and the
 * pieces of a checkpoint that was not completed are removed. */
static tl_status write_distributed(tl_run_state *r) {
    tl_world *w = r->world;
    const int64_t step = tl_world_step_count(w);
    const uint64_t tag = write_tag(w);
    char name[80], err[900];
    piece_name(name, sizeof name, step, tag, tl_world_rank(w));
    void *piece = NULL;
    size_t size = 0;
    tl_status st = tl_world_save_piece(w, &piece, &size);
    if (st != TL_OK) ck_fail(r, st, "cannot save the world's state: %s", tl_world_error(w));
    char *path = st == TL_OK ? tl_path_join(r->ck_dir, name) : NULL;
    if (st == TL_OK && !path) st = ck_fail(r, TL_ERROR_MEMORY, "out of memory");
    if (st == TL_OK && tl_mkdir_p(r->ck_dir, err, sizeof err) != TL_OK) st = ck_fail(r, TL_ERROR_IO, "%s", err);
    bool written = false;
    if (st == TL_OK) {
        if (tl_file_write_atomic(path, piece, size, err, sizeof err) != TL_OK) st = ck_fail(r, TL_ERROR_IO, "%s", err);
        else written = true;
    }
    uint64_t desc[2] = {size, st == TL_OK ? tl_fnv1a(piece, size, TL_FNV_START) : 0};
    free(piece);
    st = tl_world_agree_message(w, st, r->scene->run_error, sizeof r->scene->run_error);
    const size_t P = (size_t)tl_world_ranks(w);
    uint64_t *all = st == TL_OK ? malloc(2 * P * sizeof *all) : NULL;
    int missing = st == TL_OK && !all;
    if (st == TL_OK) {
        /* every rank knows whether the table can be gathered before it is */
        st = tl_world_agree(w, missing ? ck_fail(r, TL_ERROR_MEMORY, "out of memory") : TL_OK);
        if (st == TL_OK) tl_world_allgather_u64(w, desc, 2, all);
    }
    if (st == TL_OK) {
        st = r->writer ? write_checkpoint(r, P, tag, all) : TL_OK;
        st = tl_world_agree_message(w, st, r->scene->run_error, sizeof r->scene->run_error);
    }
    if (st != TL_OK && written) (void)unlink(path);
    if (st == TL_OK) r->last_checkpoint_step = r->done;
    free(all);
    free(path);
    return st;
}

tl_status tl_run_checkpoint_write(tl_run_state *r) {
    if (r->dist) return write_distributed(r);
    return write_checkpoint(r, 0, 0, NULL);
}

static tl_status write_checkpoint(tl_run_state *r, size_t npieces, uint64_t tag, const uint64_t *piece_desc) {
    tl_output_saved *outs = calloc(r->nout ? r->nout : 1, sizeof *outs);
    if (!outs) return ck_fail(r, TL_ERROR_MEMORY, "out of memory");
    tl_status st = TL_OK;
    for (size_t k = 0; k < r->nout && st == TL_OK; k++) {
        tl_output *o = &r->out[k];
        outs[k].records = o->records;
        if (o->ops->save) {
            st = o->ops->save(o, &outs[k]);
            if (st != TL_OK) {
                char msg[sizeof r->scene->run_error];
                snprintf(msg, sizeof msg, "%s", r->scene->run_error);
                ck_fail(r, st, "%s output '%s': %s", o->ops->name, o->spec->file, msg);
            }
        }
    }
    void *world = NULL;
    size_t world_size = 0;
    if (st == TL_OK) {
        tl_status ws = npieces ? tl_world_save_frame(r->world, &world, &world_size)
                               : tl_world_save_state(r->world, &world, &world_size);
        if (st == TL_OK && ws != TL_OK)
            st = ck_fail(r, ws, "cannot save the world's state: %s",
                         ws == TL_ERROR_MEMORY ? "out of memory" : tl_world_error(r->world));
    }
    tl_wbuf b = {0};
    if (st == TL_OK) {
        static const unsigned char zero[HEADER_BYTES];
        tl_wbuf_put(&b, zero, sizeof zero);
        tl_wbuf_u64(&b, npieces);
        put_i64(&b, tl_world_step_count(r->world));
        tl_wbuf_u64(&b, tag);
        tl_wbuf_put(&b, piece_desc, 2 * npieces * sizeof *piece_desc);
        put_run(&b, r);
        tl_wbuf_u64(&b, r->nout);
        for (size_t k = 0; k < r->nout; k++) put_output(&b, &r->out[k], &r->sched[k], &outs[k]);
        tl_wbuf_u64(&b, world_size);
        tl_wbuf_put(&b, world, world_size);
        tl_wbuf_u64(&b, MAGIC);
        if (b.failed) st = ck_fail(r, TL_ERROR_MEMORY, "out of memory");
    }
    free(world);
    free(outs);
    if (st == TL_OK) {
        uint64_t head[4] = {MAGIC, FORMAT, (uint64_t)b.size,
                            tl_fnv1a(b.data + HEADER_BYTES, b.size - HEADER_BYTES, TL_FNV_START)};
        memcpy(b.data, head, sizeof head);
    }
    int64_t step = tl_world_step_count(r->world);
    char name[64], err[900];
    snprintf(name, sizeof name, "checkpoint-%lld.tlck", (long long)step);
    char *path = st == TL_OK ? tl_path_join(r->ck_dir, name) : NULL;
    char *latest = st == TL_OK ? tl_path_join(r->ck_dir, "latest") : NULL;
    if (st == TL_OK && (!path || !latest)) st = ck_fail(r, TL_ERROR_MEMORY, "out of memory");
    if (st == TL_OK && tl_mkdir_p(r->ck_dir, err, sizeof err) != TL_OK)
        st = ck_fail(r, TL_ERROR_IO, "%s", err);
    if (st == TL_OK && tl_file_write_atomic(path, b.data, b.size, err, sizeof err) != TL_OK)
        st = ck_fail(r, TL_ERROR_IO, "%s", err);
    if (st == TL_OK) {
        char line[80];
        int n = snprintf(line, sizeof line, "%s\n", name);
        if (tl_file_write_atomic(latest, line, (size_t)n, err, sizeof err) != TL_OK)
            st = ck_fail(r, TL_ERROR_IO, "%s", err);
    }
    if (st == TL_OK) {
        prune(r, step, tag, npieces);
        snprintf(r->last_checkpoint, sizeof r->last_checkpoint, "%s", path);
        r->last_checkpoint_step = r->done;
    }
    free(path);
    free(latest);
    free(b.data);
    return st;
}

/* ---- reading ---- */

static void free_pieces(tl_run_saved *S) {
    for (size_t k = 0; S->pieces && k < S->npieces; k++) free(S->pieces[k]);
    free(S->pieces);
    free(S->piece_size);
    S->pieces = NULL;
    S->piece_size = NULL;
    S->npieces = 0;
}

void tl_run_saved_free(tl_run_saved *S) {
    if (!S) return;
    free_pieces(S);
    free(S->data);
    free(S->runs);
    free(S->inflows);
    free(S->inflow_next);
    free(S->present);
    if (S->times)
        for (size_t k = 0; k < S->nout; k++) free(S->times[k]);
    free(S->times);
    free(S->outs);
    free(S->sched);
    free(S);
}

/* The checkpoint file `where` names: itself, or the one its `latest` names. */
static tl_status locate(tl_run_state *r, const char *where, tl_run_saved *S) {
    struct stat st;
    if (stat(where, &st) != 0)
        return refuse(r, TL_ERROR_IO, "%s: %s", where, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        snprintf(S->path, sizeof S->path, "%s", where);
        return TL_OK;
    }
    char *latest = tl_path_join(where, "latest");
    if (!latest) return refuse(r, TL_ERROR_MEMORY, "out of memory");
    /* `latest` is a short regular file: a FIFO in its place is refused, not waited on */
    FILE *fp = NULL;
    {
        int lfd = -1;
        uint64_t lsize = 0;
        char lerr[64];
        tl_status ls = tl_file_open_regular(latest, &lfd, &lsize, lerr, sizeof lerr);
        if (ls == TL_OK) {
            fp = fdopen(lfd, "rb");
            if (!fp) close(lfd);
        } else if (ls == TL_ERROR_ARGUMENT) {
            tl_status s = refuse(r, TL_ERROR_ARGUMENT, "%s: not a regular file (it names the newest checkpoint)", latest);
            free(latest);
            return s;
        } else {
            errno = ls == TL_ERROR_NOT_FOUND ? ENOENT : EIO;
        }
    }
    if (!fp && errno == ENOENT) {
        /* an output folder: its checkpoints are in the scene's checkpoint folder inside it */
        const tl_checkpoint_spec *ck = &r->scene->checkpoint;
        const char *sub = ck->dir && ck->dir[0] != '/' ? ck->dir : "checkpoint";
        char *inner = tl_path_join(where, sub);
        char *inner_latest = inner ? tl_path_join(inner, "latest") : NULL;
        FILE *f2 = inner_latest ? fopen(inner_latest, "rb") : NULL;
        if (f2) {
            fclose(f2);
            free(latest);
            free(inner_latest);
            tl_status s = locate(r, inner, S);
            free(inner);
            return s;
        }
        free(inner);
        free(inner_latest);
    }
    if (!fp) {
        tl_status s = refuse(r, TL_ERROR_IO,
                             "%s: %s (a directory given to resume from holds a file 'latest' "
                             "naming its newest checkpoint; runs write them when their scene has "
                             "checkpoint: {...})",
                             latest, strerror(errno));
        free(latest);
        return s;
    }
    char line[300];
    size_t n = fread(line, 1, sizeof line - 1, fp);
    fclose(fp);
    line[n] = '\0';
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = '\0';
    if (n == 0 || strchr(line, '/') || checkpoint_step(line) < 0) {
        tl_status s = refuse(r, TL_ERROR_ARGUMENT,
                             "%s does not name a checkpoint file (checkpoint-<step>.tlck)", latest);
        free(latest);
        return s;
    }
    free(latest);
    char *path = tl_path_join(where, line);
    if (!path) return refuse(r, TL_ERROR_MEMORY, "out of memory");
    snprintf(S->path, sizeof S->path, "%s", path);
    snprintf(S->dir, sizeof S->dir, "%s", where);
    S->named = checkpoint_step(line);
    free(path);
    return TL_OK;
}

/* The file, whole. Its type and header first: a FIFO is refused without waiting for a writer,
 * and a file whose header is not a checkpoint's, or whose length is not the one its header
 * gives, is refused before the rest is read (a huge stray file costs a header's read, and the
 * refusal lets the resume fall back to an older checkpoint). */
static tl_status read_all(tl_run_state *r, tl_run_saved *S) {
    int fd = -1;
    uint64_t size = 0;
    char err[1300];
    tl_status st = tl_file_open_regular(S->path, &fd, &size, err, sizeof err);
    if (st != TL_OK) return refuse(r, st == TL_ERROR_NOT_FOUND ? TL_ERROR_IO : st, "%s", err);
    unsigned char head_bytes[HEADER_BYTES];
    if (size < HEADER_BYTES || !tl_fd_read_exact(fd, head_bytes, HEADER_BYTES)) {
        close(fd);
        return refuse(r, TL_ERROR_ARGUMENT, "%s: truncated: %llu bytes, less than a header (%u)", S->path,
                      (unsigned long long)size, HEADER_BYTES);
    }
    uint64_t head[4];
    memcpy(head, head_bytes, sizeof head);
    const char *bad = head[0] != MAGIC ? "not a Talus checkpoint" : NULL;
    if (bad || head[1] != FORMAT || head[2] != size) {
        close(fd);
        if (bad) return refuse(r, TL_ERROR_ARGUMENT, "%s: %s", S->path, bad);
        if (head[1] != FORMAT)
            return refuse(r, TL_ERROR_ARGUMENT,
                          "%s: written in checkpoint format %llu; this build of Talus reads format %u", S->path,
                          (unsigned long long)head[1], FORMAT);
        if (head[2] > size)
            return refuse(r, TL_ERROR_ARGUMENT, "%s: truncated: %llu of %llu bytes", S->path,
                          (unsigned long long)size, (unsigned long long)head[2]);
        return refuse(r, TL_ERROR_ARGUMENT, "%s: %llu bytes where its header says %llu (not one complete checkpoint)",
                      S->path, (unsigned long long)size, (unsigned long long)head[2]);
    }
    if (size > SIZE_MAX - 1) {
        close(fd);
        return refuse(r, TL_ERROR_ARGUMENT, "%s: %llu bytes: too large for this machine", S->path,
                      (unsigned long long)size);
    }
    S->data = malloc((size_t)size);
    if (!S->data) {
        close(fd);
        return refuse(r, TL_ERROR_MEMORY, "%s: out of memory (%llu bytes)", S->path, (unsigned long long)size);
    }
    memcpy(S->data, head_bytes, HEADER_BYTES);
    bool ok = tl_fd_read_exact(fd, (unsigned char *)S->data + HEADER_BYTES, (size_t)size - HEADER_BYTES);
    close(fd);
    if (!ok) return refuse(r, TL_ERROR_IO, "%s: cannot read it", S->path);
    S->size = (size_t)size;
    return TL_OK;
}

/* the body's checksum (read_all checked the header's magic, format and length before the body) */
static tl_status verify(tl_run_state *r, const tl_run_saved *S) {
    uint64_t head[4];
    memcpy(head, S->data, sizeof head);
    if (tl_fnv1a(S->data + HEADER_BYTES, S->size - HEADER_BYTES, TL_FNV_START) != head[3])
        return refuse(r, TL_ERROR_ARGUMENT, "%s: checksum mismatch (the file is corrupted)", S->path);
    return TL_OK;
}

static int64_t get_i64(tl_rbuf *b) { return (int64_t)tl_rbuf_u64(b); }

/* a string of at most MAX_NAME bytes, copied NUL-terminated into buf */
static bool get_string(tl_rbuf *b, char *buf, size_t size) {
    uint64_t n = tl_rbuf_u64(b);
    if (b->failed || n > MAX_NAME || n >= size || n > b->size - b->at) {
        b->failed = true;
        return false;
    }
    tl_rbuf_get(b, buf, (size_t)n);
    buf[n] = '\0';
    return !b->failed;
}

/* an array of n items of `each` bytes into fresh memory */
static void *get_array(tl_rbuf *b, size_t n, size_t each) {
    if (b->failed || (n && n > (b->size - b->at) / each)) {
        b->failed = true;
        return NULL;
    }
    void *p = malloc(n ? n * each : 1);
    if (!p) {
        b->failed = true;
        return NULL;
    }
    tl_rbuf_get(b, p, n * each);
    return p;
}

static tl_status mismatch(tl_run_state *r, const tl_run_saved *S, const char *what) {
    return refuse(r, TL_ERROR_ARGUMENT, "%s does not fit this scene (%s)", S->path, what);
}

static tl_status parse_run(tl_run_state *r, tl_run_saved *S, tl_rbuf *b) {
    const tl_scene *sc = r->scene;
    uint64_t sizes[4];
    tl_rbuf_get(b, sizes, sizeof sizes);
    if (b->failed || memcmp(sizes, struct_sizes(), sizeof sizes) != 0)
        return refuse(r, TL_ERROR_ARGUMENT,
                      "%s was written by a different build of Talus (structure sizes differ)",
                      S->path);
    char saved_path[MAX_NAME + 1];
    if (!get_string(b, saved_path, sizeof saved_path)) return mismatch(r, S, "scene path");
    uint64_t text_hash = tl_rbuf_u64(b);
    if (text_hash != sc->text_hash) {
        bool moved = sc->path && strcmp(saved_path, sc->path) != 0;
        return refuse(r, TL_ERROR_ARGUMENT,
                      "%s changed since the checkpoint was written (%s holds a run of %s%s; restore "
                      "the scene as it was, or rerun without --resume)",
                      sc->path ? sc->path : "the scene", S->path,
                      moved ? saved_path : "another text of it",
                      moved ? ", whose text differs" : "");
    }
    (void)get_i64(b);      /* the world's step and time: for people reading the file */
    (void)tl_rbuf_f64(b);
    S->stage = tl_rbuf_u64(b);
    S->stage_begin = get_i64(b);
    S->stage_end = get_i64(b);
    S->done = get_i64(b);
    S->total = get_i64(b);
    S->step0 = get_i64(b);
    S->t0 = tl_rbuf_f64(b);
    S->dt = tl_rbuf_f64(b);
    S->particle_steps = tl_rbuf_f64(b);
    S->energy0 = tl_rbuf_f64(b);
    tl_rbuf_get(b, &S->ctx_energy0, sizeof S->ctx_energy0);
    S->energy_scale = tl_rbuf_f64(b);
    S->inserted = tl_rbuf_u64(b);
    S->energy_inserted = tl_rbuf_f64(b);
    if (b->failed) return refuse(r, TL_ERROR_ARGUMENT, "%s: truncated (run)", S->path);
    if (S->stage >= sc->nstages || S->stage_begin < 0 || S->stage_begin > S->done ||
        S->done > S->stage_end || S->stage_end > S->total || S->total > r->total ||
        S->stage_end - S->stage_begin > r->stage_steps[S->stage])
        return mismatch(r, S, "stage and steps");
    if (S->dt != r->dt || !isfinite(S->t0)) return mismatch(r, S, "time step");
    S->nstages = (size_t)tl_rbuf_u64(b);
    if (S->nstages != sc->nstages) return mismatch(r, S, "stages");
    S->runs = calloc(S->nstages ? S->nstages : 1, sizeof *S->runs);
    if (!S->runs) b->failed = true;
    for (size_t i = 0; i < S->nstages && !b->failed; i++) {
        tl_stage_run *s = &S->runs[i];
        uint64_t by = tl_rbuf_u64(b);
        if (by > (uint64_t)TL_STAGE_BY_WALL_DISPLACEMENT) return mismatch(r, S, "stages");
        s->ended_by = (tl_stage_end)by;
        s->steps = get_i64(b);
        s->t_begin = tl_rbuf_f64(b);
        s->t_end = tl_rbuf_f64(b);
        s->kinetic_energy = tl_rbuf_f64(b);
    }
    S->ninflows = (size_t)tl_rbuf_u64(b);
    if (!b->failed && S->ninflows != sc->ninflows) return mismatch(r, S, "inflows");
    if (!b->failed) S->inflows = calloc(S->ninflows ? S->ninflows : 1, sizeof *S->inflows);
    if (!S->inflows) b->failed = true;
    for (size_t i = 0; i < S->ninflows && !b->failed; i++) {
        tl_inflow_state *s = &S->inflows[i];
        for (int k = 0; k < 4; k++) s->size_rng.s[k] = tl_rbuf_u64(b);
        for (int k = 0; k < 4; k++) s->place_rng.s[k] = tl_rbuf_u64(b);
        s->inserted = get_i64(b);
        s->mass_inserted = tl_rbuf_f64(b);
        s->energy_inserted = tl_rbuf_f64(b);
        s->next_radius = tl_rbuf_f64(b);
        s->rounds = get_i64(b);
        s->failed_rounds = get_i64(b);
        s->shortfall = get_i64(b);
        s->last_round = tl_rbuf_f64(b);
        s->finished = tl_rbuf_bool(b);
    }
    S->inflow_next = get_array(b, S->ninflows, sizeof *S->inflow_next);
    S->nmat = (size_t)tl_rbuf_u64(b);
    size_t nmat = sc->ninflows ? (size_t)tl_world_material_count(r->world) : 0;
    if (!b->failed && S->nmat != nmat) return mismatch(r, S, "materials");
    S->present = get_array(b, S->nmat, 1);
    for (size_t i = 0; i < 3; i++) S->ck[i] = get_i64(b);
    if (b->failed) return refuse(r, TL_ERROR_ARGUMENT, "%s: truncated (run)", S->path);
    return TL_OK;
}

static tl_status parse_outputs(tl_run_state *r, tl_run_saved *S, tl_rbuf *b) {
    S->nout = (size_t)tl_rbuf_u64(b);
    if (b->failed || S->nout > r->scene->noutputs) return mismatch(r, S, "outputs");
    if (r->nout && S->nout != r->nout) return mismatch(r, S, "outputs");
    S->outs = calloc(S->nout ? S->nout : 1, sizeof *S->outs);
    S->sched = calloc(S->nout ? S->nout : 1, sizeof *S->sched);
    S->times = calloc(S->nout ? S->nout : 1, sizeof *S->times);
    if (!S->outs || !S->sched || !S->times) return refuse(r, TL_ERROR_MEMORY, "out of memory");
    char file[MAX_NAME + 1];
    for (size_t k = 0; k < S->nout; k++) {
        const tl_output_spec *spec = &r->scene->outputs[k];
        tl_output_saved *v = &S->outs[k];
        uint64_t kind = tl_rbuf_u64(b);
        if (!get_string(b, file, sizeof file) || kind != (uint64_t)spec->kind ||
            strcmp(file, spec->file) != 0)
            return mismatch(r, S, "outputs");
        for (size_t i = 0; i < 3; i++) S->sched[k][i] = get_i64(b);
        v->records = get_i64(b);
        v->length = tl_rbuf_u64(b);
        v->hash = tl_rbuf_u64(b);
        v->log_was_enabled = (tl_rbuf_u64(b) & 1u) != 0;
        v->nframes = (size_t)tl_rbuf_u64(b);
        S->times[k] = get_array(b, v->nframes, sizeof(double));
        v->times = S->times[k];
        if (b->failed) return refuse(r, TL_ERROR_ARGUMENT, "%s: truncated (outputs)", S->path);
        if (v->records < 0) return mismatch(r, S, "outputs");
    }
    return TL_OK;
}

/* The pieces the file names (after its header): each read whole from the file's folder, its
 * length and checksum verified. */
static tl_status read_pieces(tl_run_state *r, tl_run_saved *S) {
    free_pieces(S);
    tl_rbuf b = {S->data, S->size, HEADER_BYTES, false};
    uint64_t n = tl_rbuf_u64(&b);
    int64_t step = (int64_t)tl_rbuf_u64(&b);
    uint64_t tag = tl_rbuf_u64(&b);
    if (b.failed || n > MAX_PIECES || n * 16 > b.size - b.at || step < 0)
        return refuse(r, TL_ERROR_ARGUMENT, "%s: its table of pieces is out of range", S->path);
    S->body = b.at + (size_t)n * 16;
    if (n == 0) return TL_OK;
    S->pieces = calloc((size_t)n, sizeof *S->pieces);
    S->piece_size = calloc((size_t)n, sizeof *S->piece_size);
    if (!S->pieces || !S->piece_size) return refuse(r, TL_ERROR_MEMORY, "out of memory");
    S->npieces = (size_t)n;
    char dir[sizeof S->path];
    snprintf(dir, sizeof dir, "%s", S->path);
    char *slash = strrchr(dir, '/');
    if (slash) slash[1] = '\0';
    else snprintf(dir, sizeof dir, "./");
    for (size_t k = 0; k < S->npieces; k++) {
        uint64_t want = tl_rbuf_u64(&b), hash = tl_rbuf_u64(&b);
        char path[sizeof S->path + 80];
        int len = snprintf(path, sizeof path, "%scheckpoint-%lld.%016llx.piece%zu", dir, (long long)step,
                           (unsigned long long)tag, k);
        if (len < 0 || (size_t)len >= sizeof path) return refuse(r, TL_ERROR_ARGUMENT, "%s: a path too long", S->path);
        FILE *fp = fopen(path, "rb");
        if (!fp)
            return refuse(r, TL_ERROR_IO, "%s (piece %zu of the %zu of %s): %s", path, k, S->npieces, S->path,
                          strerror(errno));
        struct stat st;
        bool sized = fstat(fileno(fp), &st) == 0 && st.st_size >= 0 && (uint64_t)st.st_size == want;
        S->pieces[k] = sized ? malloc(want ? (size_t)want : 1) : NULL;
        bool got = S->pieces[k] && fread(S->pieces[k], 1, (size_t)want, fp) == (size_t)want;
        fclose(fp);
        if (!sized)
            return refuse(r, TL_ERROR_ARGUMENT, "%s: not the length %s names (%llu bytes): a piece cut short or of "
                          "another checkpoint", path, S->path, (unsigned long long)want);
        if (!got) return refuse(r, S->pieces[k] ? TL_ERROR_IO : TL_ERROR_MEMORY, "%s: cannot read it", path);
        S->piece_size[k] = (size_t)want;
        if (tl_fnv1a(S->pieces[k], S->piece_size[k], TL_FNV_START) != hash)
            return refuse(r, TL_ERROR_ARGUMENT, "%s: checksum mismatch (the piece is corrupted)", path);
    }
    return TL_OK;
}

/* the file read whole and its header, length and checksum verified, with its pieces */
static tl_status read_intact(tl_run_state *r, tl_run_saved *S) {
    free(S->data);
    S->data = NULL;
    S->size = 0;
    tl_status st = read_all(r, S);
    if (st == TL_OK) st = verify(r, S);
    return st == TL_OK ? read_pieces(r, S) : st;
}

/* The newest checkpoint of a directory is unreadable or corrupted (a disk
 * error, a copy cut short): the newest intact one written before it, with
 * a warning naming both; or the first refusal, with the number of older
 * ones that failed too. */
static tl_status fall_back(tl_run_state *r, tl_run_saved *S, tl_status first) {
    char why[sizeof r->scene->run_error], newest[sizeof S->path];
    snprintf(why, sizeof why, "%s", r->scene->run_error + strlen("cannot resume: "));
    snprintf(newest, sizeof newest, "%s", S->path);
    /* later ones than the newest belong to a run that was cut back */
    size_t n = 0;
    int64_t *steps = list_steps(S->dir, -1, S->named, &n);
    tl_status st = first;
    size_t tried = 0;
    for (size_t i = 0; i < n && st != TL_OK; i++, tried++) {
        char name[64];
        snprintf(name, sizeof name, "checkpoint-%lld.tlck", (long long)steps[i]);
        char *path = tl_path_join(S->dir, name);
        if (!path) {
            st = refuse(r, TL_ERROR_MEMORY, "out of memory");
            break;
        }
        snprintf(S->path, sizeof S->path, "%s", path);
        free(path);
        st = read_intact(r, S);
    }
    free(steps);
    if (st == TL_OK) {
        snprintf(r->resume_note, sizeof r->resume_note,
                 "the newest checkpoint was refused (%s); the run resumed from %s, the newest intact "
                 "one before it%s",
                 why, S->path, tried > 1 ? " (older ones were refused too)" : "");
        return TL_OK;
    }
    if (st == TL_ERROR_MEMORY) return st;
    snprintf(S->path, sizeof S->path, "%s", newest);
    return refuse(r, first, "%s; %s", why,
                  tried ? "no older checkpoint in the folder is intact either"
                        : "the folder holds no older checkpoint to fall back to");
}

tl_status tl_run_saved_read(tl_run_state *r, const char *where, tl_run_saved **out) {
    *out = NULL;
    tl_run_saved *S = calloc(1, sizeof *S);
    if (!S) return refuse(r, TL_ERROR_MEMORY, "out of memory");
    S->named = -1;
    tl_status st = locate(r, where, S);
    if (st == TL_OK) st = read_intact(r, S);
    if (st != TL_OK && st != TL_ERROR_MEMORY && S->dir[0] && S->named >= 0) st = fall_back(r, S, st);
    tl_rbuf b = {S->data, S->size, st == TL_OK ? S->body : HEADER_BYTES, false};
    if (st == TL_OK) st = parse_run(r, S, &b);
    if (st == TL_OK) st = parse_outputs(r, S, &b);
    if (st == TL_OK) {
        uint64_t n = tl_rbuf_u64(&b);
        if (b.failed || n > b.size - b.at) {
            st = refuse(r, TL_ERROR_ARGUMENT, "%s: truncated (world)", S->path);
        } else {
            S->world = b.data + b.at;
            S->world_size = (size_t)n;
            b.at += (size_t)n;
            if (tl_rbuf_u64(&b) != MAGIC || b.failed || b.at != b.size)
                st = refuse(r, TL_ERROR_ARGUMENT, "%s: no end mark where expected", S->path);
        }
    }
    /* the outputs' files: can each continue? (nothing is changed) */
    for (size_t k = 0; st == TL_OK && k < r->nout; k++) {
        tl_output *o = &r->out[k];
        if (o->ops->resume_check) st = o->ops->resume_check(o, &S->outs[k]);
    }
    if (st != TL_OK) {
        tl_run_saved_free(S);
        return st;
    }
    *out = S;
    return TL_OK;
}

tl_status tl_run_saved_apply(tl_run_state *r, tl_run_saved *S) {
    tl_scene *sc = r->scene;
    tl_status st = TL_OK;
    if (S->npieces) {
        /* the pieces joined in the frame: the state's bytes, whatever the rank count */
        void *joined = NULL;
        size_t size = 0;
        st = tl_world_prepare(r->world);
        if (st == TL_OK)
            st = tl_world_join_state(r->world, S->world, S->world_size, (const void *const *)S->pieces,
                                     S->piece_size, S->npieces, &joined, &size);
        free_pieces(S);
        if (st == TL_OK) st = tl_world_load_state(r->world, joined, size);
        free(joined);
    } else {
        st = tl_world_load_state(r->world, S->world, S->world_size);
    }
    if (st == TL_OK) st = tl_world_refresh_laws(r->world); /* materials the inflows brought */
    if (st != TL_OK) return refuse(r, st, "%s: %s", S->path, tl_world_error(r->world));
    r->dt = tl_world_dt(r->world);
    r->stage = (int)S->stage;
    r->stage_begin = S->stage_begin;
    r->stage_end = S->stage_end;
    r->resume_stage = true;
    r->done = S->done;
    r->total = S->total;
    r->step0 = S->step0;
    r->t0 = S->t0;
    r->particle_steps = r->particle_steps0 = S->particle_steps;
    r->energy0 = S->energy0;
    r->ctx.energy0 = S->ctx_energy0;
    r->ctx.energy_scale = S->energy_scale;
    r->inserted = (size_t)S->inserted;
    r->energy_inserted = S->energy_inserted;
    memcpy(r->runs, S->runs, S->nstages * sizeof *r->runs);
    if (S->ninflows) {
        memcpy(sc->inflow_states, S->inflows, S->ninflows * sizeof *sc->inflow_states);
        memcpy(r->inflow_next, S->inflow_next, S->ninflows * sizeof *r->inflow_next);
        memcpy(r->present, S->present, S->nmat);
        /* the walls' places are not kept: the inflows take them from the world (walls_now) */
    }
    if (r->ck.mode != TL_SCHEDULE_NONE) {
        r->ck.k = S->ck[0];
        r->ck.next = S->ck[1];
        r->ck.last = S->ck[2];
    }
    r->last_checkpoint_step = r->done; /* this state is in a checkpoint already */
    for (size_t k = 0; k < r->nout && k < S->nout; k++) {
        r->sched[k].k = S->sched[k][0];
        r->sched[k].next = S->sched[k][1];
        r->sched[k].last = S->sched[k][2];
        r->out[k].resume = &S->outs[k];
    }
    return TL_OK;
}
