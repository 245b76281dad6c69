/*
 * VTK output: one XML PolyData file (.vtp) per record, in a folder named
 * after the output, plus a ParaView collection (.pvd) listing every frame
 * with its time. Layout for file "particles":
 *
 *   particles.pvd                       rewritten atomically after each frame
 *   particles/particles_000000.vtp      frame 0 (t = 0), 000001, ...
 *
 * A frame holds the particle centres as points, one vertex cell per
 * particle, and point data id (Int64), material (Int32), radius, velocity,
 * angular_velocity, force (Float64). Arrays are stored as appended raw
 * binary, little endian, each block preceded by its byte count as UInt64
 * (header_type="UInt64"); the time is also given as field data TimeValue.
 * Frames are final as soon as they are written (the .pvd refers to them);
 * an aborted run removes them and the .pvd again.
 *
 * A resumed run (o->resume) takes back the frames written by the
 * checkpoint: it goes on from the next index (frames of the interrupted run
 * after the checkpoint are rewritten, or removed at the commit when the
 * series ends earlier); an abort removes only the frames it wrote and puts
 * the .pvd back to the frames it took back.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outputs.h"

struct tl_vtk_state {
    char *pvd_path;   /* <dir>/<file>.pvd (= o->path) */
    char *frame_dir;  /* <dir>/<file> */
    char *base;       /* last component of <file> */
    bool made_dir;    /* frame_dir was created by this run */
    size_t resumed;   /* frames taken back from a checkpoint (a resumed run) */
    char **frames;    /* full paths of the frames written */
    double *times;
    size_t nframes, cap;
    tl_file frame;    /* the frame being written */
    uint8_t *buf;     /* scratch for one array */
    size_t capbuf;
};

/* ---- little-endian encoding ---- */

static void put_u64(uint8_t *b, uint64_t v) {
    for (int k = 0; k < 8; k++) b[k] = (uint8_t)(v >> (8 * k));
}

static void put_u32(uint8_t *b, uint32_t v) {
    for (int k = 0; k < 4; k++) b[k] = (uint8_t)(v >> (8 * k));
}

static void put_f64(uint8_t *b, double x) {
    uint64_t v;
    memcpy(&v, &x, sizeof v);
    put_u64(b, v);
}

/* ---- names ---- */

/* Writes s with the five XML special characters escaped. */
static void put_xml_text(FILE *fp, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        default: fputc(*s, fp);
        }
    }
}

static void free_state(struct tl_vtk_state *v) {
    if (!v) return;
    for (size_t k = 0; k < v->nframes; k++) free(v->frames[k]);
    free(v->frames);
    free(v->times);
    free(v->frame_dir);
    free(v->base);
    free(v->buf);
    free(v);
}

static tl_status oom(tl_output *o) {
    snprintf(o->ctx->err, o->ctx->errsize, "vtk: out of memory");
    return TL_ERROR_MEMORY;
}

/* The folder of the frames (<dir>/<file> less a trailing .pvd or .vtp) and
 * the base name of the frames; malloc'd. */
static tl_status series_names(tl_output *o, char **frame_dir, char **base) {
    *frame_dir = *base = NULL;
    const char *file = o->spec->file;
    size_t len = strlen(file);
    if (len > 4 && (strcmp(file + len - 4, ".pvd") == 0 || strcmp(file + len - 4, ".vtp") == 0))
        len -= 4;
    char *name = tl_strdup_printf("%.*s", (int)len, file);
    if (!name) return oom(o);
    const char *slash = strrchr(name, '/');
    *base = tl_strdup_printf("%s", slash ? slash + 1 : name);
    *frame_dir = tl_path_join(o->ctx->dir, name);
    free(name);
    if (!*base || !*frame_dir) {
        free(*base);
        free(*frame_dir);
        *frame_dir = *base = NULL;
        return oom(o);
    }
    if (!(*base)[0]) {
        snprintf(o->ctx->err, o->ctx->errsize, "vtk: output file '%s' has no name", o->spec->file);
        free(*base);
        free(*frame_dir);
        *frame_dir = *base = NULL;
        return TL_ERROR_ARGUMENT;
    }
    return TL_OK;
}

static char *frame_path(const struct tl_vtk_state *v, size_t index) {
    return tl_strdup_printf("%s/%s_%06zu.vtp", v->frame_dir, v->base, index);
}

