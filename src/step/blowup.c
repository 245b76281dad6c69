/*
 * Blow-up detection: a run that runs away stops with a diagnostic instead of
 * carrying on with nonsense (issue 14). Every def.blowup_every steps (counted
 * from step 0, so the checks fall on the same steps however the steps are cut
 * into calls) tl_world_step checks:
 *
 *   - every particle's position, velocity and angular velocity are finite;
 *   - no touching contact overlaps by more than def.blowup_overlap of the
 *     smaller radius (a body's bounding radius for other shapes);
 *   - kinetic + elastic energy stays below def.blowup_energy times the energy
 *     the bodies had and were given: kinetic + elastic when the reference was
 *     taken (the first step, or a loaded state), the change of potential energy
 *     since, the work of the walls, and the kinetic energy of particles added.
 *     A world that keeps no energy ledger (track_energy: false) knows no
 *     elastic energy: only the kinetic energy is checked then, and the energy
 *     its contacts hold at the reference counts as sum (|F_n| + |F_t|) delta
 *     over the touching contacts, an upper bound of what their springs can give
 *     back (the normal spring's energy is 2/5 |F_n| delta for Hertz, 1/2 for a
 *     linear spring; a tangential spring holds |F_t|^2 / (2 k_t) <= |F_t| delta / 2
 *     while k_t is no smaller than |F_n| / delta). A packed bed read from a file,
 *     whose springs give back their energy when the bed relaxes, is no blow-up.
 *
 * The first failed test stops the step with TL_ERROR_BLOWUP and a message that
 * names the step, the time, the bodies involved, and dt against the shortest
 * contact time (the usual cause is a step too long for the contacts).
 *
 * The passes over the bodies and the contacts run in CHECK_BLOCKS blocks on the
 * threads, each block's result combined in block order: the first non-finite
 * body and the deepest contact are the serial pass's, whatever the thread count.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "energy_terms.h"
#include "parallel.h"
#include "rsum.h"
#include "vec.h"
#include "world.h"
#include "measure.h"
#include "external.h"
#include "blowup.h"
#include "slots.h"

static double kinetic_elastic(const tl_world *w, double *potential) {
    tl_energy e;
    tl_world_energy(w, &e);
    *potential = e.potential;
    /* the springs and the force slots' potentials (cohesion's, negative: what it releases as it
     * pulls is energy it held), not the torque slots' springs */
    double el = isfinite(e.elastic_normal) ? e.elastic_normal + e.elastic_tangential : 0.0;
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) {
        const tl_energy_term_info *t = tl_energy_term_get(k);
        if (t->kind == TL_ENERGY_KIND_ELASTIC && t->slot >= 0 && tl_slot_row_get(t->slot)->cls == TL_CLASS_FORCE &&
            isfinite(e.term[k]))
            el += e.term[k];
    }
    return e.kinetic_translational + e.kinetic_rotational + el;
}

/* (|F_n| + |F_t|) delta of one record: one pass for the largest term (add = false), one for the
 * reproducible sum */
typedef struct held_pass {
    int at;     /* the core group's offset in a record */
    bool add;
    double bound;
    tl_rsum sum;
} held_pass;
static void held_record(const double *rec, void *user) {
    held_pass *h = user;
    const double *bk = rec + h->at;
    double x = (fabs(bk[TL_BK_FN]) + v3_norm(bk + TL_BK_FT)) * fabs(bk[TL_BK_DELTA]);
    if (!isfinite(x)) return; /* a non-finite state is the other tests' to report */
    if (h->add) tl_rsum_add(&h->sum, x);
    else h->bound = fmax(h->bound, x);
}

/* the energy the contacts' springs hold, bounded from above, for a world without a ledger
 * (collective in a distributed world; the same bits on any number of ranks) */
