#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- files ---- */

static bool make_dirs(const char *dir) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return false;
        *p = '/';
    }
    return mkdir(buf, 0777) == 0 || errno == EEXIST;
}

static void path_in(const report *r, const char *name, char *out, size_t size) {
    snprintf(out, size, "%s/%s", r->dir, name);
}

bool report_open(report *r, const char *dir, bool plots) {
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    r->plots = plots;
    if (!make_dirs(dir)) {
        fprintf(stderr, "talus validate: cannot create '%s': %s\n", dir, strerror(errno));
        return false;
    }
    char path[1100];
    path_in(r, "report.md.part", path, sizeof path);
    r->md = fopen(path, "w");
    if (!r->md) {
        fprintf(stderr, "talus validate: cannot write '%s': %s\n", path, strerror(errno));
        return false;
    }
    r->owns_md = true;
    return true;
}

void report_open_stream(report *r, FILE *f) {
    memset(r, 0, sizeof *r);
    r->md = f;
}

static bool commit(const char *part, const char *final) {
    return rename(part, final) == 0;
}

static void list_free(report_list *l) {
    for (int i = 0; i < l->n; i++) free(l->item[i]);
    free(l->item);
    memset(l, 0, sizeof *l);
}

void report_free(report *r) {
    list_free(&r->explained);
    list_free(&r->differs);
    list_free(&r->failed);
    list_free(&r->fitted);
}

bool report_close(report *r) {
    report_table_end(r);
    report_free(r);
    if (!r->owns_md) {
        r->md = NULL;
        return true;
    }
    char part[1100], final[1100];
    path_in(r, "report.md.part", part, sizeof part);
    path_in(r, "report.md", final, sizeof final);
    bool ok = fflush(r->md) == 0 && fsync(fileno(r->md)) == 0;
    ok = fclose(r->md) == 0 && ok;
    r->md = NULL;
    if (ok && commit(part, final)) {
        r->files++;
        return true;
    }
    unlink(part);
    return false;
}

void report_abort(report *r) {
    report_free(r);
    if (!r->md || !r->owns_md) {
        r->md = NULL;
        return;
    }
    fclose(r->md);
    r->md = NULL;
    char part[1100];
    path_in(r, "report.md.part", part, sizeof part);
    unlink(part);
}

void report_text(report *r, const char *fmt, ...) {
    report_table_end(r);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->md, fmt, ap);
    va_end(ap);
}

void report_section(report *r, int level, const char *fmt, ...) {
    report_table_end(r);
    char title[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(title, sizeof title, fmt, ap);
    va_end(ap);
    if (level <= 2) {
        snprintf(r->section, sizeof r->section, "%s", title);
        r->subsection[0] = '\0';
    } else {
        snprintf(r->subsection, sizeof r->subsection, "%s", title);
    }
    fprintf(r->md, "\n%s %s\n\n", level <= 2 ? "##" : "###", title);
}

#define READINGS_LINK "../../docs/readings.md"

static void reading_ref(char *buf, size_t size, const char *anchor) {
    if (anchor && *anchor)
        snprintf(buf, size, "[readings: %s](" READINGS_LINK "#%s)", anchor, anchor);
    else
        buf[0] = '\0';
}

void report_reading(report *r, const char *anchor, const char *fmt, ...) {
    report_table_end(r);
    char ref[256];
    reading_ref(ref, sizeof ref, anchor);
    fprintf(r->md, "\n*Reading* (%s): ", ref);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->md, fmt, ap);
    va_end(ap);
    fprintf(r->md, "\n");
}

/* ---- the summary lists ---- */

static void list_add(report_list *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void list_add(report_list *l, const char *fmt, ...) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **item = realloc(l->item, (size_t)cap * sizeof *item);
        if (!item) return;
        l->item = item;
        l->cap = cap;
    }
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = malloc(strlen(buf) + 1);
    if (!s) return;
    strcpy(s, buf);
    l->item[l->n++] = s;
}

