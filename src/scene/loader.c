/*
 * The pieces of the scene loader that scene.c, scene_particles.c and
 * scene_shapes.c use (loader.h): the out-of-memory failure, copies of
 * strings, materials by name and the paths of files a scene names.
 */
#define _XOPEN_SOURCE 700 /* realpath */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

#define MAX_MATERIALS TL_LOAD_MAX_MATERIALS

typedef tl_loader loader;

int tl_load_out_of_memory(loader *L) {
    L->status = TL_ERROR_MEMORY;
    return tl_yfail(&L->doc, NULL, "out of memory");
}

char *tl_load_copy_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

/* ---- materials ---- */

int tl_load_material(loader *L, const tl_yval *v, bool allow_any, int *out) {
    const char *name;
    if (tl_ystring(&L->doc, v, allow_any ? "a material name or any" : "a material name", &name))
        return -1;
    if (allow_any && strcmp(name, "any") == 0) {
        *out = -1;
        return 0;
    }
    if (tl_world_find_material(L->world, name, out) == TL_OK) return 0;
    const char *names[MAX_MATERIALS];
    size_t n = 0;
    for (int i = 0; i < tl_world_material_count(L->world) && n < MAX_MATERIALS; i++)
        names[n++] = tl_world_material_name(L->world, i);
    return tl_yunknown_name(&L->doc, v, "material", name, names, n);
}

/* ---- paths of files the scene names ---- */

/* whether a relative path climbs above its start ("a/../../b") */
static bool climbs_out(const char *name) {
    long depth = 0;
    const char *p = name;
    while (*p) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0) return true;
        } else if (n > 0 && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n;
        while (*p == '/') p++;
    }
    return false;
}

/* whether an existing file's real path lies outside the real folder (links) */
static bool links_out(const char *dir, const char *path) {
    char *rd = realpath(dir, NULL), *rp = realpath(path, NULL);
    bool out = false;
    if (rd && rp) {
        size_t n = strlen(rd);
        out = !(strncmp(rp, rd, n) == 0 && (rp[n] == '/' || (n == 1 && rd[0] == '/')));
    }
    free(rd);
    free(rp);
    return out;
}

int tl_load_path(loader *L, const tl_yval *at, const char *name, char **out, bool *outside) {
    *out = NULL;
    size_t need = strlen(L->dir) + strlen(name) + 2;
    char *path = malloc(need);
    if (!path) return tl_load_out_of_memory(L);
    if (name[0] == '/' || strcmp(L->dir, ".") == 0) snprintf(path, need, "%s", name);
    else snprintf(path, need, "%s/%s", L->dir, name);
    bool away = name[0] == '/' || climbs_out(name) || links_out(L->dir, path);
    if (away && !L->allow_outside) {
        free(path);
        return tl_yfail(&L->doc, at, "the file lies outside the scene's folder (%s); files a "
                                     "scene names must lie in its folder or below, unless the "
                                     "scene sets allow_outside_paths: true",
                        name[0] == '/' ? "an absolute path" : "the path leaves it");
    }
    if (outside) *outside = away;
    *out = path;
    return 0;
}
