#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "validation_data.h"

/* ---- reference tables ---- */

static char *split_field(char **p) {
    char *s = *p;
    if (*s == '"') {
        char *q = ++s;
        while (*q && *q != '"') q++;
        if (*q == '"') *q++ = '\0';
        *p = (*q == ',') ? q + 1 : q;
        return s;
    }
    char *c = strchr(s, ',');
    if (c) {
        *c = '\0';
        *p = c + 1;
    } else {
        *p = s + strlen(s);
    }
    return s;
}

bool ref_load(ref_table *t, const char *name) {
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    const app_data_file *f = talus_validation_files;
    while (f->name && strcmp(f->name, name) != 0) f++;
    if (!f->name) {
        fprintf(stderr, "talus validate: no built-in reference data '%s'\n", name);
        return false;
    }
    t->text = malloc(f->size + 1);
    if (!t->text) return false;
    memcpy(t->text, f->data, f->size);
    t->text[f->size] = '\0';
    char *save = NULL;
    bool header = true;
    for (char *line = strtok_r(t->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || line[0] == '\0') continue;
        char *p = line;
        int n = 0;
        char **dst = header ? t->header : t->cell[t->nrows];
        while (*p && n < REF_MAX_COLS) dst[n++] = split_field(&p);
        if (header) {
            t->ncols = n;
            header = false;
        } else if (t->nrows < REF_MAX_ROWS - 1) {
            for (int k = n; k < t->ncols; k++) dst[k] = "";
            t->nrows++;
        }
    }
    return t->ncols > 0;
}

void ref_free(ref_table *t) {
    free(t->text);
    memset(t, 0, sizeof *t);
}

int ref_col(const ref_table *t, const char *column) {
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->header[c], column) == 0) return c;
    return -1;
}

const char *ref_str(const ref_table *t, int row, const char *column) {
    int c = ref_col(t, column);
    if (c < 0 || row < 0 || row >= t->nrows) return "";
    return t->cell[row][c];
}

double ref_num(const ref_table *t, int row, const char *column) {
    const char *s = ref_str(t, row, column);
    if (!*s || strcmp(s, "nan") == 0) return NAN;
    char *end;
    double v = strtod(s, &end);
    return end == s ? NAN : v;
}

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
    return true;
}

static bool commit(const char *part, const char *final) {
    return rename(part, final) == 0;
}

bool report_close(report *r) {
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
    if (!r->md) return;
    fclose(r->md);
    r->md = NULL;
    char part[1100];
    path_in(r, "report.md.part", part, sizeof part);
    unlink(part);
}

void report_text(report *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->md, fmt, ap);
    va_end(ap);
}

/* ---- comparisons ---- */

void report_compare_begin(report *r) {
    report_text(r, "\n| quantity | unit | paper | Talus | difference | status |\n"
                   "|---|---|---|---|---|---|\n");
}

static void number(char *buf, size_t size, double v) {
    if (isnan(v)) snprintf(buf, size, "–");
    else snprintf(buf, size, "%.6g", v);
}

void report_compare(report *r, const char *quantity, const char *unit, double paper, double talus,
                    double tol_rel, double tol_abs, const char *reason) {
    char p[64], t[64], d[96], status[512];
    number(p, sizeof p, paper);
    number(t, sizeof t, talus);
    if (isnan(paper)) {
        snprintf(d, sizeof d, "–");
        snprintf(status, sizeof status, "%s", reason && *reason ? reason : "not in the text");
        r->ok++;
    } else {
        double diff = talus - paper;
        double rel = paper != 0.0 ? diff / fabs(paper) : NAN;
        if (paper != 0.0) snprintf(d, sizeof d, "%+.3g (%+.3g%%)", diff, 100.0 * rel);
        else snprintf(d, sizeof d, "%+.3g", diff);
        bool within = tol_rel > 0.0 ? fabs(diff) <= tol_rel * fabs(paper) : fabs(diff) <= tol_abs;
        if (!isfinite(talus)) within = false;
        if (within) {
            snprintf(status, sizeof status, "ok (within %s%.3g%s)", tol_rel > 0.0 ? "" : "",
                     tol_rel > 0.0 ? 100.0 * tol_rel : tol_abs, tol_rel > 0.0 ? "%" : "");
            r->ok++;
        } else if (reason && *reason) {
            snprintf(status, sizeof status, "explained: %s", reason);
            r->explained++;
        } else {
            snprintf(status, sizeof status, "**FAIL** (tolerance %.3g%s)",
                     tol_rel > 0.0 ? 100.0 * tol_rel : tol_abs, tol_rel > 0.0 ? "%" : "");
            r->failed++;
            fprintf(stderr, "talus validate: FAIL: %s: paper %s, Talus %s\n", quantity, p, t);
        }
    }
    report_text(r, "| %s | %s | %s | %s | %s | %s |\n", quantity, unit, p, t, d, status);
}

void report_bound(report *r, const char *quantity, const char *unit, double bound, double talus,
                  const char *reason) {
    char p[64], t[64], status[512];
    snprintf(p, sizeof p, "≤ %.6g", bound);
    number(t, sizeof t, talus);
    if (talus <= bound) {
        snprintf(status, sizeof status, "ok");
        r->ok++;
    } else if (reason && *reason) {
        snprintf(status, sizeof status, "explained: %s", reason);
        r->explained++;
    } else {
        snprintf(status, sizeof status, "**FAIL**");
        r->failed++;
        fprintf(stderr, "talus validate: FAIL: %s: bound %s, Talus %s\n", quantity, p, t);
    }
    report_text(r, "| %s | %s | %s | %s | – | %s |\n", quantity, unit, p, t, status);
}

void report_compare_end(report *r) { report_text(r, "\n"); }

/* ---- data files and figures ---- */

FILE *report_data_open(report *r, const char *name) {
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
