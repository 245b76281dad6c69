/* The reference data of `talus validate`: the validation/ CSV files, built into the
 * command ('#' lines are comments; fields may be "quoted"). */
#ifndef TALUS_APP_REFERENCE_H
#define TALUS_APP_REFERENCE_H

#include <stdbool.h>

#define REF_MAX_COLS 24
#define REF_MAX_ROWS 64

typedef struct ref_table {
    char name[64];
    int ncols, nrows;
    char *header[REF_MAX_COLS];
    char *cell[REF_MAX_ROWS][REF_MAX_COLS];
    char *text; /* owned copy the cells point into */
} ref_table;

/* Loads a built-in CSV. Returns false (and prints why) when missing or malformed. */
bool ref_load(ref_table *t, const char *name);
void ref_free(ref_table *t);
int ref_col(const ref_table *t, const char *column);          /* -1 if absent */
const char *ref_str(const ref_table *t, int row, const char *column);
double ref_num(const ref_table *t, int row, const char *column); /* NAN if absent or "nan" */

#endif
