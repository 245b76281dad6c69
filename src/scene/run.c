/*
 * Running a scene: the stages in order, the outputs at their intervals.
 *
 *   1. the world is prepared (time step, forces at t = 0); every output is
 *      opened (its files as .part) and every time series recorded once
 *   2. each stage runs up to llround(duration / dt) steps (at least 1), or
 *      its `steps`, or llround(max_duration / dt), whichever is fewest, and
 *      ends earlier when its until condition holds at a check (every
 *      check_every steps from its start); it runs in chunks that end where
 *      an output is due, where a check or an inflow round is due, where the
 *      stage ends, and often enough to report progress; after every chunk
 *      the inflows insert what is due, the collision log is written and
 *      cleared, and the outputs that are due record
 *
 * Inflows: particles are due at rate x (t - start) (or while the mass
 * inserted plus the next particle's stays within mass_rate x (t - start)),
 * up to count and until stop. A round at the step where the next one is
 * due (at least every_steps after the last one: a round rebuilds the
 * neighbor lists, so particles come in batches) places the due particles at random free places of the region (the
 * overlap grid of insert.c over the world's particles and the walls as
 * they are then); when one finds no place, the round ends and the rest
 * wait for the next round (1 / rate later). What is still due at the stop
 * (or at the end of the run) is the shortfall, reported in the summary.
 * The energy an inserted particle brings (kinetic + potential) enters the
 * balance: the energy CSV and the summary count it as supplied.
 *   3. at the end every time series is recorded once more (unless it just
 *      was), the outputs are committed (renamed into place), then the plots
 *      drawn
 *
 * When an output is due: `every` s of simulated time: at the first step
 * whose time since the start of the run is >= k every - 1e-9 dt; `every_steps`:
 * every that many steps; neither: 100 records spread evenly over the steps of
 * the whole run. Any failure aborts every output: nothing is left under a
 * final name and no .part remains.
 *
 * Checkpoints (scene key `checkpoint:`, run_checkpoint.c): chunks also end
 * where one is due (by the same rules as an output's `every` or
 * `every_steps`); it is written after the chunk's inflow round, collision
 * sync, records and stage check, unless the run is at its end; and once
 * more when the run is interrupted, before anything of the interrupted end
 * (the last inflow round, the last records) changes the world or the files.
 * What a chunk does depends only on the step it ends at, never on how the
 * run was cut into chunks, so a run resumed from a checkpoint
 * (tl_run_options.resume: the state restored, the outputs continuing their
 * files) ends exactly as one that was never stopped.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "energy_table.h"
#include "insert.h"
#include "outputs.h"
#include "run_checkpoint.h"
#include "scene_plan.h"
#include "world_query.h"

#define SPREAD_RECORDS 100
#define FOUR_THIRDS_PI 4.1887902047863905

tl_run_options tl_run_options_default(void) {
    tl_run_options o;
    memset(&o, 0, sizeof o);
    o.progress_interval = 0.5;
    o.write_outputs = true;
    return o;
}

const char *tl_scene_run_error(const tl_scene *scene) {
    return scene ? scene->run_error : "no scene";
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- when outputs are due ---- */

typedef tl_schedule schedule;
typedef tl_run_state run_state;
#define SCHEDULE_NONE TL_SCHEDULE_NONE
#define SCHEDULE_TIME TL_SCHEDULE_TIME
#define SCHEDULE_STEPS TL_SCHEDULE_STEPS
#define SCHEDULE_SPREAD TL_SCHEDULE_SPREAD

static void fail(run_state *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void fail(run_state *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->scene->run_error, sizeof r->scene->run_error, fmt, ap);
    va_end(ap);
}

/* Puts "<scene>:<line>: <kind> output '<file>': " before the message an
 * output left in run_error. */
