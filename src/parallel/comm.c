#include "comm.h"

#include "talus/talus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TALUS_HAVE_MPI
#include <mpi.h>

struct tl_comm {
    MPI_Comm comm;
    int rank, size;
    int *cnt, *dsp, *cnt2, *dsp2; /* size() entries each: MPI's int counts and offsets */
    uint64_t calls;               /* collectives made (tl_comm_calls) */
};

/* every collective below counts itself (the object is never const: the callers pass it as such) */
#define COUNT(c) (((tl_comm *)(uintptr_t)(c))->calls++)

uint64_t tl_comm_calls(const tl_comm *c) { return c->calls; }

bool tl_comm_available(void) {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

/* a duplicate of `of` (the library's own traffic never mixes with the caller's) */
static tl_comm *comm_dup(tl_mem *mem, MPI_Comm of) {
    if (!tl_comm_available()) return NULL;
    tl_comm *c = tl_mem_alloc(mem, sizeof *c);
    if (!c) return NULL;
    MPI_Comm_dup(of, &c->comm);
    MPI_Comm_rank(c->comm, &c->rank);
    MPI_Comm_size(c->comm, &c->size);
    size_t n = (size_t)c->size;
    c->cnt = tl_mem_alloc(mem, 4 * n * sizeof *c->cnt);
    if (!c->cnt) {
        MPI_Comm_free(&c->comm);
        tl_mem_free(mem, c, sizeof *c);
        return NULL;
    }
    c->dsp = c->cnt + n;
    c->cnt2 = c->cnt + 2 * n;
    c->dsp2 = c->cnt + 3 * n;
    c->calls = 0;
    return c;
}

tl_comm *tl_comm_world(tl_mem *mem) { return comm_dup(mem, MPI_COMM_WORLD); }

tl_comm *tl_comm_of(tl_mem *mem, int fortran_handle) {
    if (!tl_comm_available()) return NULL;
    MPI_Comm of = MPI_Comm_f2c((MPI_Fint)fortran_handle);
    if (of == MPI_COMM_NULL) return NULL;
    int inter = 0;
    MPI_Comm_test_inter(of, &inter);
    return inter ? NULL : comm_dup(mem, of);
}

void tl_comm_free(tl_mem *mem, tl_comm *c) {
    if (!c) return;
    if (tl_comm_available()) MPI_Comm_free(&c->comm);
    tl_mem_free(mem, c->cnt, 4 * (size_t)c->size * sizeof *c->cnt);
    tl_mem_free(mem, c, sizeof *c);
}

int tl_comm_rank(const tl_comm *c) { return c->rank; }
int tl_comm_size(const tl_comm *c) { return c->size; }

void tl_comm_or(const tl_comm *c, int *v, size_t n) {
    COUNT(c);
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_INT, MPI_BOR, c->comm);
}
void tl_comm_max(const tl_comm *c, double *v, size_t n) {
    COUNT(c);
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_MAX, c->comm);
}
void tl_comm_min(const tl_comm *c, double *v, size_t n) {
    COUNT(c);
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_MIN, c->comm);
}
void tl_comm_sum_u64(const tl_comm *c, uint64_t *v, size_t n) {
    COUNT(c);
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, c->comm);
}
void tl_comm_sum_i64(const tl_comm *c, int64_t *v, size_t n) {
    COUNT(c);
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_INT64_T, MPI_SUM, c->comm);
}
void tl_comm_abort(const tl_comm *c, const char *why) {
    fprintf(stderr, "talus: rank %d: %s; the job stops\n", c->rank, why);
    fflush(stderr);
    MPI_Abort(c->comm, 1);
    abort();
}
uint64_t tl_comm_exscan_u64(const tl_comm *c, uint64_t v) {
    uint64_t r = 0;
    COUNT(c);
    MPI_Exscan(&v, &r, 1, MPI_UINT64_T, MPI_SUM, c->comm);
    return c->rank == 0 ? 0 : r;
}

/* offsets of int counts; 0 when the total fits an int */
static int offsets(const int *cnt, int *dsp, int n, size_t *total) {
    size_t t = 0;
    for (int r = 0; r < n; r++) {
        dsp[r] = (int)t;
        t += (size_t)cnt[r];
        if (t > (size_t)INT32_MAX) return -1;
    }
    *total = t;
    return 0;
}

