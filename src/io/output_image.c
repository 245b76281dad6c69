/*
 * Image output: a PNG of the particles per record (render.h), in a folder named after the
 * output, and at the end of the run, when asked (movie: true), the frames joined into an MP4 by
 * ffmpeg. Layout for file "images":
 *
 *   images/images_000000.png     frame 0 (t = 0), 000001, ...
 *   images/images.camera         the fitted camera the frames share (a fitted camera only)
 *   images.mp4                   the movie (movie: true, ffmpeg on PATH)
 *
 * A file whose name ends in .png is one picture instead, of the world at the end of the run (the
 * settled bed beside the energy plot; a fitted camera fitted to the end): a series recorded at the start and at the end only
 * (every_steps set out of reach by the reader), each record drawing over the file, so that on
 * several ranks it is drawn, as every record, from the gathered particles.
 *
 * Each frame is written as .part and renamed when whole, and is final then (as the vtk frames);
 * an aborted run removes the frames it wrote. A fitted camera (camera: auto, or a camera without
 * center and extent) is fitted once, at the first frame, and kept, so that the frames of a movie
 * do not jump; it is written beside them (.camera: its centre and extent as text, exactly), so
 * that a run resumed from a checkpoint draws with it again and rewrites the later frames byte
 * for byte. Without ffmpeg the run still succeeds: a note gives the command that joins the
 * frames. A resumed run goes on from the frames the checkpoint counts.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output_image.h"
#include "outputs.h"
#include "render.h"

struct tl_image_state {
    char *folder;     /* <dir>/<file> */
    char *base;       /* the last part of <file> */
    bool made_dir;
    size_t resumed;   /* frames taken back from a checkpoint */
    size_t nframes;
    tl_render_options r;
    bool fitted;
    bool written;     /* single: the picture was written (an abort after the commit removes it) */
    bool wrote_camera; /* this run wrote the .camera file */
};

static tl_status oom(tl_output *o) {
    snprintf(o->ctx->err, o->ctx->errsize, "image: out of memory");
    return TL_ERROR_MEMORY;
}

static const tl_image_options *options(const tl_output *o) { return o->spec->opts; }

static char *frame_path(const struct tl_image_state *s, size_t k) {
    return tl_strdup_printf("%s/%s_%06zu.png", s->folder, s->base, k);
}

static char *camera_path(const struct tl_image_state *s) { return tl_strdup_printf("%s/%s.camera", s->folder, s->base); }

/* the fitted camera of the frames, as text that reads back to the same bits */
static tl_status save_camera(tl_output *o) {
    struct tl_image_state *s = o->image;
    char *path = camera_path(s);
    char *text = tl_strdup_printf("center %.17g %.17g %.17g extent %.17g\n", s->r.center.x, s->r.center.y,
                                  s->r.center.z, s->r.extent);
    tl_status st = path && text ? tl_file_write_atomic(path, text, strlen(text), o->ctx->err, o->ctx->errsize)
                                : oom(o);
    free(path);
    free(text);
    if (st == TL_OK) s->wrote_camera = true;
    return st;
}

/* a resumed run: the camera its frames were drawn with */
static tl_status load_camera(tl_output *o, const struct tl_image_state *s, tl_render_options *r) {
    char *path = camera_path(s);
    if (!path) return oom(o);
    FILE *f = fopen(path, "r");
    double c[3], e;
    bool ok = f && fscanf(f, "center %lf %lf %lf extent %lf", &c[0], &c[1], &c[2], &e) == 4 && isfinite(c[0]) &&
              isfinite(c[1]) && isfinite(c[2]) && e > 0.0 && isfinite(e);
    if (f) fclose(f);
    if (!ok)
        snprintf(o->ctx->err, o->ctx->errsize,
                 "cannot resume: %s (the camera the frames were fitted with) is missing or unreadable; rerun "
                 "without --resume or restore the file",
                 path);
    free(path);
    if (!ok) return TL_ERROR_IO;
    r->center = (tl_vec3){c[0], c[1], c[2]};
    r->extent = e;
    r->fit = false;
    return TL_OK;
}

static void free_state(struct tl_image_state *s) {
    if (!s) return;
    free(s->folder);
    free(s->base);
    free(s);
}