/* "section › subsection" with the section cut at its first colon */
static void where(const report *r, char *buf, size_t size) {
    char sec[256];
    snprintf(sec, sizeof sec, "%s", r->section);
    char *colon = strchr(sec, ':');
    if (colon) *colon = '\0';
    if (r->subsection[0])
        snprintf(buf, size, "%s › %s", sec, r->subsection);
    else
        snprintf(buf, size, "%s", sec);
}

/* ---- tables ---- */

/* a table cell: '|' would end it */
static void cell_text(char *buf, size_t size, const char *s) {
    size_t n = 0;
    for (; s && *s && n + 3 < size; s++) {
        if (*s == '|') buf[n++] = '\\';
        buf[n++] = *s;
    }
    buf[n] = '\0';
}

void report_table_end(report *r) {
    if (r->table == REPORT_TABLE_NONE) return;
    fprintf(r->md, "\n");
    if (r->nreason > 0) {
        fprintf(r->md, "Tolerances:\n\n");
        for (int i = 0; i < r->nreason; i++) fprintf(r->md, "- *%s*: %s\n", r->reason[i].name, r->reason[i].text);
        fprintf(r->md, "\n");
    }
    r->nreason = 0;
    r->table = REPORT_TABLE_NONE;
}

void report_tolerance_reason(report *r, const char *name, const char *text) {
    snprintf(r->pending.name, sizeof r->pending.name, "%s", name);
    snprintf(r->pending.text, sizeof r->pending.text, "%s", text);
}

/* " [*name*]": the reason of the row being written (its table open), listed under the table
 * once; "" when the row has none. The pending reason is used up. */
static void take_reason(report *r, char *buf, size_t size) {
    buf[0] = '\0';
    if (!r->pending.name[0]) return;
    int i = 0;
    while (i < r->nreason && strcmp(r->reason[i].name, r->pending.name) != 0) i++;
    if (i == r->nreason && i < REPORT_MAX_REASONS) r->reason[r->nreason++] = r->pending;
    if (i < REPORT_MAX_REASONS) snprintf(buf, size, " [*%s*]", r->pending.name);
    else snprintf(buf, size, " [*%s*: %s]", r->pending.name, r->pending.text); /* no room under the table */
    r->pending.name[0] = '\0';
}

static void table_open(report *r, report_table kind) {
    if (r->table == kind) return;
    report_table_end(r);
    switch (kind) {
    case REPORT_TABLE_PAPER:
        fprintf(r->md, "\n| quantity | unit | paper | Talus | difference | status |\n"
                       "|---|---|---|---|---|---|\n");
        break;
    case REPORT_TABLE_INTERNAL:
        fprintf(r->md, "\nInternal checks (Talus against itself or a closed form; counted apart from the "
                       "comparisons with the papers):\n\n"
                       "| check | unit | expected | Talus | difference | status |\n"
                       "|---|---|---|---|---|---|\n");
        break;
    case REPORT_TABLE_TIMING:
        fprintf(r->md, "\nTimings (they depend on the machine: reported, not tested):\n\n"
                       "| timing | unit | paper | Talus | Talus / paper |\n|---|---|---|---|---|\n");
        break;
    case REPORT_TABLE_NONE: break;
    }
    r->table = kind;
}

static void number(char *buf, size_t size, double v) {
    if (isnan(v)) snprintf(buf, size, "–");
    else snprintf(buf, size, "%.6g", v);
}

