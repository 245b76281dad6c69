/*
 * The columns of the CSV outputs (csv_columns.c).
 */
#ifndef TL_CSV_COLUMNS_H
#define TL_CSV_COLUMNS_H

#include <stddef.h>

#include "output_spec.h"

/* Column names of a CSV output as written in its header, in order (the
 * plot reads them); count in *n. NULL for a kind without CSV. The particles
 * columns depend on spec->fields, so the caller gives a buffer of at least
 * TL_CSV_MAX_COLUMNS names. */
#define TL_CSV_MAX_COLUMNS 40
size_t tl_csv_columns(const tl_output_spec *spec, const char **names, size_t max);

#endif