static void prefix_output(run_state *r, const tl_output *o) {
    char msg[sizeof r->scene->run_error];
    memcpy(msg, r->scene->run_error, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    const char *kind = o->ops ? o->ops->name : "unknown";
    if (o->spec->line > 0 && r->scene->path)
        fail(r, "%s:%d: %s output '%s': %s", r->scene->path, o->spec->line, kind, o->spec->file,
             msg);
    else
        fail(r, "%s output '%s': %s", kind, o->spec->file, msg);
}

static double run_time(const run_state *r) { return tl_world_time(r->world) - r->t0; }

static int64_t step_of_time(const run_state *r, int64_t k, double every) {
    double x = ceil((double)k * every / r->dt - 1e-9);
    if (!(x < 4e18)) return INT64_MAX;
    return x < 0.0 ? 0 : (int64_t)x;
}

static int64_t step_of_spread(const run_state *r, int64_t k) {
    return (k * r->total + SPREAD_RECORDS / 2) / SPREAD_RECORDS;
}

static void schedule_init(run_state *r, schedule *s, const tl_output *o) {
    memset(s, 0, sizeof *s);
    s->last = -1;
    s->next = INT64_MAX;
    if (!o->ops->time_series) return;
    const tl_output_spec *spec = o->spec;
    if (spec->every > 0.0 && isfinite(spec->every)) {
        s->mode = SCHEDULE_TIME;
        s->every = spec->every;
    } else if (spec->every_steps > 0) {
        s->mode = SCHEDULE_STEPS;
        s->every_steps = spec->every_steps;
    } else {
        s->mode = SCHEDULE_SPREAD;
    }
    (void)r;
}

/* Whether a record is due now (its step came; for TIME, its time). */
static bool schedule_due(const run_state *r, const schedule *s) {
    if (s->mode == SCHEDULE_NONE || s->next > r->done) return false;
    if (s->mode == SCHEDULE_TIME)
        return run_time(r) >= (double)s->k * s->every - 1e-9 * r->dt;
    return true;
}

/* After a record at step r->done: the next one. */
static void schedule_advance(const run_state *r, schedule *s) {
    int64_t n = r->done;
    s->last = n;
    switch (s->mode) {
    case SCHEDULE_NONE: s->next = INT64_MAX; return;
    case SCHEDULE_TIME: {
        double t = run_time(r);
        while ((double)s->k * s->every - 1e-9 * r->dt <= t) s->k++;
        /* the step where k every falls by the count of steps; the summed time can
         * differ from n dt by rounding, so look one step earlier too */
        s->next = step_of_time(r, s->k, s->every);
        if (s->next < INT64_MAX) s->next--;
        break;
    }
    case SCHEDULE_STEPS:
        s->next = n / s->every_steps < INT64_MAX / s->every_steps - 1
                      ? (n / s->every_steps + 1) * s->every_steps
                      : INT64_MAX;
        break;
    case SCHEDULE_SPREAD:
        while (s->k <= SPREAD_RECORDS && step_of_spread(r, s->k) <= n) s->k++;
        s->next = s->k <= SPREAD_RECORDS ? step_of_spread(r, s->k) : INT64_MAX;
        break;
    }
    if (s->next <= n) s->next = n + 1;
}

/* ---- outputs ---- */

/* nothing is written of a state that ran away: records and checkpoints are
 * made only of states that pass the blow-up check */
static tl_status sound(run_state *r) {
    tl_status st = tl_world_check_blowup(r->world); /* free when the step checked this state */
    if (st != TL_OK) fail(r, "%s", tl_world_error(r->world));
    return st;
}

static tl_status record(run_state *r, size_t k) {
    tl_output *o = &r->out[k];
    tl_status st = sound(r);
    if (st != TL_OK) return st;
    /* several ranks: rank 0 writes the record from the gathered view (collective), or every
     * rank writes its part of a distributed output */
    const bool own_part = r->dist && o->ops->distributed;
    if (r->dist && !own_part) st = tl_world_view(r->world, TL_VIEW_RECORD);
    if (st == TL_OK && (r->writer || own_part)) {
        st = o->ops->record(o);
        if (st != TL_OK) prefix_output(r, o);
    }
    if (r->dist) {
        if (!own_part) tl_world_view(r->world, TL_VIEW_OFF);
        st = tl_world_agree_message(r->world, st, r->scene->run_error, sizeof r->scene->run_error);
    }
    if (st != TL_OK) return st;
    schedule_advance(r, &r->sched[k]);
    return TL_OK;
}

/* Records every output that is due (all time series when `all`, unless
 * already recorded at this step). */
static tl_status record_due(run_state *r, bool all) {
    for (size_t k = 0; k < r->nout; k++) {
        schedule *s = &r->sched[k];
        if (s->mode == SCHEDULE_NONE) continue;
        bool due = all ? s->last != r->done : schedule_due(r, s);
        if (due) {
            tl_status st = record(r, k);
            if (st != TL_OK) return st;
        } else if (!all && s->next <= r->done) {
            s->next = r->done + 1; /* the time has not quite come: look again next step */
        }
    }
    return TL_OK;
}

/* the collision log to its output (on ranks: every rank's log merged on rank 0, collective) */
static tl_status sync_outputs(run_state *r) {
    if (!r->logging) return TL_OK;
    tl_status st = r->dist ? tl_world_collect_collisions(r->world) : TL_OK;
    if (st != TL_OK) fail(r, "%s", tl_world_error(r->world));
    for (size_t k = 0; st == TL_OK && r->writer && k < r->nout; k++) {
        tl_output *o = &r->out[k];
        if (!o->ops->sync) continue;
        st = o->ops->sync(o);
        if (st != TL_OK) prefix_output(r, o);
    }
    if (r->dist) st = tl_world_agree_message(r->world, st, r->scene->run_error, sizeof r->scene->run_error);
    if (st != TL_OK) return st;
    tl_world_clear_collisions(r->world);
    return TL_OK;
}

/* on several ranks every rank removes its parts of the distributed outputs before rank 0
 * removes the rest (and the folders, once empty) */
static void abort_outputs(run_state *r) {
    for (size_t k = 0; !r->writer && k < r->opened; k++)
        if (r->out[k].ops->distributed) r->out[k].ops->abort(&r->out[k]);
    if (r->dist) (void)tl_world_agree(r->world, TL_OK);
    for (size_t k = 0; r->writer && k < r->opened; k++) r->out[k].ops->abort(&r->out[k]);
    r->opened = 0;
}

static void free_run(run_state *r) {
    if (r->out)
        for (size_t k = 0; k < r->nout; k++) free(r->out[k].path);
    free(r->out);
    free(r->sched);
    free(r->stage_steps);
    free(r->stage_cap);
    free(r->mu0);
    free(r->runs);
    free(r->inflow_next);
    free(r->present);
    free(r->walls);
    free(r->ck_dir);
    for (size_t k = 0; k < r->nmade; k++) free(r->made[k]);
    free(r->made);
}

/* The output directory, each output's kind, full path and schedule, and the
 * checkpoints' directory and schedule: no file is touched yet. */
static tl_status name_outputs(run_state *r) {
    const tl_scene *sc = r->scene;
    const char *dir = r->opt.output_dir;
    if (!dir || !dir[0]) {
        snprintf(r->dir_buf, sizeof r->dir_buf, "out/%s",
                 sc->slug && sc->slug[0] ? sc->slug : "scene");
        dir = r->dir_buf;
    } else {
        snprintf(r->dir_buf, sizeof r->dir_buf, "%s", dir);
    }
    if (strlen(dir) >= sizeof r->dir_buf) {
        fail(r, "output directory name too long: %s", dir);
        return TL_ERROR_ARGUMENT;
    }
    r->ctx.dir = r->dir_buf;
    for (size_t k = 0; k < r->nout; k++) {
        tl_output *o = &r->out[k];
        o->ops = tl_output_ops_of(o->spec->kind);
        if (!o->ops) {
            fail(r, "output %zu ('%s'): unknown kind %d", k, o->spec->file ? o->spec->file : "",
                 (int)o->spec->kind);
            return TL_ERROR_ARGUMENT;
        }
        if (!o->spec->file || !o->spec->file[0]) {
            fail(r, "%s output %zu has no file name", o->ops->name, k);
            return TL_ERROR_ARGUMENT;
        }
        o->path = tl_path_join(r->dir_buf, o->spec->file);
        if (!o->path) {
            fail(r, "out of memory");
            return TL_ERROR_MEMORY;
        }
        for (size_t j = 0; j < k; j++)
            if (strcmp(r->out[j].spec->file, o->spec->file) == 0) {
                fail(r, "outputs %zu and %zu both write '%s'", j, k, o->spec->file);
                return TL_ERROR_ARGUMENT;
            }
        schedule_init(r, &r->sched[k], o);
    }
    const tl_checkpoint_spec *ck = &sc->checkpoint;
    if (ck->on) {
        r->ck_dir = tl_path_join(r->dir_buf, ck->dir ? ck->dir : "checkpoint");
        if (!r->ck_dir) {
            fail(r, "out of memory");
            return TL_ERROR_MEMORY;
        }
        memset(&r->ck, 0, sizeof r->ck);
        r->ck.last = -1;
        if (ck->every > 0.0) {
            r->ck.mode = SCHEDULE_TIME;
            r->ck.every = ck->every;
        } else {
            r->ck.mode = SCHEDULE_STEPS;
            r->ck.every_steps = ck->every_steps > 0 ? ck->every_steps : 1;
        }
        schedule_advance(r, &r->ck); /* the first one after the start, none at t = 0 */
        r->ck.last = -1;
    }
    return TL_OK;
}

/* Notes where the new part of the tree at path starts (nothing when path exists). */
static tl_status note_new(run_state *r, const char *path) {
    struct stat st;
    if (stat(path, &st) == 0) return TL_OK;
    char **m = realloc(r->made, (r->nmade + 1) * sizeof *m);
    if (!m) {
        fail(r, "out of memory");
        return TL_ERROR_MEMORY;
    }
    r->made = m;
    r->made[r->nmade] = tl_first_missing_dir(path);
    if (!r->made[r->nmade]) {
        fail(r, "out of memory");
        return TL_ERROR_MEMORY;
    }
    r->nmade++;
    return TL_OK;
}

/* A failed run leaves no directory it made, when nothing is left in it. */
static void undo_dirs(run_state *r) {
    for (size_t k = r->nmade; k-- > 0;) tl_rmdir_empty(r->made[k]);
}

/* Creates the output directory and the checkpoints' (so that an unwritable
 * place is found before the first step, not at the first checkpoint) and
 * opens every output (a resumed run: continuing its files). */
static tl_status open_outputs(run_state *r) {
    tl_status st = note_new(r, r->dir_buf);
    if (st == TL_OK) st = tl_mkdir_p(r->dir_buf, r->ctx.err, r->ctx.errsize);
    if (st != TL_OK) return st;
    if (r->ck_dir) {
        st = note_new(r, r->ck_dir);
        if (st == TL_OK) st = tl_run_checkpoint_prepare(r);
        if (st != TL_OK) return st;
    }
    for (size_t k = 0; k < r->nout; k++) {
        tl_output *o = &r->out[k];
        st = note_new(r, o->path);
        if (st != TL_OK) return st;
        r->opened = k + 1;
        st = o->ops->open(o);
        if (st != TL_OK) {
            prefix_output(r, o);
            return st;
        }
        if (o->spec->kind == TL_OUTPUT_COLLISIONS) r->logging = true;
    }
    return TL_OK;
}

/* Another rank than 0: opens the distributed outputs, to write its parts. */
static tl_status open_parts(run_state *r) {
    for (size_t k = 0; k < r->nout; k++) {
        tl_output *o = &r->out[k];
        r->opened = k + 1;
        if (o->spec->kind == TL_OUTPUT_COLLISIONS) { /* every rank logs its own contacts */
            tl_world_clear_collisions(r->world);
            tl_world_log_collisions(r->world, true);
            r->logging = true;
        }
        if (!o->ops->distributed) continue;
        tl_status st = o->ops->open(o);
        if (st != TL_OK) {
            prefix_output(r, o);
            return st;
        }
    }
    return TL_OK;
}

static tl_status commit_outputs(run_state *r) {
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < r->nout; k++) {
            tl_output *o = &r->out[k];
            if (o->ops->after_commit != (pass == 1)) continue;
            tl_status st = o->ops->commit(o);
            if (st != TL_OK) {
                prefix_output(r, o);
                return st;
            }
        }
    }
    return TL_OK;
}

