/* The case files of `talus validate` (cases.h, docs/validation.md). */
#include "cases.h"

#include <libfyaml.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validation_data.h"

enum {
    MAX_PARAMS = 64,
    MAX_SCENES = 32,
    MAX_SETS = 16,
    MAX_ROWS = 256,
    MAX_VALUES = 256,
    MAX_EXPLAIN = 32,
    MAX_REASONS = 32
};

typedef enum row_kind {
    ROW_PAPER,          /* a number the paper states, within a tolerance */
    ROW_AT_MOST,        /* a bound the paper states */
    ROW_AT_LEAST,
    ROW_CHECK,          /* an internal check: Talus against itself or a closed form */
    ROW_CHECK_AT_MOST,
    ROW_CHECK_AT_LEAST,
    ROW_OTHER_READING,  /* another reading of an ambiguous number: shown, not counted */
    ROW_TIMING,         /* shown, not counted */
    ROW_VALUE,          /* Talus's value where the paper gives none: shown, not counted */
    ROW_FITTED          /* a number a parameter of the case was chosen to reproduce: shown, not
                         * counted as agreement (fitted_by: says which) */
} row_kind;

static const char *const KIND_NAMES[] = {"paper",          "at-most",       "at-least",
                                         "check",          "check-at-most", "check-at-least",
                                         "other-reading",  "timing",        "value",
                                         "fitted"};

/* a number written in the file, or the name of a parameter or measured quantity */
typedef struct operand {
    const char *name; /* NULL: the number */
    double number;
} operand;

typedef struct row {
    int line;
    const char *group, *quantity, *unit, *measured, *reading, *explain;
    row_kind kind;
    operand ref; /* paper: or expected: */
    operand tol; /* tolerance: its width (a number, or a parameter's or measured quantity's name) */
    bool tol_relative;
    const char *tol_of; /* tolerance: {..., of: name}: the width times that quantity (NULL: none) */
    const char *fitted_by; /* fitted: what was chosen to reproduce the number */
    const char *reason;    /* the name of its tolerance's reason (reasons:) */
    int reason_index;      /* into vcase.reason, once the file is read */
    operand margin;     /* at-most, at-least: the scatter of Talus's value the claim must clear */
    bool have_margin;
    int when; /* 0 both modes, 1 quick only, 2 full only */
} row;

/* reasons: a name and why a tolerance is as wide as it is */
typedef struct reason {
    const char *name, *text;
} reason;

typedef struct param {
    const char *name, *text;
    int line, column; /* of the value in force */
} param;

typedef struct scene_set {
    const char *path, *value;
    int line, column;
} scene_set;

typedef struct scene_case {
    const char *name, *file;
    int nset, ndrop;
    scene_set set[MAX_SETS];
    scene_set drop[MAX_SETS]; /* list items taken out (value unused) */
} scene_case;

typedef struct value {
    char name[96];
    double v;
    char word[64]; /* a word shown in quantities ("" for a number) */
} value;

typedef struct explanation {
    char name[96];
    char how[1024], reading[96];
    prediction p;
} explanation;

struct vcase {
    char file[256];
    bool quick;
    bool failed; /* a parameter the code asked for was missing or wrong: no rows */
    struct fy_document *fyd; /* the strings below point into it */
    int nparam, nscene, nrow, nvalue, nexplain, nreason;
    reason reason[MAX_REASONS];
    param param[MAX_PARAMS];
    scene_case scene[MAX_SCENES];
    row row[MAX_ROWS];
    value value[MAX_VALUES];
    explanation explain[MAX_EXPLAIN];
};

/* ---- the built-in files ---- */

static const app_data_file *data_file(const char *name) {
    for (const app_data_file *f = talus_validation_files; f->name; f++)
        if (strcmp(f->name, name) == 0) return f;
    return NULL;
}

/* ---- reading the file ---- */

/* libfyaml's printed diagnostics go nowhere: its errors are collected and said with the file */
static void diag_sink(struct fy_diag *diag, void *user, const char *buf, size_t len) {
    (void)diag;
    (void)user;
    (void)buf;
    (void)len;
}

/* the document of a built-in file; NULL after saying the syntax error at its line and column */
static struct fy_document *parse(const char *file, const char *text, size_t len) {
    struct fy_diag_cfg dc;
    fy_diag_cfg_default(&dc);
    dc.fp = NULL;
    dc.output_fn = diag_sink;
    dc.user = NULL;
    dc.colorize = false;
    struct fy_diag *diag = fy_diag_create(&dc);
    if (diag) fy_diag_set_collect_errors(diag, true);
    struct fy_parse_cfg pc;
    memset(&pc, 0, sizeof pc);
    pc.flags = FYPCF_QUIET;
    pc.diag = diag;
    struct fy_document *d = fy_document_build_from_string(&pc, text, len);
    if (!d || !fy_document_root(d)) {
        void *iter = NULL;
        struct fy_diag_error *e = NULL;
        while (diag && (e = fy_diag_errors_iterate(diag, &iter)) != NULL && e->type < FYET_ERROR) continue;
        if (e)
            fprintf(stderr, "talus validate: %s:%d:%d: YAML syntax error: %s\n", file, e->line, e->column,
                    e->msg ? e->msg : "invalid YAML");
        else
            fprintf(stderr, "talus validate: %s: empty or not YAML\n", file);
        if (d) fy_document_destroy(d);
        d = NULL;
    }
    if (diag) fy_diag_destroy(diag);
    return d;
}

