/*
 * Running a scene: the stages in order, the outputs at their intervals.
 *
 *   1. the world is prepared (time step, forces at t = 0); every output is
 *      opened (its files as .part) and every time series recorded once
 *   2. each stage runs llround(duration / dt) steps (at least 1), in chunks
 *      that end where an output is due, where the stage ends, and often
 *      enough to report progress; after every chunk the collision log is
 *      written and cleared
 *   3. at the end every time series is recorded once more (unless it just
 *      was), the outputs are committed (renamed into place), then the plots
 *      drawn
 *
 * When an output is due: `every` s of simulated time: at the first step
 * whose time since the start of the run is >= k every - 1e-9 dt; `every_steps`:
 * every that many steps; neither: 100 records spread evenly over the steps of
 * the whole run. Any failure aborts every output: nothing is left under a
 * final name and no .part remains.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outputs.h"
#include "scene_plan.h"

#define SPREAD_RECORDS 100

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

typedef enum schedule_mode {
    SCHEDULE_NONE = 0, /* not a time series */
    SCHEDULE_TIME,     /* every `every` s */
    SCHEDULE_STEPS,    /* every `every_steps` steps */
    SCHEDULE_SPREAD    /* SPREAD_RECORDS records over the run */
} schedule_mode;

typedef struct schedule {
    schedule_mode mode;
    double every;
    int64_t every_steps;
    int64_t k;    /* index of the next record (TIME, SPREAD) */
    int64_t next; /* the run step at which it is next looked at */
    int64_t last; /* run step of the last record, -1 = none */
} schedule;

typedef struct run_state {
    tl_scene *scene;
    tl_world *world;
    tl_run_options opt;
    tl_output_context ctx;
    tl_output *out;
    schedule *sched;
    size_t nout, opened;
    int64_t *stage_steps;
    int64_t total, done;  /* steps of the run, steps done */
    double dt, t0;        /* step, world time at the start */
    size_t particles0;
    int stage;
    double wall0, progress_wall;
    int64_t progress_step;
    bool logging;         /* a collisions output is open */
    char dir_buf[1024];
} run_state;

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

