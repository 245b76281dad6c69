/* The statuses of `talus validate` (app/verdict.c, app/report.c): a NaN result fails; a row
 * whose explanation is missed differs (a prediction from the paper's numbers) or fails (a
 * prediction of Talus's own model); a Talus-against-Talus row is an internal check, counted
 * apart from the comparisons with the papers; no text passed with a row sets its status. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "test.h"
#include "verdict.h"

static const tolerance ONE_PERCENT = {0.01, 0.0};

static void verdicts(void) {
    prediction own = {PREDICTION_OWN, 1.2, {0.005, 0}, "a closed form", "x"};
    prediction from_paper = {PREDICTION_PAPER, 1.2, {0.005, 0}, "the paper's other number", "x"};

    /* within the tolerance: ok, whatever the prediction */
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.009, NULL).status == VERDICT_OK);
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.009, &own).status == VERDICT_OK);
    /* NaN and infinite results fail, with or without an explanation */
    ENSURE(verdict_compare(1.0, ONE_PERCENT, NAN, NULL).status == VERDICT_FAIL);
    ENSURE(verdict_compare(1.0, ONE_PERCENT, NAN, &from_paper).status == VERDICT_FAIL);
    ENSURE(verdict_compare(1.0, ONE_PERCENT, INFINITY, &own).status == VERDICT_FAIL);
    ENSURE(verdict_bound(1.0, BOUND_AT_MOST, NAN, &own).status == VERDICT_FAIL);
    /* outside, no explanation: differs (not ok, not failed) */
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.2, NULL).status == VERDICT_DIFFERS);
    /* outside, the prediction hit: explained */
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.2004, &own).status == VERDICT_EXPLAINED);
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.1996, &from_paper).status == VERDICT_EXPLAINED);
    /* outside, the prediction missed: a prediction of Talus's own model fails, one from the
     * paper's numbers leaves the row differing */
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.5, &own).status == VERDICT_FAIL);
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.5, &from_paper).status == VERDICT_DIFFERS);
    /* a text alone explains nothing */
    prediction words = {PREDICTION_NONE, NAN, {0, 0}, "a long and convincing reason", "x"};
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.5, &words).status == VERDICT_DIFFERS);
    prediction no_value = {PREDICTION_PAPER, NAN, {0.005, 0}, "a reason without a number", "x"};
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.5, &no_value).status == VERDICT_FAIL);
    prediction no_how = {PREDICTION_PAPER, 1.5, {0.005, 0}, NULL, "x"};
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.5, &no_how).status == VERDICT_FAIL);
    /* an explanation looser than the comparison would launder any miss: it fails */
    prediction loose = {PREDICTION_PAPER, 1.5, {0.5, 0}, "anything goes", "x"};
    ENSURE(verdict_compare(1.0, ONE_PERCENT, 1.9, &loose).status == VERDICT_FAIL);
    /* no number in the text: shown, never ok */
    ENSURE(verdict_compare(NAN, ONE_PERCENT, 1.0, NULL).status == VERDICT_NO_VALUE);
    /* bounds */
    ENSURE(verdict_bound(0.01, BOUND_AT_MOST, 0.009, NULL).status == VERDICT_OK);
    ENSURE(verdict_bound(0.01, BOUND_AT_LEAST, 0.009, NULL).status == VERDICT_DIFFERS);
    prediction breaks = {PREDICTION_OWN, 0.016, {0.03, 0}, "closed form", "x"};
    ENSURE(verdict_bound(0.01, BOUND_AT_MOST, 0.0161, &breaks).status == VERDICT_EXPLAINED);
    ENSURE(verdict_bound(0.01, BOUND_AT_MOST, 0.03, &breaks).status == VERDICT_FAIL);
    prediction keeps = {PREDICTION_OWN, 0.009, {0.03, 0}, "keeps the bound", "x"};
    ENSURE(verdict_bound(0.01, BOUND_AT_MOST, 0.0105, &keeps).status == VERDICT_FAIL);
    /* a directional claim against a value with a scatter: ok only beyond it (issue 44: M1/M4 1.0015
     * with the seeds' sd 0.066 of a ratio is no evidence of "M1 keeps more energy") */
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_LEAST, 1.0015, 0.066, NULL).status == VERDICT_DIFFERS);
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_LEAST, 1.2, 0.066, NULL).status == VERDICT_OK);
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_LEAST, 1.066, 0.066, NULL).status == VERDICT_DIFFERS);
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_LEAST, 0.9, 0.066, NULL).status == VERDICT_DIFFERS);
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_MOST, 0.9, 0.066, NULL).status == VERDICT_OK);
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_MOST, 0.95, 0.066, NULL).status == VERDICT_DIFFERS);
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_LEAST, 1.2, NAN, NULL).status == VERDICT_FAIL);
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_LEAST, 1.2, -0.1, NULL).status == VERDICT_FAIL);
    ENSURE(verdict_bound_margin(1.0, BOUND_AT_LEAST, NAN, 0.066, NULL).status == VERDICT_FAIL);
    /* a fitted number: never ok */
    ENSURE(verdict_fitted(7.4292e-7, ONE_PERCENT, 7.4292e-7).status == VERDICT_FITTED);
    ENSURE(verdict_fitted(7.4292e-7, ONE_PERCENT, 8e-7).status == VERDICT_DIFFERS);
    ENSURE(verdict_fitted(7.4292e-7, ONE_PERCENT, NAN).status == VERDICT_FAIL);
    ENSURE(verdict_fitted(NAN, ONE_PERCENT, 1.0).status == VERDICT_FAIL);
    /* internal checks: ok or fail */
    ENSURE(verdict_check(2.0, ONE_PERCENT, 2.01).status == VERDICT_OK);
    ENSURE(verdict_check(2.0, ONE_PERCENT, 2.1).status == VERDICT_FAIL);
    ENSURE(verdict_check(2.0, ONE_PERCENT, NAN).status == VERDICT_FAIL);
}