static int node_line(struct fy_node *n, int *column) {
    *column = 0;
    if (!n) return 0;
    if (fy_node_is_scalar(n)) {
        struct fy_token *t = fy_node_get_scalar_token(n);
        const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
        if (!m) return 0;
        *column = m->column + 1;
        return m->line + 1;
    }
    void *it = NULL;
    if (fy_node_is_sequence(n)) {
        struct fy_node *e = fy_node_sequence_iterate(n, &it);
        return node_line(e, column);
    }
    struct fy_node_pair *p = fy_node_mapping_iterate(n, &it);
    return p ? node_line(fy_node_pair_key(p), column) : 0;
}

static int bad(const vcase *c, struct fy_node *n, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int bad(const vcase *c, struct fy_node *n, const char *key, const char *fmt, ...) {
    int col, line = node_line(n, &col);
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "talus validate: %s:%d:%d: %s: %s\n", c->file, line, col, key, msg);
    return -1;
}

/* a scalar's text, or NULL (said) when the node is not a scalar */
static const char *scalar(const vcase *c, struct fy_node *n, const char *key) {
    if (!n || !fy_node_is_scalar(n)) {
        bad(c, n, key, "expected a single value");
        return NULL;
    }
    return fy_node_get_scalar0(n);
}

static bool parse_number(const char *s, double *out) {
    char *end;
    *out = strtod(s, &end);
    return end != s && *end == '\0';
}

static bool is_name(const char *s) {
    if (!*s) return false;
    for (; *s; s++)
        if (!(*s == '_' || *s == '.' || *s == '-' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* a printf conversion of one double: %[flags][width][.precision] and one of e E f g G a A */
static bool number_format(const char *f) {
    if (*f++ != '%') return false;
    while (*f && strchr("-+ #0", *f)) f++;
    while (*f >= '0' && *f <= '9') f++;
    if (*f == '.') {
        f++;
        while (*f >= '0' && *f <= '9') f++;
    }
    return *f && strchr("eEfgGaA", *f) && f[1] == '\0';
}

/* each ${name} or ${name:%fmt} of a quantity well formed */
static int check_quantity(const vcase *c, struct fy_node *n, const char *key, const char *q) {
    for (const char *s = strstr(q, "${"); s; s = strstr(s + 2, "${")) {
        const char *end = strchr(s, '}');
        if (!end) return bad(c, n, key, "'${' without its '}'");
        char name[96];
        snprintf(name, sizeof name, "%.*s", (int)(end - s - 2), s + 2);
        char *colon = strchr(name, ':');
        if (colon) *colon = '\0';
        if (!is_name(name)) return bad(c, n, key, "'${%s}': expected the name of a measured quantity", name);
        if (colon && !number_format(colon + 1))
            return bad(c, n, key, "'${%s:%s}': expected a number's format such as %%.3g", name, colon + 1);
    }
    return 0;
}

static int read_operand(const vcase *c, struct fy_node *n, const char *key, operand *out) {
    const char *s = scalar(c, n, key);
    if (!s) return -1;
    out->name = NULL;
    if (parse_number(s, &out->number)) return 0;
    if (!is_name(s)) return bad(c, n, key, "expected a number or the name of a quantity, got '%s'", s);
    out->name = s;
    return 0;
}

static int read_params(vcase *c, struct fy_node *map, const char *key, bool apply) {
    if (!map) return 0;
    if (!fy_node_is_mapping(map)) return bad(c, map, key, "expected a mapping of names to values");
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(map, &it)) != NULL) {
        char k[160];
        const char *name = scalar(c, fy_node_pair_key(p), key);
        if (!name) return -1;
        snprintf(k, sizeof k, "%s.%s", key, name);
        const char *text = scalar(c, fy_node_pair_value(p), k);
        if (!text) return -1;
        int i = 0;
        while (i < c->nparam && strcmp(c->param[i].name, name) != 0) i++;
        if (i == c->nparam) {
            if (strcmp(key, "quick") == 0)
                return bad(c, fy_node_pair_key(p), k, "not a parameter (quick: overrides parameters:)");
            if (c->nparam == MAX_PARAMS) return bad(c, map, key, "more than %d parameters", MAX_PARAMS);
            c->param[c->nparam++].name = name;
        }
        if (apply) {
            c->param[i].text = text;
            c->param[i].line = node_line(fy_node_pair_value(p), &c->param[i].column);
        }
    }
    return 0;
}

static int read_scenes(vcase *c, struct fy_node *map) {
    if (!map) return 0;
    if (!fy_node_is_mapping(map)) return bad(c, map, "scenes", "expected a mapping of scene names");
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(map, &it)) != NULL) {
        if (c->nscene == MAX_SCENES) return bad(c, map, "scenes", "more than %d scenes", MAX_SCENES);
        scene_case *s = &c->scene[c->nscene];
        memset(s, 0, sizeof *s);
        if (!(s->name = scalar(c, fy_node_pair_key(p), "scenes"))) return -1;
        char k[200];
        snprintf(k, sizeof k, "scenes.%s", s->name);
        struct fy_node *v = fy_node_pair_value(p);
        if (!v || !fy_node_is_mapping(v)) return bad(c, v, k, "expected a mapping with file: and set:");
        void *jt = NULL;
        struct fy_node_pair *q;
        while ((q = fy_node_mapping_iterate(v, &jt)) != NULL) {
            const char *what = scalar(c, fy_node_pair_key(q), k);
            if (!what) return -1;
            char kk[260];
            snprintf(kk, sizeof kk, "%s.%s", k, what);
            struct fy_node *val = fy_node_pair_value(q);
            if (strcmp(what, "file") == 0) {
                if (!(s->file = scalar(c, val, kk))) return -1;
                if (!data_file(s->file))
                    return bad(c, val, kk, "no built-in scene '%s' (examples/*.yaml or validation/cases/)",
                               s->file);
            } else if (strcmp(what, "set") == 0) {
                if (!val || !fy_node_is_mapping(val)) return bad(c, val, kk, "expected a mapping of key paths");
                void *lt = NULL;
                struct fy_node_pair *e;
                while ((e = fy_node_mapping_iterate(val, &lt)) != NULL) {
                    if (s->nset == MAX_SETS) return bad(c, val, kk, "more than %d values", MAX_SETS);
                    scene_set *ss = &s->set[s->nset++];
                    if (!(ss->path = scalar(c, fy_node_pair_key(e), kk))) return -1;
                    if (!(ss->value = scalar(c, fy_node_pair_value(e), kk))) return -1;
                    ss->line = node_line(fy_node_pair_key(e), &ss->column);
                }
            } else if (strcmp(what, "drop") == 0) {
                if (!val || !fy_node_is_sequence(val)) return bad(c, val, kk, "expected a list of key paths");
                void *lt = NULL;
                struct fy_node *e;
                while ((e = fy_node_sequence_iterate(val, &lt)) != NULL) {
                    if (s->ndrop == MAX_SETS) return bad(c, val, kk, "more than %d items", MAX_SETS);
                    scene_set *ss = &s->drop[s->ndrop++];
                    if (!(ss->path = scalar(c, e, kk))) return -1;
                    ss->value = "";
                    ss->line = node_line(e, &ss->column);
                }
            } else {
                return bad(c, fy_node_pair_key(q), kk, "unknown key (a scene has file:, set: and drop:)");
            }
        }
        if (!s->file) return bad(c, v, k, "no file:");
        c->nscene++;
    }
    return 0;
}

