#include "neighbors.h"

#include <math.h>
#include <string.h>

#include "vec.h"

void tl_neighbors_init(tl_neighbors *nb, double skin) {
    memset(nb, 0, sizeof *nb);
    nb->skin = skin;
}

void tl_neighbors_free(tl_mem *mem, tl_neighbors *nb) {
    tl_mem_free(mem, nb->cell_start, nb->cap_cells * sizeof *nb->cell_start);
    tl_mem_free(mem, nb->cell_items, nb->cap_items * sizeof *nb->cell_items);
    tl_mem_free(mem, nb->cell_of, nb->cap_of * sizeof *nb->cell_of);
    tl_mem_free(mem, nb->wall_ref, nb->cap_walls * sizeof *nb->wall_ref);
    double skin = nb->skin;
    tl_neighbors_init(nb, skin);
}

bool tl_neighbors_stale(const tl_neighbors *nb, const tl_particles *p, const tl_walls *w) {
    if (nb->builds == 0) return true;
    double lim2 = 0.25 * nb->skin * nb->skin;
    for (size_t i = 0; i < p->count; i++) {
        double d[3];
        v3_sub(d, p->x[i], p->x_ref[i]);
        if (v3_norm2(d) > lim2) return true;
    }
    for (size_t k = 0; k < w->count && k < nb->cap_walls; k++) {
        double d[3];
        v3_sub(d, w->w[k].disp, nb->wall_ref[k]);
        if (v3_norm2(d) > lim2) return true;
    }
    return w->count > nb->cap_walls;
}

static int reserve_u32(tl_mem *mem, uint32_t **a, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) ncap *= 2;
    uint32_t *n = tl_mem_realloc(mem, *a, *cap * sizeof **a, ncap * sizeof **a);
    if (!n) return -1;
    *a = n;
    *cap = ncap;
    return 0;
}

