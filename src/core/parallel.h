/* Threads: thin wrappers over OpenMP, so the code also builds without it
 * (then everything runs serially). Every parallel loop of the engine writes
 * to disjoint places or to per-chunk partial results summed in a fixed
 * order, so results do not depend on the thread count. */
#ifndef TL_PARALLEL_H
#define TL_PARALLEL_H

#ifdef _OPENMP
#include <omp.h>
static inline int tl_threads_available(void) { return omp_get_max_threads(); }
static inline int tl_thread_num(void) { return omp_get_thread_num(); }
#else
static inline int tl_threads_available(void) { return 1; }
static inline int tl_thread_num(void) { return 0; }
#endif

/* for (size_t var = 0; var < n; var++) { body } on `nt` threads (a variable
 * of that name must be in scope), or as a plain loop when nt == 1: an
 * OpenMP region costs a few system calls even with one thread, which a
 * small world stepping a million times would feel. */
#define TL_FOR_STATIC(var, n, ...)                                           \
    if (nt > 1) {                                                            \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")         \
        for (size_t var = 0; var < (n); var++) { __VA_ARGS__ }               \
    } else {                                                                 \
        for (size_t var = 0; var < (n); var++) { __VA_ARGS__ }               \
    }
#define TL_FOR_DYNAMIC(var, n, ...)                                          \
    if (nt > 1) {                                                            \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nt)")        \
        for (size_t var = 0; var < (n); var++) { __VA_ARGS__ }               \
    } else {                                                                 \
        for (size_t var = 0; var < (n); var++) { __VA_ARGS__ }               \
    }
/* the same in chunks of `chunk` iterations: for loops of many short iterations that write
 * neighbouring bytes (one iteration per chunk would have the threads fetch the shared counter
 * and share the cache lines of their outputs at every iteration) */
#define TL_PRAGMA(x) _Pragma(#x)
#define TL_FOR_DYNAMIC_CHUNK(var, n, chunk, ...)                             \
    if (nt > 1) {                                                            \
        TL_PRAGMA(omp parallel for schedule(dynamic, chunk) num_threads(nt)) \
        for (size_t var = 0; var < (n); var++) { __VA_ARGS__ }               \
    } else {                                                                 \
        for (size_t var = 0; var < (n); var++) { __VA_ARGS__ }               \
    }
/* the same, OR-ing an int named `acc` over the iterations */
#define TL_FOR_STATIC_OR(var, n, ...)                                   \
    if (nt > 1) {                                                            \
        _Pragma("omp parallel for schedule(static) num_threads(nt) reduction(| : acc)") \
        for (size_t var = 0; var < (n); var++) { __VA_ARGS__ }               \
    } else {                                                                 \
        for (size_t var = 0; var < (n); var++) { __VA_ARGS__ }               \
    }

#endif
