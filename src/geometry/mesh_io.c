/*
 * Reading mesh files (STL, ASCII or binary, and OBJ) through Debian's
 * assimp (its C API, assimp/cimport.h). assimp joins identical vertices
 * (with the per-facet normals of STL dropped, so that corners shared by
 * facets become one vertex) and triangulates polygons; what it returns is
 * checked here (triangles only, finite coordinates) and then by
 * tl_mesh_from_arrays. The meshes of a file (OBJ groups) are merged into
 * one, with vertices at the same coordinates joined.
 *
 * Bounds, so that no file makes a load hang or eat memory: the file must be a
 * regular file (a FIFO or a device is refused before it is read) of at most
 * TL_MESH_FILE_MAX_BYTES; it is read here, whole, and handed to assimp through
 * an IO system that opens that file only: whatever else a file names (an OBJ's
 * `mtllib`, which assimp would open relative to it) is refused, so nothing
 * outside the scene's folder is ever read. A polygon of more than
 * TL_MESH_MAX_POLYGON vertices is refused before assimp triangulates it (its
 * triangulation is quadratic in the vertex count).
 */
#define _POSIX_C_SOURCE 200809L
#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_file.h"
#include "mesh.h"

bool tl_mesh_unit_scale(const char *unit, double *scale) {
    static const char *const names[] = {"m", "cm", "mm", "um"};
    static const double factor[] = {1.0, 1e-2, 1e-3, 1e-6};
    if (!unit) return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(unit, names[i]) == 0) {
            *scale = factor[i];
            return true;
        }
    return false;
}

typedef struct weld_key {
    double x, y, z;
    uint32_t i;
} weld_key;

static int cmp_weld(const void *pa, const void *pb) {
    const weld_key *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    if (a->z != b->z) return a->z < b->z ? -1 : 1;
    return a->i < b->i ? -1 : (a->i > b->i);
}

/* ---- the one file assimp may read, from memory ---- */

typedef struct mem_file {
    const char *data;
    size_t size, at;
} mem_file;

typedef struct mem_fs {
    const char *path;            /* the one name that may be opened */
    const char *data;
    size_t size;
    int refused;                 /* other names assimp asked for */
} mem_fs;

static size_t mem_read(struct aiFile *f, char *buf, size_t size, size_t count) {
    mem_file *m = (mem_file *)(void *)f->UserData;
    if (size == 0 || count == 0) return 0;
    size_t left = m->size - m->at, n = left / size < count ? left / size : count;
    memcpy(buf, m->data + m->at, n * size);
    m->at += n * size;
    return n;
}

static size_t mem_write(struct aiFile *f, const char *buf, size_t size, size_t count) {
    (void)f;
    (void)buf;
    (void)size;
    (void)count;
    return 0;
}

static size_t mem_tell(struct aiFile *f) { return ((mem_file *)(void *)f->UserData)->at; }
static size_t mem_size(struct aiFile *f) { return ((mem_file *)(void *)f->UserData)->size; }
static void mem_flush(struct aiFile *f) { (void)f; }

static enum aiReturn mem_seek(struct aiFile *f, size_t offset, enum aiOrigin origin) {
    mem_file *m = (mem_file *)(void *)f->UserData;
    size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? m->at : m->size;
    if (origin != aiOrigin_SET && origin != aiOrigin_CUR && origin != aiOrigin_END) return aiReturn_FAILURE;
    if (offset > m->size - base) return aiReturn_FAILURE;
    m->at = base + offset;
    return aiReturn_SUCCESS;
}

static struct aiFile *mem_open(struct aiFileIO *io, const char *name, const char *mode) {
    mem_fs *fs = (mem_fs *)(void *)io->UserData;
    if (!name || strcmp(name, fs->path) != 0 || (mode && strpbrk(mode, "wa+"))) {
        fs->refused++;
        return NULL;
    }
    struct aiFile *f = calloc(1, sizeof *f);
    mem_file *m = calloc(1, sizeof *m);
    if (!f || !m) {
        free(f);
        free(m);
        return NULL;
    }
    m->data = fs->data;
    m->size = fs->size;
    f->ReadProc = mem_read;
    f->WriteProc = mem_write;
    f->TellProc = mem_tell;
    f->FileSizeProc = mem_size;
    f->SeekProc = mem_seek;
    f->FlushProc = mem_flush;
    f->UserData = (aiUserData)(void *)m;
    return f;
}