static tl_status grow_frames(tl_output *o, size_t need) {
    struct tl_vtk_state *v = o->vtk;
    if (need <= v->cap) return TL_OK;
    size_t cap = v->cap ? v->cap : 64;
    while (cap < need) cap *= 2;
    char **f = realloc(v->frames, cap * sizeof *f);
    if (!f) return oom(o);
    v->frames = f;
    double *t = realloc(v->times, cap * sizeof *t);
    if (!t) return oom(o);
    v->times = t;
    v->cap = cap;
    return TL_OK;
}

static tl_status write_pvd(tl_output *o);

/* a resumed run: the frames written by the checkpoint */
static tl_status vtk_take_back(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    const tl_output_saved *in = o->resume;
    tl_status s = grow_frames(o, in->nframes);
    if (s != TL_OK) return s;
    for (size_t k = 0; k < in->nframes; k++) {
        char *path = frame_path(v, k);
        if (!path) return oom(o);
        v->frames[k] = path;
        v->times[k] = in->times[k];
        v->nframes = v->resumed = k + 1; /* an abort keeps them */
    }
    o->records = in->records;
    return v->nframes ? write_pvd(o) : TL_OK;
}

static tl_status vtk_open(tl_output *o) {
    struct tl_vtk_state *v = calloc(1, sizeof *v);
    if (!v) return oom(o);
    o->vtk = v;
    tl_status s = series_names(o, &v->frame_dir, &v->base);
    if (s != TL_OK) return s;
    free(o->path);
    o->path = tl_strdup_printf("%s.pvd", v->frame_dir);
    if (!o->path) return oom(o);
    v->pvd_path = o->path;
    if (access(v->frame_dir, F_OK) != 0) v->made_dir = true;
    s = tl_mkdir_p(v->frame_dir, o->ctx->err, o->ctx->errsize);
    if (s == TL_OK && o->resume) s = vtk_take_back(o);
    return s;
}

/* ---- checkpoints ---- */

static tl_status vtk_save(tl_output *o, tl_output_saved *out) {
    out->records = o->records;
    out->nframes = o->vtk->nframes;
    out->times = o->vtk->times;
    return TL_OK;
}

/* the frames the checkpoint counts must be there */
static tl_status vtk_resume_check(tl_output *o, const tl_output_saved *in) {
    char *dir, *base;
    tl_status s = series_names(o, &dir, &base);
    if (s != TL_OK) return s;
    struct tl_vtk_state probe = {.frame_dir = dir, .base = base};
    for (size_t k = 0; k < in->nframes && s == TL_OK; k++) {
        char *path = frame_path(&probe, k);
        if (!path) s = oom(o);
        else if (access(path, F_OK) != 0) {
            snprintf(o->ctx->err, o->ctx->errsize,
                     "cannot resume: the frame %s is missing (the checkpoint counts %zu frames); "
                     "rerun without --resume or restore the file",
                     path, in->nframes);
            s = TL_ERROR_IO;
        }
        free(path);
    }
    free(dir);
    free(base);
    return s;
}

/* ---- the .pvd ---- */

static tl_status write_pvd(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    char *text = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&text, &size);
    if (!fp) return oom(o);
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          fp);
    for (size_t k = 0; k < v->nframes; k++) {
        fprintf(fp, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"", v->times[k]);
        put_xml_text(fp, v->base);
        fputc('/', fp);
        put_xml_text(fp, v->base);
        fprintf(fp, "_%06zu.vtp\"/>\n", k);
    }
    fputs("  </Collection>\n</VTKFile>\n", fp);
    if (fclose(fp) != 0 || !text) {
        free(text);
        return oom(o);
    }
    tl_status s = tl_file_write_atomic(v->pvd_path, text, size, o->ctx->err, o->ctx->errsize);
    free(text);
    return s;
}

/* ---- a frame ---- */

static uint8_t *scratch(struct tl_vtk_state *v, size_t size) {
    if (size + 8 > v->capbuf) {
        size_t cap = v->capbuf ? v->capbuf : 4096;
        while (cap < size + 8) cap *= 2;
        uint8_t *b = realloc(v->buf, cap);
        if (!b) return NULL;
        v->buf = b;
        v->capbuf = cap;
    }
    return v->buf;
}

