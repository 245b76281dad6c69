#include "alloc.h"

#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *user, size_t size) {
    (void)user;
    return malloc(size);
}
static void *default_realloc(void *user, void *ptr, size_t old_size, size_t new_size) {
    (void)user;
    (void)old_size;
    return realloc(ptr, new_size);
}
static void default_free(void *user, void *ptr, size_t size) {
    (void)user;
    (void)size;
    free(ptr);
}

void tl_mem_init(tl_mem *m, const tl_allocator *a) {
    memset(m, 0, sizeof *m);
    if (a && a->alloc && a->realloc && a->free) {
        m->a = *a;
    } else {
        m->a.alloc = default_alloc;
        m->a.realloc = default_realloc;
        m->a.free = default_free;
        m->a.user = NULL;
    }
}

static int should_fail(tl_mem *m) {
    if (m->fail_in > 0 && --m->fail_in == 0) return 1;
    return 0;
}

static void account(tl_mem *m, size_t add, size_t sub) {
    m->bytes = m->bytes + add - sub;
    if (m->bytes > m->peak) m->peak = m->bytes;
}

void *tl_mem_alloc(tl_mem *m, size_t size) {
    if (size == 0) size = 1;
    if (should_fail(m)) return NULL;
    void *p = m->a.alloc(m->a.user, size);
    if (p) account(m, size, 0);
    return p;
}

void *tl_mem_calloc(tl_mem *m, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = tl_mem_alloc(m, count * size);
    size_t total = count * size;
    if (p) memset(p, 0, total > 0 ? total : 1);
    return p;
}

void *tl_mem_realloc(tl_mem *m, void *ptr, size_t old_size, size_t new_size) {
    if (!ptr) return tl_mem_alloc(m, new_size);
    if (new_size == 0) new_size = 1;
    if (should_fail(m)) return NULL;
    void *p = m->a.realloc(m->a.user, ptr, old_size, new_size);
    if (p) account(m, new_size, old_size);
    return p;
}

void tl_mem_free(tl_mem *m, void *ptr, size_t size) {
    if (!ptr) return;
    if (size == 0) size = 1;
    m->a.free(m->a.user, ptr, size);
    m->bytes -= size;
}

char *tl_mem_strdup(tl_mem *m, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = tl_mem_alloc(m, n);
    if (p) memcpy(p, s, n);
    return p;
}

void tl_mem_strfree(tl_mem *m, char *s) {
    if (s) tl_mem_free(m, s, strlen(s) + 1);
}

int tl_mem_reserve(tl_mem *m, void **array, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem) return -1;
        ncap *= 2;
    }
    void *p = tl_mem_realloc(m, *array, *cap * elem, ncap * elem);
    if (!p) return -1;
    *array = p;
    *cap = ncap;
    return 0;
}