static double held_elastic_bound(const tl_world *w) {
    const bool dist = w->ranks.established;
    size_t first, count;
    tl_world_owned(w, &first, &count);
    held_pass h = {w->contacts.lay.hist, false, 0.0, {0}};
    tl_world_each_record(w, first, count, held_record, &h);
    if (dist) w->ranks.ops->max(w, &h.bound, 1);
    tl_rsum_begin(&h.sum, tl_rsum_exponent(h.bound));
    h.add = true;
    tl_world_each_record(w, first, count, held_record, &h);
    if (dist) w->ranks.ops->merge(w, &h.sum, 1);
    return tl_rsum_value(&h.sum);
}

/* sum |m g . x| over the bodies (all ranks: an upper bound, the ranks' largest times their
 * count): the potential energy's terms are products rounded one by one, so a difference of two
 * potentials is known to about 2 eps of it, whatever the sums' accuracy. Bodies of 1 nm falling
 * from 1 m change it by less than that; the test must not read the rounding as energy from
 * nowhere. */
static void magnitude_term(void *user, int which, double x) {
    if (which == TL_TERM_POT && isfinite(x)) *(double *)user += fabs(x);
}
static double potential_magnitude(const tl_world *w) {
    size_t first, count;
    tl_world_owned(w, &first, &count);
    double m = 0.0;
    tl_world_body_terms(w, first, count, magnitude_term, &m);
    if (w->ranks.established) {
        w->ranks.ops->max(w, &m, 1);
        m *= (double)w->ranks.size;
    }
    return m;
}

void tl_blowup_reference(tl_world *w) {
    double pot;
    w->books.blowup.energy0 = kinetic_elastic(w, &pot);
    if (!(w->contacts.lay.energy >= 0 && w->def.track_energy)) w->books.blowup.energy0 += held_elastic_bound(w);
    w->books.blowup.potential0 = pot;
    w->books.blowup.potential_mag0 = potential_magnitude(w);
    w->books.blowup.boundary0 = w->books.ledger.boundary_work;
    w->books.blowup.added = 0.0;
    w->books.blowup.passed = -1;
    w->books.blowup.set = true;
}

/* plain sums with their rounding bound: add x to the sum and |x| to the magnitudes */
typedef struct plain_sum {
    double sum, mag;
    size_t n;
} plain_sum;
static inline void plain_add(plain_sum *s, double x) {
    s->sum += x;
    s->mag += fabs(x);
    s->n++;
}
/* the largest difference between the plain sum and the exact sum of the same terms (rounded
 * once), with a factor of two to spare: (n + 1) eps sum |x_i| bounds the recursive sum's error */
static inline double plain_err(const plain_sum *s) {
    return 2.0 * ((double)s->n + 2.0) * DBL_EPSILON * s->mag + DBL_MIN;
}
static inline void plain_merge(plain_sum *to, const plain_sum *from) {
    to->sum += from->sum;
    to->mag += from->mag;
    to->n += from->n;
}

#define CHECK_BLOCKS 32 /* the blocks of the check's passes, the same for any thread count */
/* where block q of n items starts (q = CHECK_BLOCKS: n) */
static inline size_t block_at(size_t q, size_t n) { return q * n / CHECK_BLOCKS; }

/* the energy test's terms, added plainly: the potential energy apart, the kinetic and the
 * elastic (normal, tangential, the force slots' potentials; kinetic_elastic leaves the torque slots'
 * springs out) together */
typedef struct plain_terms {
    plain_sum kin, pot;
} plain_terms;
static void plain_term(void *user, int which, double x) {
    plain_terms *t = user;
    if (which == TL_TERM_POT) plain_add(&t->pot, x);
    else if (which < TL_TERM_TORQUE || which >= TL_TERM_FORCE) plain_add(&t->kin, x);
}

/* The energy test's cheap first look: the same terms as tl_world_energy (kinetic, potential,
 * the contacts' elastic energy when the ledger keeps it) summed plainly, with their rounding
 * bounds. When even the bounds leave the energy within the limit, the exact sums
 * (reproducible: every term converted to 128-bit limbs, which makes them several times dearer,
 * and on ranks three more collectives) would too, and the test passes without them; a state
 * near the limit takes the exact path, which decides and reports. The outcome is the exact
 * path's. The bodies' terms (the owned ones on a rank) are summed in blocks on the threads and
 * the blocks' sums added after, and on ranks the ranks' sums in rank order: the bound holds for
 * any order of the additions (a term takes part in at most n - 1 roundings). */
