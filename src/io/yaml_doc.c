/*
 * The typed layer over libfyaml's document tree: parsing with libfyaml's
 * diagnostics collected (not printed), node places, key paths, and getters
 * that refuse a value with a message naming where it is and what was
 * expected. See yaml_doc.h.
 */
#include "yaml_doc.h"

#include <ctype.h>
#include <errno.h>
#include <libfyaml.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names.h"

/* ---- errors ---- */

int tl_yfail(const tl_ydoc *doc, const tl_yval *at, const char *fmt, ...) {
    tl_scene_error *err = doc->err;
    err->line = at ? at->line : 0;
    err->column = at ? at->column : 0;
    snprintf(err->key, sizeof err->key, "%s", at ? at->path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- parsing ---- */

/* libfyaml's own printed diagnostics go nowhere: the errors are collected */
static void diag_sink(struct fy_diag *diag, void *user, const char *buf, size_t len) {
    (void)diag;
    (void)user;
    (void)buf;
    (void)len;
}

/* the key text at a 1-based line and column of the source, for "duplicate key" */
static void key_at(const char *text, size_t len, int line, int column, char *buf, size_t size) {
    buf[0] = '\0';
    size_t i = 0;
    for (int l = 1; l < line && i < len; i++)
        if (text[i] == '\n') l++;
    i += column > 0 ? (size_t)(column - 1) : 0;
    size_t n = 0;
    while (i < len && n + 1 < size && n < 64 && text[i] != ':' && text[i] != '\n' &&
           text[i] != ',' && text[i] != '}') {
        buf[n++] = text[i++];
    }
    while (n > 0 && isspace((unsigned char)buf[n - 1])) n--;
    buf[n] = '\0';
}

static int syntax_error(tl_ydoc *doc, struct fy_diag *diag, const char *text, size_t len) {
    void *iter = NULL;
    struct fy_diag_error *e;
    while ((e = fy_diag_errors_iterate(diag, &iter)) != NULL) {
        if (e->type < FYET_ERROR) continue;
        tl_yval at;
        memset(&at, 0, sizeof at);
        at.line = e->line > 0 ? e->line : 0;
        at.column = e->line > 0 && e->column > 0 ? e->column : 0;
        const char *msg = e->msg ? e->msg : "invalid YAML";
        if (strncmp(msg, "duplicate key", 13) == 0 && at.line > 0) {
            char key[80];
            key_at(text, len, at.line, at.column, key, sizeof key);
            if (key[0])
                return tl_yfail(doc, &at, "YAML syntax error: duplicate key '%s' (each key may "
                                          "appear once in a mapping)", key);
        }
        return tl_yfail(doc, &at, "YAML syntax error: %s", msg);
    }
    return tl_yfail(doc, NULL, "the scene is empty: expected a mapping with at least materials, "
                               "laws and stages");
}

/* libfyaml's diagnostics, collected and not printed */
static struct fy_diag *quiet_diag(void) {
    struct fy_diag_cfg dc;
    fy_diag_cfg_default(&dc);
    dc.fp = NULL;
    dc.output_fn = diag_sink;
    dc.user = NULL;
    dc.colorize = false;
    struct fy_diag *diag = fy_diag_create(&dc);
    if (diag) fy_diag_set_collect_errors(diag, true);
    return diag;
}

/* ---- limits, on the event stream ---- */

/* an anchor: its name and what one use of it expands to */
typedef struct anchor_def {
    char *name; /* NULL: a free slot */
    size_t len;
    size_t nodes; /* nodes of the anchored node, its own aliases expanded */
    int height;   /* levels below it (0 for a scalar) */
} anchor_def;

/* an open collection */
typedef struct open_node {
    size_t nodes_before; /* the count before its start */
    int height;          /* levels below it so far */
    char *anchor;        /* its anchor's name (malloc'd), or NULL */
    size_t anchor_len;
    size_t children;     /* nodes directly inside (keys and values) */
    bool map;
} open_node;

typedef struct limits_walk {
    anchor_def *slots; /* open addressing, a power of 2 */
    size_t cap, used;
    open_node stack[TL_YAML_MAX_DEPTH + 1];
    int depth; /* open collections */
    size_t nodes, written; /* nodes with aliases expanded; nodes as written */
} limits_walk;

static uint64_t name_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static anchor_def *anchor_slot(const limits_walk *w, const char *name, size_t n) {
    size_t i = (size_t)name_hash(name, n) & (w->cap - 1);
    while (w->slots[i].name &&
           !(w->slots[i].len == n && memcmp(w->slots[i].name, name, n) == 0))
        i = (i + 1) & (w->cap - 1);
    return &w->slots[i];
}

/* records (or redefines: a later anchor of the same name wins) an anchor */
static int anchor_define(limits_walk *w, const char *name, size_t n, size_t nodes, int height) {
    if (2 * (w->used + 1) > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        anchor_def *slots = calloc(cap, sizeof *slots);
        if (!slots) return -1;
        limits_walk grown = *w;
        grown.slots = slots;
        grown.cap = cap;
        for (size_t i = 0; i < w->cap; i++)
            if (w->slots[i].name) *anchor_slot(&grown, w->slots[i].name, w->slots[i].len) = w->slots[i];
        free(w->slots);
        w->slots = slots;
        w->cap = cap;
    }
    anchor_def *a = anchor_slot(w, name, n);
    if (!a->name) {
        a->name = malloc(n + 1);
        if (!a->name) return -1;
        memcpy(a->name, name, n);
        a->name[n] = '\0';
        a->len = n;
        w->used++;
    }
    a->nodes = nodes;
    a->height = height;
    return 0;
}

static const anchor_def *anchor_find(const limits_walk *w, struct fy_token *tok) {
    size_t n = 0;
    const char *name = tok ? fy_token_get_text(tok, &n) : NULL;
    if (!name || !w->cap) return NULL;
    const anchor_def *a = anchor_slot(w, name, n);
    return a->name ? a : NULL;
}

static void event_place(struct fy_event *fye, tl_yval *at) {
    memset(at, 0, sizeof *at);
    const struct fy_mark *m = fy_event_start_mark(fye);
    if (m) {
        at->line = m->line + 1;
        at->column = m->column + 1;
    }
}

/* a node of `nodes` nodes and `height` levels below it, at the current depth */
static int limits_add(tl_ydoc *doc, limits_walk *w, struct fy_event *fye, size_t nodes,
                      int height, bool alias) {
    tl_yval at;
    if (w->depth + height > TL_YAML_MAX_DEPTH) {
        event_place(fye, &at);
        return tl_yfail(doc, &at, "the document nests deeper than %d levels%s (the limit on a "
                                  "scene's nesting depth)", TL_YAML_MAX_DEPTH,
                        alias ? " where this alias is expanded" : "");
    }
    if (nodes > TL_YAML_MAX_NODES - w->nodes) {
        event_place(fye, &at);
        if (alias)
            return tl_yfail(doc, &at, "aliases expand the document to more than %zu nodes at "
                                      "this alias (the limit on a scene's nodes, aliases "
                                      "expanded: nested aliases multiply)", TL_YAML_MAX_NODES);
        return tl_yfail(doc, &at, "the document has more than %zu nodes (the limit on a "
                                  "scene's nodes; give long particle lists in a data file)",
                        TL_YAML_MAX_NODES);
    }
    w->nodes += nodes;
    if (w->depth > 0) {
        open_node *up = &w->stack[w->depth - 1];
        if (up->height < height + 1) up->height = height + 1;
        if (up->map && ++up->children > 2 * TL_YAML_MAX_MAP_KEYS) {
            event_place(fye, &at);
            return tl_yfail(doc, &at, "a mapping has more than %zu keys (the limit on a scene "
                                      "mapping's keys)", TL_YAML_MAX_MAP_KEYS);
        }
    }
    return 0;
}

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (k == 0 || k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (k == 2 && c < 0xC2) return 0;                            /* overlong */
    if (k == 3 && c == 0xE0 && s[1] < 0xA0) return 0;            /* overlong */
    if (k == 3 && c == 0xED && s[1] >= 0xA0) return 0;           /* surrogate */
    if (k == 4 && (c > 0xF4 || (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))) return 0;
    return k;
}

/* Before libfyaml sees it: a scene is UTF-8 text, and its only directive may be
 * %YAML 1.x. (Debian's libfyaml 0.7.12 loops for ever on some malformed directives:
 * found by fuzz_scene, fuzz/regressions/scene-directive-*.) */
static int check_text(const tl_ydoc *doc, const char *text, size_t len) {
    const unsigned char *s = (const unsigned char *)text;
    int line = 1, column = 1;
    bool line_start = true;
    for (size_t i = 0; i < len;) {
        if (line_start && s[i] == '%') {
            size_t e = i;
            while (e < len && s[e] != '\n') e++;
            const char *d = text + i;
            size_t n = e - i;
            bool ok = n >= 8 && strncmp(d, "%YAML 1.", 8) == 0;
            for (size_t k = 8; ok && k < n && d[k] != ' ' && d[k] != '\r'; k++)
                if (d[k] < '0' || d[k] > '9') ok = false;
            if (!ok) {
                tl_yval at;
                memset(&at, 0, sizeof at);
                at.line = line;
                at.column = 1;
                return tl_yfail(doc, &at, "a YAML directive other than %%YAML 1.x: a scene needs none");
            }
        }
        size_t k = utf8_len(s + i, len - i);
        if (k == 0) {
            tl_yval at;
            memset(&at, 0, sizeof at);
            at.line = line;
            at.column = column;
            return tl_yfail(doc, &at, "a byte 0x%02x that is not UTF-8 text: a scene is UTF-8 text", s[i]);
        }
        line_start = s[i] == '\n';
        if (s[i] == '\n') {
            line++;
            column = 1;
        } else {
            column++;
        }
        i += k;
    }
    return 0;
}

/* The flow collections of the text, from its characters alone: in a flow
 * collection every bracket, brace and comma outside quotes and comments is an
 * indicator; in block context a bracket or brace opens one where a node may
 * begin. Quotes are skipped where a node may begin, comments after a blank.
 * An estimate, erring on the side of counting (a block scalar's lines are
 * read as YAML), enough to keep libfyaml's look-ahead bounded. */
static int check_flow(tl_ydoc *doc, const char *text, size_t len) {
    size_t depth = 0, items = 0;
    int line = 1;
    size_t line_start = 0;
    bool node_start = true; /* a node may begin here */
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\n') {
            line++;
            line_start = i + 1;
            node_start = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') continue;
        if (c == '#' && (i == 0 || isspace((unsigned char)text[i - 1]))) {
            while (i + 1 < len && text[i + 1] != '\n') i++;
            continue;
        }
        if ((c == '"' || c == '\'') && node_start) {
            for (i++; i < len; i++) {
                if (text[i] == '\n') {
                    line++;
                    line_start = i + 1;
                } else if (c == '"' && text[i] == '\\' && i + 1 < len && text[i + 1] != '\n') {
                    i++;
                } else if (text[i] == c) {
                    if (c == '\'' && i + 1 < len && text[i + 1] == '\'') i++;
                    else break;
                }
            }
            node_start = false;
            continue;
        }
        bool opens = (c == '[' || c == '{') && (depth > 0 || node_start);
        if (opens || (depth > 0 && c == ',')) items++;
        if (opens) depth++;
        else if (depth > 0 && (c == ']' || c == '}')) depth--;
        if (depth > (size_t)TL_YAML_MAX_DEPTH || items > TL_YAML_MAX_FLOW_ITEMS) {
            tl_yval at;
            memset(&at, 0, sizeof at);
            at.line = line;
            at.column = (int)(i - line_start) + 1;
            if (depth > (size_t)TL_YAML_MAX_DEPTH)
                return tl_yfail(doc, &at, "the document nests deeper than %d levels (the limit "
                                          "on a scene's nesting depth)", TL_YAML_MAX_DEPTH);
            return tl_yfail(doc, &at, "the document has more than %zu items in [...] and {...} "
                                      "(the limit on a scene's flow-style items; give long "
                                      "particle lists in a data file)", TL_YAML_MAX_FLOW_ITEMS);
        }
        /* after an indicator a node may begin; after ": " and "- " too */
        node_start = c == '[' || c == '{' || c == ',' ||
                     ((c == ':' || c == '-' || c == '?') &&
                      (i + 1 >= len || isspace((unsigned char)text[i + 1]) ||
                       (depth > 0 && c == ':')));
    }
    return 0;
}

/* Walks the events: 0 when within the limits (or at a syntax error, which
 * the build reports), else -1 with the error written. */
/* A scalar's text (its escapes resolved: "\e", "\x1b", "\u009b" give control characters)
 * holds no control character but tab and line feed: names and titles reach the terminal, files
 * and reports, where an escape sequence could retitle a window, clear the screen or ring. */
static int check_controls(tl_ydoc *doc, struct fy_event *fye) {
    size_t n = 0;
    const char *t = fye->scalar.value ? fy_token_get_text(fye->scalar.value, &n) : NULL;
    const unsigned char *u = (const unsigned char *)t;
    for (size_t i = 0; t && i < n; i++) {
        bool c1 = u[i] == 0xC2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] < 0xA0;
        if ((u[i] < 0x20 && u[i] != '\t' && u[i] != '\n') || u[i] == 0x7f || c1) {
            tl_yval at;
            event_place(fye, &at);
            return tl_yfail(doc, &at, "a text holding the control character 0x%02x%s: a scene's texts are printable "
                                      "(tab and line feed aside)",
                            c1 ? u[i + 1] : u[i], u[i] == 0x1b || (c1 && u[i + 1] == 0x9b) ? " (a terminal escape)" : "");
        }
    }
    return 0;
}

