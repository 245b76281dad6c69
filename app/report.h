/* The validation report: rows that compare Talus with the papers (status decided by
 * verdict.c from numbers only), internal checks, timings, a Markdown report with a
 * summary that lists every explained, differing and failed row, data files and gnuplot
 * figures, all written through temporary names. */
#ifndef TALUS_APP_REPORT_H
#define TALUS_APP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "reference.h"
#include "verdict.h"

typedef enum report_table {
    REPORT_TABLE_NONE,
    REPORT_TABLE_PAPER,    /* comparisons with the papers: counted */
    REPORT_TABLE_INTERNAL, /* Talus against itself or a closed form: counted apart */
    REPORT_TABLE_TIMING    /* machine-dependent: shown, never counted */
} report_table;

typedef struct report_counts {
    /* comparisons with the papers */
    int ok, explained, differs, failed;
    /* internal checks */
    int checks_ok, checks_failed;
    /* shown, not counted */
    int no_value, other_readings, timings;
    int fitted; /* numbers a parameter of the case was chosen to reproduce (verdict_fitted) */
    /* cases that could not run (counted as failed) */
    int crashed;
} report_counts;

typedef struct report_list {
    char **item;
    int n, cap;
} report_list;

/* the reason of a tolerance, shown by name in its row and in full under its table */
typedef struct report_reason {
    char name[48];
    char text[640];
} report_reason;

enum { REPORT_MAX_REASONS = 16 };

typedef struct report {
    char dir[1024];
    FILE *md; /* report.md.part (or any stream, see report_open_stream) */
    bool owns_md;
    bool plots;
    bool gnuplot_missing;
    int files; /* written */
    report_counts n;
    report_table table; /* the table now open */
    char section[256], subsection[256];
    report_list explained, differs, failed, fitted; /* for the summary */
    report_reason reason[REPORT_MAX_REASONS];     /* the reasons of the open table's tolerances */
    int nreason;
    report_reason pending; /* the next row's (report_tolerance_reason); name "" when none */
} report;

bool report_open(report *r, const char *dir, bool plots);
/* A report written to an open stream (no files, no figures): for tests. */
void report_open_stream(report *r, FILE *f);
/* Commits report.md (renames it into place) and closes. */
bool report_close(report *r);
void report_abort(report *r);
/* Frees the summary lists (report_close and report_abort do it too). */
void report_free(report *r);

/* The reason of the next row's tolerance (its width, or the bound of an internal check):
 * the row names it, and its text is written once under the table (the rule: every tolerance
 * has a stated reason, docs/validation.md). */
void report_tolerance_reason(report *r, const char *name, const char *text);

/* Text; it ends any open table. */
void report_text(report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A heading (level 2 or 3) that the summary names its rows by. */
void report_section(report *r, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A paragraph that shows a reading's arithmetic, computed here, with its section of
 * docs/readings.md. */
void report_reading(report *r, const char *anchor, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- rows; each opens a table of its kind if needed ---- */

/* A number the paper states against Talus's. The status comes from verdict_compare:
 * `explain` (or NULL) is the computed prediction that may explain a difference;
 * `reading` (or NULL) is the section of docs/readings.md that discusses the row, shown
 * when it is not ok (it does not change the status). paper = NAN: the text gives no
 * number; the row is shown, not counted. */
void report_paper(report *r, const char *quantity, const char *unit, double paper, tolerance tol,
                  double talus, const prediction *explain, const char *reading);
/* A bound the paper states (Talus's value at most / at least `bound`). */
void report_paper_bound(report *r, const char *quantity, const char *unit, double bound,
                        bound_sense sense, double talus, const prediction *explain,
                        const char *reading);
/* A directional claim of the paper against Talus's value whose scatter is `margin`
 * (verdict_bound_margin): ok only beyond the bound by more than the margin. */
void report_paper_bound_margin(report *r, const char *quantity, const char *unit, double bound,
                               bound_sense sense, double talus, double margin, const prediction *explain,
                               const char *reading);
/* A number a parameter of the case was chosen to reproduce (`fitted_by` says which and how):
 * shown as fitted, never counted as agreement (verdict_fitted). */
void report_paper_fitted(report *r, const char *quantity, const char *unit, double paper, tolerance tol,
                         double talus, const char *fitted_by, const char *reading);
/* Talus's value where the paper gives none. Shown, not counted. */
void report_value(report *r, const char *quantity, const char *unit, double talus);
/* A paper number against a run the report does not use for it (another reading of an
 * ambiguous text, named by its section of docs/readings.md). Shown, not counted. */
void report_other_reading(report *r, const char *quantity, const char *unit, double paper,
                          double talus, const char *reading);
/* An internal check: ok or fail. */
void report_check(report *r, const char *quantity, const char *unit, double expected,
                  tolerance tol, double talus);
void report_check_bound(report *r, const char *quantity, const char *unit, double bound,
                        bound_sense sense, double talus);
/* A timing, with the paper's where it gives one (NAN if not). Shown, not counted. */
void report_timing(report *r, const char *quantity, const char *unit, double paper, double talus);
/* A case that could not run: counted as failed. */
void report_crash(report *r, const char *what);
/* Ends the open table. */
void report_table_end(report *r);

/* The summary line ("N comparisons with the papers: ...") into buf. */
void report_summary_line(const report *r, char *buf, size_t size);
/* The summary section: counts and the lists of explained, differing and failed rows. */
void report_summary(report *r);
/* Rows that fail the run: failed comparisons, failed checks and crashed cases. */
int report_failures(const report *r);

/* A data file next to the report (atomic); returns the FILE to write, NULL on error. */
FILE *report_data_open(report *r, const char *name);
bool report_data_close(report *r, FILE *f, const char *name);

/* A figure drawn by gnuplot from data files of the report directory and
 * embedded in the report. `plot` is the body of a gnuplot plot command
 * (e.g. "'loop.dat' u 1:2 w l t 'hertz'"). Without gnuplot, a note replaces it. */
void report_figure(report *r, const char *png, const char *title, const char *xlabel,
                   const char *ylabel, const char *extra, const char *plot);

/* Embeds a picture report_picture (validate.h) drew (in this run, or in an earlier piece of it), or says that
 * it is missing. */
void report_picture_embed(report *r, const char *png, const char *title);

#endif
