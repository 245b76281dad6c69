/* The status of one row of the validation report, decided from numbers only.
 *
 * A comparison with a paper is
 *   ok         Talus is within the tolerance of the paper's value;
 *   explained  Talus misses the paper's value but hits a prediction that accounts for the
 *              difference: a value computed from the paper's other numbers or from the
 *              method the paper describes; the prediction's tolerance may be no wider than
 *              the paper's (so Talus is closer to it than to the paper), and a prediction
 *              for a bound must itself break the bound;
 *   differs    Talus misses the paper's value and nothing computed explains it (counted and
 *              listed; it does not fail the run);
 *   fail       Talus's value is NaN or infinite, or it misses a prediction of Talus's own
 *              model (PREDICTION_OWN), or the prediction is malformed;
 *   fitted     a parameter of the case was chosen to reproduce the paper's number, which Talus
 *              then meets: shown, never counted as agreement.
 * A directional claim (a ratio above 1) is ok only beyond the scatter of Talus's own value
 * (verdict_bound_margin): one claim is not counted both ways.
 * An internal check (Talus against itself or a closed form) is ok or fail.
 * No text passed with a row can change its status: only the numbers here do.
 * The rules the rows are written under (docs/validation.md): every tolerance, and every bound
 * of an internal check, has a stated reason (the case files refuse a row without one:
 * app/cases.c; the report names it in the row and writes it under the table); a prediction
 * that explains a difference is computed independently of the value it explains; a claim the
 * paper does not make is not a comparison with the paper. */
#ifndef TALUS_APP_VERDICT_H
#define TALUS_APP_VERDICT_H

#include <stdbool.h>

typedef enum verdict_status {
    VERDICT_OK,
    VERDICT_EXPLAINED,
    VERDICT_DIFFERS,
    VERDICT_FAIL,
    VERDICT_NO_VALUE, /* the paper states no number: the row is shown, not counted */
    VERDICT_FITTED    /* a parameter was chosen to reproduce this very number: the row is shown
                       * (within its tolerance), not counted as agreement */
} verdict_status;

/* A tolerance: relative to the reference when rel > 0, else absolute. */
typedef struct tolerance {
    double rel, abs;
} tolerance;

typedef enum prediction_source {
    PREDICTION_NONE = 0,
    /* computed from Talus's own model or the method it implements (a rounded constant, a
     * closed form): Talus missing it is a defect, the row fails */
    PREDICTION_OWN,
    /* computed from other numbers of the paper (one printed value implies another): if
     * Talus misses it the paper's numbers and Talus still disagree, the row differs */
    PREDICTION_PAPER
} prediction_source;

/* What an explanation predicts Talus gives, and how it was derived. */
typedef struct prediction {
    prediction_source source;
    double value;
    tolerance tol;
    const char *how;     /* the derivation, shown with the row (required) */
    const char *reading; /* anchor in docs/readings.md, or NULL */
} prediction;

/* Whether the paper's statement is an upper or a lower bound on Talus's value. */
typedef enum bound_sense { BOUND_AT_MOST, BOUND_AT_LEAST } bound_sense;

typedef struct verdict {
    verdict_status status;
    const char *why; /* for fail and differs: a fixed phrase saying which rule decided */
} verdict;

/* the absolute width of a tolerance around a reference value */
double tolerance_width(tolerance t, double reference);
bool tolerance_within(tolerance t, double reference, double value);

/* Talus's value against a number the paper states (paper NAN: no value in the text). */
verdict verdict_compare(double paper, tolerance tol, double talus, const prediction *p);
/* Talus's value against a bound the paper states. */
verdict verdict_bound(double bound, bound_sense sense, double talus, const prediction *p);
/* Talus's value against a directional claim of the paper ("M1 keeps more energy": a ratio at
 * least 1), where Talus's value has a scatter (the seeds' standard deviation, say) of `margin`:
 * the claim is shown only when the value lies beyond the bound by more than the margin; within
 * it, the row differs ("within the scatter"), however it falls. */
verdict verdict_bound_margin(double bound, bound_sense sense, double talus, double margin, const prediction *p);
/* A number a parameter of the case was chosen to reproduce: fitted within the tolerance (not an
 * agreement), differs outside it. */
verdict verdict_fitted(double paper, tolerance tol, double talus);
/* An internal check: Talus's value against what Talus itself predicts. */
verdict verdict_check(double expected, tolerance tol, double talus);

const char *verdict_name(verdict_status s);

#endif
