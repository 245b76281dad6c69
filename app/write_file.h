/* A file written whole or not at all, for the commands' outputs (talus bench, talus collide,
 * talus validate's resume files): the writer fills PATH.part, which is renamed to PATH once every
 * write, the fsync and the close have succeeded; on any failure the part is removed and the reason printed on stderr as
 * "WHO: cannot write 'FILE': reason". An interrupted run never leaves a truncated PATH. */
#ifndef TALUS_APP_WRITE_FILE_H
#define TALUS_APP_WRITE_FILE_H

#include <stddef.h>
#include <stdio.h>

/* WRITE puts DATA into the open file (its errors are caught by ferror); returns 0 or 1 */
int app_write_file(const char *who, const char *path, void (*write)(FILE *f, const void *data),
                   const void *data);

/* SIZE bytes of BUF as the whole file; returns 0 or 1 */
int app_write_bytes(const char *who, const char *path, const void *buf, size_t size);

#endif