typedef enum array_id {
    A_ID, A_MATERIAL, A_RADIUS, A_VELOCITY, A_ANGULAR_VELOCITY, A_FORCE, A_POINTS,
    A_CONNECTIVITY, A_OFFSETS, A_COUNT
} array_id;

typedef struct array_desc {
    const char *name, *type;
    int components;
    size_t bytes_per_value;
} array_desc;

static const array_desc arrays[A_COUNT] = {
    {"id", "Int64", 1, 8},
    {"material", "Int32", 1, 4},
    {"radius", "Float64", 1, 8},
    {"velocity", "Float64", 3, 8},
    {"angular_velocity", "Float64", 3, 8},
    {"force", "Float64", 3, 8},
    {"Points", "Float64", 3, 8},
    {"connectivity", "Int64", 1, 8},
    {"offsets", "Int64", 1, 8},
};

static void put_array_tag(FILE *fp, const char *indent, array_id a, uint64_t offset) {
    fprintf(fp, "%s<DataArray type=\"%s\" Name=\"%s\"", indent, arrays[a].type, arrays[a].name);
    if (arrays[a].components > 1) fprintf(fp, " NumberOfComponents=\"%d\"", arrays[a].components);
    fprintf(fp, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
}

/* Fills the bytes of array a for n particles (8-byte count header first);
 * returns the block size. */
static size_t fill_array(uint8_t *b, array_id a, const tl_particle_state *ps, size_t n) {
    size_t bytes = n * (size_t)arrays[a].components * arrays[a].bytes_per_value;
    put_u64(b, (uint64_t)bytes);
    uint8_t *d = b + 8;
    for (size_t i = 0; i < n; i++) {
        const tl_particle_state *p = &ps[i];
        tl_vec3 vec = {0, 0, 0};
        switch (a) {
        case A_ID: put_u64(d, (uint64_t)p->id); d += 8; continue;
        case A_MATERIAL: put_u32(d, (uint32_t)(int32_t)p->material); d += 4; continue;
        case A_RADIUS: put_f64(d, p->radius); d += 8; continue;
        case A_CONNECTIVITY: put_u64(d, (uint64_t)i); d += 8; continue;
        case A_OFFSETS: put_u64(d, (uint64_t)i + 1); d += 8; continue;
        case A_VELOCITY: vec = p->velocity; break;
        case A_ANGULAR_VELOCITY: vec = p->angular_velocity; break;
        case A_FORCE: vec = p->force; break;
        case A_POINTS: vec = p->position; break;
        case A_COUNT: break;
        }
        put_f64(d, vec.x);
        put_f64(d + 8, vec.y);
        put_f64(d + 16, vec.z);
        d += 24;
    }
    return 8 + bytes;
}

static tl_status write_frame(tl_output *o, const char *path, const tl_particle_state *ps, size_t n,
                             double time) {
    struct tl_vtk_state *v = o->vtk;
    tl_status s = tl_file_open(&v->frame, path, o->ctx->err, o->ctx->errsize);
    if (s != TL_OK) return s;
    FILE *fp = v->frame.fp;
    uint64_t offset[A_COUNT], at = 0;
    for (int a = 0; a < A_COUNT; a++) {
        offset[a] = at;
        at += 8 + (uint64_t)n * (uint64_t)arrays[a].components * arrays[a].bytes_per_value;
    }
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
          "header_type=\"UInt64\">\n"
          "  <PolyData>\n"
          "    <FieldData>\n",
          fp);
    fprintf(fp,
            "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
            "format=\"ascii\">%.17g</DataArray>\n"
            "    </FieldData>\n",
            time);
    fprintf(fp,
            "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
            "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
            n, n);
    fputs("      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n", fp);
    for (int a = A_ID; a <= A_FORCE; a++) put_array_tag(fp, "        ", (array_id)a, offset[a]);
    fputs("      </PointData>\n      <Points>\n", fp);
    put_array_tag(fp, "        ", A_POINTS, offset[A_POINTS]);
    fputs("      </Points>\n      <Verts>\n", fp);
    put_array_tag(fp, "        ", A_CONNECTIVITY, offset[A_CONNECTIVITY]);
    put_array_tag(fp, "        ", A_OFFSETS, offset[A_OFFSETS]);
    fputs("      </Verts>\n    </Piece>\n  </PolyData>\n"
          "  <AppendedData encoding=\"raw\">\n   _",
          fp);
    for (int a = 0; a < A_COUNT; a++) {
        uint8_t *b = scratch(v, n * 24);
        if (!b) {
            tl_file_abort(&v->frame);
            return oom(o);
        }
        size_t size = fill_array(b, (array_id)a, ps, n);
        fwrite(b, 1, size, fp);
    }
    fputs("\n  </AppendedData>\n</VTKFile>\n", fp);
    s = tl_file_check(&v->frame, o->ctx->err, o->ctx->errsize);
    if (s != TL_OK) {
        tl_file_abort(&v->frame);
        return s;
    }
    s = tl_file_commit(&v->frame, o->ctx->err, o->ctx->errsize);
    tl_file_release(&v->frame);
    return s;
}