/* ---- progress ---- */

static void report_progress(run_state *r, double now) {
    if (!r->opt.progress) return;
    tl_progress p;
    memset(&p, 0, sizeof p);
    p.step = r->done;
    p.steps_total = r->total;
    p.time = run_time(r);
    p.time_total = (double)r->total * r->dt;
    p.wall_seconds = now - r->wall0;
    double span = now - r->progress_wall;
    int64_t steps = r->done - r->progress_step;
    if (span > 0.0 && steps > 0) p.steps_per_second = (double)steps / span;
    else if (p.wall_seconds > 0.0) p.steps_per_second = (double)r->done / p.wall_seconds;
    p.eta_seconds = p.steps_per_second > 0.0
                        ? (double)(r->total - r->done) / p.steps_per_second
                        : (r->done >= r->total ? 0.0 : -1.0);
    p.stage = r->stage;
    p.stage_name = r->stage >= 0 && (size_t)r->stage < r->scene->nstages
                       ? r->scene->stages[r->stage].name
                       : NULL;
    p.contacts = tl_world_contact_count(r->world);
    r->opt.progress(&p, r->opt.progress_user);
    r->progress_wall = now;
    r->progress_step = r->done;
}

/* ---- the run ---- */

/* llround(t / dt), at least 1; -1 when it is not a usable number of steps */
static int64_t steps_of(double t, double dt) {
    double n = t / dt;
    if (!(n >= 0.0) || !(n < 1e15)) return -1;
    int64_t k = (int64_t)llround(n);
    return k < 1 ? 1 : k;
}

static tl_status plan_stages(run_state *r) {
    const tl_scene *sc = r->scene;
    size_t ns = sc->nstages ? sc->nstages : 1;
    r->stage_steps = calloc(ns, sizeof *r->stage_steps);
    r->stage_cap = calloc(ns, sizeof *r->stage_cap);
    r->runs = calloc(ns, sizeof *r->runs);
    if (!r->stage_steps || !r->stage_cap || !r->runs) {
        fail(r, "out of memory");
        return TL_ERROR_MEMORY;
    }
    r->total = 0;
    for (size_t s = 0; s < sc->nstages; s++) {
        const tl_stage_spec *st = &sc->stages[s];
        const tl_stage_limits *lim = sc->stage_limits ? &sc->stage_limits[s] : NULL;
        int64_t cap = INT64_MAX;
        tl_stage_end why = TL_STAGE_BY_DURATION;
        const char *bad = NULL;
        double bad_t = 0.0;
        if (st->duration > 0.0 || !lim) {
            cap = steps_of(st->duration, r->dt);
            if (cap < 0) bad = "duration", bad_t = st->duration;
        }
        if (lim && lim->steps > 0 && lim->steps < cap) {
            cap = lim->steps;
            why = TL_STAGE_BY_STEPS;
        }
        if (lim && lim->max_duration > 0.0) {
            int64_t m = steps_of(lim->max_duration, r->dt);
            if (m < 0) bad = "max_duration", bad_t = lim->max_duration;
            else if (m < cap) {
                cap = m;
                why = TL_STAGE_BY_MAX_DURATION;
            }
        }
        if (bad || cap == INT64_MAX || r->total > INT64_MAX / 4 - cap) {
            fail(r, "stage '%s': %s %g s is not a usable number of steps of %g s", st->name ? st->name : "",
                 bad ? bad : "duration", bad_t, r->dt);
            return TL_ERROR_ARGUMENT;
        }
        r->stage_steps[s] = cap;
        r->stage_cap[s] = why;
        r->total += cap;
        r->runs[s] = (tl_stage_run){TL_STAGE_NOT_RUN, 0, 0.0, 0.0, NAN};
    }
    return TL_OK;
}