static tl_status image_names(tl_output *o, char **folder, char **base) {
    *folder = tl_path_join(o->ctx->dir, o->spec->file);
    const char *slash = strrchr(o->spec->file, '/');
    *base = tl_strdup_printf("%s", slash ? slash + 1 : o->spec->file);
    if (!*folder || !*base) {
        free(*folder);
        free(*base);
        *folder = *base = NULL;
        return oom(o);
    }
    return TL_OK;
}

static tl_status image_open(tl_output *o) {
    struct tl_image_state *s = calloc(1, sizeof *s);
    if (!s) return oom(o);
    o->image = s;
    tl_status st = image_names(o, &s->folder, &s->base);
    if (st != TL_OK) return st;
    s->r = options(o)->render;
    st = tl_render_check(&s->r, o->ctx->err, o->ctx->errsize);
    if (st != TL_OK) return st;
    if (options(o)->single) {
        st = tl_file_can_replace(o->path, o->ctx->err, o->ctx->errsize);
        if (st == TL_OK) st = tl_mkdir_parent(o->path, o->ctx->err, o->ctx->errsize);
        if (st == TL_OK && o->resume) o->records = o->resume->records;
        return st;
    }
    if (access(s->folder, F_OK) != 0) s->made_dir = true;
    st = tl_mkdir_p(s->folder, o->ctx->err, o->ctx->errsize);
    if (st != TL_OK) {
        s->made_dir = false;
        return st;
    }
    if (o->resume) {
        s->nframes = s->resumed = (size_t)o->resume->records;
        o->records = o->resume->records;
        if (s->nframes > 0 && s->r.fit) {
            st = load_camera(o, s, &s->r);
            if (st != TL_OK) return st;
            s->fitted = true;
        }
    }
    return TL_OK;
}

/* draws the world now into path (a series' camera fitted once, then kept; a single picture's
 * fitted to what is there when it is drawn) */
static tl_status draw(tl_output *o, const char *path) {
    struct tl_image_state *s = o->image;
    const tl_world *w = o->ctx->world;
    if (!s->fitted && !options(o)->single) { /* once: the frames of a series keep their camera */
        if (s->r.fit) {
            tl_render_fit(w, &s->r, &s->r.center, &s->r.extent);
            s->r.fit = false;
            tl_status st = save_camera(o);
            if (st != TL_OK) return st;
        }
        s->fitted = true;
    }
    cairo_surface_t *surface;
    tl_status st = tl_render_surface(w, &s->r, &surface, NULL, NULL, o->ctx->err, o->ctx->errsize);
    if (st == TL_OK) {
        st = tl_render_write_png(surface, path, o->ctx->err, o->ctx->errsize);
        cairo_surface_destroy(surface);
    }
    return st;
}

static tl_status image_record(tl_output *o) {
    struct tl_image_state *s = o->image;
    if (options(o)->single) { /* the start, then the end: the picture drawn over */
        tl_status st = draw(o, o->path);
        if (st != TL_OK) return st;
        s->written = true;
        o->records++;
        return TL_OK;
    }
    char *path = frame_path(s, s->nframes);
    if (!path) return oom(o);
    tl_status st = draw(o, path);
    free(path);
    if (st != TL_OK) return st;
    s->nframes++;
    o->records++;
    return TL_OK;
}

/* ---- the movie ---- */

static bool on_path(const char *program) {
    const char *path = getenv("PATH");
    if (!path) return false;
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char *p = len ? tl_strdup_printf("%.*s/%s", (int)len, path, program) : tl_strdup_printf("%s", program);
        bool ok = p && access(p, X_OK) == 0;
        free(p);
        if (ok) return true;
        if (!end) break;
        path = end + 1;
    }
    return false;
}

#define PAD_EVEN "pad=ceil(iw/2)*2:ceil(ih/2)*2"

/* Runs ffmpeg: the frames into `out` (MP4, H.264). Its exit status, or -1 (errno set). */
static int run_ffmpeg(const char *pattern, const char *fps, const char *out) {
    char *argv[] = {(char *)"ffmpeg",  (char *)"-nostdin", (char *)"-y",       (char *)"-loglevel",
                    (char *)"error",   (char *)"-framerate", (char *)fps,       (char *)"-i",
                    (char *)pattern,   (char *)"-vf",      (char *)PAD_EVEN,   (char *)"-c:v",
                    (char *)"libx264", (char *)"-pix_fmt", (char *)"yuv420p",  (char *)"-f",
                    (char *)"mp4",     (char *)out,        NULL};
    return tl_run_program(argv);
}

