/* Allocation through the world's (injectable) allocator, with a byte count
 * and, for tests, a switch that makes the n-th next allocation fail. */
#ifndef TL_ALLOC_H
#define TL_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "talus/types.h"

typedef struct tl_mem {
    tl_allocator a;
    size_t bytes;      /* currently allocated */
    size_t peak;       /* largest `bytes` seen */
    int64_t fail_in;   /* > 0: the fail_in-th next allocation fails (tests) */
} tl_mem;

void tl_mem_init(tl_mem *m, const tl_allocator *a);
void *tl_mem_alloc(tl_mem *m, size_t size);
void *tl_mem_calloc(tl_mem *m, size_t count, size_t size);
/* Grows or shrinks; on failure the old block is untouched and NULL returned. */
void *tl_mem_realloc(tl_mem *m, void *ptr, size_t old_size, size_t new_size);
void tl_mem_free(tl_mem *m, void *ptr, size_t size);
char *tl_mem_strdup(tl_mem *m, const char *s);
void tl_mem_strfree(tl_mem *m, char *s);

/* Grows an array of `elem` bytes per item so that it holds at least `need`
 * items; *cap is updated. Returns 0 on success, -1 on failure. */
int tl_mem_reserve(tl_mem *m, void **array, size_t *cap, size_t need, size_t elem);

#endif