static int check_limits(tl_ydoc *doc, const char *text, size_t len) {
    struct fy_diag *diag = quiet_diag();
    if (!diag) return tl_yfail(doc, NULL, "out of memory");
    struct fy_parse_cfg pc;
    memset(&pc, 0, sizeof pc);
    pc.flags = FYPCF_QUIET;
    pc.diag = diag;
    struct fy_parser *fyp = fy_parser_create(&pc);
    if (!fyp || fy_parser_set_string(fyp, text, len) != 0) {
        if (fyp) fy_parser_destroy(fyp);
        fy_diag_destroy(diag);
        return tl_yfail(doc, NULL, "out of memory");
    }
    limits_walk w;
    memset(&w, 0, sizeof w);
    int rc = 0;
    struct fy_event *fye;
    while (rc == 0 && (fye = fy_parser_parse(fyp)) != NULL) {
        switch (fye->type) {
        case FYET_SCALAR:
            w.written++;
            rc = limits_add(doc, &w, fye, 1, 0, false);
            if (rc == 0) rc = check_controls(doc, fye);
            if (rc == 0 && fye->scalar.anchor) {
                size_t n = 0;
                const char *name = fy_token_get_text(fye->scalar.anchor, &n);
                if (name && anchor_define(&w, name, n, 1, 0)) rc = tl_yfail(doc, NULL, "out of memory");
            }
            break;
        case FYET_ALIAS: {
            w.written++;
            const anchor_def *a = anchor_find(&w, fye->alias.anchor);
            rc = limits_add(doc, &w, fye, a ? a->nodes : 1, a ? a->height : 0, true);
            break;
        }
        case FYET_SEQUENCE_START:
        case FYET_MAPPING_START:
            w.written++;
            rc = limits_add(doc, &w, fye, 1, 0, false);
            if (rc == 0 && w.depth == TL_YAML_MAX_DEPTH) {
                tl_yval at;
                event_place(fye, &at);
                rc = tl_yfail(doc, &at, "the document nests deeper than %d levels (the limit "
                                        "on a scene's nesting depth)", TL_YAML_MAX_DEPTH);
            }
            if (rc == 0) {
                open_node *o = &w.stack[w.depth++];
                o->nodes_before = w.nodes - 1;
                o->height = 0;
                o->children = 0;
                o->map = fye->type == FYET_MAPPING_START;
                struct fy_token *tok = fye->type == FYET_SEQUENCE_START
                                           ? fye->sequence_start.anchor
                                           : fye->mapping_start.anchor;
                size_t n = 0;
                const char *name = tok ? fy_token_get_text(tok, &n) : NULL;
                o->anchor = NULL;
                o->anchor_len = n;
                if (name) {
                    o->anchor = malloc(n + 1);
                    if (!o->anchor) {
                        rc = tl_yfail(doc, NULL, "out of memory");
                    } else {
                        memcpy(o->anchor, name, n);
                        o->anchor[n] = '\0';
                    }
                }
            }
            break;
        case FYET_SEQUENCE_END:
        case FYET_MAPPING_END:
            if (w.depth > 0) {
                open_node *o = &w.stack[--w.depth];
                int height = o->height;
                if (o->anchor) {
                    if (anchor_define(&w, o->anchor, o->anchor_len, w.nodes - o->nodes_before,
                                      height))
                        rc = tl_yfail(doc, NULL, "out of memory");
                    free(o->anchor);
                    o->anchor = NULL;
                }
                if (w.depth > 0 && w.stack[w.depth - 1].height < height + 1)
                    w.stack[w.depth - 1].height = height + 1;
            }
            break;
        default:
            break;
        }
        fy_parser_event_free(fyp, fye);
    }
    for (int i = 0; i < w.depth; i++) free(w.stack[i].anchor);
    for (size_t i = 0; i < w.cap; i++) free(w.slots[i].name);
    free(w.slots);
    fy_parser_destroy(fyp);
    fy_diag_destroy(diag);
    return rc;
}