/* kinetic energy (translational + rotational) of the particles that move
 * freely: the until condition's measure, independent of the energy ledger */
/* the free particles' kinetic energy (a reproducible sum: the same on any number of ranks;
 * collective) */
static double kinetic_energy(const tl_world *w) {
    tl_energy e;
    tl_world_energy(w, &e);
    return e.kinetic_translational + e.kinetic_rotational;
}

/* ---- inflows ---- */

static double inflow_mass(const tl_inflow_spec *f, double r) {
    return f->density * FOUR_THIRDS_PI * r * r * r;
}

static void draw_next(const tl_inflow_spec *f, tl_inflow_state *s) {
    if (s->next_radius > 0.0) return;
    double scale = f->size_scale > 0.0 ? f->size_scale : 1.0;
    s->next_radius = scale * tl_dist_sample(&f->size, &s->size_rng);
}

/* particles due by world time t (the rate), or whether the next one is (the mass rate) */
static int64_t inflow_due(const tl_inflow_spec *f, const tl_inflow_state *s, double t) {
    double span = fmin(t, f->stop) - f->start;
    if (!(span > 0.0)) return 0;
    int64_t due;
    if (f->rate > 0.0) {
        double n = floor(f->rate * span + 1e-9);
        due = n < 4e18 ? (int64_t)n : INT64_MAX / 2;
    } else {
        double m = f->mass_rate * span * (1.0 + 1e-12);
        due = s->inserted + (s->mass_inserted + inflow_mass(f, s->next_radius) <= m ? 1 : 0);
    }
    return f->count > 0 && due > f->count ? f->count : due;
}

/* particles due that found no place (for a mass rate: the missing mass over
 * the mean particle mass) */
static int64_t inflow_missing(const tl_inflow_spec *f, const tl_inflow_state *s, double t) {
    if (f->rate > 0.0) {
        int64_t due = inflow_due(f, s, t);
        return due > s->inserted ? due - s->inserted : 0;
    }
    double span = fmin(t, f->stop) - f->start;
    double scale = f->size_scale > 0.0 ? f->size_scale : 1.0;
    double mean = f->density * FOUR_THIRDS_PI * scale * scale * scale * tl_dist_moment(&f->size, 3);
    double missing = span > 0.0 ? f->mass_rate * span - s->mass_inserted : 0.0;
    if (f->count > 0 && s->inserted >= f->count) missing = 0.0;
    return missing > 0.0 && mean > 0.0 ? (int64_t)floor(missing / mean + 1e-9) : 0;
}

/* the world time of the next round */
static double inflow_next_time(const tl_inflow_spec *f, tl_inflow_state *s, bool full, double now,
                               double dt) {
    if (s->finished) return INFINITY;
    double next;
    if (full) { /* retry when the next particle would be due */
        double scale = f->size_scale > 0.0 ? f->size_scale : 1.0;
        double mean = inflow_mass(f, scale) * tl_dist_moment(&f->size, 3);
        next = now + fmax(dt, f->rate > 0.0 ? 1.0 / f->rate : mean / f->mass_rate);
    } else if (f->rate > 0.0) {
        next = f->start + ((double)(s->inserted + 1) - 1e-9) / f->rate;
    } else {
        draw_next(f, s);
        next = f->start + (s->mass_inserted + inflow_mass(f, s->next_radius)) / f->mass_rate;
    }
    next = fmax(fmin(next, f->stop), f->start);
    if (isfinite(s->last_round) && f->every_steps > 1) /* batch: rounds rebuild the neighbor lists */
        next = fmax(next, s->last_round + ((double)f->every_steps - 0.5) * dt);
    return next;
}

/* the scene's walls where the world's walls are now */
static void walls_now(run_state *r) {
    const tl_scene *sc = r->scene;
    for (size_t i = 0; i < sc->nwalls; i++) {
        tl_wall_def w = sc->walls[i];
        tl_wall_state st;
        if (tl_world_get_wall(r->world, (int)i, &st) == TL_OK) {
            const tl_vec3 d = st.displacement;
            w.point = (tl_vec3){w.point.x + d.x, w.point.y + d.y, w.point.z + d.z};
            w.box_min = (tl_vec3){w.box_min.x + d.x, w.box_min.y + d.y, w.box_min.z + d.z};
            w.box_max = (tl_vec3){w.box_max.x + d.x, w.box_max.y + d.y, w.box_max.z + d.z};
        }
        r->walls[i] = w;
    }
}

static tl_status inflow_add(run_state *r, size_t i, const tl_vec3 *c) {
    const tl_inflow_spec *f = &r->scene->inflows[i];
    tl_inflow_state *s = &r->scene->inflow_states[i];
    tl_particle_def pd = tl_particle_default();
    pd.material = f->material;
    pd.radius = s->next_radius;
    pd.position = *c;
    pd.velocity = f->velocity;
    double j = f->velocity_jitter;
    if (j > 0.0) {
        pd.velocity.x += tl_rng_range(&s->place_rng, -j, j);
        pd.velocity.y += tl_rng_range(&s->place_rng, -j, j);
        pd.velocity.z += tl_rng_range(&s->place_rng, -j, j);
    }
    pd.mass = inflow_mass(f, pd.radius);
    if (tl_world_add_particle(r->world, &pd, NULL) != TL_OK) {
        fail(r, "%s:%d: inflow particles[%d]: %s", r->scene->path, f->line, f->index,
             tl_world_error(r->world));
        return TL_ERROR_ARGUMENT;
    }
    const tl_vec3 v = pd.velocity, g = r->scene->def.gravity;
    double e = 0.5 * pd.mass * (v.x * v.x + v.y * v.y + v.z * v.z) -
               pd.mass * (g.x * c->x + g.y * c->y + g.z * c->z);
    s->inserted++;
    s->mass_inserted += pd.mass;
    s->energy_inserted += e;
    s->next_radius = 0.0;
    r->inserted++;
    r->energy_inserted += e;
    r->ctx.energy0.total += e; /* the energy CSV's balance counts it as supplied */
    if (f->material >= 0 && !r->present[f->material]) {
        r->present[f->material] = 1;
        tl_status st = tl_world_refresh_laws(r->world);
        if (st != TL_OK) {
            fail(r, "%s:%d: inflow particles[%d]: %s", r->scene->path, f->line, f->index,
                 tl_world_error(r->world));
            return st;
        }
    }
    return TL_OK;
}