/* Talus's value: a NaN or infinity is shown as such */
static void result(char *buf, size_t size, double v) {
    if (isfinite(v)) snprintf(buf, size, "%.6g", v);
    else snprintf(buf, size, "%s", isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf");
}

static void difference(char *buf, size_t size, double ref, double v) {
    if (isnan(ref) || !isfinite(v)) {
        snprintf(buf, size, "–");
        return;
    }
    double diff = v - ref;
    if (ref != 0.0) snprintf(buf, size, "%+.3g (%+.3g%%)", diff, 100.0 * diff / fabs(ref));
    else snprintf(buf, size, "%+.3g", diff);
}

/* the tolerance's width and the name of its reason (its table open) */
static void tol_text(report *r, char *buf, size_t size, tolerance t) {
    char why[720];
    take_reason(r, why, sizeof why);
    if (t.rel > 0.0) snprintf(buf, size, "%.3g%%%s", 100.0 * t.rel, why);
    else snprintf(buf, size, "%.3g%s", t.abs, why);
}

/* "predicted X ± w (how)" */
static void prediction_text(char *buf, size_t size, const prediction *p) {
    char v[64], w[64];
    number(v, sizeof v, p->value);
    number(w, sizeof w, tolerance_width(p->tol, p->value));
    snprintf(buf, size, "%s: predicted %s ± %s", p->how ? p->how : "(no derivation)", v, w);
}

/* the status cell of a paper row and its entry in the summary lists */
/* tol: the tolerance as text, or NULL for a bound */
static void paper_status(report *r, const char *quantity, const char *pstr, const char *tstr,
                         const char *dstr, verdict v, const char *tol, const prediction *p,
                         const char *reading, char *cell, size_t size) {
    char okstr[900], missstr[900];
    snprintf(okstr, sizeof okstr, "%s%s", tol ? "within " : "the bound holds", tol ? tol : "");
    snprintf(missstr, sizeof missstr, "%s%s", tol ? "outside " : "the bound does not hold", tol ? tol : "");
    char ref[256], pred[1024] = "", loc[600];
    reading_ref(ref, sizeof ref, p && p->reading ? p->reading : reading);
    if (p && p->source != PREDICTION_NONE) prediction_text(pred, sizeof pred, p);
    where(r, loc, sizeof loc);
    switch (v.status) {
    case VERDICT_OK:
        snprintf(cell, size, "ok (%s)", okstr);
        r->n.ok++;
        break;
    case VERDICT_EXPLAINED:
        snprintf(cell, size, "**explained** (%s), Talus hits it; %s", pred, ref);
        r->n.explained++;
        list_add(&r->explained, "%s › %s: paper %s, Talus %s; %s %s", loc, quantity, pstr, tstr, pred, ref);
        break;
    case VERDICT_DIFFERS:
        if (pred[0])
            snprintf(cell, size, "**differs** (%s; %s: %s) %s", missstr, v.why, pred, ref);
        else
            snprintf(cell, size, "**differs** (%s; %s) %s", missstr, v.why, ref);
        r->n.differs++;
        list_add(&r->differs, "%s › %s: paper %s, Talus %s, %s %s", loc, quantity, pstr, tstr, dstr, ref);
        break;
    case VERDICT_FAIL:
        snprintf(cell, size, "**FAIL** (%s%s%s)", v.why, pred[0] ? "; " : "", pred);
        r->n.failed++;
        list_add(&r->failed, "%s › %s: paper %s, Talus %s (%s)", loc, quantity, pstr, tstr, v.why);
        fprintf(stderr, "talus validate: FAIL: %s: paper %s, Talus %s (%s)\n", quantity, pstr, tstr, v.why);
        break;
    case VERDICT_NO_VALUE:
        snprintf(cell, size, "– (no value in the text)");
        r->n.no_value++;
        break;
    case VERDICT_FITTED: /* compare_row writes the cell, with what was fitted */
        cell[0] = '\0';
        r->n.fitted++;
        list_add(&r->fitted, "%s › %s: paper %s, Talus %s", loc, quantity, pstr, tstr);
        break;
    }
}

/* a row of the papers' table: quantity, unit, the paper's value, Talus's, the difference, the status */
static void paper_row(report *r, const char *quantity, const char *unit, const char *p, const char *t,
                      const char *d, const char *cell) {
    char q[512], c[3100];
    cell_text(q, sizeof q, quantity);
    cell_text(c, sizeof c, cell);
    fprintf(r->md, "| %s | %s | %s | %s | %s | %s |\n", q, unit, p, t, d, c);
}

/* A row against a number the paper states: the paper's value, Talus's, the difference and the
 * status of v (fitted_by: the fitted status's cell says what was fitted) */
static void compare_row(report *r, const char *quantity, const char *unit, double paper, tolerance tol,
                        double talus, verdict v, const prediction *explain, const char *reading,
                        const char *fitted_by) {
    table_open(r, REPORT_TABLE_PAPER);
    char p[64], t[64], d[96], ts[800], cell[3000];
    number(p, sizeof p, paper);
    result(t, sizeof t, talus);
    difference(d, sizeof d, paper, talus);
    tol_text(r, ts, sizeof ts, tol);
    paper_status(r, quantity, p, t, d, v, ts, explain, reading, cell, sizeof cell);
    if (v.status == VERDICT_FITTED) {
        char ref[256];
        reading_ref(ref, sizeof ref, reading);
        snprintf(cell, sizeof cell, "fitted (within %s; %s: not counted as agreement) %s", ts,
                 fitted_by ? fitted_by : "a parameter chosen to reproduce it", ref);
    }
    paper_row(r, quantity, unit, p, t, d, cell);
}

void report_paper(report *r, const char *quantity, const char *unit, double paper, tolerance tol,
                  double talus, const prediction *explain, const char *reading) {
    compare_row(r, quantity, unit, paper, tol, talus, verdict_compare(paper, tol, talus, explain), explain, reading,
                NULL);
}

void report_paper_bound(report *r, const char *quantity, const char *unit, double bound,
                        bound_sense sense, double talus, const prediction *explain,
                        const char *reading) {
    table_open(r, REPORT_TABLE_PAPER);
    char p[64], t[64], cell[3000];
    snprintf(p, sizeof p, "%s %.6g", sense == BOUND_AT_MOST ? "≤" : "≥", bound);
    result(t, sizeof t, talus);
    verdict v = verdict_bound(bound, sense, talus, explain);
    paper_status(r, quantity, p, t, "–", v, NULL, explain, reading, cell, sizeof cell);
    paper_row(r, quantity, unit, p, t, "–", cell);
}

void report_paper_bound_margin(report *r, const char *quantity, const char *unit, double bound,
                               bound_sense sense, double talus, double margin, const prediction *explain,
                               const char *reading) {
    table_open(r, REPORT_TABLE_PAPER);
    char p[96], t[64], cell[3000];
    snprintf(p, sizeof p, "%s %.6g beyond the scatter %.3g", sense == BOUND_AT_MOST ? "≤" : "≥", bound, margin);
    result(t, sizeof t, talus);
    verdict v = verdict_bound_margin(bound, sense, talus, margin, explain);
    paper_status(r, quantity, p, t, "–", v, NULL, explain, reading, cell, sizeof cell);
    paper_row(r, quantity, unit, p, t, "–", cell);
}

void report_paper_fitted(report *r, const char *quantity, const char *unit, double paper, tolerance tol,
                         double talus, const char *fitted_by, const char *reading) {
    compare_row(r, quantity, unit, paper, tol, talus, verdict_fitted(paper, tol, talus), NULL, reading, fitted_by);
}

void report_value(report *r, const char *quantity, const char *unit, double talus) {
    report_paper(r, quantity, unit, NAN, (tolerance){0, 0}, talus, NULL, NULL);
}

void report_other_reading(report *r, const char *quantity, const char *unit, double paper,
                          double talus, const char *reading) {
    table_open(r, REPORT_TABLE_PAPER);
    char p[64], t[64], d[96], ref[256];
    number(p, sizeof p, paper);
    result(t, sizeof t, talus);
    difference(d, sizeof d, paper, talus);
    reading_ref(ref, sizeof ref, reading);
    char q[512];
    cell_text(q, sizeof q, quantity);
    fprintf(r->md, "| %s | %s | %s | %s | %s | another reading: shown, not counted; %s |\n", q, unit, p, t, d,
            ref);
    r->n.other_readings++;
}

static void check_row(report *r, const char *quantity, const char *unit, const char *expected,
                      double talus, const char *diff, verdict v, const char *tolstr) {
    table_open(r, REPORT_TABLE_INTERNAL);
    char t[64], loc[600], q[512];
    result(t, sizeof t, talus);
    cell_text(q, sizeof q, quantity);
    if (v.status == VERDICT_OK) {
        r->n.checks_ok++;
        fprintf(r->md, "| %s | %s | %s | %s | %s | ok (%s) |\n", q, unit, expected, t, diff, tolstr);
    } else {
        r->n.checks_failed++;
        where(r, loc, sizeof loc);
        list_add(&r->failed, "%s › internal check %s: expected %s, Talus %s (%s)", loc, quantity, expected, t,
                 v.why);
        fprintf(stderr, "talus validate: FAIL: %s: expected %s, Talus %s (%s)\n", quantity, expected, t, v.why);
        fprintf(r->md, "| %s | %s | %s | %s | %s | **FAIL** (%s) |\n", q, unit, expected, t, diff, v.why);
    }
}

void report_check(report *r, const char *quantity, const char *unit, double expected,
                  tolerance tol, double talus) {
    char e[64], d[96], ts[800], tolstr[820];
    number(e, sizeof e, expected);
    difference(d, sizeof d, expected, talus);
    table_open(r, REPORT_TABLE_INTERNAL);
    tol_text(r, ts, sizeof ts, tol);
    snprintf(tolstr, sizeof tolstr, "within %s", ts);
    check_row(r, quantity, unit, e, talus, d, verdict_check(expected, tol, talus), tolstr);
}

void report_check_bound(report *r, const char *quantity, const char *unit, double bound,
                        bound_sense sense, double talus) {
    char e[64];
    snprintf(e, sizeof e, "%s %.6g", sense == BOUND_AT_MOST ? "≤" : "≥", bound);
    verdict v = {VERDICT_OK, NULL};
    if (!isfinite(talus)) v = (verdict){VERDICT_FAIL, "not a finite number"};
    else if (!(sense == BOUND_AT_MOST ? talus <= bound : talus >= bound))
        v = (verdict){VERDICT_FAIL, "the bound does not hold"};
    table_open(r, REPORT_TABLE_INTERNAL);
    char why[720], holds[760];
    take_reason(r, why, sizeof why);
    snprintf(holds, sizeof holds, "the bound holds%s", why);
    check_row(r, quantity, unit, e, talus, "–", v, holds);
}

void report_timing(report *r, const char *quantity, const char *unit, double paper, double talus) {
    table_open(r, REPORT_TABLE_TIMING);
    char p[64], t[64], q[64];
    number(p, sizeof p, paper);
    result(t, sizeof t, talus);
    number(q, sizeof q, isnan(paper) || paper == 0.0 ? NAN : talus / paper);
    char qt[512];
    cell_text(qt, sizeof qt, quantity);
    fprintf(r->md, "| %s | %s | %s | %s | %s |\n", qt, unit, p, t, q);
    r->n.timings++;
}

void report_crash(report *r, const char *what) {
    char loc[600];
    where(r, loc, sizeof loc);
    r->n.crashed++;
    list_add(&r->failed, "%s: %s could not run", loc, what);
    fprintf(stderr, "talus validate: FAIL: %s could not run\n", what);
    report_text(r, "\n**FAIL**: %s could not run.\n", what);
}

int report_failures(const report *r) { return r->n.failed + r->n.checks_failed + r->n.crashed; }

/* ---- the summary ---- */

void report_summary_line(const report *r, char *buf, size_t size) {
    const report_counts *n = &r->n;
    snprintf(buf, size,
             "%d comparisons with the papers: %d ok, %d explained, %d differ, %d failed; "
             "%d internal checks: %d ok, %d failed%s",
             n->ok + n->explained + n->differs + n->failed, n->ok, n->explained, n->differs, n->failed,
             n->checks_ok + n->checks_failed, n->checks_ok, n->checks_failed,
             n->crashed ? "; cases that could not run: " : "");
    if (n->crashed) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%d", n->crashed);
    }
}