/* the movie: ffmpeg when it is there, else the command that makes it (never a failure of the run) */
static void make_movie(tl_output *o) {
    struct tl_image_state *s = o->image;
    char fps[32];
    snprintf(fps, sizeof fps, "%g", options(o)->fps > 0.0 ? options(o)->fps : 10.0);
    char *pattern = tl_strdup_printf("%s/%s_%%06d.png", s->folder, s->base);
    char *movie = tl_strdup_printf("%s.mp4", s->folder);
    char *part = tl_strdup_printf("%s.mp4.part", s->folder);
    if (!pattern || !movie || !part) {
        fprintf(stderr, "talus: warning: image '%s': no movie: out of memory\n", o->spec->file);
    } else {
        const char *why = NULL;
        char reason[160] = "";
        if (!on_path("ffmpeg")) why = "ffmpeg is not on PATH (Debian: apt-get install ffmpeg)";
        else {
            int r = run_ffmpeg(pattern, fps, part);
            if (r == 0 && rename(part, movie) == 0) {
                o->files_written++;
            } else {
                if (r < 0) snprintf(reason, sizeof reason, "cannot run ffmpeg: %s", strerror(errno));
                else if (r) snprintf(reason, sizeof reason, "ffmpeg failed (exit status %d)", r);
                else snprintf(reason, sizeof reason, "cannot rename '%s': %s", part, strerror(errno));
                why = reason;
                (void)unlink(part);
            }
        }
        if (why)
            fprintf(stderr,
                    "talus: note: image '%s': no movie: %s; the frames are kept, join them with:\n"
                    "  ffmpeg -framerate %s -i '%s' -vf '" PAD_EVEN "' -c:v libx264 -pix_fmt yuv420p '%s'\n",
                    o->spec->file, why, fps, pattern, movie);
    }
    free(pattern);
    free(movie);
    free(part);
}

static tl_status image_commit(tl_output *o) {
    struct tl_image_state *s = o->image;
    if (options(o)->single) {
        o->files_written = s->written || access(o->path, F_OK) == 0 ? 1 : 0;
        return TL_OK;
    }
    /* frames of an earlier, longer run in the same folder would join the movie: removed */
    for (size_t k = s->nframes;; k++) {
        char *p = frame_path(s, k);
        if (!p) break;
        bool there = access(p, F_OK) == 0;
        if (there) (void)unlink(p);
        free(p);
        if (!there) break;
    }
    o->files_written = (int)s->nframes;
    char *cam = camera_path(s);
    if (cam && access(cam, F_OK) == 0) {
        if (s->nframes > 0 && options(o)->render.fit) o->files_written++;
        else (void)unlink(cam); /* of an earlier run: these frames have none */
    }
    free(cam);
    if (options(o)->movie && s->nframes > 0) make_movie(o);
    return TL_OK;
}

static void image_abort(tl_output *o) {
    struct tl_image_state *s = o->image;
    if (!s) return;
    if (s->written) (void)unlink(o->path);
    if (s->wrote_camera) {
        char *cam = camera_path(s);
        if (cam) (void)unlink(cam);
        free(cam);
    }
    if (s->folder && s->base && !options(o)->single)
        for (size_t k = s->resumed; k < s->nframes; k++) {
            char *p = frame_path(s, k);
            if (p) (void)unlink(p);
            free(p);
        }
    if (s->made_dir && s->folder) (void)rmdir(s->folder); /* only when empty */
    free_state(s);
    o->image = NULL;
    o->files_written = 0;
}

static void image_release(tl_output *o) {
    free_state(o->image);
    o->image = NULL;
}

/* the frames the checkpoint counts must be there */
static tl_status image_resume_check(tl_output *o, const tl_output_saved *in) {
    if (options(o)->single) return TL_OK;
    struct tl_image_state probe = {0};
    tl_status st = image_names(o, &probe.folder, &probe.base);
    for (int64_t k = 0; st == TL_OK && k < in->records; k++) {
        char *p = frame_path(&probe, (size_t)k);
        if (!p) st = oom(o);
        else if (access(p, F_OK) != 0) {
            snprintf(o->ctx->err, o->ctx->errsize,
                     "cannot resume: the frame %s is missing (the checkpoint counts %lld frames); rerun "
                     "without --resume or restore the file",
                     p, (long long)in->records);
            st = TL_ERROR_IO;
        }
        free(p);
    }
    if (st == TL_OK && in->records > 0 && options(o)->render.fit) { /* and the camera they share */
        tl_render_options r = options(o)->render;
        st = load_camera(o, &probe, &r);
    }
    free(probe.folder);
    free(probe.base);
    return st;
}

