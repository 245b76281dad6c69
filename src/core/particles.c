#include "particles.h"

#include <string.h>

#include "bytes.h"

void tl_particles_init(tl_particles *p) {
    memset(p, 0, sizeof *p);
    tl_keymap_init(&p->index_of);
}

/* Every array of the store, with its element size, for uniform growth and copying. */
#define TL_PARTICLE_FIELDS(X) \
    X(x) X(v) X(w) X(f) X(t) X(f_old) X(t_old) X(f_older) X(t_older) X(radius) X(inv_mass) X(inv_inertia) \
    X(inv_mass_law) X(material) X(q) X(x_ref) X(mass) X(inertia) X(am) X(id) X(flags) X(shape)

#define PLUS_ONE(name) +1
enum { NFIELDS = 0 TL_PARTICLE_FIELDS(PLUS_ONE) };
#undef PLUS_ONE

void tl_particles_free(tl_mem *mem, tl_particles *p) {
#define FREE_FIELD(name) tl_mem_free(mem, p->name, p->cap * sizeof *p->name);
    TL_PARTICLE_FIELDS(FREE_FIELD)
#undef FREE_FIELD
    tl_keymap_free(mem, &p->index_of);
    tl_particles_release(mem, p, UINT64_MAX);
    tl_mem_free(mem, p->replaced, p->capreplaced * sizeof *p->replaced);
    tl_particles_init(p);
}

/* ---- views from outside: replaced blocks are kept while exported ---- */

/* Room to keep every array once more (called before anything changes). */
static int reserve_replaced(tl_mem *mem, tl_particles *p) {
    if (!p->exported) return 0;
    return tl_mem_reserve(mem, (void **)&p->replaced, &p->capreplaced, p->nreplaced + NFIELDS,
                          sizeof *p->replaced);
}

/* Frees a block the store no longer uses, or keeps it for the views of the
 * current generation (room reserved by reserve_replaced). */
static void drop_block(tl_mem *mem, tl_particles *p, void *ptr, size_t size) {
    if (!ptr) return;
    if (p->exported && p->nreplaced < p->capreplaced) {
        p->replaced[p->nreplaced++] = (tl_replaced_block){ptr, size, p->generation};
        return;
    }
    tl_mem_free(mem, ptr, size);
}

void tl_particles_release(tl_mem *mem, tl_particles *p, uint64_t generation) {
    size_t k = 0;
    for (size_t i = 0; i < p->nreplaced; i++) {
        if (p->replaced[i].generation < generation) tl_mem_free(mem, p->replaced[i].ptr, p->replaced[i].size);
        else p->replaced[k++] = p->replaced[i];
    }
    p->nreplaced = k;
}

/* All-or-nothing growth: every new block is allocated before any old one is
 * released, so a failed allocation leaves the store as it was. */
static int grow(tl_mem *mem, tl_particles *p, size_t need) {
    if (need <= p->cap) return 0;
    if (reserve_replaced(mem, p) != 0) return -1;
    size_t ncap = p->cap ? p->cap + p->cap / 2 : 64;
    if (ncap < need) ncap = need + need / 8;
    tl_particles n = *p;
    int ok = 1;
#define ALLOC_FIELD(name) \
    n.name = ok ? tl_mem_alloc(mem, ncap * sizeof *p->name) : NULL; \
    if (!n.name) ok = 0;
    TL_PARTICLE_FIELDS(ALLOC_FIELD)
#undef ALLOC_FIELD
    if (!ok) {
#define DROP_FIELD(name) if (n.name) tl_mem_free(mem, n.name, ncap * sizeof *p->name);
        TL_PARTICLE_FIELDS(DROP_FIELD)
#undef DROP_FIELD
        return -1;
    }
#define MOVE_FIELD(name) \
    if (p->count) memcpy(n.name, p->name, p->count * sizeof *p->name); \
    drop_block(mem, p, p->name, p->cap * sizeof *p->name);
    TL_PARTICLE_FIELDS(MOVE_FIELD)
#undef MOVE_FIELD
    n.cap = ncap;
    n.replaced = p->replaced; /* drop_block may have added to the list */
    n.nreplaced = p->nreplaced;
    n.capreplaced = p->capreplaced;
    n.generation = p->generation + 1;
    *p = n;
    return 0;
}

