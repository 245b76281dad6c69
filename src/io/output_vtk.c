/*
 * VTK output: one XML PolyData file (.vtp) per record, in a folder named
 * after the output, plus a ParaView collection (.pvd) listing every frame
 * with its time. Layout for file "particles":
 *
 *   particles.pvd                       rewritten atomically after each frame
 *   particles/particles_000000.vtp      frame 0 (t = 0), 000001, ...
 *
 * A frame holds the particle centres as points, one vertex cell per
 * particle, and point data id (Int64), material (Int32), shape (Int32, 0 for
 * a sphere), radius (a sphere's, or the bounding radius), velocity,
 * angular_velocity, force (Float64) and orientation (Float64, the quaternion
 * w, x, y, z). Arrays are stored as appended raw
 * binary, little endian, each block preceded by its byte count as UInt64
 * (header_type="UInt64"); the time is also given as field data TimeValue.
 * Frames are final as soon as they are written (the .pvd refers to them);
 * an aborted run removes them and the .pvd again.
 *
 * When the world has bodies other than spheres, a second series shows their
 * surfaces, placed and oriented (particles_surfaces.pvd and
 * particles_surfaces/particles_surfaces_NNNNNN.vtp): the triangles of each
 * body's mesh (an ellipsoid's display tessellation) as polygons, with cell
 * data id, material, shape and point data velocity (of the surface point,
 * v + w x r). Both series are written at the same times.
 *
 * On several MPI ranks (docs/parallel.md) a frame is written in parallel
 * pieces: each rank writes the particles it owns (in the global storage order)
 * to a piece of its own, and rank 0 writes the frame as a ParaView parallel
 * PolyData file that lists them in rank order, which the .pvd lists:
 *
 *   particles/particles_000000.pvtp     frame 0: its arrays and pieces
 *   particles/particles_000000_p0.vtp   rank 0's particles, _p1: rank 1's, ...
 *
 * The pieces read together are the serial frame (the same points and arrays
 * in the same order); no rank holds more than its own particles. Each rank
 * removes its own pieces on abort; the run's agreement after every record
 * (run.c) makes a failed piece stop every rank.
 *
 * A resumed run (o->resume) takes back the frames written by the
 * checkpoint (each .vtp or .pvtp, whichever the run that wrote it made): it goes on from the next index (frames of the interrupted run
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
#include "talus/talus.h"

/* one series of frames: its .pvd, its folder, the frames written */
typedef struct series {
    char *pvd_path;   /* <dir>/<file><suffix>.pvd */
    char *frame_dir;  /* <dir>/<file><suffix> */
    char *base;       /* last component of <file><suffix> */
    bool made_dir;    /* frame_dir was created by this run */
    char **frames;    /* full paths of the frames written (.vtp, or .pvtp in pieces) */
} series;

enum { S_PARTICLES = 0, S_SURFACES, S_COUNT };
static const char *const series_suffix[S_COUNT] = {"", "_surfaces"};

struct tl_vtk_state {
    series s[S_COUNT];
    int nseries;      /* 1, or 2 when the world has other shapes */
    size_t resumed;   /* frames taken back from a checkpoint (a resumed run) */
    double *times;
    uint32_t *pieces; /* per frame: 0 a .vtp, else the .pvtp's piece count */
    size_t nframes, cap;
    int rank, ranks;  /* of a distributed world (1 rank: serial frames) */
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
    for (int k = 0; k < S_COUNT; k++) {
        series *se = &v->s[k];
        if (se->frames)
            for (size_t f = 0; f < v->nframes; f++) free(se->frames[f]);
        free(se->frames);
        free(se->frame_dir);
        free(se->base);
        free(se->pvd_path);
    }
    free(v->times);
    free(v->pieces);
    free(v->buf);
    free(v);
}

static tl_status oom(tl_output *o) {
    snprintf(o->ctx->err, o->ctx->errsize, "vtk: out of memory");
    return TL_ERROR_MEMORY;
}

/* The folder of the frames of a series (<dir>/<file><suffix>, <file> less a
 * trailing .pvd or .vtp) and the base name of its frames; malloc'd. */