static const tl_output_ops image_ops = {.name = "image",
                                        .time_series = true,
                                        .open = image_open,
                                        .record = image_record,
                                        .commit = image_commit,
                                        .abort = image_abort,
                                        .release = image_release,
                                        .resume_check = image_resume_check};

const tl_output_ops *tl_image_ops(tl_output_kind kind) {
    (void)kind;
    return &image_ops;
}

/* ---- the scene's keys ---- */

static const char *const camera_keys[] = {"view", "up", "center", "extent", "zoom"};
static const char *const cut_keys[] = {"point", "normal", "thickness"};

static int read_camera(const tl_output_reader *r, const tl_yval *v, tl_render_options *ro) {
    const char *s = tl_yscalar(v);
    if (s && strcmp(s, "auto") == 0) return 0;
    if (!tl_yis_map(v))
        return tl_yexpected(r->doc, v, "auto, or a camera {view, up, center, extent, zoom}");
    if (tl_ymap_check_keys(r->doc, v, camera_keys, sizeof camera_keys / sizeof *camera_keys, NULL) ||
        tl_ykey_vec3(r->doc, v, "view", false, "", &ro->view) || tl_ykey_vec3(r->doc, v, "up", false, "", &ro->up) ||
        tl_ykey_number(r->doc, v, "zoom", false, (&(tl_yrange){0.0, 1e6, true, false, ""}), &ro->zoom))
        return -1;
    tl_yval k;
    const double vv = ro->view.x * ro->view.x + ro->view.y * ro->view.y + ro->view.z * ro->view.z;
    if (!(vv > 0.0)) {
        tl_ymap_get(v, "view", &k);
        return tl_yfail(r->doc, &k, "expected the direction the camera looks along, not zero (e.g. [0, 1, 0])");
    }
    const tl_vec3 a = ro->view, b = ro->up;
    const double cx = a.y * b.z - a.z * b.y, cy = a.z * b.x - a.x * b.z, cz = a.x * b.y - a.y * b.x;
    const double uu = b.x * b.x + b.y * b.y + b.z * b.z;
    if (!(cx * cx + cy * cy + cz * cz > 1e-18 * vv * uu)) {
        tl_ymap_get(v, "up", &k);
        if (!k.node) k = *v;
        return tl_yfail(r->doc, &k, "expected an up direction that is not zero and not along the view "
                                    "(give up: [...] across view)");
    }
    const bool has_c = tl_ymap_has(v, "center"), has_e = tl_ymap_has(v, "extent");
    if (has_c != has_e) {
        tl_ymap_get(v, has_c ? "center" : "extent", &k);
        return tl_yfail(r->doc, &k, "expected center (m) and extent (m, the width shown) together; without "
                                    "both the camera is fitted");
    }
    if (has_c) {
        ro->fit = false;
        if (tl_ykey_vec3(r->doc, v, "center", true, "m", &ro->center) ||
            tl_ykey_number(r->doc, v, "extent", true, (&(tl_yrange){0.0, 1e12, true, false, "m"}), &ro->extent))
            return -1;
    }
    return 0;
}

static int read_cut(const tl_output_reader *r, const tl_yval *v, tl_render_options *ro) {
    if (tl_ymap_expect(r->doc, v, "a slab {point, normal, thickness}") ||
        tl_ymap_check_keys(r->doc, v, cut_keys, sizeof cut_keys / sizeof *cut_keys, NULL) ||
        tl_ykey_vec3(r->doc, v, "point", true, "m", &ro->cut_point) ||
        tl_ykey_vec3(r->doc, v, "normal", true, "", &ro->cut_normal) ||
        tl_ykey_number(r->doc, v, "thickness", true, (&(tl_yrange){0.0, 1e12, true, false, "m"}),
                       &ro->cut_thickness))
        return -1;
    const tl_vec3 n = ro->cut_normal;
    if (!(n.x * n.x + n.y * n.y + n.z * n.z > 0.0)) {
        tl_yval k;
        tl_ymap_get(v, "normal", &k);
        return tl_yfail(r->doc, &k, "expected the slab's normal direction, not zero");
    }
    ro->cut = true;
    return 0;
}