static tl_status vtk_record(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    const tl_world *w = o->ctx->world;
    tl_status s = grow_frames(o, v->nframes + 1);
    if (s != TL_OK) return s;
    size_t n = tl_world_particle_count(w);
    tl_particle_state *ps = malloc((n ? n : 1) * sizeof *ps);
    char *path = frame_path(v, v->nframes);
    if (!ps || !path) {
        free(ps);
        free(path);
        return oom(o);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (tl_world_particle_at(w, i, &ps[m]) == TL_OK) m++;
    double time = tl_world_time(w);
    s = write_frame(o, path, ps, m, time);
    free(ps);
    if (s != TL_OK) {
        free(path);
        return s;
    }
    v->frames[v->nframes] = path; /* final now: removed again on abort */
    v->times[v->nframes] = time;
    v->nframes++;
    o->records++;
    return write_pvd(o);
}

/* ---- end ---- */

/* Removes frames of an earlier run of this series beyond the last one written
 * now (<base>_NNNNNN.vtp with NNNNNN >= the frame count). */
static void remove_stale_frames(struct tl_vtk_state *v) {
    DIR *d = opendir(v->frame_dir);
    if (!d) return;
    size_t lb = strlen(v->base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        size_t ln = strlen(nm);
        if (ln < lb + 6 || strncmp(nm, v->base, lb) != 0 || nm[lb] != '_') continue;
        if (strcmp(nm + ln - 4, ".vtp") != 0) continue;
        const char *digits = nm + lb + 1;
        size_t nd = (size_t)(nm + ln - 4 - digits);
        if (nd < 6 || nd > 18) continue;
        size_t index = 0;
        bool ok = true;
        for (size_t k = 0; k < nd; k++) {
            if (digits[k] < '0' || digits[k] > '9') ok = false;
            else index = index * 10 + (size_t)(digits[k] - '0');
        }
        if (!ok || index < v->nframes) continue;
        char *path = tl_strdup_printf("%s/%s", v->frame_dir, nm);
        if (path) (void)unlink(path);
        free(path);
    }
    closedir(d);
}

static tl_status vtk_commit(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    remove_stale_frames(v);
    o->files_written = (int)v->nframes + (v->nframes ? 1 : 0);
    return TL_OK;
}

static void vtk_abort(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    if (!v) return;
    tl_file_abort(&v->frame);
    for (size_t k = v->resumed; k < v->nframes; k++) (void)unlink(v->frames[k]);
    if (v->resumed) { /* the .pvd of the frames taken back; the failure's message stays */
        char *keep = tl_strdup_printf("%s", o->ctx->err);
        for (size_t k = v->resumed; k < v->nframes; k++) free(v->frames[k]);
        v->nframes = v->resumed;
        (void)write_pvd(o);
        if (keep) snprintf(o->ctx->err, o->ctx->errsize, "%s", keep);
        free(keep);
    } else if (v->nframes) {
        (void)unlink(v->pvd_path);
    }
    if (v->made_dir) (void)rmdir(v->frame_dir); /* only when empty */
    free_state(v);
    o->vtk = NULL;
    o->files_written = 0;
}

static void vtk_release(tl_output *o) {
    free_state(o->vtk);
    o->vtk = NULL;
}

static const tl_output_ops vtk_ops = {.name = "vtk",
                                      .time_series = true,
                                      .open = vtk_open,
                                      .record = vtk_record,
                                      .commit = vtk_commit,
                                      .abort = vtk_abort,
                                      .release = vtk_release,
                                      .save = vtk_save,
                                      .resume_check = vtk_resume_check};

const tl_output_ops *tl_vtk_ops(void) { return &vtk_ops; }
