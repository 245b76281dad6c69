/*
 * Reading mesh files (STL, ASCII or binary, and OBJ) through Debian's
 * assimp (its C API, assimp/cimport.h). assimp joins identical vertices
 * (with the per-facet normals of STL dropped, so that corners shared by
 * facets become one vertex) and triangulates polygons; what it returns is
 * checked here (triangles only, finite coordinates) and then by
 * tl_mesh_from_arrays. The meshes of a file (OBJ groups) are merged into
 * one, with vertices at the same coordinates joined.
 */
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

tl_status tl_mesh_load(tl_mem *mem, tl_mesh *m, const char *path, const tl_mesh_opts *opts, char *msg,
                       size_t msg_size) {
    tl_mesh_init(m);
    if (!path) {
        snprintf(msg, msg_size, "no mesh file given");
        return TL_ERROR_ARGUMENT;
    }
    const struct aiScene *sc =
        aiImportFile(path, aiProcess_JoinIdenticalVertices | aiProcess_Triangulate | aiProcess_DropNormals);
    if (!sc) {
        snprintf(msg, msg_size, "%s: cannot read the mesh (STL or OBJ): %s", path, aiGetErrorString());
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
