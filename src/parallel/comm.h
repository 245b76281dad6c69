/*
 * The ranks of a distributed run: a thin layer over MPI, so that the rest of
 * the engine names what it exchanges (collectives over bytes and numbers)
 * and never includes mpi.h. Built without MPI (TALUS_HAVE_MPI undefined), a
 * communicator cannot be created and every call below is never reached.
 *
 * Every collective here is deterministic: the data come back in rank order,
 * and the reductions are of integers, flags, minima and maxima, whose result
 * does not depend on the order of the operands. Floating-point sums are
 * never reduced by MPI (its order is unspecified): the callers gather the
 * terms in rank order and add them in a fixed order themselves.
 */
#ifndef TL_COMM_H
#define TL_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

typedef struct tl_comm tl_comm;

/* Whether this build has MPI and the program runs under MPI (MPI initialized). */
bool tl_comm_available(void);
/* A communicator over all ranks of the job (a duplicate of MPI_COMM_WORLD), or
 * NULL when MPI is not available. */
tl_comm *tl_comm_world(tl_mem *mem);
/* The same over a communicator of the caller's, given by its Fortran handle (MPI_Comm_c2f;
 * mpi4py: comm.py2f()), duplicated; NULL when MPI is not available, or the handle is
 * MPI_COMM_NULL or an intercommunicator. */
tl_comm *tl_comm_of(tl_mem *mem, int fortran_handle);
void tl_comm_free(tl_mem *mem, tl_comm *c);
int tl_comm_rank(const tl_comm *c);
int tl_comm_size(const tl_comm *c);
/* The collectives this rank made through c so far (each call below is one). */
uint64_t tl_comm_calls(const tl_comm *c);

/* In-place reductions over all ranks, n values each. */
void tl_comm_or(const tl_comm *c, int *v, size_t n);
void tl_comm_max(const tl_comm *c, double *v, size_t n);
void tl_comm_min(const tl_comm *c, double *v, size_t n);
void tl_comm_sum_u64(const tl_comm *c, uint64_t *v, size_t n);
void tl_comm_sum_i64(const tl_comm *c, int64_t *v, size_t n);
/* The sum of v over the ranks before this one (0 on rank 0). */
uint64_t tl_comm_exscan_u64(const tl_comm *c, uint64_t v);

/* Every rank's bytes, concatenated in rank order into *out (grown with
 * tl_mem_reserve; *cap in bytes); counts[r] (size() entries, may be NULL)
 * receives each rank's byte count. Returns the total, or SIZE_MAX on failure
 * (memory, or more than 2^31 bytes from one rank). */
size_t tl_comm_allgather(const tl_comm *c, tl_mem *mem, const void *send, size_t bytes, void **out,
                         size_t *cap, size_t *counts);
/* Every rank's bytes to rank 0, in rank order (the others receive nothing and get 0).
 * Returns the total on rank 0, or SIZE_MAX on failure (on every rank). */
size_t tl_comm_gather0(const tl_comm *c, tl_mem *mem, const void *send, size_t bytes, void **out, size_t *cap);
/* Rank 0's n bytes to every rank. */
void tl_comm_bcast0(const tl_comm *c, void *data, size_t bytes);
/* Rank root's n bytes to every rank. */
void tl_comm_bcast(const tl_comm *c, void *data, size_t bytes, int root);

/* Personalized exchange: send holds the bytes for rank 0, then rank 1, ...
 * (send_counts[r] bytes each); *out receives what each rank sent here, in
 * rank order (recv_counts[r] bytes each). Returns the total received, or
 * SIZE_MAX on failure. */
size_t tl_comm_exchange(const tl_comm *c, tl_mem *mem, const void *send, const size_t *send_counts,
                        void **out, size_t *cap, size_t *recv_counts);

/* Ends the job on every rank (an allocation failed inside a collective step: the
 * others would wait for it forever); prints why first. */
void tl_comm_abort(const tl_comm *c, const char *why);

/* The same two with the counts known on every side beforehand (each step's exchanges: one
 * MPI call each); recv must hold the sum of recv_counts. */
void tl_comm_allgather_known(const tl_comm *c, const void *send, size_t bytes, void *recv,
                             const size_t *counts);
void tl_comm_exchange_known(const tl_comm *c, const void *send, const size_t *send_counts, void *recv,
                            const size_t *recv_counts);

#endif
