/*
 * The energy ledger's terms (energy_table.c; tl_energy_term, tl_energy_term_get in the public
 * API). The terms measured from the state (kinetic, potential, elastic) come first; those the
 * stages book as they go (dissipated, work, residual) follow from TL_BOOKED_FIRST, so a stage
 * that books per contact keeps TL_BOOKED_COUNT values, indexed by term - TL_BOOKED_FIRST.
 */
#ifndef TL_ENERGY_TABLE_H
#define TL_ENERGY_TABLE_H

#include "talus/talus.h"

#define TL_BOOKED_FIRST TL_ENERGY_DISSIPATED_NORMAL
#define TL_BOOKED_COUNT (TL_ENERGY_TERM_COUNT - TL_BOOKED_FIRST)

/* The first term of the given kind that the slot books (table order), or -1. */
int tl_energy_term_of(int slot, tl_energy_kind kind);

/* The terms of one kind added in table order (from the first: no 0 + x), as the totals of
 * energy.csv, the run summary and the energy scale take them. */
static inline double tl_energy_kind_sum(const tl_energy *e, tl_energy_kind kind) {
    double t = 0.0;
    int first = 1;
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++)
        if (tl_energy_term_get(k)->kind == kind) {
            t = first ? e->term[k] : t + e->term[k];
            first = 0;
        }
    return t;
}

/* The conserved total: the terms of sign +1 in table order, less those of sign -1 in table order. */
static inline double tl_energy_total(const tl_energy *e) {
    double t = 0.0;
    int first = 1;
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++)
        if (tl_energy_term_get(k)->sign > 0) {
            t = first ? e->term[k] : t + e->term[k];
            first = 0;
        }
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++)
        if (tl_energy_term_get(k)->sign < 0) t -= e->term[k];
    return t;
}

#endif