int tl_particles_fit(tl_mem *mem, tl_particles *p) {
    size_t want = p->count + p->count / 16 + 16;
    if (p->exported || p->cap <= want + want / 8) return 0; /* views are out: keep the arrays */
    tl_particles n = *p;
    int ok = 1;
#define ALLOC_FIELD(name) \
    n.name = ok ? tl_mem_alloc(mem, want * sizeof *p->name) : NULL; \
    if (!n.name) ok = 0;
    TL_PARTICLE_FIELDS(ALLOC_FIELD)
#undef ALLOC_FIELD
    if (!ok) {
#define DROP_FIELD(name) if (n.name) tl_mem_free(mem, n.name, want * sizeof *p->name);
        TL_PARTICLE_FIELDS(DROP_FIELD)
#undef DROP_FIELD
        return 0; /* keeping the larger arrays is fine */
    }
#define MOVE_FIELD(name) \
    if (p->count) memcpy(n.name, p->name, p->count * sizeof *p->name); \
    tl_mem_free(mem, p->name, p->cap * sizeof *p->name);
    TL_PARTICLE_FIELDS(MOVE_FIELD)
#undef MOVE_FIELD
    n.cap = want;
    *p = n;
    return 0;
}

int64_t tl_particles_push(tl_mem *mem, tl_particles *p, uint32_t id) {
    if (grow(mem, p, p->count + 1) != 0) return -1;
    if (tl_keymap_put(mem, &p->index_of, id, (int32_t)p->count) != 0) return -1;
    size_t i = p->count++;
    p->generation++;
#define ZERO_FIELD(name) memset(&p->name[i], 0, sizeof p->name[i]);
    TL_PARTICLE_FIELDS(ZERO_FIELD)
#undef ZERO_FIELD
    p->id[i] = id;
    p->q[i][0] = 1.0;
    return (int64_t)i;
}

int64_t tl_particles_index(const tl_particles *p, uint32_t id) {
    int32_t i = tl_keymap_get(&p->index_of, id);
    return i < 0 ? -1 : (int64_t)i;
}

int tl_particles_compact(tl_mem *mem, tl_particles *p, const uint8_t *keep) {
    size_t n = 0;
    for (size_t i = 0; i < p->count; i++) {
        if (!keep[i]) {
            tl_keymap_remove(&p->index_of, p->id[i]);
            continue;
        }
        if (n != i) {
#define MOVE_FIELD(name) memcpy(&p->name[n], &p->name[i], sizeof p->name[i]);
            TL_PARTICLE_FIELDS(MOVE_FIELD)
#undef MOVE_FIELD
        }
        n++;
    }
    if (n != p->count) p->generation++;
    p->count = n;
    for (size_t i = 0; i < n; i++)
        if (tl_keymap_put(mem, &p->index_of, p->id[i], (int32_t)i) != 0) return -1;
    return 0;
}

int tl_particles_permute(tl_mem *mem, tl_particles *p, const uint32_t *order) {
    size_t n = p->count;
    if (n == 0) return 0;
    /* one scratch block as large as the widest field */
    size_t widest = sizeof *p->q;
    unsigned char *tmp = tl_mem_alloc(mem, n * widest);
    if (!tmp) return -1;
#define PERMUTE_FIELD(name)                                                          \
    {                                                                                \
        size_t es = sizeof *p->name;                                                 \
        unsigned char *src = (unsigned char *)p->name;                               \
        for (size_t k = 0; k < n; k++) memcpy(tmp + k * es, src + (size_t)order[k] * es, es); \
        memcpy(src, tmp, n * es);                                                    \
    }
    TL_PARTICLE_FIELDS(PERMUTE_FIELD)
#undef PERMUTE_FIELD
    tl_mem_free(mem, tmp, n * widest);
    p->generation++;
    for (size_t i = 0; i < n; i++)
        if (tl_keymap_put(mem, &p->index_of, p->id[i], (int32_t)i) != 0) return -1;
    return 0;
}

