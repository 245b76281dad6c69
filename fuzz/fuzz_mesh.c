/* libFuzzer target: meshes given to the engine (the seeds include an OBJ naming material
 * files, which the loader never opens, and one of polygons, triangulated after their size is
 * checked). The first byte chooses the
 * way in: an STL/OBJ file (read by assimp, then checked by Talus: closed,
 * oriented, no degenerate facet) or vertex and triangle arrays (the checks
 * alone); a mesh that is accepted becomes a body that falls on a plane among
 * beads for a few steps (mass properties, the BVH, the polygonal contact). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *in_data;
static size_t in_size;

static int arrays_shape(tl_world *w, int *shape) {
    /* bytes 1-2: vertex count (<= 512); then doubles, then uint16 indices */
    if (in_size < 3) return -1;
    size_t nv = (size_t)(in_data[1] | (in_data[2] << 8)) % 513;
    size_t off = 3, need = nv * 3 * sizeof(double);
    if (in_size < off + need) return -1;
    double *xyz = malloc(need + 1);
    memcpy(xyz, in_data + off, need);
    off += need;
    size_t nt = (in_size - off) / 6;
    if (nt > 2048) nt = 2048;
    uint32_t *tri = malloc(nt * 3 * sizeof *tri + 1);
    for (size_t k = 0; k < 3 * nt; k++)
        tri[k] = (uint32_t)(in_data[off + 2 * k] | (in_data[off + 2 * k + 1] << 8));
    /* coordinates scaled to the beads' size (the raw doubles are often huge) */
    for (size_t k = 0; k < 3 * nv; k++) xyz[k] *= 1e-3;
    tl_shape_def d = tl_shape_default();
    d.kind = TL_SHAPE_MESH;
    d.source = TL_MESH_ARRAYS;
    d.vertex_xyz = xyz;
    d.vertex_count = nv;
    d.triangles = tri;
    d.triangle_count = nt;
    tl_status st = tl_world_add_shape(w, &d, shape);
    free(xyz);
    free(tri);
    return st == TL_OK ? 0 : -1;
}

static char path[96];

static int file_shape(tl_world *w, int *shape) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fwrite(in_data + 1, 1, in_size - 1, f);
    fclose(f);
    tl_shape_def d = tl_shape_default();
    d.kind = TL_SHAPE_MESH;
    d.source = TL_MESH_FILE;
    d.file = path;
    d.scale = 1e-3;
    return tl_world_add_shape(w, &d, shape) == TL_OK ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > (1u << 18)) return 0;
    in_data = data;
    in_size = size;
    bool file = data[0] & 1;
    if (file) snprintf(path, sizeof path, "/tmp/talus-fuzz-mesh-%ld.%s", (long)getpid(), (data[0] & 2) ? "obj" : "stl");
    tl_world *w = fuzz_world(file ? file_shape : arrays_shape);
    if (w) {
        tl_world_step(w, 5);
        tl_world_destroy(w);
    }
    return 0;
}
