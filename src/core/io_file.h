/*
 * Output files that appear whole or not at all.
 *
 * A file is written under "<path>.part" in the directory of its final name
 * and renamed onto the final name only when it is complete (after fflush and
 * fsync), so that an interrupted run never leaves a truncated file under a
 * final name; aborting closes and removes the .part. Messages name the path
 * and the system's reason (strerror).
 */
#ifndef TL_IO_FILE_H
#define TL_IO_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "talus/types.h"

typedef struct tl_file {
    FILE *fp;        /* open on part while writing */
    char *path;      /* the final name */
    char *part;      /* path + ".part" */
    bool committed;  /* renamed onto path */
    /* a .part continued in place by a resumed run (tl_file_resume): an abort
     * cuts it back to keep_length bytes and leaves it, so that the
     * checkpoint it belongs to stays usable */
    bool keep_part;
    uint64_t keep_length;
} tl_file;

/* TL_ERROR_IO (err says why) when a directory is named path: a file
 * written there could never be renamed into place. */
tl_status tl_file_can_replace(const char *path, char *err, size_t errsize);

/* Opens "<path>.part" for writing (binary mode, truncated). The directory
 * must exist; a directory named path is refused at once (its rename could
 * only fail at the end). On failure f is left closed and err says why. */
tl_status tl_file_open(tl_file *f, const char *path, char *err, size_t errsize);

/* Continues a file from a checkpoint: "<path>.part" is made to hold the
 * first `length` bytes of `from` and opened for appending. When `from` is
 * that .part itself (left by a process that was killed) it is cut to
 * `length` in place (and an abort cuts it back and keeps it); otherwise the
 * bytes are copied from `from` (the final file an interrupted run
 * committed, left in place until the commit replaces it). The caller has
 * checked that `from` holds those bytes. */
tl_status tl_file_resume(tl_file *f, const char *path, const char *from, uint64_t length, char *err,
                         size_t errsize);

/* fflush + fsync of the .part being written; *length = its size. */
tl_status tl_file_sync(tl_file *f, uint64_t *length, char *err, size_t errsize);

/* FNV-1a 64 (bytes.h) of the bytes [from, to) of a file, continuing *hash;
 * *got = the bytes read (fewer than to - from when the file is shorter).
 * TL_ERROR_NOT_FOUND when the file does not exist. */
tl_status tl_file_fnv(const char *path, uint64_t from, uint64_t to, uint64_t *hash, uint64_t *got,
                      char *err, size_t errsize);

/* Reports a write error met so far (ferror) as TL_ERROR_IO. */
tl_status tl_file_check(const tl_file *f, char *err, size_t errsize);

/* fflush + fsync + fclose, then renames the .part onto the final name. On
 * failure the .part is removed and nothing appears under the final name. */
tl_status tl_file_commit(tl_file *f, char *err, size_t errsize);

/* Closes and removes the .part; after a commit, removes the final file. Then
 * frees the names. Safe on a zeroed or already released tl_file. */
void tl_file_abort(tl_file *f);

/* Frees the names of a committed (or never opened) file, keeping it on disk. */
void tl_file_release(tl_file *f);

/* Writes a whole (small) file atomically: data to "<path>.part", fsync,
 * rename. Used for files rewritten during a run (the .pvd index). */
tl_status tl_file_write_atomic(const char *path, const void *data, size_t size, char *err,
                               size_t errsize);

/* Creates a directory and its missing parents (mkdir -p). An existing
 * directory is fine; an existing non-directory is an error. */
tl_status tl_mkdir_p(const char *path, char *err, size_t errsize);

/* The shortest leading part of `path` that does not exist ("out" for
 * "out/a/b" when there is no "out"), malloc'd; NULL when path exists (or out
 * of memory). What tl_mkdir_p(path) is about to create starts there. */
char *tl_first_missing_dir(const char *path);

/* Removes the empty directories in the tree at path, and path itself when it
 * is left empty; never a file (a tree a failed run made, undone). */
void tl_rmdir_empty(const char *path);

/* Creates the directory that holds the file `path` (nothing when path has
 * no directory part). */
tl_status tl_mkdir_parent(const char *path, char *err, size_t errsize);

/* "a/b" from a and b (b alone when a is empty or b is absolute); malloc'd,
 * NULL when out of memory. */
char *tl_path_join(const char *a, const char *b);

/* Opens `path` to read without waiting (a FIFO opens at once, and is refused) and checks that
 * it is a regular file: *fd (blocking reads from here) and *size; else an error naming what it
 * is ("'x' is not a regular file (it is a FIFO)") and *fd = -1. */
tl_status tl_file_open_regular(const char *path, int *fd, uint64_t *size, char *err, size_t errsize);

/* Reads exactly n bytes from fd (interrupted reads retried): false at an error or the end. */
bool tl_fd_read_exact(int fd, void *buf, size_t n);

/* A malloc'd printf; NULL when out of memory. */
char *tl_strdup_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Runs the program argv[0] (found on PATH) with argv, its standard streams the caller's, and waits
 * for it: its exit status (128 + the signal that ended it), or -1 when it could not start (errno
 * set: ENOENT when it is not installed). */
int tl_run_program(char *const argv[]);

#endif