/* one round of inflow i at the present time */
static tl_status inflow_round(run_state *r, size_t i) {
    const tl_scene *sc = r->scene;
    const tl_inflow_spec *f = &sc->inflows[i];
    tl_inflow_state *s = &sc->inflow_states[i];
    double t = tl_world_time(r->world);
    tl_inserter *g = NULL;
    bool full = false;
    /* several ranks: each places the same particles among all of them (rank P-1 keeps them) */
    tl_status st = r->dist ? tl_world_view(r->world, TL_VIEW_ALL) : TL_OK;
    if (st != TL_OK) {
        fail(r, "%s", tl_world_error(r->world));
        return st;
    }
    for (;;) {
        if (f->count > 0 && s->inserted >= f->count) {
            s->finished = true;
            break;
        }
        draw_next(f, s);
        if (inflow_due(f, s, t) <= s->inserted) break;
        if (!g) {
            tl_insert_space sp;
            memset(&sp, 0, sizeof sp);
            sp.min = f->min;
            sp.max = f->max;
            for (int k = 0; k < 3; k++) sp.periodic[k] = sc->def.has_domain && sc->def.periodic[k];
            sp.period_min = sc->def.domain_min;
            sp.period_max = sc->def.domain_max;
            walls_now(r);
            sp.walls = r->walls;
            sp.nwalls = sc->nwalls;
            double scale = f->size_scale > 0.0 ? f->size_scale : 1.0;
            g = tl_inserter_create(&sp, scale * tl_dist_upper(&f->size), r->world);
            if (!g) {
                fail(r, "out of memory (inflow)");
                return TL_ERROR_MEMORY;
            }
        }
        tl_vec3 c;
        int placed = tl_inserter_place(g, &s->place_rng, s->next_radius, f->max_attempts, &c);
        if (placed < 0) {
            fail(r, "out of memory (inflow)");
            st = TL_ERROR_MEMORY;
            break;
        }
        if (placed == 0) {
            full = true;
            break;
        }
        st = inflow_add(r, i, &c);
        if (st != TL_OK) break;
    }
    tl_inserter_destroy(g);
    if (r->dist) tl_world_view(r->world, TL_VIEW_OFF);
    if (st != TL_OK) return st;
    s->rounds++;
    if (full) s->failed_rounds++;
    s->last_round = t;
    if (t >= f->stop * (1.0 - 1e-15) - 1e-9 * r->dt) s->finished = true;
    if (s->finished) s->shortfall = inflow_missing(f, s, f->stop);
    r->inflow_next[i] = inflow_next_time(f, s, full, t, r->dt);
    return TL_OK;
}

/* the rounds that are due (all: every inflow inserts what is due, at the end of the run) */
static tl_status run_inflows(run_state *r, bool all) {
    double now = tl_world_time(r->world);
    for (size_t i = 0; i < r->scene->ninflows; i++) {
        if (r->scene->inflow_states[i].finished) continue;
        if (!all && r->inflow_next[i] > now + 1e-9 * r->dt) continue;
        if (all && r->scene->inflow_states[i].last_round == now) continue;
        tl_status st = inflow_round(r, i);
        if (st != TL_OK) return st;
    }
    return TL_OK;
}

/* The inflows' arrays, which materials the world has, and when each inflow
 * is next due (a resumed run then takes the saved ones). */
static tl_status init_inflows(run_state *r) {
    const tl_scene *sc = r->scene;
    if (!sc->ninflows) return TL_OK;
    int nm = tl_world_material_count(r->world);
    r->inflow_next = calloc(sc->ninflows, sizeof *r->inflow_next);
    r->present = calloc(nm > 0 ? (size_t)nm : 1, 1);
    r->walls = calloc(sc->nwalls ? sc->nwalls : 1, sizeof *r->walls);
    if (!r->inflow_next || !r->present || !r->walls) {
        fail(r, "out of memory");
        return TL_ERROR_MEMORY;
    }
    size_t n = tl_world_particle_count(r->world);
    for (size_t i = 0; i < n; i++) {
        tl_particle_state p;
        if (tl_world_particle_at(r->world, i, &p) == TL_OK && p.material >= 0 && p.material < nm)
            r->present[p.material] = 1;
    }
    double now = tl_world_time(r->world);
    for (size_t i = 0; i < sc->ninflows; i++)
        r->inflow_next[i] = inflow_next_time(&sc->inflows[i], &sc->inflow_states[i], false, now, r->dt);
    walls_now(r);
    return TL_OK;
}

/* the run step at which world time t comes (INT64_MAX: never) */
static int64_t step_at_time(const run_state *r, double t) {
    if (!isfinite(t)) return INT64_MAX;
    double x = ceil((t - r->t0) / r->dt - 1e-9);
    if (!(x < 4e18)) return INT64_MAX;
    return x < 0.0 ? 0 : (int64_t)x;
}

static void summarize_inflows(run_state *r, tl_run_summary *sum) {
    const tl_scene *sc = r->scene;
    double now = tl_world_time(r->world);
    size_t used = 0;
    for (size_t i = 0; i < sc->ninflows; i++) {
        const tl_inflow_spec *f = &sc->inflows[i];
        tl_inflow_state *s = &sc->inflow_states[i];
        if (!s->finished) s->shortfall = inflow_missing(f, s, now); /* so far */
        int64_t missing = s->shortfall;
        if (missing <= 0) continue;
        sum->inflow_shortfall += (size_t)missing;
        int k = snprintf(sum->warnings + used, sizeof sum->warnings - used,
                         "%sinflow particles[%d] (%s:%d): %lld particles due by t = %.6g s found no "
                         "free place in its region (full in %lld of %lld rounds) and were not "
                         "inserted",
                         used ? "\n" : "", f->index, sc->path, f->line, (long long)missing,
                         fmin(now, f->stop), (long long)s->failed_rounds, (long long)s->rounds);
        if (k > 0 && (size_t)k < sizeof sum->warnings - used) used += (size_t)k;
    }
}

/* A resume that fell back from a corrupted newest checkpoint to an older one. */
static void summarize_resume(const run_state *r, tl_run_summary *sum) {
    if (!r->resume_note[0]) return;
    size_t used = strlen(sum->warnings);
    snprintf(sum->warnings + used, sizeof sum->warnings - used, "%s%s", used ? "\n" : "",
             r->resume_note);
}