static plain_terms energy_look(const tl_world *w, size_t first, size_t count) {
    const int nt = w->nthreads;
    plain_terms part[CHECK_BLOCKS];
    TL_FOR_STATIC(q, CHECK_BLOCKS, {
        part[q] = (plain_terms){{0.0, 0.0, 0}, {0.0, 0.0, 0}};
        tl_world_body_terms(w, first + block_at(q, count), block_at(q + 1, count) - block_at(q, count), plain_term,
                            &part[q]);
    })
    plain_terms t = {{0.0, 0.0, 0}, {0.0, 0.0, 0}};
    for (size_t q = 0; q < CHECK_BLOCKS; q++) {
        plain_merge(&t.kin, &part[q].kin);
        plain_merge(&t.pot, &part[q].pot);
    }
    tl_world_record_terms(w, first, count, plain_term, &t);
    return t;
}

/* whether the first look's sums (of all ranks) leave the energy surely within the limit */
static bool energy_surely_within(const tl_world *w, const plain_terms *t) {
    const plain_sum kin = t->kin, pot = t->pot;
    double potential = pot.sum + (w->ext.count ? tl_external_potential(w) : 0.0);
    double now_hi = kin.sum + plain_err(&kin);
    double shift_lo = fabs(potential - w->books.blowup.potential0) - plain_err(&pot);
    double budget_lo = w->books.blowup.energy0 + (shift_lo > 0.0 ? shift_lo : 0.0) +
                       fabs(w->books.ledger.boundary_work - w->books.blowup.boundary0) + w->books.blowup.added;
    if (!isfinite(now_hi) || !isfinite(budget_lo) || !isfinite(kin.mag) || !isfinite(pot.mag)) return false;
    /* a margin of 1e-12 for the roundings of these few sums and products themselves */
    return now_hi * (1.0 + 1e-12) <= w->def.blowup_energy * budget_lo * (1.0 - 1e-12);
}

/* What a rank's own tests found, gathered from every rank in one collective instead of one per
 * test: a non-finite body, the deepest contact, the first look's sums. */
typedef struct look {
    int bad, looked;
    double worst;
    plain_terms t;
} look;

static const char *timestep_hint(const tl_world *w, char *buf, size_t size) {
    if (isfinite(w->clock.ts.contact_time) && w->clock.ts.contact_time > 0.0)
        snprintf(buf, size, "dt = %.4g s against a shortest contact of %.4g s (%.1f steps per contact)",
                 w->clock.dt, w->clock.ts.contact_time, w->clock.ts.contact_time / w->clock.dt);
    else snprintf(buf, size, "dt = %.4g s", w->clock.dt);
    return buf;
}

static tl_status fail(tl_world *w, const char *what) {
    char hint[160];
    return tl_world_fail(w, TL_ERROR_BLOWUP,
                         "blow-up at step %lld (t = %.9g s): %s; %s. The state is not physical any more: "
                         "the run stops here (blowup_every, blowup_overlap, blowup_energy tune the check)",
                         (long long)w->clock.steps, w->clock.time, what, timestep_hint(w, hint, sizeof hint));
}

static bool finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* whether f is deeper than the deepest so far: a NaN counts as the deepest, the first one kept */
static inline bool deeper(double f, double worst) { return worst == worst && !(f <= worst); }

