/*
 * Plot output: at the end of a successful run, a gnuplot script is written
 * next to the PNG (<png>.gp) and gnuplot draws the CSV it names into the PNG
 * (through "<png>.part", renamed when complete). The script draws into
 * `outfile` when that variable is set (-e "outfile='...'"), else into the
 * PNG, so that running it again by hand in the output folder redraws it.
 *
 * An energy output is drawn as one line per energy term plus the total
 * against time; any other CSV output as points of each value column against
 * time (t_end for collisions). Without gnuplot the run still succeeds: a
 * warning names the package to install, and the script stays.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_columns.h"
#include "output_kind.h"
#include "output_plot.h"
#include "outputs.h"


/* the CSV output it draws (plot_options: -1, the first energy output) */
static int plot_of(const tl_output *o) {
    const tl_plot_options *po = o->spec->opts;
    return po ? po->of : -1;
}

static const tl_output *plot_source(const tl_output *o) {
    const tl_output_context *c = o->ctx;
    int of = plot_of(o);
    if (of >= 0) return (size_t)of < c->noutputs ? &c->outputs[of] : NULL;
    for (size_t k = 0; k < c->noutputs; k++)
        if (c->outputs[k].spec->kind == TL_OUTPUT_ENERGY) return &c->outputs[k];
    return NULL;
}

static tl_status plot_open(tl_output *o) {
    const tl_output *src = plot_source(o);
    if (!src) {
        if (plot_of(o) >= 0)
            snprintf(o->ctx->err, o->ctx->errsize, "plot '%s': output %d does not exist",
                     o->spec->file, plot_of(o));
        else
            snprintf(o->ctx->err, o->ctx->errsize, "plot '%s': there is no energy output to draw",
                     o->spec->file);
        return TL_ERROR_ARGUMENT;
    }
    tl_output_kind k = src->spec->kind;
    if (k == TL_OUTPUT_VTK || k == TL_OUTPUT_PLOT) {
        snprintf(o->ctx->err, o->ctx->errsize, "plot '%s': output %d ('%s') is not a CSV output",
                 o->spec->file, src->index, src->spec->file);
        return TL_ERROR_ARGUMENT;
    }
    tl_status st = tl_file_can_replace(o->path, o->ctx->err, o->ctx->errsize);
    return st == TL_OK ? tl_mkdir_parent(o->path, o->ctx->err, o->ctx->errsize) : st;
}

/* ---- the script ---- */

/* s in a gnuplot single-quoted string ('' stands for ') */
static void put_quoted(FILE *fp, const char *s) {
    fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', fp);
        fputc(*s, fp);
    }
    fputc('\'', fp);
}

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The CSV's name as seen from the folder of the PNG: both are relative to the
 * output directory, so one "../" per folder in the PNG's name. */
static char *data_name(const tl_output *o, const tl_output *src) {
    size_t up = 0;
    for (const char *s = o->spec->file; *s; s++)
        if (*s == '/') up++;
    size_t n = strlen(src->spec->file);
    char *r = malloc(3 * up + n + 1);
    if (!r) return NULL;
    char *d = r;
    for (size_t k = 0; k < up; k++, d += 3) memcpy(d, "../", 3);
    memcpy(d, src->spec->file, n + 1);
    return r;
}

static int column_index(const char **names, size_t n, const char *name) {
    for (size_t k = 0; k < n; k++)
        if (strcmp(names[k], name) == 0) return (int)k + 1;
    return 0;
}