static int read_reasons(vcase *c, struct fy_node *map) {
    if (!map || !fy_node_is_mapping(map))
        return bad(c, map, "reasons", "expected a mapping of names to the reasons of tolerances");
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(map, &it)) != NULL) {
        if (c->nreason == MAX_REASONS) return bad(c, map, "reasons", "more than %d reasons", MAX_REASONS);
        const char *name = scalar(c, fy_node_pair_key(p), "reasons");
        if (!name) return -1;
        if (!is_name(name)) return bad(c, fy_node_pair_key(p), "reasons", "expected a name, got '%s'", name);
        char k[160];
        snprintf(k, sizeof k, "reasons.%s", name);
        const char *text = scalar(c, fy_node_pair_value(p), k);
        if (!text) return -1;
        if (strlen(text) < 10) return bad(c, fy_node_pair_value(p), k, "expected a sentence saying why, got '%s'", text);
        c->reason[c->nreason++] = (reason){name, text};
    }
    return 0;
}

/* each row's reason: one of reasons:, and each reason used */
static int resolve_reasons(vcase *c) {
    bool used[MAX_REASONS] = {false};
    for (int i = 0; i < c->nrow; i++) {
        row *w = &c->row[i];
        if (!w->reason) continue;
        int j = 0;
        while (j < c->nreason && strcmp(c->reason[j].name, w->reason) != 0) j++;
        if (j == c->nreason) {
            fprintf(stderr, "talus validate: %s:%d: checks[%d].reason: '%s' is not one of the file's reasons:\n",
                    c->file, w->line, i, w->reason);
            return -1;
        }
        w->reason_index = j;
        used[j] = true;
    }
    for (int j = 0; j < c->nreason; j++)
        if (!used[j]) {
            fprintf(stderr, "talus validate: %s: reasons.%s: no check names it\n", c->file, c->reason[j].name);
            return -1;
        }
    return 0;
}