/* every rank's look combined in rank order into *all (the same on every rank) */
static void looks_gathered(tl_world *w, const look *mine, look *all) {
    const size_t P = (size_t)w->ranks.size;
    look *each = tl_mem_alloc(&w->mem, P * sizeof *each);
    if (!each) w->ranks.ops->abort(w, "out of memory (blow-up check)");
    w->ranks.ops->gather_fixed(w, mine, sizeof *mine, each);
    *all = each[0];
    for (size_t r = 1; r < P; r++) {
        all->bad |= each[r].bad;
        all->looked &= each[r].looked;
        if (deeper(each[r].worst, all->worst)) all->worst = each[r].worst;
        plain_merge(&all->t.kin, &each[r].t.kin);
        plain_merge(&all->t.pot, &each[r].t.pot);
    }
    tl_mem_free(&w->mem, each, P * sizeof *each);
}

/* the deepest of the touching contacts k in [lo, hi) of one list, relative to the smaller
 * radius, when deeper than 0 (at: SIZE_MAX when none) */
typedef struct deep {
    double worst;
    size_t at;
} deep;
static deep deepest_range(const tl_world *w, const tl_pairs *l, bool wall, size_t lo, size_t hi) {
    const tl_particles *p = &w->p;
    deep d = {0.0, SIZE_MAX};
    for (size_t k = lo; k < hi; k++) {
        if (!(l->state[k] & TL_PAIR_TOUCH)) continue;
        double r = p->radius[l->a[k]];
        if (!wall && p->radius[l->b[k]] < r) r = p->radius[l->b[k]];
        double f = tl_pair_record(l, k)[w->contacts.lay.hist + TL_BK_DELTA] / r;
        if (deeper(f, d.worst)) {
            d.worst = f;
            d.at = k;
        }
    }
    return d;
}

/* the deepest contact of both lists, the blocks on the threads, taken in list order */
static void deepest(const tl_world *w, double *worst, size_t *at, bool *at_wall) {
    const int nt = w->nthreads;
    const tl_pairs *lists[2] = {&w->contacts.pp, &w->contacts.pw};
    deep part[2 * CHECK_BLOCKS];
    for (size_t li = 0; li < 2; li++) { /* each list over all threads (the walls' list is short) */
        const tl_pairs *l = lists[li];
        deep *to = part + li * CHECK_BLOCKS;
        TL_FOR_STATIC(b, CHECK_BLOCKS,
                      to[b] = deepest_range(w, l, li == 1, block_at(b, l->count), block_at(b + 1, l->count));)
    }
    *worst = 0.0;
    *at = 0;
    *at_wall = false;
    for (size_t q = 0; q < 2 * CHECK_BLOCKS; q++)
        if (part[q].at != SIZE_MAX && deeper(part[q].worst, *worst)) {
            *worst = part[q].worst;
            *at = part[q].at;
            *at_wall = q >= CHECK_BLOCKS;
        }
}

/* the first of the bodies in [lo, hi) whose state is not finite (SIZE_MAX: none) */
static size_t first_nonfinite(const tl_particles *p, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++)
        if (!finite3(p->x[i]) || !finite3(p->v[i]) || !finite3(p->w[i])) return i;
    return SIZE_MAX;
}

tl_status tl_world_check_blowup(tl_world *w) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (!w->prepared || w->def.blowup_every < 0) return TL_OK; /* disabled */
    if (w->books.blowup.passed == w->clock.steps) return TL_OK;             /* this state passed already */
    return tl_blowup_check(w);
}