/* A servo that flipped between its speed clamps from one step to the next. */
static void summarize_servos(run_state *r, tl_run_summary *sum) {
    size_t used = strlen(sum->warnings);
    for (int i = 0; i < tl_world_wall_count(r->world); i++) {
        tl_wall_state w;
        if (tl_world_get_wall(r->world, i, &w) != TL_OK || w.servo_chatter == 0) continue;
        int k = snprintf(sum->warnings + used, sizeof sum->warnings - used,
                         "%swall '%s': its servo went from +max_speed to -max_speed (or back) in one "
                         "step %lld times: the gain is too high for the contacts' damping and the "
                         "target force was not held; lower servo.gain (docs/scene.md, \"Choosing the "
                         "gain\")",
                         used ? "\n" : "", w.name, (long long)w.servo_chatter);
        if (k > 0 && (size_t)k < sizeof sum->warnings - used) used += (size_t)k;
    }
}

/* A checkpoint, when one is due now; none at the end of the run (and none
 * twice at one step). */
static tl_status checkpoint_due(run_state *r) {
    schedule *s = &r->ck;
    if (s->mode == SCHEDULE_NONE || s->next > r->done) return TL_OK;
    if (!schedule_due(r, s)) {
        s->next = r->done + 1; /* the time has not quite come: look again next step */
        return TL_OK;
    }
    schedule_advance(r, s);
    if (r->done >= r->total) return TL_OK;
    tl_status st = sound(r);
    if (st != TL_OK) return st;
    return tl_run_checkpoint_write(r);
}

/* An interrupted run leaves a checkpoint of where it stopped (unless one
 * was just written), so that it can be resumed. */
static tl_status checkpoint_interrupted(run_state *r) {
    if (r->ck.mode == SCHEDULE_NONE || r->last_checkpoint_step == r->done) return TL_OK;
    return tl_run_checkpoint_write(r);
}

/* ---- stage actions (`set:` of a stage) ---- */

/* Each law's own friction coefficient, as the scene gave it (before any
 * stage changed it): what `friction: restore` gives back. */
static tl_status take_friction(run_state *r) {
    int n = tl_world_material_count(r->world);
    r->nmat = n;
    r->mu0 = malloc((size_t)(n > 0 ? n : 1) * (size_t)(n > 0 ? n : 1) * sizeof *r->mu0);
    if (!r->mu0) {
        fail(r, "out of memory");
        return TL_ERROR_MEMORY;
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            double mu = NAN;
            tl_law_def d;
            if (tl_world_get_law(r->world, a, b, &d) == TL_OK)
                for (int k = 0; k < d.coeff_count; k++)
                    if (strcmp(d.coeffs[k].name, "mu") == 0) mu = d.coeffs[k].value;
            r->mu0[(size_t)a * (size_t)n + (size_t)b] = mu;
        }
    return TL_OK;
}

/* mu of every law that has one: the value, or (NAN) the law's own */
static tl_status set_friction(run_state *r, double mu) {
    int n = r->nmat;
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++) {
            double own = r->mu0[(size_t)a * (size_t)n + (size_t)b];
            if (isnan(own)) continue;
            tl_law_def d;
            if (tl_world_get_law(r->world, a, b, &d) != TL_OK) continue;
            tl_status st = tl_law_set(&d, "mu", isnan(mu) ? own : mu);
            if (st == TL_OK) st = tl_world_set_law(r->world, a, b, &d);
            if (st != TL_OK) {
                fail(r, "friction: %s", tl_world_error(r->world));
                return st;
            }
        }
    return TL_OK;
}

/* What stage s changes when it begins: friction, wall velocities, servos. */
static tl_status apply_stage_actions(run_state *r, size_t s) {
    const tl_scene *sc = r->scene;
    if (!sc->stage_actions) return TL_OK;
    const tl_stage_action *a = &sc->stage_actions[s];
    tl_status st = TL_OK;
    if (a->set_friction) st = set_friction(r, a->friction);
    for (size_t k = 0; st == TL_OK && k < a->nwalls; k++) {
        const tl_wall_action *w = &a->walls[k];
        if (w->set_motion) {
            tl_vec3 v = w->set_velocity ? w->velocity : (tl_vec3){0.0, 0.0, 0.0};
            st = tl_world_set_wall_motion(r->world, w->wall, v, &w->motion);
        } else if (w->set_velocity) {
            st = tl_world_set_wall_velocity(r->world, w->wall, w->velocity);
        }
        if (st == TL_OK && w->set_servo) st = tl_world_set_wall_servo(r->world, w->wall, &w->servo);
        if (st != TL_OK) fail(r, "stage '%s': %s", sc->stages[s].name, tl_world_error(r->world));
    }
    return st;
}

/* A resumed run: the world's state (wall motion and servos included) comes
 * from the checkpoint, the laws' coefficients from the scene; the friction
 * the stages begun so far set is set again. */
static tl_status resume_friction(run_state *r) {
    const tl_scene *sc = r->scene;
    if (!sc->stage_actions || r->stage < 0) return TL_OK;
    for (size_t s = (size_t)r->stage + 1; s-- > 0;)
        if (s < sc->nstages && sc->stage_actions[s].set_friction)
            return set_friction(r, sc->stage_actions[s].friction);
    return TL_OK;
}

/* the until condition on a wall's displacement */
static bool wall_reached(const run_state *r, const tl_stage_limits *lim) {
    tl_wall_state w;
    if (tl_world_get_wall(r->world, lim->until_wall_index, &w) != TL_OK) return false;
    double d = lim->until_wall_axis == 0   ? w.displacement.x
               : lim->until_wall_axis == 1 ? w.displacement.y
                                           : w.displacement.z;
    return lim->until_wall_reaches > 0.0 ? d >= lim->until_wall_reaches
                                         : d <= lim->until_wall_reaches;
}