static tl_status series_names(tl_output *o, const char *suffix, char **frame_dir, char **base) {
    *frame_dir = *base = NULL;
    const char *file = o->spec->file;
    size_t len = strlen(file);
    if (len > 4 && (strcmp(file + len - 4, ".pvd") == 0 || strcmp(file + len - 4, ".vtp") == 0))
        len -= 4;
    char *name = tl_strdup_printf("%.*s%s", (int)len, file, suffix);
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
    if (!(*base)[0] || (*base)[0] == '_') {
        snprintf(o->ctx->err, o->ctx->errsize, "vtk: output file '%s' has no name", o->spec->file);
        free(*base);
        free(*frame_dir);
        *frame_dir = *base = NULL;
        return TL_ERROR_ARGUMENT;
    }
    return TL_OK;
}

static char *frame_path(const series *se, size_t index) {
    return tl_strdup_printf("%s/%s_%06zu.vtp", se->frame_dir, se->base, index);
}

static char *pframe_path(const series *se, size_t index) {
    return tl_strdup_printf("%s/%s_%06zu.pvtp", se->frame_dir, se->base, index);
}

/* the piece of rank r of a frame: its full path, or (dir false) its name beside the .pvtp */
static char *piece_path(const series *se, size_t index, int r, bool dir) {
    if (!dir) return tl_strdup_printf("%s_%06zu_p%d.vtp", se->base, index, r);
    return tl_strdup_printf("%s/%s_%06zu_p%d.vtp", se->frame_dir, se->base, index, r);
}

/* the frame f that a resumed run takes back: the .pvtp when the run that wrote it was
 * spread over ranks, else the .vtp; NULL when neither is there (or out of memory: *oom) */
static char *existing_frame(const series *se, size_t f, bool *pieces, bool *no_memory) {
    *no_memory = false;
    char *p = pframe_path(se, f);
    if (p && access(p, F_OK) == 0) {
        *pieces = true;
        return p;
    }
    free(p);
    char *q = frame_path(se, f);
    if (q && access(q, F_OK) == 0) {
        *pieces = false;
        return q;
    }
    *no_memory = !p || !q;
    free(q);
    return NULL;
}

static tl_status grow_frames(tl_output *o, size_t need) {
    struct tl_vtk_state *v = o->vtk;
    if (need <= v->cap) return TL_OK;
    size_t cap = v->cap ? v->cap : 64;
    while (cap < need) cap *= 2;
    for (int k = 0; k < v->nseries; k++) {
        char **f = realloc(v->s[k].frames, cap * sizeof *f);
        if (!f) return oom(o);
        v->s[k].frames = f;
    }
    double *t = realloc(v->times, cap * sizeof *t);
    if (!t) return oom(o);
    v->times = t;
    uint32_t *pc = realloc(v->pieces, cap * sizeof *pc);
    if (!pc) return oom(o);
    v->pieces = pc;
    v->cap = cap;
    return TL_OK;
}

static tl_status write_pvd(tl_output *o, const series *se);

static tl_status write_pvds(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    if (v->rank != 0) return TL_OK; /* rank 0 writes the collections */
    for (int k = 0; k < v->nseries; k++) {
        tl_status s = write_pvd(o, &v->s[k]);
        if (s != TL_OK) return s;
    }
    return TL_OK;
}

/* a resumed run: the frames written by the checkpoint */
static tl_status vtk_take_back(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    const tl_output_saved *in = o->resume;
    tl_status s = grow_frames(o, in->nframes);
    if (s != TL_OK) return s;
    for (size_t f = 0; f < in->nframes; f++) {
        for (int k = 0; k < v->nseries; k++) {
            bool pieces, no_memory;
            char *path = existing_frame(&v->s[k], f, &pieces, &no_memory);
            if (!path) {
                for (int j = 0; j < k; j++) free(v->s[j].frames[f]);
                if (no_memory) return oom(o);
                snprintf(o->ctx->err, o->ctx->errsize, "cannot resume: frame %zu of %s is missing", f,
                         v->s[k].pvd_path);
                return TL_ERROR_IO;
            }
            v->s[k].frames[f] = path;
            if (k == 0) v->pieces[f] = pieces; /* 1 or 0: its piece count is not needed */
        }
        v->times[f] = in->times[f];
        v->nframes = v->resumed = f + 1; /* an abort keeps them */
    }
    o->records = in->records;
    return v->nframes ? write_pvds(o) : TL_OK;
}