int tl_ydoc_parse(tl_ydoc *doc, const char *text, size_t len, tl_scene_error *err) {
    doc->fyd = NULL;
    doc->err = err;
    if (len > TL_YAML_MAX_BYTES)
        return tl_yfail(doc, NULL, "the scene is %zu bytes, more than %zu (the limit on a scene's "
                                   "size; give long particle lists in a data file)",
                        len, TL_YAML_MAX_BYTES);
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        /* libfyaml would end the document there and find keys missing */
        tl_yval at;
        memset(&at, 0, sizeof at);
        at.line = 1;
        for (const char *c = text; c < nul; c++)
            if (*c == '\n') {
                at.line++;
                at.column = 0;
            } else {
                at.column++;
            }
        at.column++;
        return tl_yfail(doc, &at, "the scene holds a NUL byte (a binary file, or text in "
                                  "UTF-16?): a scene is UTF-8 text");
    }
    if (check_text(doc, text, len) != 0) return -1;
    if (check_flow(doc, text, len) != 0 || check_limits(doc, text, len) != 0) return -1;
    struct fy_diag *diag = quiet_diag();
    if (!diag) return tl_yfail(doc, NULL, "out of memory");
    struct fy_parse_cfg pc;
    memset(&pc, 0, sizeof pc);
    pc.flags = FYPCF_QUIET | FYPCF_RESOLVE_DOCUMENT;
    pc.diag = diag;
    doc->fyd = fy_document_build_from_string(&pc, text, len);
    int rc = 0;
    if (!doc->fyd || !fy_document_root(doc->fyd)) {
        rc = syntax_error(doc, diag, text, len);
        tl_ydoc_free(doc);
    }
    fy_diag_destroy(diag);
    return rc;
}