static int read_row(vcase *c, struct fy_node *n, int index) {
    char k[64];
    snprintf(k, sizeof k, "checks[%d]", index);
    if (!n || !fy_node_is_mapping(n)) return bad(c, n, k, "expected a mapping (quantity:, measured:, ...)");
    if (c->nrow == MAX_ROWS) return bad(c, n, k, "more than %d checks", MAX_ROWS);
    row *w = &c->row[c->nrow];
    memset(w, 0, sizeof *w);
    int col;
    w->line = node_line(n, &col);
    w->group = "main";
    w->unit = "";
    w->ref.number = NAN;
    bool have_ref = false, have_tol = false;
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(n, &it)) != NULL) {
        const char *key = scalar(c, fy_node_pair_key(p), k);
        if (!key) return -1;
        char kk[160];
        snprintf(kk, sizeof kk, "%s.%s", k, key);
        struct fy_node *v = fy_node_pair_value(p);
        if (strcmp(key, "tolerance") == 0) {
            /* {relative: x} or {absolute: x}, x a number >= 0 or a name; `of: name` multiplies it */
            if (!v || !fy_node_is_mapping(v) || fy_node_mapping_item_count(v) < 1 || fy_node_mapping_item_count(v) > 2)
                return bad(c, v, kk, "expected {relative: x} or {absolute: x} (and of: a quantity)");
            bool have_width = false;
            void *tt = NULL;
            struct fy_node_pair *t;
            while ((t = fy_node_mapping_iterate(v, &tt)) != NULL) {
                const char *tk = scalar(c, fy_node_pair_key(t), kk);
                if (!tk) return -1;
                struct fy_node *tv = fy_node_pair_value(t);
                if (strcmp(tk, "of") == 0) {
                    const char *name = scalar(c, tv, kk);
                    if (!name) return -1;
                    if (!is_name(name)) return bad(c, tv, kk, "of: expected the name of a quantity, got '%s'", name);
                    w->tol_of = name;
                    continue;
                }
                if (strcmp(tk, "relative") != 0 && strcmp(tk, "absolute") != 0)
                    return bad(c, fy_node_pair_key(t), kk, "expected relative: or absolute: (and of:), got '%s'", tk);
                if (have_width) return bad(c, fy_node_pair_key(t), kk, "one of relative: and absolute:");
                if (read_operand(c, tv, kk, &w->tol) != 0) return -1;
                if (!w->tol.name && !(w->tol.number >= 0.0))
                    return bad(c, tv, kk, "expected a number >= 0, got '%s'", fy_node_get_scalar0(tv));
                w->tol_relative = strcmp(tk, "relative") == 0;
                have_width = true;
            }
            if (!have_width) return bad(c, v, kk, "expected relative: or absolute: with of:");
            have_tol = true;
            continue;
        }
        if (strcmp(key, "paper") == 0 || strcmp(key, "expected") == 0) {
            if (read_operand(c, v, kk, &w->ref) != 0) return -1;
            have_ref = true;
            continue;
        }
        if (strcmp(key, "margin") == 0) {
            /* a number >= 0 or the name of a quantity: the scatter a directional claim must clear */
            if (read_operand(c, v, kk, &w->margin) != 0) return -1;
            if (!w->margin.name && !(w->margin.number >= 0.0))
                return bad(c, v, kk, "expected a number >= 0 or a quantity's name, got '%s'", fy_node_get_scalar0(v));
            w->have_margin = true;
            continue;
        }
        static const char *const KEYS[] = {"kind",    "group",   "quantity", "unit", "measured",
                                           "reading", "explain", "source",   "when", "fitted_by",
                                           "reason"};
        size_t known = 0;
        while (known < sizeof KEYS / sizeof KEYS[0] && strcmp(KEYS[known], key) != 0) known++;
        if (known == sizeof KEYS / sizeof KEYS[0])
            return bad(c, fy_node_pair_key(p), kk,
                       "unknown key (a check has group, quantity, kind, unit, paper or expected, source, "
                       "tolerance, reason, margin, measured, reading, explain, fitted_by, when)");
        const char *s = scalar(c, v, kk);
        if (!s) return -1;
        if (strcmp(key, "kind") == 0) {
            size_t i = 0;
            while (i < sizeof KIND_NAMES / sizeof KIND_NAMES[0] && strcmp(KIND_NAMES[i], s) != 0) i++;
            if (i == sizeof KIND_NAMES / sizeof KIND_NAMES[0])
                return bad(c, v, kk,
                           "expected paper, at-most, at-least, check, check-at-most, check-at-least, "
                           "other-reading, timing, value or fitted; got '%s'",
                           s);
            w->kind = (row_kind)i;
        } else if (strcmp(key, "group") == 0) w->group = s;
        else if (strcmp(key, "quantity") == 0) {
            if (check_quantity(c, v, kk, s) != 0) return -1;
            w->quantity = s;
        }
        else if (strcmp(key, "unit") == 0) w->unit = s;
        else if (strcmp(key, "measured") == 0) {
            if (!is_name(s)) return bad(c, v, kk, "expected the name of a measured quantity, got '%s'", s);
            w->measured = s;
        } else if (strcmp(key, "reading") == 0) w->reading = s;
        else if (strcmp(key, "explain") == 0) w->explain = s;
        else if (strcmp(key, "fitted_by") == 0) w->fitted_by = s;
        else if (strcmp(key, "reason") == 0) {
            if (!is_name(s)) return bad(c, v, kk, "expected the name of one of reasons:, got '%s'", s);
            w->reason = s;
        } else if (strcmp(key, "source") == 0) {
            /* documentation only: where the paper states the value */
        } else if (strcmp(key, "when") == 0) {
            if (strcmp(s, "quick") == 0) w->when = 1;
            else if (strcmp(s, "full") == 0) w->when = 2;
            else return bad(c, v, kk, "expected quick or full, got '%s'", s);
        }
    }
    if (!w->quantity) return bad(c, n, k, "no quantity:");
    if (!w->measured) return bad(c, n, k, "no measured:");
    bool needs_ref = w->kind != ROW_VALUE;
    bool needs_tol = w->kind == ROW_PAPER || w->kind == ROW_CHECK || w->kind == ROW_FITTED;
    if (needs_ref && !have_ref) return bad(c, n, k, "no paper: (or expected:) value");
    if (needs_tol && !have_tol) return bad(c, n, k, "no tolerance:");
    if (w->kind == ROW_FITTED && !w->fitted_by) return bad(c, n, k, "a fitted row says what was fitted (fitted_by:)");
    if (w->fitted_by && w->kind != ROW_FITTED) return bad(c, n, k, "fitted_by: is for kind: fitted");
    if (w->have_margin && w->kind != ROW_AT_MOST && w->kind != ROW_AT_LEAST)
        return bad(c, n, k, "margin: is for a claim of the paper (kind: at-most or at-least)");
    /* every tolerance has its stated reason: a width, or the bound of an internal check */
    bool needs_reason = needs_tol || w->kind == ROW_CHECK_AT_MOST || w->kind == ROW_CHECK_AT_LEAST;
    if (needs_reason && !w->reason)
        return bad(c, n, k, "no reason: (every tolerance, and every bound of an internal check, names its "
                            "reason, one of the file's reasons:)");
    if (w->reason && !needs_reason)
        return bad(c, n, k, "reason: is for a tolerance or an internal check's bound (kind: %s has none)",
                   KIND_NAMES[w->kind]);
    c->nrow++;
    return 0;
}