static tl_status open_series(tl_output *o, series *se, const char *suffix) {
    tl_status s = series_names(o, suffix, &se->frame_dir, &se->base);
    if (s != TL_OK) return s;
    se->pvd_path = tl_strdup_printf("%s.pvd", se->frame_dir);
    if (!se->pvd_path) return oom(o);
    if (o->vtk->rank != 0) return TL_OK; /* rank 0 made the folder and checked the .pvd (run.c) */
    s = tl_file_can_replace(se->pvd_path, o->ctx->err, o->ctx->errsize);
    if (s != TL_OK) return s;
    if (access(se->frame_dir, F_OK) != 0) se->made_dir = true;
    return tl_mkdir_p(se->frame_dir, o->ctx->err, o->ctx->errsize);
}

static tl_status vtk_open(tl_output *o) {
    struct tl_vtk_state *v = calloc(1, sizeof *v);
    if (!v) return oom(o);
    o->vtk = v;
    v->rank = tl_world_rank(o->ctx->world);
    v->ranks = tl_world_ranks(o->ctx->world);
    v->nseries = tl_world_shape_count(o->ctx->world) > 0 ? 2 : 1;
    tl_status s = TL_OK;
    for (int k = 0; k < v->nseries && s == TL_OK; k++) s = open_series(o, &v->s[k], series_suffix[k]);
    if (s != TL_OK) return s;
    free(o->path);
    o->path = tl_strdup_printf("%s", v->s[S_PARTICLES].pvd_path);
    if (!o->path) return oom(o);
    if (o->resume) s = vtk_take_back(o);
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
    int nseries = tl_world_shape_count(o->ctx->world) > 0 ? 2 : 1;
    tl_status s = TL_OK;
    for (int k = 0; k < nseries && s == TL_OK; k++) {
        char *dir, *base;
        s = series_names(o, series_suffix[k], &dir, &base);
        if (s != TL_OK) return s;
        series probe = {.frame_dir = dir, .base = base};
        for (size_t f = 0; f < in->nframes && s == TL_OK; f++) {
            bool pieces, no_memory;
            char *path = existing_frame(&probe, f, &pieces, &no_memory);
            if (!path && no_memory) s = oom(o);
            else if (!path) {
                char *want = frame_path(&probe, f);
                snprintf(o->ctx->err, o->ctx->errsize,
                         "cannot resume: the frame %s is missing (nor is a .pvtp of it there; the checkpoint "
                         "counts %zu frames); rerun without --resume or restore the file",
                         want ? want : probe.base, in->nframes);
                free(want);
                s = TL_ERROR_IO;
            }
            free(path);
        }
        free(dir);
        free(base);
    }
    return s;
}

/* ---- the .pvd ---- */

static tl_status write_pvd(tl_output *o, const series *se) {
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
        put_xml_text(fp, se->base);
        fputc('/', fp);
        put_xml_text(fp, se->base);
        fprintf(fp, "_%06zu.%s\"/>\n", k, v->pieces[k] ? "pvtp" : "vtp");
    }
    fputs("  </Collection>\n</VTKFile>\n", fp);
    if (fclose(fp) != 0 || !text) {
        free(text);
        return oom(o);
    }
    tl_status s = tl_file_write_atomic(se->pvd_path, text, size, o->ctx->err, o->ctx->errsize);
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