size_t tl_particles_bytes_each(void) {
    size_t b = 0;
    const tl_particles *p = NULL;
#define SIZE_FIELD(name) b += sizeof *p->name;
    TL_PARTICLE_FIELDS(SIZE_FIELD)
#undef SIZE_FIELD
    return b;
}

void tl_particles_pack(const tl_particles *p, size_t i, unsigned char *out) {
#define PACK_FIELD(name)                                 \
    memcpy(out, &p->name[i], sizeof p->name[i]);         \
    out += sizeof p->name[i];
    TL_PARTICLE_FIELDS(PACK_FIELD)
#undef PACK_FIELD
}

void tl_particles_unpack_at(tl_particles *p, size_t i, const unsigned char *in) {
#define UNPACK_FIELD(name)                               \
    memcpy(&p->name[i], in, sizeof p->name[i]);          \
    in += sizeof p->name[i];
    TL_PARTICLE_FIELDS(UNPACK_FIELD)
#undef UNPACK_FIELD
}

int64_t tl_particles_push_packed(tl_mem *mem, tl_particles *p, const unsigned char *in) {
    uint32_t id = 0;
    size_t off = 0;
    const tl_particles *q = NULL;
#define ID_OFFSET(name) \
    if (strcmp(#name, "id") == 0) memcpy(&id, in + off, sizeof id); \
    off += sizeof *q->name;
    TL_PARTICLE_FIELDS(ID_OFFSET)
#undef ID_OFFSET
    if (tl_particles_index(p, id) >= 0) return -1;
    int64_t i = tl_particles_push(mem, p, id);
    if (i >= 0) tl_particles_unpack_at(p, (size_t)i, in);
    return i;
}

void tl_particles_write(const tl_particles *p, tl_wbuf *b) {
    tl_wbuf_u64(b, p->count);
#define WRITE_FIELD(name) tl_wbuf_put(b, p->name, p->count * sizeof *p->name);
    TL_PARTICLE_FIELDS(WRITE_FIELD)
#undef WRITE_FIELD
}

int tl_particles_read(tl_mem *mem, tl_particles *p, tl_rbuf *b) {
    uint64_t n = tl_rbuf_u64(b);
    /* each particle takes at least this many bytes: a count beyond the buffer is corrupt */
    if (b->failed || n > (b->size - b->at) / tl_particles_bytes_each()) {
        b->failed = true;
        return -1;
    }
    tl_particles_free(mem, p);
    if (grow(mem, p, (size_t)n) != 0) return -1;
#define READ_FIELD(name) tl_rbuf_get(b, p->name, (size_t)n * sizeof *p->name);
    TL_PARTICLE_FIELDS(READ_FIELD)
#undef READ_FIELD
    if (b->failed) return -1;
    p->count = (size_t)n;
    if (tl_keymap_reserve(mem, &p->index_of, p->count) != 0) return -1;
    for (size_t i = 0; i < p->count; i++)
        if (tl_keymap_put(mem, &p->index_of, p->id[i], (int32_t)i) != 0) return -1;
    return 0;
}

int tl_particles_reserve_replace(tl_mem *mem, tl_particles *to) { return reserve_replaced(mem, to); }

void tl_particles_replace(tl_mem *mem, tl_particles *to, tl_particles *from) {
#define DROP_FIELD(name) drop_block(mem, to, to->name, to->cap * sizeof *to->name);
    TL_PARTICLE_FIELDS(DROP_FIELD)
#undef DROP_FIELD
    tl_keymap_free(mem, &to->index_of);
    tl_particles n = *from;
    n.generation = to->generation + 1;
    n.exported = to->exported;
    n.replaced = to->replaced;
    n.nreplaced = to->nreplaced;
    n.capreplaced = to->capreplaced;
    *to = n;
    tl_particles_init(from);
}