vcase *vcase_load(const char *section, bool quick) {
    vcase *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->quick = quick;
    snprintf(c->file, sizeof c->file, "validation/cases/%s/checks.yaml", section);
    const app_data_file *f = data_file(c->file);
    if (!f) {
        fprintf(stderr, "talus validate: no built-in case file '%s'\n", c->file);
        free(c);
        return NULL;
    }
    c->fyd = parse(c->file, (const char *)f->data, (size_t)f->size);
    struct fy_node *root = c->fyd ? fy_document_root(c->fyd) : NULL;
    if (!root || !fy_node_is_mapping(root)) {
        if (c->fyd) fprintf(stderr, "talus validate: %s: expected a mapping (section, parameters, ...)\n", c->file);
        vcase_free(c);
        return NULL;
    }
    int rc = 0;
    void *it = NULL;
    struct fy_node_pair *p;
    while (rc == 0 && (p = fy_node_mapping_iterate(root, &it)) != NULL) {
        const char *key = scalar(c, fy_node_pair_key(p), "top");
        if (!key) rc = -1;
        else if (strcmp(key, "section") == 0 || strcmp(key, "quick") == 0) {
            /* the title; the overrides are read after the parameters */
        } else if (strcmp(key, "parameters") == 0) rc = read_params(c, fy_node_pair_value(p), key, true);
        else if (strcmp(key, "scenes") == 0) rc = read_scenes(c, fy_node_pair_value(p));
        else if (strcmp(key, "reasons") == 0) rc = read_reasons(c, fy_node_pair_value(p));
        else if (strcmp(key, "checks") == 0) {
            struct fy_node *seq = fy_node_pair_value(p);
            if (!seq || !fy_node_is_sequence(seq)) rc = bad(c, seq, key, "expected a list of checks");
            void *jt = NULL;
            struct fy_node *e;
            int i = 0;
            while (rc == 0 && seq && (e = fy_node_sequence_iterate(seq, &jt)) != NULL) rc = read_row(c, e, i++);
        } else {
            rc = bad(c, fy_node_pair_key(p), key, "unknown key (a case file has section, parameters, quick, "
                                                   "scenes, reasons, checks)");
        }
    }
    if (rc == 0) rc = resolve_reasons(c);
    struct fy_node *q = fy_node_mapping_lookup_by_string(root, "quick", FY_NT);
    if (rc == 0 && q) rc = read_params(c, q, "quick", quick);
    if (rc != 0) {
        vcase_free(c);
        return NULL;
    }
    return c;
}

void vcase_free(vcase *c) {
    if (!c) return;
    if (c->fyd) fy_document_destroy(c->fyd);
    free(c);
}

/* ---- parameters and measured quantities ---- */

static const param *find_param(const vcase *c, const char *name) {
    for (int i = 0; i < c->nparam; i++)
        if (strcmp(c->param[i].name, name) == 0) return &c->param[i];
    return NULL;
}