/* in the order of the appended blocks (shape and orientation came last) */
typedef enum array_id {
    A_ID, A_MATERIAL, A_RADIUS, A_VELOCITY, A_ANGULAR_VELOCITY, A_FORCE, A_POINTS,
    A_CONNECTIVITY, A_OFFSETS, A_SHAPE, A_ORIENTATION, A_COUNT
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
    {"shape", "Int32", 1, 4},
    {"orientation", "Float64", 4, 8},
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
        case A_SHAPE: put_u32(d, (uint32_t)(int32_t)p->shape); d += 4; continue;
        case A_RADIUS: put_f64(d, p->radius); d += 8; continue;
        case A_CONNECTIVITY: put_u64(d, (uint64_t)i); d += 8; continue;
        case A_OFFSETS: put_u64(d, (uint64_t)i + 1); d += 8; continue;
        case A_ORIENTATION:
            put_f64(d, p->orientation.w);
            put_f64(d + 8, p->orientation.x);
            put_f64(d + 16, p->orientation.y);
            put_f64(d + 24, p->orientation.z);
            d += 32;
            continue;
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

static void put_header(FILE *fp, double time) {
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
}

static tl_status finish_frame(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    fputs("\n  </AppendedData>\n</VTKFile>\n", v->frame.fp);
    tl_status s = tl_file_check(&v->frame, o->ctx->err, o->ctx->errsize);
    if (s != TL_OK) {
        tl_file_abort(&v->frame);
        return s;
    }
    s = tl_file_commit(&v->frame, o->ctx->err, o->ctx->errsize);
    tl_file_release(&v->frame);
    return s;
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
    put_header(fp, time);
    fprintf(fp,
            "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
            "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
            n, n);
    fputs("      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n", fp);
    for (int a = A_ID; a <= A_FORCE; a++) put_array_tag(fp, "        ", (array_id)a, offset[a]);
    put_array_tag(fp, "        ", A_SHAPE, offset[A_SHAPE]);
    put_array_tag(fp, "        ", A_ORIENTATION, offset[A_ORIENTATION]);
    fputs("      </PointData>\n      <Points>\n", fp);
    put_array_tag(fp, "        ", A_POINTS, offset[A_POINTS]);
    fputs("      </Points>\n      <Verts>\n", fp);
    put_array_tag(fp, "        ", A_CONNECTIVITY, offset[A_CONNECTIVITY]);
    put_array_tag(fp, "        ", A_OFFSETS, offset[A_OFFSETS]);
    fputs("      </Verts>\n    </Piece>\n  </PolyData>\n"
          "  <AppendedData encoding=\"raw\">\n   _",
          fp);
    for (int a = 0; a < A_COUNT; a++) {
        uint8_t *b = scratch(v, n * 32);
        if (!b) {
            tl_file_abort(&v->frame);
            return oom(o);
        }
        size_t size = fill_array(b, (array_id)a, ps, n);
        fwrite(b, 1, size, fp);
    }
    return finish_frame(o);
}

/* ---- the surfaces of the bodies other than spheres ---- */

/* the body -> world rotation of a unit quaternion */
static void rotation(tl_quat q, double R[3][3]) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    R[0][0] = 1.0 - 2.0 * (y * y + z * z);
    R[0][1] = 2.0 * (x * y - w * z);
    R[0][2] = 2.0 * (x * z + w * y);
    R[1][0] = 2.0 * (x * y + w * z);
    R[1][1] = 1.0 - 2.0 * (x * x + z * z);
    R[1][2] = 2.0 * (y * z - w * x);
    R[2][0] = 2.0 * (x * z - w * y);
    R[2][1] = 2.0 * (y * z + w * x);
    R[2][2] = 1.0 - 2.0 * (x * x + y * y);
}

typedef struct surf_block {
    const char *name, *type;
    int components;
} surf_block;

enum { B_VELOCITY = 0, B_POINTS, B_CONNECTIVITY, B_OFFSETS, B_ID, B_MATERIAL, B_SHAPE, B_COUNT };
static const surf_block blocks[B_COUNT] = {
    {"velocity", "Float64", 3}, {"Points", "Float64", 3}, {"connectivity", "Int64", 1}, {"offsets", "Int64", 1},
    {"id", "Int64", 1},         {"material", "Int32", 1}, {"shape", "Int32", 1},
};

