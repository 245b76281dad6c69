/*
 * Output files that appear whole or not at all: written as "<path>.part",
 * flushed to disk and renamed onto the final name when complete. Directory
 * creation with mkdir -p semantics.
 */
#include "io_file.h"

#include "bytes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void set_err(char *err, size_t errsize, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void set_err(char *err, size_t errsize, const char *fmt, ...) {
    if (!err || errsize == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsize, fmt, ap);
    va_end(ap);
}

char *tl_strdup_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char *tl_path_join(const char *a, const char *b) {
    if (!a || !a[0] || b[0] == '/') return tl_strdup_printf("%s", b);
    size_t la = strlen(a);
    return tl_strdup_printf("%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
}

/* ---- directories ---- */

tl_status tl_file_can_replace(const char *path, char *err, size_t errsize) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        set_err(err, errsize, "cannot write '%s': a directory of that name exists", path);
        return TL_ERROR_IO;
    }
    return TL_OK;
}

static tl_status make_one_dir(const char *path, char *err, size_t errsize) {
    if (mkdir(path, 0777) == 0) return TL_OK;
    int e = errno;
    struct stat st;
    if (e == EEXIST || e == EISDIR || e == EROFS || e == EACCES || e == EPERM) {
        if (stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) return TL_OK;
            set_err(err, errsize, "cannot create directory '%s': a file of that name exists", path);
            return TL_ERROR_IO;
        }
    }
    set_err(err, errsize, "cannot create directory '%s': %s", path, strerror(e));
    return TL_ERROR_IO;
}

tl_status tl_mkdir_p(const char *path, char *err, size_t errsize) {
    if (!path || !path[0]) {
        set_err(err, errsize, "empty directory name");
        return TL_ERROR_ARGUMENT;
    }
    char *buf = tl_strdup_printf("%s", path);
    if (!buf) {
        set_err(err, errsize, "out of memory");
        return TL_ERROR_MEMORY;
    }
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/') buf[--n] = '\0';
    tl_status s = TL_OK;
    /* every prefix ending before a '/', then the whole path */
    for (size_t i = 1; i <= n && s == TL_OK; i++) {
        if (i < n && buf[i] != '/') continue;
        if (i < n && buf[i - 1] == '/') continue; /* "a//b" */
        char keep = buf[i];
        buf[i] = '\0';
        if (!(buf[0] == '.' && buf[1] == '\0')) s = make_one_dir(buf, err, errsize);
        buf[i] = keep;
    }
    free(buf);
    return s;
}

char *tl_first_missing_dir(const char *path) {
    char *buf = tl_strdup_printf("%s", path ? path : "");
    if (!buf) return NULL;
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/') buf[--n] = '\0';
    struct stat st;
    if (n == 0 || stat(buf, &st) == 0) {
        free(buf);
        return NULL;
    }
    /* the shortest prefix (ending before a '/', or the whole path) that does not exist */
    for (size_t i = 1; i <= n; i++) {
        if (i < n && (buf[i] != '/' || buf[i - 1] == '/')) continue;
        char keep = buf[i];
        buf[i] = '\0';
        if (stat(buf, &st) != 0) return buf;
        buf[i] = keep;
    }
    free(buf);
    return NULL;
}

/* depth-first: the empty directories under path, then path when it is empty */
static void rmdir_empty(const char *path, int depth) {
    if (depth > 64) return;
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char *sub = tl_path_join(path, e->d_name);
        struct stat st;
        if (sub && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) rmdir_empty(sub, depth + 1);
        free(sub);
    }
    closedir(d);
    (void)rmdir(path); /* fails, as it should, when a file is left inside */
}

void tl_rmdir_empty(const char *path) {
    if (path && path[0]) rmdir_empty(path, 0);
}

tl_status tl_mkdir_parent(const char *path, char *err, size_t errsize) {
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return TL_OK;
    char *dir = tl_strdup_printf("%.*s", (int)(slash - path), path);
    if (!dir) {
        set_err(err, errsize, "out of memory");
        return TL_ERROR_MEMORY;
    }
    tl_status s = tl_mkdir_p(dir, err, errsize);
    free(dir);
    return s;
}

/* Makes a rename durable: fsync of the directory holding path (best effort;
 * some file systems refuse it, which costs nothing but durability). */
static void sync_parent_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? tl_strdup_printf("%.*s", slash == path ? 1 : (int)(slash - path), path)
                      : tl_strdup_printf(".");
    if (!dir) return;
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        (void)close(fd);
    }
    free(dir);
}

/* ---- files ---- */

static void free_names(tl_file *f) {
    free(f->path);
    free(f->part);
    f->path = f->part = NULL;
}