const char *vcase_text(const vcase *c, const char *name) {
    const param *p = find_param(c, name);
    return p ? p->text : "";
}

double vcase_param(vcase *c, const char *name) {
    const param *p = find_param(c, name);
    double v;
    if (p && parse_number(p->text, &v)) return v;
    if (p)
        fprintf(stderr, "talus validate: %s:%d:%d: parameters.%s: expected a number, got '%s'\n", c->file, p->line,
                p->column, name, p->text);
    else
        fprintf(stderr, "talus validate: %s: parameters.%s: no such parameter (the section's code needs it)\n",
                c->file, name);
    c->failed = true;
    return NAN;
}

int vcase_int(vcase *c, const char *name, int lo, int hi) {
    double v = vcase_param(c, name);
    if (v >= lo && v <= hi && v == floor(v)) return (int)v;
    if (!isnan(v)) {
        const param *p = find_param(c, name);
        fprintf(stderr, "talus validate: %s:%d:%d: parameters.%s: expected an integer from %d to %d, got %g\n",
                c->file, p ? p->line : 0, p ? p->column : 0, name, lo, hi, v);
        c->failed = true;
    }
    return lo;
}

void vcase_measure(vcase *c, const char *name, double v) {
    int i = 0;
    while (i < c->nvalue && strcmp(c->value[i].name, name) != 0) i++;
    if (i == MAX_VALUES) return;
    if (i == c->nvalue) snprintf(c->value[c->nvalue++].name, sizeof c->value[0].name, "%s", name);
    c->value[i].v = v;
    c->value[i].word[0] = '\0';
}

void vcase_word(vcase *c, const char *name, const char *text) {
    vcase_measure(c, name, NAN);
    for (int i = 0; i < c->nvalue; i++)
        if (strcmp(c->value[i].name, name) == 0) snprintf(c->value[i].word, sizeof c->value[i].word, "%s", text);
}

void vcase_measure_row(vcase *c, const char *prefix, const ref_table *t, int index) {
    for (int k = 0; k < t->ncols; k++) {
        double v = ref_num(t, index, t->header[k]); /* NAN where the row has no number */
        char name[96];
        snprintf(name, sizeof name, "%s.%s", prefix, t->header[k]);
        vcase_measure(c, name, v);
    }
}

void vcase_explain(vcase *c, const char *name, const prediction *p) {
    int i = 0;
    while (i < c->nexplain && strcmp(c->explain[i].name, name) != 0) i++;
    if (i == MAX_EXPLAIN) return;
    if (i == c->nexplain) c->nexplain++;
    explanation *e = &c->explain[i];
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->how, sizeof e->how, "%s", p->how ? p->how : "");
    snprintf(e->reading, sizeof e->reading, "%s", p->reading ? p->reading : "");
    e->p = *p;
    e->p.how = p->how ? e->how : NULL;
    e->p.reading = p->reading ? e->reading : NULL;
}

/* a measured quantity, else a parameter */
static bool lookup(const vcase *c, const char *name, double *out) {
    for (int i = 0; i < c->nvalue; i++)
        if (strcmp(c->value[i].name, name) == 0) {
            *out = c->value[i].v;
            return true;
        }
    const param *p = find_param(c, name);
    return p && parse_number(p->text, out);
}

/* the quantity's text with each ${name} or ${name:%fmt} replaced by the value */
static int quantity_text(const vcase *c, const row *w, char *buf, size_t size) {
    size_t n = 0;
    for (const char *s = w->quantity; *s && n + 1 < size;) {
        if (s[0] != '$' || s[1] != '{') {
            buf[n++] = *s++;
            continue;
        }
        const char *end = strchr(s, '}');
        if (!end) break;
        char name[96], fmt[16] = "%.6g";
        size_t len = (size_t)(end - s - 2);
        snprintf(name, sizeof name, "%.*s", (int)len, s + 2);
        char *colon = strchr(name, ':');
        if (colon) {
            *colon = '\0';
            snprintf(fmt, sizeof fmt, "%s", colon + 1);
        }
        const char *word = NULL;
        for (int i = 0; i < c->nvalue; i++)
            if (strcmp(c->value[i].name, name) == 0 && c->value[i].word[0]) word = c->value[i].word;
        if (word) {
            for (const char *t = word; *t && n + 1 < size; t++) buf[n++] = *t;
            s = end + 1;
            continue;
        }
        double v;
        if (!lookup(c, name, &v) || !number_format(fmt)) { /* the format was checked on loading */
            fprintf(stderr, "talus validate: %s:%d: quantity: '${%s}' is not measured by the section's code\n",
                    c->file, w->line, name);
            return -1;
        }
        char num[64];
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
        snprintf(num, sizeof num, fmt, v);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
        for (const char *t = num; *t && n + 1 < size; t++) buf[n++] = *t;
        s = end + 1;
    }
    buf[n] = '\0';
    return 0;
}