/* image: {width, height, antialias, camera, color_by, range, color_bar, walls, cut, movie, fps} */
int tl_read_image_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *o) {
    tl_image_options *io = o->opts;
    tl_render_options *ro = &io->render;
    *ro = tl_render_default();
    io->fps = 10.0;
    tl_yval v;
    int64_t side;
    const char *const sides[2] = {"width", "height"};
    for (int k = 0; k < 2; k++) {
        tl_ymap_get(e, sides[k], &v);
        if (!v.node) continue;
        if (tl_yint(r->doc, &v, 1, TL_RENDER_MAX_SIDE, &side)) return -1;
        *(k ? &ro->height : &ro->width) = (int)side;
    }
    if ((double)ro->width * (double)ro->height > (double)TL_RENDER_MAX_PIXELS) {
        tl_ymap_get(e, "height", &v);
        if (!v.node) tl_ymap_get(e, "width", &v);
        return tl_yfail(r->doc, &v, "expected width x height of at most %d pixels (8192 x 8192), got %d x %d",
                        TL_RENDER_MAX_PIXELS, ro->width, ro->height);
    }
    tl_ymap_get(e, "antialias", &v);
    if (v.node) {
        if (tl_yint(r->doc, &v, 1, 4, &side)) return -1;
        ro->antialias = (int)side;
        if ((double)ro->width * (double)ro->height * (double)(side * side) > (double)TL_RENDER_MAX_PIXELS)
            return tl_yfail(r->doc, &v, "expected width x height x antialias^2 of at most %d samples, got %d x %d x %d",
                            TL_RENDER_MAX_PIXELS, ro->width, ro->height, (int)(side * side));
    }
    tl_ymap_get(e, "camera", &v);
    if (v.node && read_camera(r, &v, ro)) return -1;
    tl_ymap_get(e, "color_by", &v);
    if (v.node) {
        const char *name;
        if (tl_ystring(r->doc, &v, "a particle quantity", &name)) return -1;
        if (tl_render_field_find(name) < 0) {
            const char *names[TL_RF_COUNT];
            for (int k = 0; k < TL_RF_COUNT; k++) names[k] = tl_render_field_name((tl_render_field)k);
            return tl_yunknown_name(r->doc, &v, "particle quantity", name, names, TL_RF_COUNT);
        }
        if (!(io->color_by = tl_strdup_printf("%s", name))) return r->out_of_memory(r->scene);
        ro->color_by = io->color_by;
    }
    tl_ymap_get(e, "range", &v);
    if (v.node) {
        if (!tl_yis_seq(&v) || tl_yseq_count(&v) != 2)
            return tl_yexpected(r->doc, &v, "the colour map's range [min, max]");
        tl_yval a, b;
        tl_yseq_at(&v, 0, &a);
        tl_yseq_at(&v, 1, &b);
        if (tl_ynumber(r->doc, &a, NULL, &ro->color_min) || tl_ynumber(r->doc, &b, NULL, &ro->color_max)) return -1;
        if (!(ro->color_max > ro->color_min))
            return tl_yfail(r->doc, &v, "expected a range [min, max] with max > min, got [%g, %g]", ro->color_min,
                            ro->color_max);
    }
    if (tl_ykey_bool(r->doc, e, "color_bar", &ro->color_bar) || tl_ykey_bool(r->doc, e, "walls", &ro->walls) ||
        tl_ykey_bool(r->doc, e, "movie", &io->movie) ||
        tl_ykey_number(r->doc, e, "fps", false, (&(tl_yrange){0.0, 1000.0, true, true, "frames/s"}), &io->fps))
        return -1;
    tl_ymap_get(e, "cut", &v);
    if (v.node && read_cut(r, &v, ro)) return -1;
    const size_t len = strlen(o->file);
    io->single = len > 4 && strcmp(o->file + len - 4, ".png") == 0;
    if (io->single) {
        const char *const series_keys[] = {"every", "every_steps", "movie", "fps"};
        for (size_t k = 0; k < 4; k++) {
            tl_ymap_get(e, series_keys[k], &v);
            if (v.node)
                return tl_yfail(r->doc, &v, "a file ending in .png is one picture, of the end of the run; for "
                                            "frames (every, every_steps) and a movie give a folder's name "
                                            "(file: %.*s)",
                                (int)(len - 4), o->file);
        }
        o->every_steps = INT64_MAX; /* recorded at the start and at the end only */
    }
    return 0;
}

void tl_drop_image_options(void *opts) {
    tl_image_options *io = opts;
    free(io->color_by);
    io->color_by = NULL;
}