size_t tl_comm_allgather(const tl_comm *c, tl_mem *mem, const void *send, size_t bytes, void **out,
                         size_t *cap, size_t *counts) {
    int mine = bytes > (size_t)INT32_MAX ? -1 : (int)bytes, bad = mine < 0;
    COUNT(c);
    MPI_Allgather(&mine, 1, MPI_INT, c->cnt, 1, MPI_INT, c->comm);
    for (int r = 0; r < c->size; r++) bad |= c->cnt[r] < 0;
    size_t total = 0;
    if (bad || offsets(c->cnt, c->dsp, c->size, &total) != 0) return SIZE_MAX;
    int ok = tl_mem_reserve(mem, out, cap, total + 1, 1) == 0;
    COUNT(c);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, c->comm);
    if (!ok) return SIZE_MAX;
    COUNT(c);
    MPI_Allgatherv(send, mine, MPI_BYTE, *out, c->cnt, c->dsp, MPI_BYTE, c->comm);
    if (counts)
        for (int r = 0; r < c->size; r++) counts[r] = (size_t)c->cnt[r];
    return total;
}

size_t tl_comm_gather0(const tl_comm *c, tl_mem *mem, const void *send, size_t bytes, void **out, size_t *cap) {
    int mine = bytes > (size_t)INT32_MAX ? -1 : (int)bytes;
    COUNT(c);
    MPI_Gather(&mine, 1, MPI_INT, c->cnt, 1, MPI_INT, 0, c->comm);
    int bad = mine < 0;
    size_t total = 0;
    if (c->rank == 0) {
        for (int r = 0; r < c->size; r++) bad |= c->cnt[r] < 0;
        if (!bad) bad = offsets(c->cnt, c->dsp, c->size, &total) != 0;
        if (!bad) bad = tl_mem_reserve(mem, out, cap, total + 1, 1) != 0;
    }
    COUNT(c);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, c->comm);
    if (bad) return SIZE_MAX;
    COUNT(c);
    MPI_Gatherv(send, mine, MPI_BYTE, c->rank == 0 ? *out : NULL, c->cnt, c->dsp, MPI_BYTE, 0, c->comm);
    return total;
}

void tl_comm_bcast0(const tl_comm *c, void *data, size_t bytes) {
    COUNT(c);
    MPI_Bcast(data, (int)bytes, MPI_BYTE, 0, c->comm);
}
void tl_comm_bcast(const tl_comm *c, void *data, size_t bytes, int root) {
    COUNT(c);
    MPI_Bcast(data, (int)bytes, MPI_BYTE, root, c->comm);
}

size_t tl_comm_exchange(const tl_comm *c, tl_mem *mem, const void *send, const size_t *send_counts,
                        void **out, size_t *cap, size_t *recv_counts) {
    int bad = 0;
    for (int r = 0; r < c->size; r++) {
        bad |= send_counts[r] > (size_t)INT32_MAX;
        c->cnt[r] = bad ? 0 : (int)send_counts[r];
    }
    size_t st = 0, total = 0;
    bad |= offsets(c->cnt, c->dsp, c->size, &st) != 0;
    COUNT(c);
    MPI_Alltoall(c->cnt, 1, MPI_INT, c->cnt2, 1, MPI_INT, c->comm);
    bad |= offsets(c->cnt2, c->dsp2, c->size, &total) != 0;
    if (!bad) bad = tl_mem_reserve(mem, out, cap, total + 1, 1) != 0;
    COUNT(c);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, c->comm);
    if (bad) return SIZE_MAX;
    COUNT(c);
    MPI_Alltoallv(send, c->cnt, c->dsp, MPI_BYTE, *out, c->cnt2, c->dsp2, MPI_BYTE, c->comm);
    if (recv_counts)
        for (int r = 0; r < c->size; r++) recv_counts[r] = (size_t)c->cnt2[r];
    return total;
}

void tl_comm_allgather_known(const tl_comm *c, const void *send, size_t bytes, void *recv,
                             const size_t *counts) {
    size_t t = 0;
    for (int r = 0; r < c->size; r++) {
        c->cnt[r] = (int)counts[r];
        c->dsp[r] = (int)t;
        t += counts[r];
    }
    COUNT(c);
    MPI_Allgatherv(send, (int)bytes, MPI_BYTE, recv, c->cnt, c->dsp, MPI_BYTE, c->comm);
}