static void put_block_tag(FILE *fp, int k, uint64_t offset) {
    fprintf(fp, "        <DataArray type=\"%s\" Name=\"%s\"", blocks[k].type, blocks[k].name);
    if (blocks[k].components > 1) fprintf(fp, " NumberOfComponents=\"%d\"", blocks[k].components);
    fprintf(fp, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
}

static tl_status write_surfaces(tl_output *o, const char *path, const tl_particle_state *ps, size_t n,
                                double time) {
    struct tl_vtk_state *v = o->vtk;
    const tl_world *w = o->ctx->world;
    size_t npoints = 0, ntri = 0;
    for (size_t i = 0; i < n; i++) {
        const double *xyz;
        const uint32_t *tri;
        size_t nv, nt;
        if (ps[i].shape == TL_SPHERE || tl_world_shape_mesh(w, ps[i].shape, &xyz, &nv, &tri, &nt) != TL_OK) continue;
        npoints += nv;
        ntri += nt;
    }
    tl_status s = tl_file_open(&v->frame, path, o->ctx->err, o->ctx->errsize);
    if (s != TL_OK) return s;
    FILE *fp = v->frame.fp;
    const size_t count[B_COUNT] = {npoints, npoints, 3 * ntri, ntri, ntri, ntri, ntri};
    const size_t width[B_COUNT] = {24, 24, 8, 8, 8, 4, 4};
    uint64_t offset[B_COUNT], at = 0;
    for (int k = 0; k < B_COUNT; k++) {
        offset[k] = at;
        at += 8 + (uint64_t)count[k] * width[k];
    }
    put_header(fp, time);
    fprintf(fp,
            "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
            "NumberOfStrips=\"0\" NumberOfPolys=\"%zu\">\n",
            npoints, ntri);
    fputs("      <PointData Vectors=\"velocity\">\n", fp);
    put_block_tag(fp, B_VELOCITY, offset[B_VELOCITY]);
    fputs("      </PointData>\n      <CellData Scalars=\"id\">\n", fp);
    for (int k = B_ID; k <= B_SHAPE; k++) put_block_tag(fp, k, offset[k]);
    fputs("      </CellData>\n      <Points>\n", fp);
    put_block_tag(fp, B_POINTS, offset[B_POINTS]);
    fputs("      </Points>\n      <Polys>\n", fp);
    put_block_tag(fp, B_CONNECTIVITY, offset[B_CONNECTIVITY]);
    put_block_tag(fp, B_OFFSETS, offset[B_OFFSETS]);
    fputs("      </Polys>\n    </Piece>\n  </PolyData>\n"
          "  <AppendedData encoding=\"raw\">\n   _",
          fp);
    for (int k = 0; k < B_COUNT; k++) {
        size_t bytes = count[k] * width[k];
        uint8_t *b = scratch(v, bytes);
        if (!b) {
            tl_file_abort(&v->frame);
            return oom(o);
        }
        put_u64(b, (uint64_t)bytes);
        uint8_t *d = b + 8;
        size_t first = 0;
        for (size_t i = 0; i < n; i++) {
            const double *xyz;
            const uint32_t *tri;
            size_t nv, nt;
            const tl_particle_state *p = &ps[i];
            if (p->shape == TL_SPHERE || tl_world_shape_mesh(w, p->shape, &xyz, &nv, &tri, &nt) != TL_OK) continue;
            double R[3][3];
            rotation(p->body_orientation, R); /* the mesh is in its body frame */
            if (k == B_VELOCITY || k == B_POINTS) {
                for (size_t j = 0; j < nv; j++) {
                    double r[3];
                    for (int a = 0; a < 3; a++)
                        r[a] = R[a][0] * xyz[3 * j] + R[a][1] * xyz[3 * j + 1] + R[a][2] * xyz[3 * j + 2];
                    double out[3];
                    if (k == B_POINTS) {
                        out[0] = p->position.x + r[0];
                        out[1] = p->position.y + r[1];
                        out[2] = p->position.z + r[2];
                    } else {
                        const tl_vec3 om = p->angular_velocity;
                        out[0] = p->velocity.x + om.y * r[2] - om.z * r[1];
                        out[1] = p->velocity.y + om.z * r[0] - om.x * r[2];
                        out[2] = p->velocity.z + om.x * r[1] - om.y * r[0];
                    }
                    for (int a = 0; a < 3; a++) put_f64(d + 8 * a, out[a]);
                    d += 24;
                }
            } else {
                for (size_t t = 0; t < nt; t++) {
                    switch (k) {
                    case B_CONNECTIVITY:
                        for (size_t a = 0; a < 3; a++) put_u64(d + 8 * a, (uint64_t)(first + tri[3 * t + a]));
                        d += 24;
                        break;
                    case B_ID: put_u64(d, (uint64_t)p->id); d += 8; break;
                    case B_MATERIAL: put_u32(d, (uint32_t)(int32_t)p->material); d += 4; break;
                    case B_SHAPE: put_u32(d, (uint32_t)(int32_t)p->shape); d += 4; break;
                    default: break;
                    }
                }
            }
            first += nv;
        }
        if (k == B_OFFSETS) {
            d = b + 8;
            for (size_t t = 0; t < ntri; t++) put_u64(d + 8 * t, (uint64_t)(3 * (t + 1)));
        }
        fwrite(b, 1, 8 + bytes, fp);
    }
    return finish_frame(o);
}

/* ---- a frame in pieces (several ranks) ---- */

static void put_parray(FILE *fp, const char *type, const char *name, int components) {
    fprintf(fp, "      <PDataArray type=\"%s\" Name=\"%s\"", type, name);
    if (components > 1) fprintf(fp, " NumberOfComponents=\"%d\"", components);
    fputs("/>\n", fp);
}

/* The .pvtp of frame `index` of series k: its arrays (those of each piece) and its pieces,
 * one per rank in rank order. */
static tl_status write_pvtp(tl_output *o, int k, const char *path, size_t index) {
    struct tl_vtk_state *v = o->vtk;
    const series *se = &v->s[k];
    char *text = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&text, &size);
    if (!fp) return oom(o);
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PPolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
          "  <PPolyData GhostLevel=\"0\">\n",
          fp);
    if (k == S_PARTICLES) {
        fputs("    <PPointData Scalars=\"radius\" Vectors=\"velocity\">\n", fp);
        const array_id point_data[] = {A_ID, A_MATERIAL, A_RADIUS, A_VELOCITY, A_ANGULAR_VELOCITY,
                                       A_FORCE, A_SHAPE, A_ORIENTATION};
        for (size_t a = 0; a < sizeof point_data / sizeof *point_data; a++)
            put_parray(fp, arrays[point_data[a]].type, arrays[point_data[a]].name,
                       arrays[point_data[a]].components);
        fputs("    </PPointData>\n    <PPoints>\n", fp);
        put_parray(fp, arrays[A_POINTS].type, arrays[A_POINTS].name, arrays[A_POINTS].components);
    } else {
        fputs("    <PPointData Vectors=\"velocity\">\n", fp);
        put_parray(fp, blocks[B_VELOCITY].type, blocks[B_VELOCITY].name, blocks[B_VELOCITY].components);
        fputs("    </PPointData>\n    <PCellData Scalars=\"id\">\n", fp);
        for (int b = B_ID; b <= B_SHAPE; b++) put_parray(fp, blocks[b].type, blocks[b].name, blocks[b].components);
        fputs("    </PCellData>\n    <PPoints>\n", fp);
        put_parray(fp, blocks[B_POINTS].type, blocks[B_POINTS].name, blocks[B_POINTS].components);
    }
    fputs("    </PPoints>\n", fp);
    for (int r = 0; r < v->ranks; r++) {
        char *name = piece_path(se, index, r, false);
        if (!name) {
            fclose(fp);
            free(text);
            return oom(o);
        }
        fputs("    <Piece Source=\"", fp);
        put_xml_text(fp, name);
        fputs("\"/>\n", fp);
        free(name);
    }
    fputs("  </PPolyData>\n</VTKFile>\n", fp);
    if (fclose(fp) != 0 || !text) {
        free(text);
        return oom(o);
    }
    tl_status s = tl_file_write_atomic(path, text, size, o->ctx->err, o->ctx->errsize);
    free(text);
    return s;
}

