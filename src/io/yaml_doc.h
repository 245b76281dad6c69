/*
 * A small typed layer over the libfyaml document tree for the scene loader.
 *
 * A tl_yval is one node of the tree together with its dotted key path
 * ("materials.sand.density", "laws[0].between[1]") and its 1-based line and
 * column, so that every getter can refuse a value with a message that says
 * where it is, what was expected and what was found:
 *
 *   scene.yaml:12:14: materials.sand.density: expected a number > 0 (kg/m3), got 'abc'
 *
 * Functions returning int give 0 on success and -1 after writing the error
 * into the document's tl_scene_error. An absent key is a tl_yval whose node
 * is NULL; an empty value (`key:` or `key: ~`) is present and reads as
 * "nothing" in messages.
 */
#ifndef TL_YAML_DOC_H
#define TL_YAML_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "talus/talus.h"

struct fy_document;
struct fy_node;

typedef struct tl_ydoc {
    struct fy_document *fyd;
    tl_scene_error *err; /* err->file names the source in messages */
} tl_ydoc;

typedef struct tl_yval {
    struct fy_node *node; /* NULL when the key is absent */
    char path[256];       /* dotted key path; "" for the document root */
    int line, column;     /* 1-based; 0 when not known */
} tl_yval;

/* An allowed interval for a number; open ends exclude the bound, infinite
 * bounds are not printed. unit may be "" or NULL. */
typedef struct tl_yrange {
    double min, max;
    bool min_open, max_open;
    const char *unit;
} tl_yrange;

/* ---- the document ---- */

/* Limits on a document, checked on the parser's event stream before any
 * tree is built (so a refused document costs no more than its text):
 *  - its size in bytes;
 *  - its nodes (scalars, sequences, mappings) counted with every alias
 *    expanded as often as it is used: the "billion laughs" pattern of nested
 *    aliases is refused at the alias that crosses the limit, before libfyaml
 *    copies anything. The limit keeps a document's tree (about 330 bytes a
 *    node in libfyaml) near 35 MB;
 *  - its nesting depth, aliases expanded (libfyaml's own limit, 64, is the
 *    parser's stack; a scene needs about 6). */
#define TL_YAML_MAX_BYTES ((size_t)16 << 20)
#define TL_YAML_MAX_NODES ((size_t)100000)
#define TL_YAML_MAX_DEPTH 32
/* libfyaml holds every token of a flow collection ([...], {...}) nested in
 * another until the outer one closes (it may yet be a key), about 210 bytes
 * a token, before any event reaches the check above; so the text is first
 * scanned for its flow collections: their depth and their items (commas and
 * openings) are bounded too. */
#define TL_YAML_MAX_FLOW_ITEMS ((size_t)100000)
/* libfyaml checks each key of a mapping against the keys before it while it
 * builds the tree (time quadratic in the keys: 49,000 keys take over 20 s);
 * a scene's widest mapping (materials) holds at most 256. */
#define TL_YAML_MAX_MAP_KEYS ((size_t)1024)

/* Parses text (not necessarily NUL-terminated). A YAML syntax error is
 * reported as "YAML syntax error: ..." at libfyaml's line and column, a
 * document beyond the limits above at the node that crosses one; an empty
 * document is an error too. err->file must already be set. */
int tl_ydoc_parse(tl_ydoc *doc, const char *text, size_t len, tl_scene_error *err);
void tl_ydoc_free(tl_ydoc *doc);
/* The root node (path ""). */
void tl_ydoc_root(const tl_ydoc *doc, tl_yval *out);