static tl_status run_stages(run_state *r) {
    const tl_scene *sc = r->scene;
    double target_wall = r->opt.progress && r->opt.progress_interval > 0.0
                             ? fmin(0.25, 0.25 * r->opt.progress_interval)
                             : 0.25;
    int64_t cap = 1;
    /* the step callback's steps: every step_every from where the run starts */
    const int64_t every = r->opt.on_steps ? r->opt.step_every : 0, cb_base = r->done;
    for (size_t s = r->stage >= 0 ? (size_t)r->stage : 0; s < sc->nstages; s++) {
        r->stage = (int)s;
        const tl_stage_limits *lim = sc->stage_limits ? &sc->stage_limits[s] : NULL;
        int64_t check = lim && (lim->until_kinetic || lim->until_wall) ? lim->check_every : 0;
        tl_stage_run *run = &r->runs[s];
        if (r->resume_stage) { /* a resumed run goes on with the stage it stopped in */
            r->resume_stage = false;
        } else {
            r->stage_begin = r->done;
            r->stage_end = r->done + r->stage_steps[s];
            run->t_begin = tl_world_time(r->world);
            run->ended_by = r->stage_cap[s];
            tl_status st = apply_stage_actions(r, s);
            if (st != TL_OK) return st;
        }
        const int64_t begin = r->stage_begin;
        while (r->done < r->stage_end) {
            int64_t end = r->stage_end;
            int64_t target = end;
            if (target - r->done > cap) target = r->done + cap;
            for (size_t k = 0; k < r->nout; k++)
                if (r->sched[k].next < target) target = r->sched[k].next;
            if (r->ck.mode != SCHEDULE_NONE && r->ck.next < target) target = r->ck.next;
            if (check > 0) {
                int64_t c = begin + ((r->done - begin) / check + 1) * check;
                if (c < target) target = c;
            }
            if (every > 0) {
                int64_t c = cb_base + ((r->done - cb_base) / every + 1) * every;
                if (c < target) target = c;
            }
            for (size_t k = 0; k < sc->ninflows; k++) {
                /* one step early too: the summed time may reach it a step before n dt
                 * does, and a round must come at the same step however the run is
                 * cut into chunks */
                int64_t n = step_at_time(r, r->inflow_next[k]);
                if (n < INT64_MAX && n > 0) n--;
                if (n < target) target = n;
            }
            if (target <= r->done) target = r->done + 1;
            double w0 = wall_now();
            const int64_t count0 = tl_world_step_count(r->world);
            tl_status st = tl_world_step(r->world, target - r->done);
            if (st != TL_OK) {
                /* the stage's record says how far it got: the steps taken before the failing one */
                int64_t taken = tl_world_step_count(r->world) - count0;
                if (taken > 0) {
                    r->particle_steps += (double)tl_world_particle_total(r->world) * (double)taken;
                    r->done += taken;
                }
                run->steps = r->done - begin;
                run->t_end = tl_world_time(r->world);
                run->ended_by = TL_STAGE_FAILED;
                fail(r, "stage '%s', t = %.9g s (step %lld): %s",
                     sc->stages[s].name ? sc->stages[s].name : "", tl_world_time(r->world),
                     (long long)tl_world_step_count(r->world), tl_world_error(r->world));
                return st;
            }
            int64_t steps = target - r->done;
            r->particle_steps += (double)tl_world_particle_total(r->world) * (double)steps;
            r->done = target;
            run->steps = r->done - begin;
            run->t_end = tl_world_time(r->world);
            st = run_inflows(r, false);
            if (st == TL_OK) st = sync_outputs(r);
            if (st == TL_OK) st = record_due(r, false);
            if (st != TL_OK) return st;
            if (check > 0 && ((r->done - begin) % check == 0 || r->done == end)) {
                bool met;
                if (lim->until_wall) {
                    met = wall_reached(r, lim);
                } else {
                    run->kinetic_energy = kinetic_energy(r->world);
                    met = run->kinetic_energy < lim->kinetic_below;
                }
                if (met) {
                    run->ended_by = lim->until_wall ? TL_STAGE_BY_WALL_DISPLACEMENT
                                                    : TL_STAGE_BY_KINETIC_ENERGY;
                    r->total -= end - r->done; /* the steps it will not run */
                    r->stage_end = r->done;
                }
            }
            st = checkpoint_due(r);
            if (st != TL_OK) return st;
            double now = wall_now();
            /* chunks of about target_wall seconds, so that progress comes in time */
            double el = now - w0;
            if (el > 0.0) {
                double c = (double)steps / el * target_wall;
                cap = c < 1.0 ? 1 : c > 1048576.0 ? 1048576 : (int64_t)c;
            } else if (cap < 1048576) {
                cap *= 2;
            }
            if (r->dist) cap = tl_world_agree_i64(r->world, cap); /* rank 0's: the same chunks */
            if (r->opt.progress && r->writer && now - r->progress_wall >= r->opt.progress_interval)
                report_progress(r, now);
            int64_t stop = r->opt.interrupt && *r->opt.interrupt;
            if (every > 0 && (r->done - cb_base) % every == 0) {
                tl_world_mark_run_callback(r->world, true);
                if (r->opt.on_steps(r->world, r->opt.on_steps_user)) stop = 2;
                tl_world_mark_run_callback(r->world, false);
            }
            if (r->dist) stop = tl_world_agree_i64(r->world, stop); /* mpirun signals every rank */
            if (stop) {
                st = checkpoint_interrupted(r);
                if (st != TL_OK) return st;
                run->ended_by = TL_STAGE_INTERRUPTED;
                fail(r, "%s at t = %.9g s (step %lld, stage '%s')",
                     stop == 2 ? "stopped by the step callback" : "interrupted", tl_world_time(r->world),
                     (long long)tl_world_step_count(r->world),
                     sc->stages[s].name ? sc->stages[s].name : "");
                return TL_INTERRUPTED;
            }
        }
    }
    return TL_OK;
}

