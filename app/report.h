/* The validation report: reference data (validation/ CSV files, built in),
 * comparisons paper vs Talus with a status, a Markdown report, data files
 * and gnuplot figures, all written through temporary names. */
#ifndef TALUS_APP_REPORT_H
#define TALUS_APP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- reference tables ---- */

#define REF_MAX_COLS 24
#define REF_MAX_ROWS 64

typedef struct ref_table {
    char name[64];
    int ncols, nrows;
    char *header[REF_MAX_COLS];
    char *cell[REF_MAX_ROWS][REF_MAX_COLS];
    char *text; /* owned copy the cells point into */
} ref_table;

/* Loads a built-in CSV ('#' lines are comments; fields may be "quoted").
 * Returns false (and prints why) when missing or malformed. */
bool ref_load(ref_table *t, const char *name);
void ref_free(ref_table *t);
int ref_col(const ref_table *t, const char *column);          /* -1 if absent */
const char *ref_str(const ref_table *t, int row, const char *column);
double ref_num(const ref_table *t, int row, const char *column); /* NAN if absent or "nan" */

/* ---- the report ---- */

typedef struct report {
    char dir[1024];
    FILE *md;          /* report.md.part */
    int ok, explained, failed;
    bool plots;        /* draw figures (gnuplot) */
    bool gnuplot_missing;
    int files;         /* written */
} report;

bool report_open(report *r, const char *dir, bool plots);
/* Commits report.md (renames it into place) and closes. */
bool report_close(report *r);
void report_abort(report *r);

void report_text(report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A comparison table: begin, rows, end. */
void report_compare_begin(report *r);
/* One quantity: the paper's value, Talus's, the allowed relative difference
 * (tol_rel) or absolute one (tol_abs, when tol_rel is 0), and the reason to
 * give if the difference exceeds it (NULL: none known, the row fails).
 * paper may be NAN (no value in the text): the row only reports Talus's. */
void report_compare(report *r, const char *quantity, const char *unit, double paper, double talus,
                    double tol_rel, double tol_abs, const char *reason);
/* A bound the paper states (value <= bound): ok, or explained by reason (NULL: fails). */
void report_bound(report *r, const char *quantity, const char *unit, double bound, double talus,
                  const char *reason);
void report_compare_end(report *r);

/* A data file next to the report (atomic); returns the FILE to write, NULL on error. */
FILE *report_data_open(report *r, const char *name);
bool report_data_close(report *r, FILE *f, const char *name);

/* A figure drawn by gnuplot from data files of the report directory and
 * embedded in the report. `plot` is the body of a gnuplot plot command
 * (e.g. "'loop.dat' u 1:2 w l t 'hertz'"). Without gnuplot, a note replaces it. */
void report_figure(report *r, const char *png, const char *title, const char *xlabel,
                   const char *ylabel, const char *extra, const char *plot);

#endif