/* Writes "message" for the value's path and place into the error; returns -1. */
int tl_yfail(const tl_ydoc *doc, const tl_yval *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- shape ---- */

bool tl_yis_map(const tl_yval *v);
bool tl_yis_seq(const tl_yval *v);
bool tl_yis_scalar(const tl_yval *v);
/* The scalar's text ("" for an empty value), or NULL for other nodes. */
const char *tl_yscalar(const tl_yval *v);
/* "nothing", "a mapping", "a sequence", "'text'" or "the quoted string 'text'". */
void tl_ydescribe(const tl_yval *v, char *buf, size_t size);
/* Fails with "expected <what>, got <found>". */
int tl_yexpected(const tl_ydoc *doc, const tl_yval *v, const char *what);

/* ---- mappings ---- */

/* Fails unless v is a mapping ("expected <what>"). */
int tl_ymap_expect(const tl_ydoc *doc, const tl_yval *v, const char *what);
/* Fails at the first key not in allowed: "unknown key 'x'; did you mean 'y'?
 * (allowed: ...)", with extra appended when not NULL. Keys must be plain. */
int tl_ymap_check_keys(const tl_ydoc *doc, const tl_yval *map, const char *const *allowed,
                       size_t count, const char *extra);
/* The value of key (node NULL when absent). */
void tl_ymap_get(const tl_yval *map, const char *key, tl_yval *out);
bool tl_ymap_has(const tl_yval *map, const char *key);
size_t tl_ymap_count(const tl_yval *map);
/* Entry i: its key text, the key (for its place) and the value. */
void tl_ymap_entry(const tl_yval *map, size_t i, const char **name, tl_yval *key, tl_yval *value);
/* Fails with "required key is missing: expected <what>" for an absent value
 * from tl_ymap_get (its path names the key, its place is the mapping's). */
int tl_ymissing(const tl_ydoc *doc, const tl_yval *absent, const char *what);

/* ---- sequences ---- */

int tl_yseq_expect(const tl_ydoc *doc, const tl_yval *v, const char *what);
/* The item count and item i take time proportional to the sequence's
 * length; walk long sequences with tl_yseq_next. */
size_t tl_yseq_count(const tl_yval *seq);
void tl_yseq_at(const tl_yval *seq, size_t i, tl_yval *out);

/* Walks a sequence: tl_yiter it = {0}; while (tl_yseq_next(&seq, &it, &item)) ...
 * after each call it.index is the index of item. */
typedef struct tl_yiter {
    void *cursor;
    size_t next, index;
} tl_yiter;
bool tl_yseq_next(const tl_yval *seq, tl_yiter *it, tl_yval *out);

/* ---- typed values ---- */

/* A finite number (YAML int or float: 5, -9.81, 1e-3, 5.0e6) inside range. */
int tl_ynumber(const tl_ydoc *doc, const tl_yval *v, const tl_yrange *range, double *out);
/* A decimal integer in [min, max]. */
int tl_yint(const tl_ydoc *doc, const tl_yval *v, int64_t min, int64_t max, int64_t *out);
int tl_yuint64(const tl_ydoc *doc, const tl_yval *v, uint64_t *out);
/* true/false, yes/no (any case). */
int tl_ybool(const tl_ydoc *doc, const tl_yval *v, bool *out);
/* A non-empty scalar; what describes it in the message ("a material name"). */
int tl_ystring(const tl_ydoc *doc, const tl_yval *v, const char *what, const char **out);
/* A sequence of 3 numbers. */
int tl_yvec3(const tl_ydoc *doc, const tl_yval *v, const char *unit, tl_vec3 *out);
/* One of names; *out is its index. */
int tl_ychoice(const tl_ydoc *doc, const tl_yval *v, const char *const *names, size_t count,
               int *out);
/* Fails with "unknown <what> 'name'; did you mean 'x'? (known: ...)". */
int tl_yunknown_name(const tl_ydoc *doc, const tl_yval *v, const char *what, const char *name,
                     const char *const *candidates, size_t count);

/* ---- keyed shortcuts: read map.key; absent optional keys leave *out as it is ---- */

int tl_ykey_number(const tl_ydoc *doc, const tl_yval *map, const char *key, bool required,
                   const tl_yrange *range, double *out);
int tl_ykey_bool(const tl_ydoc *doc, const tl_yval *map, const char *key, bool *out);
int tl_ykey_vec3(const tl_ydoc *doc, const tl_yval *map, const char *key, bool required,
                 const char *unit, tl_vec3 *out);
int tl_ykey_string(const tl_ydoc *doc, const tl_yval *map, const char *key, bool required,
                   const char *what, const char **out);

/* Text of a range: "> 0", ">= 1", "> -1 and < 0.5", "" (any). */
void tl_yrange_text(const tl_yrange *range, char *buf, size_t size);

#endif