tl_status tl_scene_run(tl_scene *scene, const tl_run_options *options, tl_run_summary *summary) {
    if (!scene) return TL_ERROR_ARGUMENT;
    scene->run_error[0] = '\0';
    if (summary) memset(summary, 0, sizeof *summary);
    run_state r;
    memset(&r, 0, sizeof r);
    r.scene = scene;
    r.world = scene->world;
    r.opt = options ? *options : tl_run_options_default();
    r.wall0 = r.progress_wall = wall_now();
    r.stage = 0;
    r.last_checkpoint_step = -1;
    const bool resume = r.opt.resume && r.opt.resume[0];
    if (!r.world) {
        fail(&r, "the scene has no world");
        return TL_ERROR_STATE;
    }
    tl_status st = TL_OK;
    if (r.opt.threads > 0) st = tl_world_set_threads(r.world, r.opt.threads);
    if (st == TL_OK) st = tl_world_prepare(r.world);
    if (st != TL_OK) {
        fail(&r, "%s", tl_world_error(r.world));
        return st;
    }
    if (r.opt.on_steps && r.opt.step_every < 1) {
        fail(&r, "run options: step_every must be >= 1 (steps between calls of on_steps), got %lld",
             (long long)r.opt.step_every);
        return TL_ERROR_ARGUMENT;
    }
    r.dist = tl_world_ranks(r.world) > 1;
    r.writer = tl_world_rank(r.world) == 0;
    r.dt = tl_world_dt(r.world);
    r.t0 = tl_world_time(r.world);
    r.step0 = tl_world_step_count(r.world);
    r.particles0 = tl_world_particle_count(r.world);
    st = plan_stages(&r);
    if (st == TL_OK) st = take_friction(&r);
    if (st != TL_OK) {
        free_run(&r);
        return st;
    }
    r.ctx.world = r.world;
    r.ctx.title = scene->title ? scene->title : scene->slug;
    r.ctx.err = scene->run_error;
    r.ctx.errsize = sizeof scene->run_error;
    tl_world_energy(r.world, &r.ctx.energy0);
    r.energy0 = r.ctx.energy0.total;
    r.ctx.energy_scale = tl_energy_scale_update(0.0, &r.ctx.energy0, &r.ctx.energy0);
    if (r.opt.write_outputs && scene->noutputs) {
        r.nout = scene->noutputs;
        r.out = calloc(r.nout, sizeof *r.out);
        r.sched = calloc(r.nout, sizeof *r.sched);
        if (!r.out || !r.sched) {
            fail(&r, "out of memory");
            free_run(&r);
            return TL_ERROR_MEMORY;
        }
        for (size_t k = 0; k < r.nout; k++) {
            r.out[k].spec = &scene->outputs[k];
            r.out[k].ctx = &r.ctx;
            r.out[k].index = (int)k;
        }
        r.ctx.outputs = r.out;
        r.ctx.noutputs = r.nout;
    }
    bool interrupted = false, blown = false;
    tl_run_saved *saved = NULL;
    st = init_inflows(&r);
    if (st == TL_OK && r.opt.write_outputs) st = name_outputs(&r); /* no file yet */
    if (st == TL_OK && resume) {
        /* everything is checked before anything is changed */
        st = tl_run_saved_read(&r, r.opt.resume, &saved);
        /* each rank read the files itself: all go on, or none (the load is collective) */
        if (r.dist) st = tl_world_agree_message(r.world, st, scene->run_error, sizeof scene->run_error);
        if (st == TL_OK) st = tl_run_saved_apply(&r, saved);
        if (st == TL_OK) st = resume_friction(&r);
        r.progress_step = r.done;
    } else if (st == TL_OK) {
        st = run_inflows(&r, false); /* what is due already */
    }
    if (st != TL_OK) {
        tl_run_saved_free(saved);
        free_run(&r);
        return st;
    }
    if (r.opt.write_outputs) {
        st = r.writer ? open_outputs(&r) : TL_OK;
        if (r.dist) st = tl_world_agree(r.world, st);
        if (r.dist && st == TL_OK && !r.writer) st = open_parts(&r); /* in the folders rank 0 made */
        if (r.dist) st = tl_world_agree_message(r.world, st, scene->run_error, sizeof scene->run_error);
        tl_run_saved_free(saved); /* the outputs took what they needed */
        saved = NULL;
        for (size_t k = 0; k < r.nout; k++) r.out[k].resume = NULL;
        if (st == TL_OK && !resume) st = record_due(&r, true); /* t = 0 */
        if (st == TL_OK) st = run_stages(&r);
        if (st == TL_INTERRUPTED) { /* keep what was done: complete records, valid files */
            interrupted = true;
            st = TL_OK;
        }
        if (st == TL_ERROR_BLOWUP) { /* keep the records of the sound states before it */
            blown = true;
            st = TL_OK;
        }
        if (st == TL_OK && !blown) st = run_inflows(&r, true); /* what is due by the end */
        if (st == TL_OK && !blown) st = record_due(&r, true); /* the end */
        if (st == TL_OK && r.writer) st = commit_outputs(&r);
        if (r.dist) st = tl_world_agree(r.world, st);
    } else {
        tl_run_saved_free(saved);
        st = run_stages(&r);
        if (st == TL_INTERRUPTED) {
            interrupted = true;
            st = TL_OK;
        }
        if (st == TL_ERROR_BLOWUP) {
            blown = true;
            st = TL_OK;
        }
        if (st == TL_OK && !blown) st = run_inflows(&r, true);
    }
    if (scene->stage_runs)
        memcpy(scene->stage_runs, r.runs, scene->nstages * sizeof *scene->stage_runs);
    if (st != TL_OK) {
        abort_outputs(&r);
        undo_dirs(&r);
        free_run(&r);
        return st;
    }
    double now = wall_now();
    if (r.opt.progress) report_progress(&r, now);
    int files = 0;
    for (size_t k = 0; k < r.opened; k++) {
        files += r.out[k].files_written;
        r.out[k].ops->release(&r.out[k]);
    }
    if (summary) {
        tl_energy e1;
        tl_world_energy(r.world, &e1);
        summary->steps = tl_world_step_count(r.world) - r.step0;
        summary->simulated_time = run_time(&r);
        summary->wall_seconds = now - r.wall0;
        summary->particle_steps_per_second =
            summary->wall_seconds > 0.0
                ? (r.particle_steps - r.particle_steps0) / summary->wall_seconds
                : 0.0;
        summary->particles = tl_world_particle_total(r.world);
        summary->contacts = tl_world_contact_count(r.world);
        summary->neighbor_builds = tl_world_neighbor_builds(r.world);
        summary->energy_initial = r.energy0;
        summary->energy_final = e1.total;
        r.ctx.energy_scale = tl_energy_scale_update(r.ctx.energy_scale, &e1, &r.ctx.energy0);
        summary->energy_scale = r.ctx.energy_scale;
        summary->energy_inserted = r.energy_inserted;
        summary->energy_balance_error =
            fabs(e1.total - r.energy0 - r.energy_inserted) / r.ctx.energy_scale;
        summary->energy_dissipated = tl_energy_kind_sum(&e1, TL_ENERGY_KIND_DISSIPATED);
        summary->energy_integration_residual = e1.integration_residual;
        summary->energy_tracked = r.scene->def.track_energy;
        summary->particles_inserted = r.inserted;
        summarize_inflows(&r, summary);
        summarize_servos(&r, summary);
        summarize_resume(&r, summary);
        summary->particles_removed = tl_world_particles_removed(r.world);
        if (r.opt.write_outputs)
            snprintf(summary->output_dir, sizeof summary->output_dir, "%s", r.dir_buf);
        summary->files_written = files;
        snprintf(summary->checkpoint, sizeof summary->checkpoint, "%s", r.last_checkpoint);
    }
    free_run(&r);
    return blown ? TL_ERROR_BLOWUP : interrupted ? TL_INTERRUPTED : TL_OK;
}
