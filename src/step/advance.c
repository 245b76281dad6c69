/*
 * A run of steps (tl_world_step): the world prepared, then the stages of step.c in their order
 * (1 predict, 2 neighbors and 3 forces in tl_world_compute_forces, 4 correct, 5 finish; the
 * predictor-corrector's step as a whole), in chunks that end where the blow-up check runs.
 */
#include "blowup.h"
#include "contact_stage.h"
#include "stages.h"
#include "timestep.h"
#include "world.h"

static tl_status step_chunk(tl_world *w, int64_t steps);

/* Steps in chunks that end on the multiples of def.blowup_every, where the
 * blow-up check runs (the same steps however the calls cut them). */
tl_status tl_world_step(tl_world *w, int64_t steps) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (w->in_run_callback)
        return tl_world_fail(w, TL_ERROR_STATE,
                             "step: the world is being run by tl_scene_run, whose step callback may read and change "
                             "it but not step it (return true from the callback to stop the run)");
    int64_t every = w->def.blowup_every;
    if (every <= 0 || steps <= 0) return step_chunk(w, steps); /* never (< 0), or only when asked (0) */
    int64_t done = 0;
    while (done < steps) {
        int64_t to_check = every - w->clock.steps % every;
        int64_t n = steps - done < to_check ? steps - done : to_check;
        tl_status s = step_chunk(w, n);
        if (s != TL_OK) return s;
        done += n;
        if (w->clock.steps % every == 0) {
            s = tl_blowup_check(w);
            if (s != TL_OK) return s;
        }
    }
    return TL_OK;
}

static tl_status step_chunk(tl_world *w, int64_t steps) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (steps < 0) return tl_world_fail(w, TL_ERROR_ARGUMENT, "step count must be >= 0");
    tl_status s = tl_world_prepare(w);
    if (s != TL_OK) return s;
    s = tl_world_update_layout(w);
    if (s != TL_OK) return s;
    w->nthreads = tl_world_thread_count(w->def.threads);
    if (w->broad.dirty) {
        /* particles or walls were added since the last step: their laws must exist */
        s = tl_world_check_laws(w);
        if (s == TL_OK) s = tl_world_size_skin(w);
        if (s != TL_OK) return s;
        if (w->clock.steps == 0 && steps > 0) {
            /* added after preparation but before the first step: the run starts
             * as if they had been there (step bound and forces at t = 0) */
            s = tl_timestep_compute(w);
            if (s == TL_OK) s = tl_world_initial_forces(w);
            if (s != TL_OK) return s;
        }
    }
    if (w->def.integrator == TL_INTEGRATOR_PREDICTOR_CORRECTOR) {
        for (int64_t n = 0; n < steps; n++) {
            s = tl_stage_pc_step(w);
            if (s != TL_OK) return s;
        }
        return TL_OK;
    }
    bool predicted = false;
    for (int64_t n = 0; n < steps; n++) {
        if (!predicted) tl_stage_predict(w);
        s = tl_world_compute_forces(w, true);
        if (s != TL_OK) return s;
        if (n + 1 < steps && w->log.npend == 0 && !tl_world_log_spread(w)) {
            /* finish reads only immovable bodies and walls, which correct leaves alone */
            tl_stage_finish(w);
            tl_stage_correct_predict(w);
            predicted = true;
        } else {
            tl_stage_correct(w);
            tl_stage_finish(w);
            predicted = false;
        }
    }
    return TL_OK;
}