int vcase_rows(vcase *c, report *r, const char *group) {
    if (c->failed) return -1; /* said where the parameter was asked for */
    bool any = false;
    for (int i = 0; i < c->nrow; i++) {
        const row *w = &c->row[i];
        if (strcmp(w->group, group) != 0) continue;
        any = true;
        if ((w->when == 1 && !c->quick) || (w->when == 2 && c->quick)) continue;
        double talus, ref = w->ref.number;
        if (!lookup(c, w->measured, &talus)) {
            fprintf(stderr, "talus validate: %s:%d: measured: '%s' is not measured by the section's code\n",
                    c->file, w->line, w->measured);
            return -1;
        }
        if (w->ref.name && !lookup(c, w->ref.name, &ref)) {
            fprintf(stderr, "talus validate: %s:%d: '%s' is neither a parameter nor a measured quantity\n",
                    c->file, w->line, w->ref.name);
            return -1;
        }
        double width = w->tol.number, of = 1.0;
        const char *missing = w->tol.name && !lookup(c, w->tol.name, &width) ? w->tol.name
                              : w->tol_of && !lookup(c, w->tol_of, &of)       ? w->tol_of
                                                                              : NULL;
        if (missing) {
            fprintf(stderr, "talus validate: %s:%d: tolerance: '%s' is neither a parameter nor a measured quantity\n",
                    c->file, w->line, missing);
            return -1;
        }
        if (w->tol_of) width *= of;
        double margin = w->margin.number;
        if (w->margin.name && !lookup(c, w->margin.name, &margin)) {
            fprintf(stderr, "talus validate: %s:%d: margin: '%s' is neither a parameter nor a measured quantity\n",
                    c->file, w->line, w->margin.name);
            return -1;
        }
        const tolerance tol = w->tol_relative ? (tolerance){width, 0.0} : (tolerance){0.0, width};
        const prediction *ex = NULL;
        if (w->explain) {
            for (int k = 0; k < c->nexplain; k++)
                if (strcmp(c->explain[k].name, w->explain) == 0) ex = &c->explain[k].p;
            if (!ex) {
                fprintf(stderr, "talus validate: %s:%d: explain: '%s' is not computed by the section's code\n",
                        c->file, w->line, w->explain);
                return -1;
            }
        }
        char q[512];
        if (quantity_text(c, w, q, sizeof q) != 0) return -1;
        if (w->reason) report_tolerance_reason(r, c->reason[w->reason_index].name, c->reason[w->reason_index].text);
        switch (w->kind) {
        case ROW_PAPER: report_paper(r, q, w->unit, ref, tol, talus, ex, w->reading); break;
        case ROW_AT_MOST:
        case ROW_AT_LEAST: {
            const bound_sense sense = w->kind == ROW_AT_MOST ? BOUND_AT_MOST : BOUND_AT_LEAST;
            if (w->have_margin) report_paper_bound_margin(r, q, w->unit, ref, sense, talus, margin, ex, w->reading);
            else report_paper_bound(r, q, w->unit, ref, sense, talus, ex, w->reading);
            break;
        }
        case ROW_FITTED: report_paper_fitted(r, q, w->unit, ref, tol, talus, w->fitted_by, w->reading); break;
        case ROW_CHECK: report_check(r, q, w->unit, ref, tol, talus); break;
        case ROW_CHECK_AT_MOST: report_check_bound(r, q, w->unit, ref, BOUND_AT_MOST, talus); break;
        case ROW_CHECK_AT_LEAST: report_check_bound(r, q, w->unit, ref, BOUND_AT_LEAST, talus); break;
        case ROW_OTHER_READING: report_other_reading(r, q, w->unit, ref, talus, w->reading); break;
        case ROW_TIMING: report_timing(r, q, w->unit, ref, talus); break;
        case ROW_VALUE: report_value(r, q, w->unit, talus); break;
        }
    }
    if (!any) {
        fprintf(stderr, "talus validate: %s: no checks in group '%s'\n", c->file, group);
        return -1;
    }
    return 0;
}

/* ---- scenes ---- */

typedef struct edit {
    size_t from, to;
    const char *text;
} edit;

static int edit_order(const void *a, const void *b) {
    const edit *x = a, *y = b;
    return x->from < y->from ? 1 : x->from > y->from ? -1 : 0;
}

/* the node at a dotted key path ("laws.0.e"; a number indexes a list) */
static struct fy_node *at_path(struct fy_node *n, const char *path) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *k = strtok_r(buf, ".", &save); k && n; k = strtok_r(NULL, ".", &save)) {
        if (fy_node_is_mapping(n)) n = fy_node_mapping_lookup_by_string(n, k, FY_NT);
        else if (fy_node_is_sequence(n)) {
            char *end;
            long i = strtol(k, &end, 10);
            n = (*end || end == k || i < 0 || i > 100000) ? NULL : fy_node_sequence_get_by_index(n, (int)i);
        } else n = NULL;
    }
    return n;
}