static tl_status record(run_state *r, size_t k) {
    tl_output *o = &r->out[k];
    tl_status st = o->ops->record(o);
    if (st != TL_OK) {
        prefix_output(r, o);
        return st;
    }
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

static tl_status sync_outputs(run_state *r) {
    if (!r->logging) return TL_OK;
    for (size_t k = 0; k < r->nout; k++) {
        tl_output *o = &r->out[k];
        if (!o->ops->sync) continue;
        tl_status st = o->ops->sync(o);
        if (st != TL_OK) {
            prefix_output(r, o);
            return st;
        }
    }
    tl_world_clear_collisions(r->world);
    return TL_OK;
}

static void abort_outputs(run_state *r) {
    for (size_t k = 0; k < r->opened; k++) {
        tl_output *o = &r->out[k];
        o->ops->abort(o);
    }
    r->opened = 0;
}

static void free_run(run_state *r) {
    if (r->out)
        for (size_t k = 0; k < r->nout; k++) free(r->out[k].path);
    free(r->out);
    free(r->sched);
    free(r->stage_steps);
}

static tl_status open_outputs(run_state *r) {
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
    tl_status st = tl_mkdir_p(r->dir_buf, r->ctx.err, r->ctx.errsize);
    if (st != TL_OK) return st;
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
        r->opened = k + 1;
        st = o->ops->open(o);
        if (st != TL_OK) {
            prefix_output(r, o);
            return st;
        }
        if (o->spec->kind == TL_OUTPUT_COLLISIONS) r->logging = true;
        schedule_init(r, &r->sched[k], o);
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

static tl_status plan_stages(run_state *r) {
    const tl_scene *sc = r->scene;
    r->stage_steps = calloc(sc->nstages ? sc->nstages : 1, sizeof *r->stage_steps);
    if (!r->stage_steps) {
        fail(r, "out of memory");
        return TL_ERROR_MEMORY;
    }
    r->total = 0;
    for (size_t s = 0; s < sc->nstages; s++) {
        double n = sc->stages[s].duration / r->dt;
        if (!(n >= 0.0) || !(n < 1e15)) {
            fail(r, "stage '%s': duration %g s is not a usable number of steps of %g s",
                 sc->stages[s].name ? sc->stages[s].name : "", sc->stages[s].duration, r->dt);
            return TL_ERROR_ARGUMENT;
        }
        int64_t steps = (int64_t)llround(n);
        r->stage_steps[s] = steps < 1 ? 1 : steps;
        r->total += r->stage_steps[s];
    }
    return TL_OK;
}

static tl_status run_stages(run_state *r) {
    const tl_scene *sc = r->scene;
    double target_wall = r->opt.progress && r->opt.progress_interval > 0.0
                             ? fmin(0.25, 0.25 * r->opt.progress_interval)
                             : 0.25;
    int64_t cap = 1;
    for (size_t s = 0; s < sc->nstages; s++) {
        r->stage = (int)s;
        int64_t end = r->done + r->stage_steps[s];
        while (r->done < end) {
            int64_t target = end;
            if (target - r->done > cap) target = r->done + cap;
            for (size_t k = 0; k < r->nout; k++)
                if (r->sched[k].next < target) target = r->sched[k].next;
            if (target <= r->done) target = r->done + 1;
            double w0 = wall_now();
            tl_status st = tl_world_step(r->world, target - r->done);
            if (st != TL_OK) {
                fail(r, "stage '%s', t = %.9g s (step %lld): %s",
                     sc->stages[s].name ? sc->stages[s].name : "", tl_world_time(r->world),
                     (long long)tl_world_step_count(r->world), tl_world_error(r->world));
                return st;
            }
            int64_t steps = target - r->done;
            r->done = target;
            st = sync_outputs(r);
            if (st == TL_OK) st = record_due(r, false);
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
            if (r->opt.progress && now - r->progress_wall >= r->opt.progress_interval)
                report_progress(r, now);
            if (r->opt.interrupt && *r->opt.interrupt) {
                fail(r, "interrupted at t = %.9g s (step %lld, stage '%s')", tl_world_time(r->world),
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
    if (!r.world) {
        fail(&r, "the scene has no world");
        return TL_ERROR_STATE;
    }
    tl_status st = tl_world_prepare(r.world);
    if (st != TL_OK) {
        fail(&r, "%s", tl_world_error(r.world));
        return st;
    }
    r.dt = tl_world_dt(r.world);
    r.t0 = tl_world_time(r.world);
    int64_t step0 = tl_world_step_count(r.world);
    r.particles0 = tl_world_particle_count(r.world);
    st = plan_stages(&r);
    if (st != TL_OK) {
        free_run(&r);
        return st;
    }
    r.ctx.world = r.world;
    r.ctx.title = scene->title ? scene->title : scene->slug;
    r.ctx.err = scene->run_error;
    r.ctx.errsize = sizeof scene->run_error;
    tl_world_energy(r.world, &r.ctx.energy0);
    r.ctx.energy_scale = tl_energy_scale_update(0.0, &r.ctx.energy0);
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
    bool interrupted = false;
    if (r.opt.write_outputs) {
        st = open_outputs(&r);
        if (st == TL_OK) st = record_due(&r, true); /* t = 0 */
        if (st == TL_OK) st = run_stages(&r);
        if (st == TL_INTERRUPTED) { /* keep what was done: complete records, valid files */
            interrupted = true;
            st = TL_OK;
        }
        if (st == TL_OK) st = record_due(&r, true); /* the end */
        if (st == TL_OK) st = commit_outputs(&r);
    } else {
        st = run_stages(&r);
        if (st == TL_INTERRUPTED) {
            interrupted = true;
            st = TL_OK;
        }
    }
    if (st != TL_OK) {
        abort_outputs(&r);
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
        summary->steps = tl_world_step_count(r.world) - step0;
        summary->simulated_time = run_time(&r);
        summary->wall_seconds = now - r.wall0;
        summary->particle_steps_per_second =
            summary->wall_seconds > 0.0
                ? (double)r.particles0 * (double)summary->steps / summary->wall_seconds
                : 0.0;
        summary->particles = tl_world_particle_count(r.world);
        summary->contacts = tl_world_contact_count(r.world);
        summary->neighbor_builds = tl_world_neighbor_builds(r.world);
        summary->energy_initial = r.ctx.energy0.total;
        summary->energy_final = e1.total;
        r.ctx.energy_scale = tl_energy_scale_update(r.ctx.energy_scale, &e1);
        summary->energy_scale = r.ctx.energy_scale;
        summary->energy_balance_error = fabs(e1.total - r.ctx.energy0.total) / r.ctx.energy_scale;
        summary->particles_removed = tl_world_particles_removed(r.world);
        if (r.opt.write_outputs)
            snprintf(summary->output_dir, sizeof summary->output_dir, "%s", r.dir_buf);
        summary->files_written = files;
    }
    free_run(&r);
    return interrupted ? TL_INTERRUPTED : TL_OK;
}