void tl_ydoc_free(tl_ydoc *doc) {
    if (doc->fyd) fy_document_destroy(doc->fyd);
    doc->fyd = NULL;
}

/* ---- places and paths ---- */

/* the place of a node: a scalar's own, else its first scalar inside */
static bool node_place(struct fy_node *n, int *line, int *column) {
    if (!n) return false;
    if (fy_node_is_scalar(n)) {
        struct fy_token *t = fy_node_get_scalar_token(n);
        const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
        if (!m) return false;
        *line = m->line + 1;
        *column = m->column + 1;
        return true;
    }
    void *iter = NULL;
    if (fy_node_is_sequence(n)) {
        struct fy_node *c;
        while ((c = fy_node_sequence_iterate(n, &iter)) != NULL)
            if (node_place(c, line, column)) return true;
        return false;
    }
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(n, &iter)) != NULL)
        if (node_place(fy_node_pair_key(p), line, column) ||
            node_place(fy_node_pair_value(p), line, column))
            return true;
    return false;
}

static bool scalar_place(struct fy_node *n, int *line, int *column) {
    return n && fy_node_is_scalar(n) && node_place(n, line, column);
}

void tl_ydoc_root(const tl_ydoc *doc, tl_yval *out) {
    memset(out, 0, sizeof *out);
    out->node = fy_document_root(doc->fyd);
    out->line = out->column = 1;
    node_place(out->node, &out->line, &out->column);
}

