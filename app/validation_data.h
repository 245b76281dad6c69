/* The reference data of `talus validate` (validation/ CSV files), its case files
 * (validation/cases/) and the scenes they name (examples/), built into the command, each
 * named by its path in the source tree. */
#ifndef TALUS_APP_VALIDATION_DATA_H
#define TALUS_APP_VALIDATION_DATA_H

typedef struct app_data_file {
    const char *name;
    const unsigned char *data;
    unsigned long size;
} app_data_file;

/* terminated by an entry with a NULL name */
extern const app_data_file talus_validation_files[];

#endif