void tl_comm_exchange_known(const tl_comm *c, const void *send, const size_t *send_counts, void *recv,
                            const size_t *recv_counts) {
    size_t a = 0, b = 0;
    for (int r = 0; r < c->size; r++) {
        c->cnt[r] = (int)send_counts[r];
        c->dsp[r] = (int)a;
        a += send_counts[r];
        c->cnt2[r] = (int)recv_counts[r];
        c->dsp2[r] = (int)b;
        b += recv_counts[r];
    }
    COUNT(c);
    MPI_Alltoallv(send, c->cnt, c->dsp, MPI_BYTE, recv, c->cnt2, c->dsp2, MPI_BYTE, c->comm);
}

/* launched by an MPI launcher (OpenMPI's mpirun, or a PMI/PMIx one) */
static bool launched(void) {
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

int tl_parallel_begin(int *argc, char ***argv) {
    if (!launched()) return 1;
    int init = 0;
    MPI_Initialized(&init);
    if (!init && MPI_Init(argc, argv) != MPI_SUCCESS) return 1;
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

void tl_parallel_end(void) {
    if (tl_comm_available()) MPI_Finalize();
}

#else /* no MPI in this build */

int tl_parallel_begin(int *argc, char ***argv) {
    (void)argc, (void)argv;
    return 1;
}
void tl_parallel_end(void) {}


struct tl_comm {
    int unused;
};

bool tl_comm_available(void) { return false; }
tl_comm *tl_comm_world(tl_mem *mem) {
    (void)mem;
    return NULL;
}
tl_comm *tl_comm_of(tl_mem *mem, int fortran_handle) {
    (void)mem, (void)fortran_handle;
    return NULL;
}
void tl_comm_free(tl_mem *mem, tl_comm *c) {
    (void)mem;
    (void)c;
}
int tl_comm_rank(const tl_comm *c) {
    (void)c;
    return 0;
}
uint64_t tl_comm_calls(const tl_comm *c) {
    (void)c;
    return 0;
}
int tl_comm_size(const tl_comm *c) {
    (void)c;
    return 1;
}
void tl_comm_or(const tl_comm *c, int *v, size_t n) { (void)c, (void)v, (void)n; }
void tl_comm_max(const tl_comm *c, double *v, size_t n) { (void)c, (void)v, (void)n; }
void tl_comm_min(const tl_comm *c, double *v, size_t n) { (void)c, (void)v, (void)n; }
void tl_comm_sum_u64(const tl_comm *c, uint64_t *v, size_t n) { (void)c, (void)v, (void)n; }
void tl_comm_sum_i64(const tl_comm *c, int64_t *v, size_t n) { (void)c, (void)v, (void)n; }
void tl_comm_abort(const tl_comm *c, const char *why) {
    (void)c;
    fprintf(stderr, "talus: %s\n", why);
    abort();
}
uint64_t tl_comm_exscan_u64(const tl_comm *c, uint64_t v) {
    (void)c, (void)v;
    return 0;
}
size_t tl_comm_allgather(const tl_comm *c, tl_mem *mem, const void *send, size_t bytes, void **out,
                         size_t *cap, size_t *counts) {
    (void)c;
    if (tl_mem_reserve(mem, out, cap, bytes + 1, 1) != 0) return SIZE_MAX;
    if (bytes) memcpy(*out, send, bytes);
    if (counts) counts[0] = bytes;
    return bytes;
}
size_t tl_comm_exchange(const tl_comm *c, tl_mem *mem, const void *send, const size_t *send_counts,
                        void **out, size_t *cap, size_t *recv_counts) {
    return tl_comm_allgather(c, mem, send, send_counts[0], out, cap, recv_counts);
}
size_t tl_comm_gather0(const tl_comm *c, tl_mem *mem, const void *send, size_t bytes, void **out, size_t *cap) {
    return tl_comm_allgather(c, mem, send, bytes, out, cap, NULL);
}
void tl_comm_bcast0(const tl_comm *c, void *data, size_t bytes) { (void)c, (void)data, (void)bytes; }
void tl_comm_bcast(const tl_comm *c, void *data, size_t bytes, int root) {
    (void)c, (void)data, (void)bytes, (void)root;
}
void tl_comm_allgather_known(const tl_comm *c, const void *send, size_t bytes, void *recv,
                             const size_t *counts) {
    (void)c, (void)counts;
    if (bytes) memcpy(recv, send, bytes);
}
void tl_comm_exchange_known(const tl_comm *c, const void *send, const size_t *send_counts, void *recv,
                            const size_t *recv_counts) {
    (void)c, (void)recv_counts;
    if (send_counts[0]) memcpy(recv, send, send_counts[0]);
}
#endif