tl_status tl_blowup_check(tl_world *w) {
    const tl_particles *p = &w->p;
    char what[512];
    const bool dist = w->ranks.established; /* the tests over all ranks: collective */
    size_t first, count;
    tl_world_owned(w, &first, &count);
    const int nt = w->nthreads;
    /* this rank's tests (of the whole world on one process) */
    look mine;
    memset(&mine, 0, sizeof mine); /* the padding too: the bytes go to the other ranks */
    size_t part[CHECK_BLOCKS];
    TL_FOR_STATIC(q, CHECK_BLOCKS,
                  part[q] = first_nonfinite(p, first + block_at(q, count), first + block_at(q + 1, count));)
    size_t at_bad = SIZE_MAX;
    for (size_t q = 0; q < CHECK_BLOCKS && at_bad == SIZE_MAX; q++) at_bad = part[q];
    mine.bad = at_bad != SIZE_MAX;
    size_t at = 0;
    bool at_wall = false;
    double worst = 0.0;
    if (w->def.blowup_overlap > 0.0) {
        deepest(w, &worst, &at, &at_wall);
        mine.worst = worst != worst ? INFINITY : worst; /* NaN counts as the worst */
    }
    /* the first look needs the reference, and on ranks no external potential (collective) */
    mine.looked = w->def.blowup_energy > 0.0 && w->books.blowup.set && !mine.bad && !(dist && w->ext.count);
    if (mine.looked) mine.t = energy_look(w, first, count);
    look all = mine;
    if (dist) looks_gathered(w, &mine, &all);
    if (all.bad) {
        size_t i = at_bad;
        if (mine.bad)
            snprintf(what, sizeof what,
                     "particle %u has a non-finite state (position %g, %g, %g; velocity %g, %g, %g)", p->id[i],
                     p->x[i][0], p->x[i][1], p->x[i][2], p->v[i][0], p->v[i][1], p->v[i][2]);
        else snprintf(what, sizeof what, "a particle on another rank has a non-finite state");
        return fail(w, what);
    }
    if (w->def.blowup_overlap > 0.0) {
        if (!(all.worst <= w->def.blowup_overlap)) {
            const tl_pairs *l = at_wall ? &w->contacts.pw : &w->contacts.pp;
            double d = l->count > at ? tl_pair_record(l, at)[w->contacts.lay.hist + TL_BK_DELTA] : NAN;
            if (!(worst <= w->def.blowup_overlap) && at_wall)
                snprintf(what, sizeof what,
                         "particle %u overlaps wall %d by %.4g m, %.3g of its radius (the limit: %g)",
                         p->id[l->a[at]], w->walls.f[l->b[at]].wall, d, worst, w->def.blowup_overlap);
            else if (!(worst <= w->def.blowup_overlap))
                snprintf(what, sizeof what,
                         "particles %u and %u overlap by %.4g m, %.3g of the smaller radius (the limit: %g)",
                         p->id[l->a[at]], p->id[l->b[at]], d, worst, w->def.blowup_overlap);
            else
                snprintf(what, sizeof what, "two bodies on another rank overlap by %.3g of the smaller radius "
                         "(the limit: %g)", all.worst, w->def.blowup_overlap);
            return fail(w, what);
        }
    }
    if (w->def.blowup_energy > 0.0 && !(all.looked && energy_surely_within(w, &all.t))) {
        if (!w->books.blowup.set) tl_blowup_reference(w);
        double pot, now = kinetic_elastic(w, &pot);
        /* the potential change, and what rounding leaves unknown of it */
        double pot_round = 4.0 * DBL_EPSILON * (potential_magnitude(w) + w->books.blowup.potential_mag0);
        double budget = w->books.blowup.energy0 + fabs(pot - w->books.blowup.potential0) + pot_round +
                        fabs(w->books.ledger.boundary_work - w->books.blowup.boundary0) + w->books.blowup.added;
        if (!(now <= w->def.blowup_energy * budget) && now > 1e-300) {
            size_t fast = first; /* this rank's fastest */
            double v2 = -1.0;
            for (size_t i = first; i < first + count; i++)
                if (v3_norm2(p->v[i]) > v2) {
                    v2 = v3_norm2(p->v[i]);
                    fast = i;
                }
            snprintf(what, sizeof what,
                     "the kinetic and elastic energy, %.4g J, is %.3g times what the bodies had and were given "
                     "(%.4g J; the limit: %g times), energy from nowhere; the fastest is particle %u at %.4g m/s",
                     now, budget > 0.0 ? now / budget : INFINITY, budget, w->def.blowup_energy,
                     count ? p->id[fast] : 0u, sqrt(v2 > 0.0 ? v2 : 0.0));
            return fail(w, what);
        }
    }
    w->books.blowup.passed = w->clock.steps;
    return TL_OK;
}