tl_status tl_file_open(tl_file *f, const char *path, char *err, size_t errsize) {
    memset(f, 0, sizeof *f);
    f->path = tl_strdup_printf("%s", path);
    f->part = tl_strdup_printf("%s.part", path);
    if (!f->path || !f->part) {
        free_names(f);
        set_err(err, errsize, "out of memory");
        return TL_ERROR_MEMORY;
    }
    if (tl_file_can_replace(path, err, errsize) != TL_OK) {
        free_names(f);
        return TL_ERROR_IO;
    }
    f->fp = fopen(f->part, "wb");
    if (!f->fp) {
        set_err(err, errsize, "cannot create '%s': %s", f->part, strerror(errno));
        free_names(f);
        return TL_ERROR_IO;
    }
    return TL_OK;
}

tl_status tl_file_check(const tl_file *f, char *err, size_t errsize) {
    if (f->fp && ferror(f->fp)) {
        set_err(err, errsize, "cannot write '%s': %s", f->part,
                errno ? strerror(errno) : "write error");
        return TL_ERROR_IO;
    }
    return TL_OK;
}

tl_status tl_file_commit(tl_file *f, char *err, size_t errsize) {
    if (!f->fp) {
        set_err(err, errsize, "internal error: committing a file that is not open");
        return TL_ERROR_STATE;
    }
    errno = 0;
    int bad = ferror(f->fp);
    int e = errno;
    if (!bad && fflush(f->fp) != 0) {
        bad = 1;
        e = errno;
    }
    if (!bad && fsync(fileno(f->fp)) != 0 && errno != EINVAL && errno != EROFS) {
        bad = 1;
        e = errno;
    }
    if (fclose(f->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    f->fp = NULL;
    if (bad) {
        set_err(err, errsize, "cannot write '%s': %s", f->part, e ? strerror(e) : "write error");
        (void)unlink(f->part);
        return TL_ERROR_IO;
    }
    if (rename(f->part, f->path) != 0) {
        e = errno;
        set_err(err, errsize, "cannot rename '%s' to '%s': %s", f->part, f->path, strerror(e));
        (void)unlink(f->part);
        return TL_ERROR_IO;
    }
    sync_parent_dir(f->path);
    f->committed = true;
    return TL_OK;
}

void tl_file_abort(tl_file *f) {
    if (f->fp) {
        (void)fclose(f->fp);
        f->fp = NULL;
        if (f->part && f->keep_part) (void)truncate(f->part, (off_t)f->keep_length);
        else if (f->part) (void)unlink(f->part);
    } else if (f->committed && f->path) {
        (void)unlink(f->path);
    }
    f->committed = false;
    f->keep_part = false;
    free_names(f);
}

void tl_file_release(tl_file *f) {
    if (f->fp) {
        tl_file_abort(f);
        return;
    }
    free_names(f);
}

tl_status tl_file_write_atomic(const char *path, const void *data, size_t size, char *err,
                               size_t errsize) {
    tl_file f;
    tl_status s = tl_file_open(&f, path, err, errsize);
    if (s != TL_OK) return s;
    if (size && fwrite(data, 1, size, f.fp) != size) {
        set_err(err, errsize, "cannot write '%s': %s", f.part, strerror(errno));
        tl_file_abort(&f);
        return TL_ERROR_IO;
    }
    s = tl_file_commit(&f, err, errsize);
    free_names(&f);
    return s;
}

/* ---- continuing a file from a checkpoint ---- */

#define COPY_CHUNK ((size_t)1 << 16)

tl_status tl_file_resume(tl_file *f, const char *path, const char *from, uint64_t length, char *err,
                         size_t errsize) {
    memset(f, 0, sizeof *f);
    f->path = tl_strdup_printf("%s", path);
    f->part = tl_strdup_printf("%s.part", path);
    if (!f->path || !f->part) {
        free_names(f);
        set_err(err, errsize, "out of memory");
        return TL_ERROR_MEMORY;
    }
    if (tl_file_can_replace(path, err, errsize) != TL_OK) {
        free_names(f);
        return TL_ERROR_IO;
    }
    if (strcmp(from, f->part) == 0) { /* its own .part: cut in place */
        f->fp = fopen(f->part, "r+b");
        if (!f->fp || ftruncate(fileno(f->fp), (off_t)length) != 0 ||
            fseeko(f->fp, (off_t)length, SEEK_SET) != 0) {
            set_err(err, errsize, "cannot continue '%s': %s", f->part, strerror(errno));
            if (f->fp) (void)fclose(f->fp);
            f->fp = NULL;
            free_names(f);
            return TL_ERROR_IO;
        }
        f->keep_part = true;
        f->keep_length = length;
        return TL_OK;
    }
    FILE *in = fopen(from, "rb");
    if (!in) {
        set_err(err, errsize, "cannot open '%s': %s", from, strerror(errno));
        free_names(f);
        return TL_ERROR_IO;
    }
    f->fp = fopen(f->part, "wb");
    if (!f->fp) {
        set_err(err, errsize, "cannot create '%s': %s", f->part, strerror(errno));
        (void)fclose(in);
        free_names(f);
        return TL_ERROR_IO;
    }
    char *buf = malloc(COPY_CHUNK);
    tl_status s = buf ? TL_OK : TL_ERROR_MEMORY;
    if (!buf) set_err(err, errsize, "out of memory");
    for (uint64_t left = length; s == TL_OK && left > 0;) {
        size_t want = left < COPY_CHUNK ? (size_t)left : COPY_CHUNK;
        size_t got = fread(buf, 1, want, in);
        if (got != want) {
            set_err(err, errsize, "cannot read '%s': %s", from,
                    ferror(in) ? strerror(errno) : "shorter than expected");
            s = TL_ERROR_IO;
        } else if (fwrite(buf, 1, got, f->fp) != got) {
            set_err(err, errsize, "cannot write '%s': %s", f->part, strerror(errno));
            s = TL_ERROR_IO;
        }
        left -= got;
    }
    free(buf);
    (void)fclose(in);
    if (s != TL_OK) tl_file_abort(f);
    return s;
}

tl_status tl_file_sync(tl_file *f, uint64_t *length, char *err, size_t errsize) {
    if (!f->fp) {
        set_err(err, errsize, "internal error: syncing a file that is not open");
        return TL_ERROR_STATE;
    }
    errno = 0;
    if (ferror(f->fp) || fflush(f->fp) != 0 ||
        (fsync(fileno(f->fp)) != 0 && errno != EINVAL && errno != EROFS)) {
        set_err(err, errsize, "cannot write '%s': %s", f->part, errno ? strerror(errno) : "write error");
        return TL_ERROR_IO;
    }
    off_t at = ftello(f->fp);
    if (at < 0) {
        set_err(err, errsize, "cannot tell the size of '%s': %s", f->part, strerror(errno));
        return TL_ERROR_IO;
    }
    *length = (uint64_t)at;
    return TL_OK;
}

tl_status tl_file_fnv(const char *path, uint64_t from, uint64_t to, uint64_t *hash, uint64_t *got,
                      char *err, size_t errsize) {
    *got = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        int e = errno;
        set_err(err, errsize, "cannot open '%s': %s", path, strerror(e));
        return e == ENOENT ? TL_ERROR_NOT_FOUND : TL_ERROR_IO;
    }
    unsigned char *buf = malloc(COPY_CHUNK);
    if (!buf) {
        (void)close(fd);
        set_err(err, errsize, "out of memory");
        return TL_ERROR_MEMORY;
    }
    tl_status s = TL_OK;
    uint64_t h = *hash, at = from;
    while (at < to) {
        size_t want = to - at < COPY_CHUNK ? (size_t)(to - at) : COPY_CHUNK;
        ssize_t n = pread(fd, buf, want, (off_t)at);
        if (n < 0) {
            if (errno == EINTR) continue;
            set_err(err, errsize, "cannot read '%s': %s", path, strerror(errno));
            s = TL_ERROR_IO;
            break;
        }
        if (n == 0) break; /* the end of the file */
        h = tl_fnv1a(buf, (size_t)n, h);
        at += (uint64_t)n;
    }
    free(buf);
    (void)close(fd);
    *hash = h;
    *got = at - from;
    return s;
}

tl_status tl_file_open_regular(const char *path, int *fd, uint64_t *size, char *err, size_t errsize) {
    *fd = -1;
    *size = 0;
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f < 0) {
        int e = errno;
        set_err(err, errsize, "%s: %s", path, strerror(e));
        return e == ENOENT ? TL_ERROR_NOT_FOUND : TL_ERROR_IO;
    }
    struct stat st;
    if (fstat(f, &st) != 0) {
        set_err(err, errsize, "%s: %s", path, strerror(errno));
        close(f);
        return TL_ERROR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        const char *kind = S_ISFIFO(st.st_mode)                          ? "a FIFO"
                           : S_ISDIR(st.st_mode)                         ? "a directory"
                           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                           : S_ISSOCK(st.st_mode)                        ? "a socket"
                                                                         : "not a plain file";
        set_err(err, errsize, "%s: not a regular file (it is %s)", path, kind);
        close(f);
        return TL_ERROR_ARGUMENT;
    }
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) (void)fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    *size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    return TL_OK;
}

bool tl_fd_read_exact(int fd, void *buf, size_t n) {
    unsigned char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

int tl_run_program(char *const argv[]) {
    pid_t pid;
    extern char **environ;
    int r = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (r != 0) {
        errno = r;
        return -1;
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