/* Frame `index` of every series: the serial .vtp, or (several ranks) this rank's piece and,
 * on rank 0, the .pvtp. On failure nothing of this rank's part of the frame is left. */
static tl_status write_frames(tl_output *o, char *const path[], const tl_particle_state *ps, size_t m,
                              double time) {
    struct tl_vtk_state *v = o->vtk;
    const bool pieces = v->ranks > 1;
    char *written[2 * S_COUNT] = {NULL};
    int nw = 0;
    tl_status s = TL_OK;
    for (int k = 0; k < v->nseries && s == TL_OK; k++) {
        char *file = pieces ? piece_path(&v->s[k], v->nframes, v->rank, true) : tl_strdup_printf("%s", path[k]);
        if (!file) {
            s = oom(o);
            break;
        }
        s = k == S_PARTICLES ? write_frame(o, file, ps, m, time) : write_surfaces(o, file, ps, m, time);
        if (s != TL_OK) {
            free(file);
            break;
        }
        written[nw++] = file;
        if (pieces && v->rank == 0) {
            s = write_pvtp(o, k, path[k], v->nframes);
            if (s != TL_OK) break;
            if (!(written[nw++] = tl_strdup_printf("%s", path[k]))) s = oom(o);
        }
    }
    for (int j = 0; j < nw; j++) {
        if (s != TL_OK) (void)unlink(written[j]);
        free(written[j]);
    }
    return s;
}