/* the first and last characters of the scalars under n, and whether they are on one line */
static bool node_span(struct fy_node *n, size_t *from, size_t *to, int *line) {
    if (fy_node_is_scalar(n)) {
        struct fy_token *t = fy_node_get_scalar_token(n);
        const struct fy_mark *a = t ? fy_token_start_mark(t) : NULL, *b = t ? fy_token_end_mark(t) : NULL;
        if (!a || !b || a->line != b->line || (*line >= 0 && a->line != *line)) return false;
        *line = a->line;
        if (a->input_pos < *from) *from = a->input_pos;
        if (b->input_pos > *to) *to = b->input_pos;
        return true;
    }
    void *it = NULL;
    if (fy_node_is_sequence(n)) {
        struct fy_node *e;
        while ((e = fy_node_sequence_iterate(n, &it)) != NULL)
            if (!node_span(e, from, to, line)) return false;
        return true;
    }
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(n, &it)) != NULL)
        if (!node_span(fy_node_pair_key(p), from, to, line) || !node_span(fy_node_pair_value(p), from, to, line))
            return false;
    return true;
}

char *vcase_scene_text(vcase *c, const char *name, const char **file) {
    const scene_case *s = NULL;
    for (int i = 0; i < c->nscene; i++)
        if (strcmp(c->scene[i].name, name) == 0) s = &c->scene[i];
    if (!s) {
        fprintf(stderr, "talus validate: %s: scenes: no scene '%s'\n", c->file, name);
        return NULL;
    }
    const app_data_file *f = data_file(s->file);
    struct fy_document *d = parse(s->file, (const char *)f->data, (size_t)f->size);
    struct fy_node *root = d ? fy_document_root(d) : NULL;
    edit ed[2 * MAX_SETS];
    int ned = 0, rc = 0;
    size_t grow = 0;
    for (int i = 0; i < s->nset && root; i++) {
        const scene_set *ss = &s->set[i];
        const char *v = ss->value;
        if (v[0] == '$') {
            const param *p = find_param(c, v + 1);
            if (!p) {
                fprintf(stderr, "talus validate: %s:%d:%d: scenes.%s.set.%s: no parameter '%s'\n", c->file,
                        ss->line, ss->column, name, ss->path, v + 1);
                rc = -1;
                break;
            }
            v = p->text;
        }
        struct fy_node *n = at_path(root, ss->path);
        struct fy_token *t = n && fy_node_is_scalar(n) ? fy_node_get_scalar_token(n) : NULL;
        const struct fy_mark *a = t ? fy_token_start_mark(t) : NULL, *b = t ? fy_token_end_mark(t) : NULL;
        if (!a || !b) {
            fprintf(stderr, "talus validate: %s:%d:%d: scenes.%s.set.%s: %s has no single value at this key\n",
                    c->file, ss->line, ss->column, name, ss->path, s->file);
            rc = -1;
            break;
        }
        ed[ned++] = (edit){a->input_pos, b->input_pos, v};
        grow += strlen(v);
    }
    for (int i = 0; i < s->ndrop && root && rc == 0; i++) {
        /* a list item written on one line: the line goes (a blank line keeps the others' numbers) */
        const scene_set *ss = &s->drop[i];
        struct fy_node *n = at_path(root, ss->path), *parent = n ? fy_node_get_document_parent(n) : NULL;
        size_t from = (size_t)f->size, to = 0;
        int line = -1;
        if (!n || !parent || !fy_node_is_sequence(parent) || !node_span(n, &from, &to, &line) || to <= from) {
            fprintf(stderr, "talus validate: %s:%d:%d: scenes.%s.drop: %s has no list item written on one line "
                            "at %s\n",
                    c->file, ss->line, ss->column, name, s->file, ss->path);
            rc = -1;
            break;
        }
        while (from > 0 && f->data[from - 1] != '\n') from--;
        while (to < (size_t)f->size && f->data[to] != '\n') to++;
        ed[ned++] = (edit){from, to, ""};
    }
    char *text = NULL;
    if (root && rc == 0) {
        /* each value written over the old one's characters: lines and columns stay the file's */
        qsort(ed, (size_t)ned, sizeof ed[0], edit_order);
        size_t n = (size_t)f->size;
        text = malloc(n + grow + 1);
        if (text) {
            memcpy(text, f->data, n);
            text[n] = '\0';
            for (int i = 0; i < ned; i++) {
                size_t len = strlen(ed[i].text);
                memmove(text + ed[i].from + len, text + ed[i].to, n - ed[i].to + 1);
                memcpy(text + ed[i].from, ed[i].text, len);
                n = n - (ed[i].to - ed[i].from) + len;
            }
        }
    }
    if (d) fy_document_destroy(d);
    if (text && file) *file = s->file;
    return text;
}

tl_scene *vcase_scene(vcase *c, report *r, const char *name, const char *label) {
    const char *file = NULL;
    char *text = vcase_scene_text(c, name, &file);
    if (!text) return NULL;
    tl_scene *sc = NULL;
    tl_scene_error err;
    tl_status st = tl_scene_load_string(text, file, &sc, &err);
    free(text);
    if (st == TL_OK) return sc;
    char buf[2048];
    tl_scene_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "talus validate: %s (scene %s of %s)\n", buf, name, c->file);
    report_text(r, "\n%s: the scene was refused: %s\n", label, buf);
    return NULL;
}
