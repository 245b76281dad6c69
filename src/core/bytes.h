/* A growable byte buffer to write, and a bounded cursor to read, for the
 * checkpoint format: every read is checked against the end, so a truncated
 * or inconsistent buffer is refused, never read past. */
#ifndef TL_BYTES_H
#define TL_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tl_wbuf {
    unsigned char *data;
    size_t size, cap;
    bool failed; /* out of memory */
} tl_wbuf;

/* n bytes appended for the caller to fill (NULL once the buffer failed) */
static inline unsigned char *tl_wbuf_room(tl_wbuf *b, size_t n) {
    if (b->failed) return NULL;
    size_t at = b->size;
    if (n && b->size + n > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        while (ncap < b->size + n) ncap *= 2;
        unsigned char *d = realloc(b->data, ncap);
        if (!d) {
            b->failed = true;
            return NULL;
        }
        b->data = d;
        b->cap = ncap;
    }
    b->size += n;
    return b->data ? b->data + at : NULL;
}
static inline void tl_wbuf_put(tl_wbuf *b, const void *p, size_t n) {
    unsigned char *o = n ? tl_wbuf_room(b, n) : NULL;
    if (o) memcpy(o, p, n);
}
static inline void tl_wbuf_u64(tl_wbuf *b, uint64_t v) { tl_wbuf_put(b, &v, sizeof v); }
static inline void tl_wbuf_f64(tl_wbuf *b, double v) { tl_wbuf_put(b, &v, sizeof v); }

typedef struct tl_rbuf {
    const unsigned char *data;
    size_t size, at;
    bool failed; /* a read went past the end, or a value was out of range */
} tl_rbuf;

static inline bool tl_rbuf_get(tl_rbuf *b, void *p, size_t n) {
    if (b->failed || n > b->size - b->at) {
        b->failed = true;
        if (n) memset(p, 0, n);
        return false;
    }
    if (n) memcpy(p, b->data + b->at, n);
    b->at += n;
    return true;
}
static inline uint64_t tl_rbuf_u64(tl_rbuf *b) {
    uint64_t v = 0;
    tl_rbuf_get(b, &v, sizeof v);
    return v;
}
static inline double tl_rbuf_f64(tl_rbuf *b) {
    double v = 0.0;
    tl_rbuf_get(b, &v, sizeof v);
    return v;
}
/* A bool as a 64-bit 0 or 1 (another value fails the read rather than loading an
 * invalid bool), a 32-bit value in 64 bits (one above 2^32 - 1 fails the read). */
static inline void tl_wbuf_bool(tl_wbuf *b, bool v) { tl_wbuf_u64(b, v ? 1u : 0u); }
static inline bool tl_rbuf_bool(tl_rbuf *b) {
    uint64_t v = tl_rbuf_u64(b);
    if (v > 1) b->failed = true;
    return v == 1;
}
static inline uint32_t tl_rbuf_u32(tl_rbuf *b) {
    uint64_t v = tl_rbuf_u64(b);
    if (v > UINT32_MAX) b->failed = true;
    return (uint32_t)v;
}

/* FNV-1a, 64 bits: the checksum of checkpoint files. */
static inline uint64_t tl_fnv1a(const void *p, size_t n, uint64_t h) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ULL;
    }
    return h;
}
#define TL_FNV_START 14695981039346656037ULL

#endif