static void summary_list(report *r, const char *title, const report_list *l) {
    fprintf(r->md, "\n### %s (%d)\n\n", title, l->n);
    if (l->n == 0) fprintf(r->md, "None.\n");
    for (int i = 0; i < l->n; i++) fprintf(r->md, "- %s\n", l->item[i]);
}

void report_summary(report *r) {
    report_table_end(r);
    char line[512];
    report_summary_line(r, line, sizeof line);
    fprintf(r->md,
            "\n## Summary\n\n%s.\n\nShown, not counted: %d values the papers do not state, %d other "
            "readings of ambiguous numbers, %d timings%s.\n",
            line, r->n.no_value, r->n.other_readings, r->n.timings, r->n.fitted ? ", the fitted numbers below" : "");
    summary_list(r, "Explained, each by a prediction the report computes and checks", &r->explained);
    summary_list(r, "Differs: mismatches with the papers that no check explains", &r->differs);
    summary_list(r, "Failed", &r->failed);
    if (r->n.fitted) summary_list(r, "Fitted: numbers a parameter was chosen to reproduce (not agreement)", &r->fitted);
}

/* ---- data files and figures ---- */

FILE *report_data_open(report *r, const char *name) {
    if (!r->owns_md) return NULL; /* a report on a stream has no directory */
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.part", r->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "talus validate: cannot write '%s': %s\n", path, strerror(errno));
    return f;
}