static void child_path(const tl_yval *parent, const char *key, char *path, size_t size) {
    char buf[sizeof parent->path];
    if (parent->path[0])
        snprintf(buf, sizeof buf, "%.120s.%.120s", parent->path, key);
    else
        snprintf(buf, sizeof buf, "%.200s", key);
    snprintf(path, size, "%s", buf);
}

/* a value under a key: its own place if a scalar, else the key's */
static void keyed_value(const tl_yval *map, const char *name, struct fy_node *key,
                        struct fy_node *value, tl_yval *out) {
    tl_yval v;
    memset(&v, 0, sizeof v);
    v.node = value;
    child_path(map, name, v.path, sizeof v.path);
    v.line = map->line;
    v.column = map->column;
    if (!scalar_place(value, &v.line, &v.column)) node_place(key, &v.line, &v.column);
    *out = v;
}

/* ---- shape ---- */

bool tl_yis_map(const tl_yval *v) { return v->node && fy_node_is_mapping(v->node); }
bool tl_yis_seq(const tl_yval *v) { return v->node && fy_node_is_sequence(v->node); }
bool tl_yis_scalar(const tl_yval *v) { return v->node && fy_node_is_scalar(v->node); }

const char *tl_yscalar(const tl_yval *v) {
    if (!tl_yis_scalar(v)) return NULL;
    const char *s = fy_node_get_scalar0(v->node);
    return s ? s : "";
}

static bool is_plain(const tl_yval *v) {
    return tl_yis_scalar(v) && fy_node_get_style(v->node) == FYNS_PLAIN;
}

static bool is_nothing(const tl_yval *v) {
    if (!v->node) return true;
    if (!is_plain(v)) return false;
    const char *s = tl_yscalar(v);
    return !s[0] || strcmp(s, "~") == 0 || strcasecmp(s, "null") == 0;
}