static tl_status vtk_record(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    const tl_world *w = o->ctx->world;
    tl_status s = grow_frames(o, v->nframes + 1);
    if (s != TL_OK) return s;
    /* several ranks: this rank's own particles, in the global order; serially every one */
    const bool pieces = v->ranks > 1;
    size_t first = 0, n = 0;
    if (pieces) tl_world_owned(w, &first, &n);
    else n = tl_world_particle_count(w);
    tl_particle_state *ps = malloc((n ? n : 1) * sizeof *ps);
    char *path[S_COUNT] = {NULL, NULL};
    bool ok = ps != NULL;
    for (int k = 0; k < v->nseries && ok; k++)
        ok = (path[k] = pieces ? pframe_path(&v->s[k], v->nframes) : frame_path(&v->s[k], v->nframes)) != NULL;
    if (!ok) {
        free(ps);
        for (int k = 0; k < S_COUNT; k++) free(path[k]);
        return oom(o);
    }
    size_t m = 0;
    for (size_t i = first; i < first + n; i++)
        if (tl_world_particle_at(w, i, &ps[m]) == TL_OK) m++;
    double time = tl_world_time(w);
    s = write_frames(o, path, ps, m, time);
    free(ps);
    if (s != TL_OK) {
        for (int k = 0; k < S_COUNT; k++) free(path[k]);
        return s;
    }
    for (int k = 0; k < v->nseries; k++) v->s[k].frames[v->nframes] = path[k]; /* final now: removed again on abort */
    v->times[v->nframes] = time;
    v->pieces[v->nframes] = pieces ? (uint32_t)v->ranks : 0;
    v->nframes++;
    o->records++;
    return write_pvds(o);
}

/* ---- end ---- */

/* Reads a frame file's name: <base>_NNNNNN.vtp, <base>_NNNNNN.pvtp or the piece
 * <base>_NNNNNN_pK.vtp (*piece = K, else -1). */
static bool frame_name(const char *nm, const char *base, size_t *index, long *piece, bool *pvtp) {
    size_t lb = strlen(base);
    if (strncmp(nm, base, lb) != 0 || nm[lb] != '_') return false;
    const char *c = nm + lb + 1;
    size_t nd = 0, idx = 0;
    for (; c[nd] >= '0' && c[nd] <= '9'; nd++) idx = idx * 10 + (size_t)(c[nd] - '0');
    if (nd < 6 || nd > 18) return false;
    c += nd;
    *piece = -1;
    if (c[0] == '_' && c[1] == 'p') {
        size_t np = 0;
        long k = 0;
        for (c += 2; c[np] >= '0' && c[np] <= '9' && np < 9; np++) k = k * 10 + (c[np] - '0');
        if (np == 0) return false;
        *piece = k;
        c += np;
    }
    *pvtp = strcmp(c, ".pvtp") == 0;
    if (!*pvtp && strcmp(c, ".vtp") != 0) return false;
    if (*pvtp && *piece >= 0) return false;
    *index = idx;
    return true;
}