static void mem_close(struct aiFileIO *io, struct aiFile *f) {
    (void)io;
    if (!f) return;
    free(f->UserData);
    free(f);
}

/* The file, whole, when it is a regular file of at most TL_MESH_FILE_MAX_BYTES. */
static tl_status read_whole(const char *path, char **out, size_t *size, char *msg, size_t msg_size) {
    *out = NULL;
    *size = 0;
    int fd = -1;
    uint64_t n = 0;
    tl_status st = tl_file_open_regular(path, &fd, &n, msg, msg_size); /* a FIFO: refused, not waited on */
    if (st != TL_OK) return st == TL_ERROR_NOT_FOUND ? TL_ERROR_IO : st;
    if (n == 0 || n > TL_MESH_FILE_MAX_BYTES) {
        if (n == 0) snprintf(msg, msg_size, "%s: the mesh file is empty", path);
        else
            snprintf(msg, msg_size, "%s: the mesh file is %llu bytes, more than %llu (the limit on a mesh file: "
                     "about 670,000 facets of binary STL)", path, (unsigned long long)n,
                     (unsigned long long)TL_MESH_FILE_MAX_BYTES);
        close(fd);
        return TL_ERROR_ARGUMENT;
    }
    char *buf = malloc((size_t)n + 1);
    bool ok = buf && tl_fd_read_exact(fd, buf, (size_t)n);
    close(fd);
    if (!ok) {
        snprintf(msg, msg_size, buf ? "%s: the mesh file could not be read whole" : "%s: out of memory", path);
        free(buf);
        return buf ? TL_ERROR_IO : TL_ERROR_MEMORY;
    }
    buf[n] = '\0';
    *out = buf;
    *size = (size_t)n;
    return TL_OK;
}