void tl_ydescribe(const tl_yval *v, char *buf, size_t size) {
    if (is_nothing(v))
        snprintf(buf, size, "nothing");
    else if (tl_yis_map(v))
        snprintf(buf, size, "%s", tl_ymap_count(v) ? "a mapping" : "an empty mapping");
    else if (tl_yis_seq(v))
        snprintf(buf, size, "%s", tl_yseq_count(v) ? "a sequence" : "an empty sequence");
    else {
        const char *s = tl_yscalar(v);
        const char *more = strlen(s) > 48 ? "..." : "";
        snprintf(buf, size, "%s'%.48s%s'", is_plain(v) ? "" : "the quoted string ", s, more);
    }
}

int tl_yexpected(const tl_ydoc *doc, const tl_yval *v, const char *what) {
    char got[96];
    tl_ydescribe(v, got, sizeof got);
    return tl_yfail(doc, v, "expected %s, got %s", what, got);
}

int tl_ymissing(const tl_ydoc *doc, const tl_yval *absent, const char *what) {
    return tl_yfail(doc, absent, "required key is missing: expected %s", what);
}

/* ---- mappings ---- */

int tl_ymap_expect(const tl_ydoc *doc, const tl_yval *v, const char *what) {
    return tl_yis_map(v) ? 0 : tl_yexpected(doc, v, what);
}

static void join(const char *const *names, size_t count, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names[i]);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
}

static bool listed(const char *name, const char *const *names, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0) return true;
    return false;
}

int tl_ymap_check_keys(const tl_ydoc *doc, const tl_yval *map, const char *const *allowed,
                       size_t count, const char *extra) {
    if (tl_ymap_expect(doc, map, "a mapping")) return -1;
    size_t n = tl_ymap_count(map);
    for (size_t i = 0; i < n; i++) {
        const char *name;
        tl_yval key, value;
        tl_ymap_entry(map, i, &name, &key, &value);
        tl_yval at = *map;
        at.line = key.line;
        at.column = key.column;
        if (!is_plain(&key) || is_nothing(&key)) {
            char got[96];
            tl_ydescribe(&key, got, sizeof got);
            return tl_yfail(doc, &at, "keys must be plain names, got %s", got);
        }
        if (listed(name, allowed, count)) continue;
        const char *sug = tl_closest_name(name, allowed, count);
        char list[640];
        join(allowed, count, list, sizeof list);
        return tl_yfail(doc, &at, "unknown key '%s'%s%s%s (allowed: %s)%s", name,
                        sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "", list,
                        extra ? extra : "");
    }
    return 0;
}

size_t tl_ymap_count(const tl_yval *map) {
    if (!tl_yis_map(map)) return 0;
    int n = fy_node_mapping_item_count(map->node);
    return n > 0 ? (size_t)n : 0;
}

static void pair_entry(const tl_yval *map, struct fy_node_pair *p, const char **name, tl_yval *key,
                       tl_yval *value) {
    struct fy_node *k = p ? fy_node_pair_key(p) : NULL;
    const char *s = k && fy_node_is_scalar(k) ? fy_node_get_scalar0(k) : NULL;
    *name = s ? s : "";
    tl_yval kv = *map;
    kv.node = k;
    node_place(k, &kv.line, &kv.column);
    keyed_value(map, *name, k, p ? fy_node_pair_value(p) : NULL, value);
    *key = kv;
}

void tl_ymap_entry(const tl_yval *map, size_t i, const char **name, tl_yval *key, tl_yval *value) {
    pair_entry(map, fy_node_mapping_get_by_index(map->node, (int)i), name, key, value);
}

void tl_ymap_get(const tl_yval *map, const char *key, tl_yval *out) {
    if (tl_yis_map(map)) {
        void *iter = NULL;
        struct fy_node_pair *p;
        while ((p = fy_node_mapping_iterate(map->node, &iter)) != NULL) {
            struct fy_node *k = fy_node_pair_key(p);
            const char *s = k && fy_node_is_scalar(k) ? fy_node_get_scalar0(k) : NULL;
            if (!s || strcmp(s, key) != 0) continue;
            const char *name;
            tl_yval kv;
            pair_entry(map, p, &name, &kv, out);
            return;
        }
    }
    tl_yval absent;
    memset(&absent, 0, sizeof absent);
    child_path(map, key, absent.path, sizeof absent.path);
    absent.line = map->line;
    absent.column = map->column;
    *out = absent;
}

bool tl_ymap_has(const tl_yval *map, const char *key) {
    tl_yval v;
    tl_ymap_get(map, key, &v);
    return v.node != NULL;
}

/* ---- sequences ---- */

