/* A file written whole or not at all (write_file.h). */
#include "write_file.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

int app_write_file(const char *who, const char *path, void (*write)(FILE *f, const void *data),
                   const void *data) {
    char part[4096];
    if (snprintf(part, sizeof part, "%s.part", path) >= (int)sizeof part) {
        fprintf(stderr, "%s: cannot write '%s': the path is too long\n", who, path);
        return 1;
    }
    FILE *f = fopen(part, "wb");
    if (!f) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", who, part, strerror(errno));
        return 1;
    }
    write(f, data);
    bool ok = fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0; /* on disk before the rename */
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(part, path) != 0) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", who, path, strerror(errno));
        remove(part);
        return 1;
    }
    return 0;
}

typedef struct bytes {
    const void *buf;
    size_t size;
} bytes;

static void write_bytes(FILE *f, const void *data) {
    const bytes *b = data;
    if (b->size) fwrite(b->buf, 1, b->size, f);
}

int app_write_bytes(const char *who, const char *path, const void *buf, size_t size) {
    const bytes b = {buf, size};
    return app_write_file(who, path, write_bytes, &b);
}