/* the text the report wrote so far */
static void contents(FILE *f, char *buf, size_t size) {
    fflush(f);
    long n = ftell(f);
    rewind(f);
    size_t got = fread(buf, 1, n > 0 && (size_t)n < size ? (size_t)n : size - 1, f);
    buf[got] = '\0';
    fseek(f, 0, SEEK_END);
}

static void counting(void) {
    FILE *f = tmpfile();
    ENSURE(f != NULL);
    if (!f) return;
    report r;
    report_open_stream(&r, f);
    report_section(&r, 2, "A paper: section 1");
    report_paper(&r, "an agreeing number", "m", 1.0, ONE_PERCENT, 1.005, NULL, NULL);
    /* a crashed case's NaN, with a reading attached: fail */
    report_paper(&r, "a number from a crashed case", "m", 1.0, ONE_PERCENT, NAN, NULL, "some-reading");
    /* a reason whose prediction Talus misses */
    prediction from_paper = {PREDICTION_PAPER, 1.3, {0.005, 0}, "the table implies 1.3", "r"};
    report_paper(&r, "a missed explanation from the paper", "m", 1.0, ONE_PERCENT, 1.1, &from_paper, "r");
    prediction own = {PREDICTION_OWN, 1.3, {0.005, 0}, "the rounded constant gives 1.3", "r"};
    report_paper(&r, "a missed prediction of Talus's own", "m", 1.0, ONE_PERCENT, 1.1, &own, "r");
    report_paper(&r, "a hit prediction", "m", 1.0, ONE_PERCENT, 1.301, &own, "r");
    report_paper(&r, "a number the paper does not give", "m", NAN, ONE_PERCENT, 3.0, NULL, NULL);
    report_value(&r, "another of Talus's numbers", "m", 4.0);
    report_other_reading(&r, "the same paper number against another run", "m", 1.0, 1.5, "r");
    /* Talus against Talus: an internal check, counted apart */
    report_check(&r, "M3 against M1", "", 0.70, ONE_PERCENT, 0.58);
    report_check(&r, "1 mm/s against 10 mm/s", "", 1.40, (tolerance){0.1, 0}, 1.42);
    report_check_bound(&r, "the servo held its load", "", 0.05, BOUND_AT_MOST, 0.03);
    report_timing(&r, "a timing", "s", 1e-6, 3e-8);
    report_section(&r, 3, "a subsection");
    report_crash(&r, "a case");
    report_paper_fitted(&r, "a number the modulus was chosen for", "m", 2.0, ONE_PERCENT, 2.0,
                        "E chosen to give it", NULL);
    report_paper_bound_margin(&r, "a claim inside the scatter", "", 1.0, BOUND_AT_LEAST, 1.01, 0.05, NULL, NULL);
    report_paper_bound_margin(&r, "a claim beyond the scatter", "", 1.0, BOUND_AT_LEAST, 1.2, 0.05, NULL, NULL);

    const report_counts *n = &r.n;
    ENSURE(n->ok == 2);
    ENSURE(n->explained == 1);
    ENSURE(n->differs == 2);
    ENSURE(n->fitted == 1);
    ENSURE(n->failed == 2); /* the NaN and the missed own prediction */
    ENSURE(n->no_value == 2);
    ENSURE(n->other_readings == 1);
    ENSURE(n->checks_ok == 2);
    ENSURE(n->checks_failed == 1);
    ENSURE(n->timings == 1);
    ENSURE(n->crashed == 1);
    ENSURE(report_failures(&r) == 4);
    ENSURE(r.explained.n == 1 && r.differs.n == 2 && r.failed.n == 4 && r.fitted.n == 1);

    char line[512];
    report_summary_line(&r, line, sizeof line);
    /* a fitted number is not among the comparisons */
    ENSURE(strstr(line, "7 comparisons with the papers: 2 ok, 1 explained, 2 differ, 2 failed") != NULL);
    ENSURE(strstr(line, "3 internal checks: 2 ok, 1 failed") != NULL);
    report_summary(&r);
    static char text[65536];
    contents(f, text, sizeof text);
    /* every differing and failed row is listed by name in the summary */
    const char *summary = strstr(text, "## Summary");
    ENSURE(summary != NULL);
    if (summary) {
        ENSURE(strstr(summary, "a missed explanation from the paper") != NULL);
        ENSURE(strstr(summary, "a number from a crashed case") != NULL);
        ENSURE(strstr(summary, "a missed prediction of Talus's own") != NULL);
        ENSURE(strstr(summary, "internal check M3 against M1") != NULL);
        ENSURE(strstr(summary, "a case could not run") != NULL);
        ENSURE(strstr(summary, "A paper › a hit prediction") != NULL);
        ENSURE(strstr(summary, "an agreeing number") == NULL);
        ENSURE(strstr(summary, "a claim inside the scatter") != NULL);
        ENSURE(strstr(summary, "a claim beyond the scatter") == NULL);
        const char *fitted = strstr(summary, "### Fitted");
        ENSURE(fitted != NULL && strstr(fitted, "a number the modulus was chosen for") != NULL);
    }
    /* the internal checks and the timing are in tables of their own */
    const char *internal = strstr(text, "Internal checks");
    const char *timings = strstr(text, "Timings");
    ENSURE(internal != NULL && timings != NULL);
    if (internal) ENSURE(strstr(internal, "| M3 against M1 |") != NULL);
    if (internal) ENSURE(strstr(text, "| M3 against M1 |") > internal);
    ENSURE(report_close(&r));
    fclose(f);
}

int main(void) {
    verdicts();
    counting();
    return tl_test_report("test_report");
}
