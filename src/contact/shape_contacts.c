/* The shape stage's contact records: the candidates' patch stores, grown, relaid and freed;
 * see shape_contacts.h (the stage itself: step/shape_stage.c). */
#include "shape_contacts.h"

#include <string.h>

void tl_shape_contacts_init(tl_shape_contacts *sc) {
    memset(sc, 0, sizeof *sc);
    tl_keymap_init(&sc->stash);
}

static void store_free(tl_mem *mem, tl_patch_store *s, int stride) {
    tl_mem_free(mem, s->rec, s->cap * (size_t)stride * sizeof *s->rec);
    tl_mem_free(mem, s->state, s->cap * sizeof *s->state);
    memset(s, 0, sizeof *s);
}

void tl_shape_contacts_free(tl_mem *mem, tl_shape_contacts *sc) {
    tl_shape_list_free(mem, &sc->cand);
    for (int b = 0; b < 2; b++) {
        store_free(mem, &sc->store[b], sc->stride);
        tl_mem_free(mem, sc->first[b], sc->cap_cand * sizeof *sc->first[b]);
        tl_mem_free(mem, sc->live[b], sc->cap_cand * sizeof *sc->live[b]);
    }
    tl_mem_free(mem, sc->off, sc->cap_step * sizeof *sc->off);
    tl_mem_free(mem, sc->np, sc->cap_step * sizeof *sc->np);
    tl_mem_free(mem, sc->nfirst, sc->cap_step * sizeof *sc->nfirst);
    tl_mem_free(mem, sc->buf, sc->cap_buf * sizeof *sc->buf);
    tl_mem_free(mem, sc->slot, sc->cap_slot * sizeof *sc->slot);
    tl_mem_free(mem, sc->face, sc->cap_face * sizeof *sc->face);
    tl_mem_free(mem, sc->body, sc->cap_body * sizeof *sc->body);
    for (int t = 0; t < sc->nscratch; t++) tl_narrow_scratch_free(&sc->scratch[t]);
    tl_mem_free(mem, sc->scratch, (size_t)sc->nscratch * sizeof *sc->scratch);
    tl_keymap_free(mem, &sc->stash);
    tl_shape_contacts_init(sc);
}

int tl_patch_store_reserve(tl_mem *mem, tl_patch_store *s, int stride, size_t n) {
    if (n <= s->cap) return 0;
    size_t ncap = s->cap + s->cap / 2;
    if (ncap < n) ncap = n + n / 8 + 16;
    size_t st = (size_t)stride;
    double *r = tl_mem_realloc(mem, s->rec, s->cap * st * sizeof *r, ncap * st * sizeof *r);
    if (!r) return -1;
    s->rec = r;
    uint8_t *q = tl_mem_realloc(mem, s->state, s->cap, ncap);
    if (!q) {
        /* rec has the new size: keep the books right */
        double *back = tl_mem_realloc(mem, s->rec, ncap * st * sizeof *r, s->cap * st * sizeof *r);
        if (back || s->cap == 0) s->rec = back;
        return -1;
    }
    s->state = q;
    s->cap = ncap;
    return 0;
}

int tl_shape_contacts_reserve_cand(tl_mem *mem, tl_shape_contacts *sc, size_t n) {
    if (n <= sc->cap_cand) return 0;
    size_t ncap = n + n / 4 + 16, old = sc->cap_cand;
    for (int b = 0; b < 2; b++) {
        uint32_t *f = tl_mem_realloc(mem, sc->first[b], old * sizeof *f, ncap * sizeof *f);
        if (!f) return -1;
        sc->first[b] = f;
        uint8_t *l = tl_mem_realloc(mem, sc->live[b], old * sizeof *l, ncap * sizeof *l);
        if (!l) return -1;
        sc->live[b] = l;
        memset(l + old, 0, (ncap - old) * sizeof *l);
        memset(f + old, 0, (ncap - old) * sizeof *f);
    }
    sc->cap_cand = ncap;
    return 0;
}

int tl_shape_contacts_relayout(tl_mem *mem, tl_shape_contacts *sc, const tl_rec_layout *from,
                               const tl_rec_layout *to) {
    const size_t sf = (size_t)from->stride + TL_BP_COUNT, stn = (size_t)to->stride + TL_BP_COUNT;
    tl_patch_store *s = &sc->store[sc->cur];
    double *nr = NULL;
    if (s->cap) {
        nr = tl_mem_calloc(mem, s->cap * stn, sizeof *nr);
        if (!nr) return -1;
        for (size_t r = 0; r < s->count; r++) {
            const double *o = s->rec + r * sf;
            double *q = nr + r * stn;
            tl_rec_copy_layout(q, to, o, from);
            memcpy(q + to->stride, o + from->stride, TL_BP_COUNT * sizeof *q);
        }
    }
    tl_mem_free(mem, s->rec, s->cap * sf * sizeof *s->rec);
    s->rec = nr;
    /* the other store holds nothing live: start it afresh */
    store_free(mem, &sc->store[1 - sc->cur], (int)sf);
    sc->stride = (int)stn;
    return 0;
}