int tl_yseq_expect(const tl_ydoc *doc, const tl_yval *v, const char *what) {
    return tl_yis_seq(v) ? 0 : tl_yexpected(doc, v, what);
}

size_t tl_yseq_count(const tl_yval *seq) {
    if (!tl_yis_seq(seq)) return 0;
    int n = fy_node_sequence_item_count(seq->node);
    return n > 0 ? (size_t)n : 0;
}

static void seq_item(const tl_yval *seq, struct fy_node *node, size_t i, tl_yval *out) {
    tl_yval v;
    memset(&v, 0, sizeof v);
    v.node = node;
    snprintf(v.path, sizeof v.path, "%.240s[%zu]", seq->path, i);
    v.line = seq->line;
    v.column = seq->column;
    node_place(v.node, &v.line, &v.column);
    *out = v;
}

void tl_yseq_at(const tl_yval *seq, size_t i, tl_yval *out) {
    seq_item(seq, tl_yis_seq(seq) ? fy_node_sequence_get_by_index(seq->node, (int)i) : NULL, i, out);
}

bool tl_yseq_next(const tl_yval *seq, tl_yiter *it, tl_yval *out) {
    if (!tl_yis_seq(seq)) return false;
    struct fy_node *n = fy_node_sequence_iterate(seq->node, &it->cursor);
    if (!n) return false;
    it->index = it->next++;
    seq_item(seq, n, it->index, out);
    return true;
}

/* ---- numbers ---- */

void tl_yrange_text(const tl_yrange *r, char *buf, size_t size) {
    char lo[48] = "", hi[48] = "";
    if (isfinite(r->min)) snprintf(lo, sizeof lo, "%s %g", r->min_open ? ">" : ">=", r->min);
    if (isfinite(r->max)) snprintf(hi, sizeof hi, "%s %g", r->max_open ? "<" : "<=", r->max);
    snprintf(buf, size, "%s%s%s", lo, lo[0] && hi[0] ? " and " : "", hi);
}

static void number_text(const tl_yrange *r, char *buf, size_t size) {
    char range[112] = "";
    if (r) tl_yrange_text(r, range, sizeof range);
    const char *unit = r && r->unit && r->unit[0] ? r->unit : NULL;
    snprintf(buf, size, "a number%s%s%s%s%s", range[0] ? " " : "", range, unit ? " (" : "",
             unit ? unit : "", unit ? ")" : "");
}

static bool in_range(const tl_yrange *r, double v) {
    if (!r) return true;
    if (r->min_open ? !(v > r->min) : !(v >= r->min)) return false;
    if (r->max_open ? !(v < r->max) : !(v <= r->max)) return false;
    return true;
}

static bool parse_double(const char *s, double *out) {
    if (!s || !s[0] || isspace((unsigned char)s[0])) return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end) return false;
    *out = v;
    return true;
}

int tl_ynumber(const tl_ydoc *doc, const tl_yval *v, const tl_yrange *range, double *out) {
    char what[160];
    number_text(range, what, sizeof what);
    double x;
    if (!is_plain(v) || is_nothing(v) || !parse_double(tl_yscalar(v), &x))
        return tl_yexpected(doc, v, what);
    if (!isfinite(x))
        return tl_yfail(doc, v, "expected %s, got '%s' (numbers must be finite)", what,
                        tl_yscalar(v));
    if (!in_range(range, x)) return tl_yfail(doc, v, "expected %s, got %s", what, tl_yscalar(v));
    *out = x;
    return 0;
}

static bool parse_int(const char *s, long long *out) {
    if (!s || !s[0] || isspace((unsigned char)s[0])) return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE) return false;
    *out = v;
    return true;
}

int tl_yint(const tl_ydoc *doc, const tl_yval *v, int64_t min, int64_t max, int64_t *out) {
    char what[128];
    if (max == INT64_MAX)
        snprintf(what, sizeof what, "an integer >= %lld", (long long)min);
    else
        snprintf(what, sizeof what, "an integer from %lld to %lld", (long long)min, (long long)max);
    long long x;
    if (!is_plain(v) || is_nothing(v) || !parse_int(tl_yscalar(v), &x) || x < min || x > max)
        return tl_yexpected(doc, v, what);
    *out = (int64_t)x;
    return 0;
}

int tl_yuint64(const tl_ydoc *doc, const tl_yval *v, uint64_t *out) {
    const char *what = "an integer from 0 to 18446744073709551615";
    const char *s = is_plain(v) && !is_nothing(v) ? tl_yscalar(v) : NULL;
    if (!s || !isdigit((unsigned char)s[0])) return tl_yexpected(doc, v, what);
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno == ERANGE) return tl_yexpected(doc, v, what);
    *out = (uint64_t)x;
    return 0;
}