bool report_data_close(report *r, FILE *f, const char *name) {
    char part[1400], final[1400];
    snprintf(part, sizeof part, "%s/%s.part", r->dir, name);
    snprintf(final, sizeof final, "%s/%s", r->dir, name);
    bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    if (ok && commit(part, final)) {
        r->files++;
        return true;
    }
    unlink(part);
    return false;
}

static bool have_gnuplot(void) {
    int s = system("gnuplot --version > /dev/null 2>&1");
    return s != -1 && WIFEXITED(s) && WEXITSTATUS(s) == 0;
}

void report_figure(report *r, const char *png, const char *title, const char *xlabel,
                   const char *ylabel, const char *extra, const char *plot) {
    if (!r->plots) return;
    if (!r->gnuplot_missing && !have_gnuplot()) {
        r->gnuplot_missing = true;
        fprintf(stderr, "talus validate: gnuplot is not installed (apt-get install gnuplot-nox): "
                        "no figures\n");
    }
    if (r->gnuplot_missing) {
        report_text(r, "\n*(figure %s not drawn: gnuplot is not installed)*\n\n", png);
        return;
    }
    char gp[128];
    snprintf(gp, sizeof gp, "%.120s.gp", png);
    FILE *f = report_data_open(r, gp);
    if (!f) return;
    fprintf(f,
            "set terminal pngcairo size 900,600 noenhanced\n"
            "set output '%s.part'\n"
            "set title \"%s\"\nset xlabel \"%s\"\nset ylabel \"%s\"\n"
            "set grid\nset key outside right\n%s\nplot %s\n",
            png, title, xlabel, ylabel, extra ? extra : "", plot);
    if (!report_data_close(r, f, gp)) return;
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot '%s' > /dev/null 2>&1", r->dir, gp);
    int s = system(cmd);
    char part[1100], final[1100];
    snprintf(part, sizeof part, "%s/%s.part", r->dir, png);
    snprintf(final, sizeof final, "%s/%s", r->dir, png);
    if (s != -1 && WIFEXITED(s) && WEXITSTATUS(s) == 0 && commit(part, final)) {
        r->files++;
        report_text(r, "\n![%s](%s)\n\n", title, png);
    } else {
        unlink(part);
        report_text(r, "\n*(figure %s could not be drawn)*\n\n", png);
    }
}

void report_picture_embed(report *r, const char *png, const char *title) {
    if (!r->owns_md || !r->plots) return;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", r->dir, png);
    struct stat sb;
    if (stat(path, &sb) == 0) {
        r->files++;
        report_text(r, "\n![%s](%s)\n\n", title, png);
    } else {
        report_text(r, "\n*(picture %s not drawn)*\n\n", png);
    }
}