static void put_script(FILE *fp, const tl_output *o, const tl_output *src, const char *data) {
    const char *title = o->ctx->title ? o->ctx->title : "talus";
    fprintf(fp, "# Talus: %s of the scene '%s', drawn from %s\n", src->ops->name, title,
            src->spec->file);
    fprintf(fp, "# To draw it again, run in this folder: gnuplot %s.gp\n", base_name(o->path));
    fputs("if (!exists(\"outfile\")) outfile = ", fp);
    put_quoted(fp, base_name(o->path));
    fputs("\nset terminal pngcairo size 1280,800 noenhanced font ',11'\n"
          "set output outfile\n"
          "set datafile separator ','\n"
          "set key outside right top\n"
          "set grid\n"
          "set autoscale xfix\n",
          fp);
    fputs("set title ", fp);
    char *t = tl_strdup_printf("%s: %s", title, src->ops->name);
    put_quoted(fp, t ? t : title);
    free(t);
    fputc('\n', fp);
    if (src->spec->kind == TL_OUTPUT_ENERGY) {
        fputs("set xlabel 'time (s)'\nset ylabel 'energy (J)'\nplot \\\n", fp);
        /* each term of the ledger (laws/energy_table.c: column 3 on, its label and colour), then
         * the total, drawn thicker */
        for (int k = 0; k <= TL_ENERGY_TERM_COUNT; k++) {
            const tl_energy_term_info *ti = tl_energy_term_get(k);
            fputs("  ", fp);
            put_quoted(fp, data);
            fprintf(fp, " using 1:%d skip 1 with lines lw %d lc rgb '%s' title '%s'%s\n", k + 3, ti ? 2 : 3,
                    ti ? ti->colour : "#000000", ti ? ti->label : "total", ti ? ", \\" : "");
        }
        return;
    }
    const char *names[TL_CSV_MAX_COLUMNS];
    size_t n = tl_csv_columns(src->spec, names, TL_CSV_MAX_COLUMNS);
    int x = column_index(names, n, "time");
    if (!x) x = column_index(names, n, "t_end");
    fprintf(fp, "set xlabel 'time (s)'\nset ylabel 'value (SI units, see docs/outputs.md)'\n");
    fputs("plot \\\n", fp);
    bool first = true;
    for (size_t k = 0; k < n; k++) {
        const char *c = names[k];
        if ((int)k + 1 == x || strcmp(c, "step") == 0 || strncmp(c, "id", 2) == 0 ||
            strcmp(c, "with_wall") == 0 || strncmp(c, "t_", 2) == 0)
            continue;
        fputs(first ? "  " : ", \\\n  ", fp);
        put_quoted(fp, data);
        fprintf(fp, " using %d:%zu skip 1 with points pt 7 ps 0.5 title '%s'", x, k + 1, c);
        first = false;
    }
    fputc('\n', fp);
}

/* ---- running gnuplot ---- */

static bool on_path(const char *program) {
    const char *path = getenv("PATH");
    if (!path) return false;
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char *p = len ? tl_strdup_printf("%.*s/%s", (int)len, path, program)
                      : tl_strdup_printf("%s", program);
        bool ok = p && access(p, X_OK) == 0;
        free(p);
        if (ok) return true;
        if (!end) break;
        path = end + 1;
    }
    return false;
}

/* Runs gnuplot on the script in the PNG's folder, drawing into part_base.
 * Returns its exit status, or -1 (errno set) when it could not be started. */
static int run_gnuplot(const char *folder, const char *script_base, const char *part_base) {
    char *setup = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&setup, &size);
    if (!fp) return -1;
    fputs("cd ", fp);
    put_quoted(fp, folder);
    fputs("; outfile = ", fp);
    put_quoted(fp, part_base);
    if (fclose(fp) != 0 || !setup) {
        free(setup);
        return -1;
    }
    char *argv[] = {(char *)"gnuplot", (char *)"-e", setup, (char *)script_base, NULL};
    int r = tl_run_program(argv);
    free(setup);
    return r;
}

static void warn(const tl_output *o, const char *what) {
    fprintf(stderr, "talus: warning: plot '%s' not drawn: %s\n", o->path, what);
}