tl_status tl_mesh_load(tl_mem *mem, tl_mesh *m, const char *path, const tl_mesh_opts *opts, char *msg,
                       size_t msg_size) {
    tl_mesh_init(m);
    if (!path) {
        snprintf(msg, msg_size, "no mesh file given");
        return TL_ERROR_ARGUMENT;
    }
    char *data = NULL;
    size_t size = 0;
    tl_status rs = read_whole(path, &data, &size, msg, msg_size);
    if (rs != TL_OK) return rs;
    mem_fs fs = {path, data, size, 0};
    struct aiFileIO io = {mem_open, mem_close, (aiUserData)(void *)&fs};
    /* triangulation after the polygons' sizes are checked (below) */
    const struct aiScene *sc = aiImportFileEx(path, aiProcess_JoinIdenticalVertices | aiProcess_DropNormals, &io);
    if (!sc) {
        snprintf(msg, msg_size, "%s: cannot read the mesh (STL or OBJ): %s", path, aiGetErrorString());
        free(data);
        return TL_ERROR_IO;
    }
    unsigned largest = 0;
    for (unsigned i = 0; i < sc->mNumMeshes; i++)
        for (unsigned f = 0; f < sc->mMeshes[i]->mNumFaces; f++)
            if (sc->mMeshes[i]->mFaces[f].mNumIndices > largest) largest = sc->mMeshes[i]->mFaces[f].mNumIndices;
    if (largest > TL_MESH_MAX_POLYGON) {
        snprintf(msg, msg_size, "%s: a polygon has %u vertices, more than %d (the limit on one facet of a mesh file)",
                 path, largest, TL_MESH_MAX_POLYGON);
        aiReleaseImport(sc);
        free(data);
        return TL_ERROR_ARGUMENT;
    }
    if (largest > 3) sc = aiApplyPostProcessing(sc, aiProcess_Triangulate);
    free(data);
    if (!sc) {
        snprintf(msg, msg_size, "%s: cannot triangulate the mesh's polygons: %s", path, aiGetErrorString());
        return TL_ERROR_IO;
    }
    tl_status st = TL_OK;
    size_t nv = 0, nt = 0;
    if (sc->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
        snprintf(msg, msg_size, "%s: the file was read only in part (assimp: incomplete scene)", path);
        st = TL_ERROR_IO;
    }
    for (unsigned i = 0; st == TL_OK && i < sc->mNumMeshes; i++) {
        nv += sc->mMeshes[i]->mNumVertices;
        nt += sc->mMeshes[i]->mNumFaces;
    }
    if (st == TL_OK && (nv == 0 || nt == 0)) {
        snprintf(msg, msg_size, "%s: no facets in the file", path);
        st = TL_ERROR_ARGUMENT;
    }
    double *xyz = NULL;
    uint32_t *tri = NULL, *map = NULL;
    weld_key *keys = NULL;
    if (st == TL_OK) {
        xyz = tl_mem_alloc(mem, 3 * nv * sizeof *xyz);
        tri = tl_mem_alloc(mem, 3 * nt * sizeof *tri);
        map = tl_mem_alloc(mem, nv * sizeof *map);
        keys = tl_mem_alloc(mem, nv * sizeof *keys);
        if (!xyz || !tri || !map || !keys) {
            snprintf(msg, msg_size, "%s: out of memory", path);
            st = TL_ERROR_MEMORY;
        }
    }
    size_t v0 = 0, f0 = 0;
    for (unsigned i = 0; st == TL_OK && i < sc->mNumMeshes; i++) {
        const struct aiMesh *am = sc->mMeshes[i];
        for (unsigned j = 0; j < am->mNumVertices; j++) {
            xyz[3 * (v0 + j) + 0] = am->mVertices[j].x;
            xyz[3 * (v0 + j) + 1] = am->mVertices[j].y;
            xyz[3 * (v0 + j) + 2] = am->mVertices[j].z;
        }
        for (unsigned f = 0; f < am->mNumFaces && st == TL_OK; f++) {
            const struct aiFace *af = &am->mFaces[f];
            if (af->mNumIndices != 3) {
                snprintf(msg, msg_size,
                         "%s: facet %zu has %u vertices: a surface is made of triangles (and polygons, which are "
                         "triangulated), not points or lines",
                         path, f0 + f, af->mNumIndices);
                st = TL_ERROR_ARGUMENT;
                break;
            }
            for (int k = 0; k < 3; k++) {
                if (af->mIndices[k] >= am->mNumVertices) {
                    snprintf(msg, msg_size, "%s: facet %zu refers to a vertex that does not exist", path, f0 + f);
                    st = TL_ERROR_ARGUMENT;
                    break;
                }
                tri[3 * (f0 + f) + (size_t)k] = (uint32_t)(v0 + af->mIndices[k]);
            }
        }
        v0 += am->mNumVertices;
        f0 += am->mNumFaces;
    }
    aiReleaseImport(sc);
    if (st == TL_OK) {
        /* vertices at the same coordinates (across the file's meshes) become one */
        for (size_t j = 0; j < nv; j++)
            keys[j] = (weld_key){xyz[3 * j], xyz[3 * j + 1], xyz[3 * j + 2], (uint32_t)j};
        qsort(keys, nv, sizeof *keys, cmp_weld);
        size_t first = 0;
        for (size_t j = 0; j < nv; j++) {
            if (keys[j].x != keys[first].x || keys[j].y != keys[first].y || keys[j].z != keys[first].z) first = j;
            map[keys[j].i] = keys[first].i;
        }
        for (size_t k = 0; k < 3 * nt; k++) tri[k] = map[tri[k]];
        st = tl_mesh_from_arrays(mem, m, xyz, nv, tri, nt, opts, path, msg, msg_size);
    }
    if (xyz) tl_mem_free(mem, xyz, 3 * nv * sizeof *xyz);
    if (tri) tl_mem_free(mem, tri, 3 * nt * sizeof *tri);
    if (map) tl_mem_free(mem, map, nv * sizeof *map);
    if (keys) tl_mem_free(mem, keys, nv * sizeof *keys);
    return st;
}