/* Removes the frame files of an earlier run of this series that the frames now do not use:
 * beyond the last frame written, and of the frames this run wrote, the kind it did not write
 * (a .vtp where it wrote pieces, pieces of ranks it did not have, a .pvtp where it wrote a
 * .vtp). The frames taken back from a checkpoint keep theirs. */
static void remove_stale_frames(const struct tl_vtk_state *v, const series *se) {
    DIR *d = opendir(se->frame_dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t index;
        long piece;
        bool pvtp;
        if (!frame_name(e->d_name, se->base, &index, &piece, &pvtp)) continue;
        bool keep = index < v->resumed;
        if (!keep && index < v->nframes) {
            uint32_t np = v->pieces[index];
            keep = np == 0 ? (!pvtp && piece < 0) : (pvtp || (piece >= 0 && piece < (long)np));
        }
        if (keep) continue;
        char *path = tl_strdup_printf("%s/%s", se->frame_dir, e->d_name);
        if (path) (void)unlink(path);
        free(path);
    }
    closedir(d);
}

static tl_status vtk_commit(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    if (v->rank != 0) return TL_OK; /* rank 0 tidies the folders and counts the files */
    for (int k = 0; k < v->nseries; k++) remove_stale_frames(v, &v->s[k]);
    size_t files = v->nframes ? 1 : 0;
    for (size_t f = v->resumed; f < v->nframes; f++) files += v->pieces[f] ? v->pieces[f] + 1 : 1;
    o->files_written = v->nseries * (int)(files + v->resumed);
    return TL_OK;
}

static void vtk_abort(tl_output *o) {
    struct tl_vtk_state *v = o->vtk;
    if (!v) return;
    tl_file_abort(&v->frame);
    for (int k = 0; k < v->nseries; k++)
        if (v->s[k].frames)
            for (size_t f = v->resumed; f < v->nframes; f++) {
                if (v->rank == 0) (void)unlink(v->s[k].frames[f]);
                if (!v->pieces[f]) continue;
                char *piece = piece_path(&v->s[k], f, v->rank, true); /* each rank its own */
                if (piece) (void)unlink(piece);
                free(piece);
            }
    if (v->rank != 0) { /* rank 0 puts the collections back and removes the folders */
        free_state(v);
        o->vtk = NULL;
        o->files_written = 0;
        return;
    }
    if (v->resumed) { /* the .pvd of the frames taken back; the failure's message stays */
        char *keep = tl_strdup_printf("%s", o->ctx->err);
        for (int k = 0; k < v->nseries; k++)
            if (v->s[k].frames)
                for (size_t f = v->resumed; f < v->nframes; f++) free(v->s[k].frames[f]);
        v->nframes = v->resumed;
        (void)write_pvds(o);
        if (keep) snprintf(o->ctx->err, o->ctx->errsize, "%s", keep);
        free(keep);
    } else if (v->nframes) {
        for (int k = 0; k < v->nseries; k++)
            if (v->s[k].pvd_path) (void)unlink(v->s[k].pvd_path);
    }
    for (int k = 0; k < v->nseries; k++)
        if (v->s[k].made_dir && v->s[k].frame_dir) (void)rmdir(v->s[k].frame_dir); /* only when empty */
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
                                      .distributed = true,
                                      .open = vtk_open,
                                      .record = vtk_record,
                                      .commit = vtk_commit,
                                      .abort = vtk_abort,
                                      .release = vtk_release,
                                      .save = vtk_save,
                                      .resume_check = vtk_resume_check};

const tl_output_ops *tl_vtk_ops(tl_output_kind kind) {
    (void)kind;
    return &vtk_ops;
}