/* ---- other scalars ---- */

int tl_ybool(const tl_ydoc *doc, const tl_yval *v, bool *out) {
    const char *s = is_plain(v) ? tl_yscalar(v) : NULL;
    if (s && (strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0)) {
        *out = true;
        return 0;
    }
    if (s && (strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0)) {
        *out = false;
        return 0;
    }
    return tl_yexpected(doc, v, "true or false");
}

int tl_ystring(const tl_ydoc *doc, const tl_yval *v, const char *what, const char **out) {
    if (!tl_yis_scalar(v) || is_nothing(v) || !tl_yscalar(v)[0]) return tl_yexpected(doc, v, what);
    *out = tl_yscalar(v);
    return 0;
}

static void vec3_text(const char *unit, char *buf, size_t size) {
    bool u = unit && unit[0];
    snprintf(buf, size, "a sequence of 3 numbers [x, y, z]%s%s%s", u ? " (" : "", u ? unit : "",
             u ? ")" : "");
}

int tl_yvec3(const tl_ydoc *doc, const tl_yval *v, const char *unit, tl_vec3 *out) {
    char what[128];
    vec3_text(unit, what, sizeof what);
    if (!tl_yis_seq(v) || tl_yseq_count(v) != 3) {
        if (tl_yis_seq(v))
            return tl_yfail(doc, v, "expected %s, got a sequence of %zu", what, tl_yseq_count(v));
        return tl_yexpected(doc, v, what);
    }
    tl_yrange any = {-INFINITY, INFINITY, false, false, unit};
    double c[3];
    for (size_t i = 0; i < 3; i++) {
        tl_yval e;
        tl_yseq_at(v, i, &e);
        if (tl_ynumber(doc, &e, &any, &c[i])) return -1;
    }
    *out = (tl_vec3){c[0], c[1], c[2]};
    return 0;
}

int tl_yunknown_name(const tl_ydoc *doc, const tl_yval *v, const char *what, const char *name,
                     const char *const *candidates, size_t count) {
    const char *sug = tl_closest_name(name, candidates, count);
    char list[640];
    join(candidates, count, list, sizeof list);
    return tl_yfail(doc, v, "unknown %s '%s'%s%s%s (known: %s)", what, name,
                    sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "",
                    count ? list : "none");
}

int tl_ychoice(const tl_ydoc *doc, const tl_yval *v, const char *const *names, size_t count,
               int *out) {
    char list[512], what[560];
    join(names, count, list, sizeof list);
    snprintf(what, sizeof what, "one of: %s", list);
    if (!tl_yis_scalar(v) || is_nothing(v)) return tl_yexpected(doc, v, what);
    const char *s = tl_yscalar(v);
    for (size_t i = 0; i < count; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (int)i;
            return 0;
        }
    const char *sug = tl_closest_name(s, names, count);
    return tl_yfail(doc, v, "expected %s, got '%.64s'%s%s%s", what, s, sug ? "; did you mean '" : "",
                    sug ? sug : "", sug ? "'?" : "");
}

/* ---- keyed shortcuts ---- */

int tl_ykey_number(const tl_ydoc *doc, const tl_yval *map, const char *key, bool required,
                   const tl_yrange *range, double *out) {
    tl_yval v;
    tl_ymap_get(map, key, &v);
    if (!v.node) {
        if (!required) return 0;
        char what[160];
        number_text(range, what, sizeof what);
        return tl_ymissing(doc, &v, what);
    }
    return tl_ynumber(doc, &v, range, out);
}

int tl_ykey_bool(const tl_ydoc *doc, const tl_yval *map, const char *key, bool *out) {
    tl_yval v;
    tl_ymap_get(map, key, &v);
    return v.node ? tl_ybool(doc, &v, out) : 0;
}

int tl_ykey_vec3(const tl_ydoc *doc, const tl_yval *map, const char *key, bool required,
                 const char *unit, tl_vec3 *out) {
    tl_yval v;
    tl_ymap_get(map, key, &v);
    if (!v.node) {
        if (!required) return 0;
        char what[128];
        vec3_text(unit, what, sizeof what);
        return tl_ymissing(doc, &v, what);
    }
    return tl_yvec3(doc, &v, unit, out);
}

int tl_ykey_string(const tl_ydoc *doc, const tl_yval *map, const char *key, bool required,
                   const char *what, const char **out) {
    tl_yval v;
    tl_ymap_get(map, key, &v);
    if (!v.node) return required ? tl_ymissing(doc, &v, what) : 0;
    return tl_ystring(doc, &v, what, out);
}