int tl_neighbors_build(tl_mem *mem, tl_neighbors *nb, tl_particles *p, const tl_walls *w,
                       tl_candidates *pp, tl_candidates *pw) {
    size_t n = p->count;
    pp->count = 0;
    pw->count = 0;
    /* the wall reference displacements */
    if (w->count > nb->cap_walls) {
        void *nw = tl_mem_realloc(mem, nb->wall_ref, nb->cap_walls * sizeof *nb->wall_ref,
                                  w->count * sizeof *nb->wall_ref);
        if (!nw) return -1;
        nb->wall_ref = nw;
        nb->cap_walls = w->count;
    }
    for (size_t k = 0; k < w->count; k++) v3_copy(nb->wall_ref[k], w->w[k].disp);
    for (size_t i = 0; i < n; i++) v3_copy(p->x_ref[i], p->x[i]);
    nb->builds++;
    if (n == 0) return 0;

    /* grid over the particles' bounding box, cells at least 2 R_max + skin wide */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            lo[k] = dmin(lo[k], p->x[i][k]);
            hi[k] = dmax(hi[k], p->x[i][k]);
        }
        rmax = dmax(rmax, p->radius[i]);
    }
    double h = 2.0 * rmax + nb->skin;
    /* keep the cell count within a few times the particle count */
    double limit = 4.0 * (double)n + 64.0;
    for (;;) {
        double cells = 1.0;
        for (int k = 0; k < 3; k++) cells *= floor((hi[k] - lo[k]) / h) + 1.0;
        if (cells <= limit) break;
        h *= 1.26;
    }
    int64_t dims[3];
    for (int k = 0; k < 3; k++) dims[k] = (int64_t)floor((hi[k] - lo[k]) / h) + 1;
    size_t ncells = (size_t)(dims[0] * dims[1] * dims[2]);
    v3_copy(nb->lo, lo);
    nb->h = h;
    memcpy(nb->dims, dims, sizeof dims);
    if (reserve_u32(mem, &nb->cell_start, &nb->cap_cells, ncells + 1) != 0) return -1;
    if (reserve_u32(mem, &nb->cell_items, &nb->cap_items, n) != 0) return -1;
    if (reserve_u32(mem, &nb->cell_of, &nb->cap_of, n) != 0) return -1;

    /* counting sort */
    memset(nb->cell_start, 0, (ncells + 1) * sizeof *nb->cell_start);
    for (size_t i = 0; i < n; i++) {
        int64_t c[3];
        for (int k = 0; k < 3; k++) {
            c[k] = (int64_t)floor((p->x[i][k] - lo[k]) / h);
            if (c[k] < 0) c[k] = 0;
            if (c[k] >= dims[k]) c[k] = dims[k] - 1;
        }
        uint32_t cell = (uint32_t)((c[2] * dims[1] + c[1]) * dims[0] + c[0]);
        nb->cell_of[i] = cell;
        nb->cell_start[cell + 1]++;
    }
    for (size_t c = 0; c < ncells; c++) nb->cell_start[c + 1] += nb->cell_start[c];
    for (size_t i = 0; i < n; i++) {
        uint32_t cell = nb->cell_of[i];
        /* cell_start[cell] is advanced while filling, restored below */
        nb->cell_items[nb->cell_start[cell]++] = (uint32_t)i;
    }
    for (size_t c = ncells; c > 0; c--) nb->cell_start[c] = nb->cell_start[c - 1];
    nb->cell_start[0] = 0;

    /* pairs: own cell (j after i) and the 13 forward neighbor cells */
    static const int fwd[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0},  {-1, -1, 1},
                                   {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1},  {1, 0, 1},
                                   {-1, 1, 1}, {0, 1, 1},  {1, 1, 1}};
    double skin = nb->skin;
    for (int64_t cz = 0; cz < dims[2]; cz++)
        for (int64_t cy = 0; cy < dims[1]; cy++)
            for (int64_t cx = 0; cx < dims[0]; cx++) {
                size_t cell = (size_t)((cz * dims[1] + cy) * dims[0] + cx);
                for (uint32_t a = nb->cell_start[cell]; a < nb->cell_start[cell + 1]; a++) {
                    uint32_t i = nb->cell_items[a];
                    for (int s = -1; s < 13; s++) {
                        uint32_t from, to;
                        if (s < 0) {
                            from = a + 1;
                            to = nb->cell_start[cell + 1];
                        } else {
                            int64_t qx = cx + fwd[s][0], qy = cy + fwd[s][1], qz = cz + fwd[s][2];
                            if (qx < 0 || qy < 0 || qz < 0 || qx >= dims[0] || qy >= dims[1] ||
                                qz >= dims[2])
                                continue;
                            size_t q = (size_t)((qz * dims[1] + qy) * dims[0] + qx);
                            from = nb->cell_start[q];
                            to = nb->cell_start[q + 1];
                        }
                        for (uint32_t b = from; b < to; b++) {
                            uint32_t j = nb->cell_items[b];
                            double d[3];
                            v3_sub(d, p->x[j], p->x[i]);
                            double cut = p->radius[i] + p->radius[j] + skin;
                            if (v3_norm2(d) >= cut * cut) continue;
                            uint32_t ia = i, ib = j;
                            if (p->id[ib] < p->id[ia]) {
                                ia = j;
                                ib = i;
                            }
                            if (tl_candidates_push(mem, pp, ia, ib) != 0) return -1;
                        }
                    }
                }
            }

    /* particle-face candidates */
    for (size_t i = 0; i < n; i++) {
        for (size_t f = 0; f < w->nfaces; f++) {
            tl_geometry g;
            if (!tl_face_geometry(&w->f[f], p->x[i], p->radius[i], &g)) continue;
            if (g.delta > -skin) {
                if (tl_candidates_push(mem, pw, (uint32_t)i, (uint32_t)f) != 0) return -1;
            }
        }
    }
    return 0;
}
