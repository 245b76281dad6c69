#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validation_data.h"

static char *split_field(char **p) {
    char *s = *p;
    if (*s == '"') {
        char *q = ++s;
        while (*q && *q != '"') q++;
        if (*q == '"') *q++ = '\0';
        *p = (*q == ',') ? q + 1 : q;
        return s;
    }
    char *c = strchr(s, ',');
    if (c) {
        *c = '\0';
        *p = c + 1;
    } else {
        *p = s + strlen(s);
    }
    return s;
}

bool ref_load(ref_table *t, const char *name) {
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    char path[128];
    snprintf(path, sizeof path, "validation/%s", name);
    const app_data_file *f = talus_validation_files;
    while (f->name && strcmp(f->name, path) != 0) f++;
    if (!f->name) {
        fprintf(stderr, "talus validate: no built-in reference data '%s'\n", name);
        return false;
    }
    t->text = malloc(f->size + 1);
    if (!t->text) return false;
    memcpy(t->text, f->data, f->size);
    t->text[f->size] = '\0';
    char *save = NULL;
    bool header = true;
    for (char *line = strtok_r(t->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || line[0] == '\0') continue;
        char *p = line;
        int n = 0;
        char **dst = header ? t->header : t->cell[t->nrows];
        while (*p && n < REF_MAX_COLS) dst[n++] = split_field(&p);
        if (header) {
            t->ncols = n;
            header = false;
        } else if (t->nrows < REF_MAX_ROWS - 1) {
            for (int k = n; k < t->ncols; k++) dst[k] = "";
            t->nrows++;
        }
    }
    return t->ncols > 0;
}

void ref_free(ref_table *t) {
    free(t->text);
    memset(t, 0, sizeof *t);
}

int ref_col(const ref_table *t, const char *column) {
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->header[c], column) == 0) return c;
    return -1;
}

const char *ref_str(const ref_table *t, int row, const char *column) {
    int c = ref_col(t, column);
    if (c < 0 || row < 0 || row >= t->nrows) return "";
    return t->cell[row][c];
}

double ref_num(const ref_table *t, int row, const char *column) {
    const char *s = ref_str(t, row, column);
    if (!*s || strcmp(s, "nan") == 0) return NAN;
    char *end;
    double v = strtod(s, &end);
    return end == s ? NAN : v;
}