static tl_status plot_commit(tl_output *o) {
    const tl_output *src = plot_source(o);
    char *gp = tl_strdup_printf("%s.gp", o->path);
    char *data = data_name(o, src);
    char *text = NULL;
    size_t size = 0;
    FILE *fp = (gp && data) ? open_memstream(&text, &size) : NULL;
    if (!fp) {
        free(gp);
        free(data);
        warn(o, "out of memory");
        return TL_OK;
    }
    put_script(fp, o, src, data);
    free(data);
    if (fclose(fp) != 0 || !text) {
        free(text);
        free(gp);
        warn(o, "out of memory");
        return TL_OK;
    }
    char err[1024];
    tl_status s = tl_file_write_atomic(gp, text, size, err, sizeof err);
    free(text);
    if (s != TL_OK) {
        free(gp);
        warn(o, err);
        return TL_OK;
    }
    o->files_written = 1;
    if (!on_path("gnuplot")) {
        char *m = tl_strdup_printf("gnuplot is not installed (apt-get install gnuplot-nox); "
                                   "the script %s is ready for it",
                                   gp);
        warn(o, m ? m : "gnuplot is not installed (apt-get install gnuplot-nox)");
        free(m);
        free(gp);
        return TL_OK;
    }
    free(gp);
    /* draw into <png>.part in the PNG's folder, then rename */
    const char *png_base = base_name(o->path);
    char *folder = png_base == o->path ? tl_strdup_printf(".")
                                       : tl_strdup_printf("%.*s", (int)(png_base - o->path - 1),
                                                          o->path);
    char *script = tl_strdup_printf("%s.gp", png_base);
    char *part_base = tl_strdup_printf("%s.part", png_base);
    char *part = tl_strdup_printf("%s.part", o->path);
    if (!folder || !script || !part_base || !part) {
        warn(o, "out of memory");
    } else {
        if (folder[0] == '\0') {
            free(folder);
            folder = tl_strdup_printf("/");
        }
        int r = folder ? run_gnuplot(folder, script, part_base) : -1;
        struct stat st;
        if (r != 0) {
            char *m = r < 0 ? tl_strdup_printf("cannot run gnuplot: %s", strerror(errno))
                            : tl_strdup_printf("gnuplot failed (exit status %d)", r);
            warn(o, m ? m : "gnuplot failed");
            free(m);
            (void)unlink(part);
        } else if (stat(part, &st) != 0 || st.st_size == 0) {
            warn(o, "gnuplot wrote no image");
            (void)unlink(part);
        } else {
            int fd = open(part, O_RDONLY);
            if (fd >= 0) {
                (void)fsync(fd);
                (void)close(fd);
            }
            if (rename(part, o->path) != 0) {
                char *m = tl_strdup_printf("cannot rename '%s': %s", part, strerror(errno));
                warn(o, m ? m : "cannot rename the image");
                free(m);
                (void)unlink(part);
            } else {
                o->files_written = 2;
            }
        }
    }
    free(folder);
    free(script);
    free(part_base);
    free(part);
    return TL_OK;
}

static void plot_abort(tl_output *o) {
    /* after a commit the run cannot fail any more; before it nothing exists */
    (void)o;
}

static void plot_release(tl_output *o) { (void)o; }

/* no state of its own for a checkpoint to keep: it is drawn at the end */
static const tl_output_ops plot_ops = {.name = "plot",
                                       .after_commit = true,
                                       .open = plot_open,
                                       .commit = plot_commit,
                                       .abort = plot_abort,
                                       .release = plot_release};

/* plot: {of}, the CSV output it draws (after every output of the scene was read); without of,
 * the first energy output */
int tl_resolve_plot_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *outs, size_t n, size_t i) {
    tl_yval v;
    tl_ymap_get(e, "of", &v);
    if (!v.node) {
        for (size_t j = 0; j < n; j++)
            if (outs[j].kind == TL_OUTPUT_ENERGY) {
                ((tl_plot_options *)outs[i].opts)->of = (int)j;
                return 0;
            }
        tl_ymap_get(e, "type", &v);
        return tl_yfail(r->doc, &v, "a plot draws a CSV output of this scene: give of: <its file>, "
                                    "or add an energy output");
    }
    const char *of;
    if (tl_ystring(r->doc, &v, "the file name of a CSV output of this scene", &of)) return -1;
    const char *csv[256];
    size_t ncsv = 0;
    for (size_t j = 0; j < n; j++) {
        const tl_output_kind_def *d = r->kind_of(outs[j].kind);
        if (!d || !d->csv) continue;
        if (strcmp(outs[j].file, of) == 0) {
            ((tl_plot_options *)outs[i].opts)->of = (int)j;
            return 0;
        }
        if (ncsv < sizeof csv / sizeof csv[0]) csv[ncsv++] = outs[j].file;
    }
    return tl_yunknown_name(r->doc, &v, "CSV output", of, csv, ncsv);
}

const tl_output_ops *tl_plot_ops(tl_output_kind kind) {
    (void)kind;
    return &plot_ops;
}
