#include "verdict.h"

#include <math.h>
#include <stddef.h>

double tolerance_width(tolerance t, double reference) {
    return t.rel > 0.0 ? t.rel * fabs(reference) : t.abs;
}

bool tolerance_within(tolerance t, double reference, double value) {
    return isfinite(value) && fabs(value - reference) <= tolerance_width(t, reference);
}

static verdict make(verdict_status s, const char *why) {
    verdict v = {s, why};
    return v;
}

static bool prediction_valid(const prediction *p) {
    return p->source != PREDICTION_NONE && isfinite(p->value) && p->how && *p->how &&
           p->tol.rel >= 0.0 && p->tol.abs >= 0.0 && tolerance_width(p->tol, p->value) > 0.0;
}

/* Talus missed what p predicts */
static verdict missed(const prediction *p) {
    if (p->source == PREDICTION_OWN) return make(VERDICT_FAIL, "missed its own prediction");
    return make(VERDICT_DIFFERS, "missed the prediction from the paper's numbers");
}

verdict verdict_compare(double paper, tolerance tol, double talus, const prediction *p) {
    if (!isfinite(talus)) return make(VERDICT_FAIL, "not a finite number");
    if (isnan(paper)) return make(VERDICT_NO_VALUE, NULL);
    if (tolerance_within(tol, paper, talus)) return make(VERDICT_OK, NULL);
    if (!p || p->source == PREDICTION_NONE) return make(VERDICT_DIFFERS, "no computed explanation");
    if (!prediction_valid(p)) return make(VERDICT_FAIL, "malformed prediction");
    /* an explanation may not be looser than the comparison it explains */
    if (tolerance_width(p->tol, p->value) > tolerance_width(tol, paper) * (1.0 + 1e-12))
        return make(VERDICT_FAIL, "prediction looser than the paper's tolerance");
    /* Talus misses the paper's value; hitting a prediction at least as tight as the paper's
     * tolerance means the prediction is closer to Talus than the paper is */
    return tolerance_within(p->tol, p->value, talus) ? make(VERDICT_EXPLAINED, NULL) : missed(p);
}

static bool satisfies(double bound, bound_sense sense, double v) {
    return sense == BOUND_AT_MOST ? v <= bound : v >= bound;
}

verdict verdict_bound(double bound, bound_sense sense, double talus, const prediction *p) {
    if (!isfinite(talus)) return make(VERDICT_FAIL, "not a finite number");
    if (isnan(bound)) return make(VERDICT_NO_VALUE, NULL);
    if (satisfies(bound, sense, talus)) return make(VERDICT_OK, NULL);
    if (!p || p->source == PREDICTION_NONE) return make(VERDICT_DIFFERS, "no computed explanation");
    if (!prediction_valid(p)) return make(VERDICT_FAIL, "malformed prediction");
    /* the prediction itself must break the bound: one that keeps it explains nothing */
    if (satisfies(bound, sense, p->value))
        return make(VERDICT_FAIL, "the prediction does not break the bound");
    return tolerance_within(p->tol, p->value, talus) ? make(VERDICT_EXPLAINED, NULL) : missed(p);
}

verdict verdict_bound_margin(double bound, bound_sense sense, double talus, double margin, const prediction *p) {
    if (!isfinite(talus)) return make(VERDICT_FAIL, "not a finite number");
    if (isnan(bound)) return make(VERDICT_NO_VALUE, NULL);
    if (!isfinite(margin) || margin < 0.0) return make(VERDICT_FAIL, "no scatter to judge the claim by");
    const double beyond = sense == BOUND_AT_MOST ? bound - margin : bound + margin;
    if (satisfies(beyond, sense, talus) && talus != beyond) return make(VERDICT_OK, NULL);
    if (satisfies(bound, sense, talus)) return make(VERDICT_DIFFERS, "within the scatter");
    return verdict_bound(bound, sense, talus, p);
}

verdict verdict_fitted(double paper, tolerance tol, double talus) {
    if (!isfinite(talus)) return make(VERDICT_FAIL, "not a finite number");
    if (isnan(paper)) return make(VERDICT_FAIL, "no value it was fitted to");
    return tolerance_within(tol, paper, talus) ? make(VERDICT_FITTED, NULL)
                                               : make(VERDICT_DIFFERS, "misses the value it was fitted to");
}

verdict verdict_check(double expected, tolerance tol, double talus) {
    if (!isfinite(talus)) return make(VERDICT_FAIL, "not a finite number");
    if (!isfinite(expected)) return make(VERDICT_FAIL, "no expected value");
    return tolerance_within(tol, expected, talus) ? make(VERDICT_OK, NULL)
                                                  : make(VERDICT_FAIL, "outside the tolerance");
}

const char *verdict_name(verdict_status s) {
    switch (s) {
    case VERDICT_OK: return "ok";
    case VERDICT_EXPLAINED: return "explained";
    case VERDICT_DIFFERS: return "differs";
    case VERDICT_FAIL: return "fail";
    case VERDICT_NO_VALUE: return "no value in the text";
    case VERDICT_FITTED: return "fitted";
    }
    return "?";
}
