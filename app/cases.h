/* The case files of `talus validate` (docs/validation.md, "The case files"): one file per
 * section, validation/cases/<section>/checks.yaml, built into the command with the scenes
 * it names (its own under validation/cases/<section>/, or an examples/ scene). It holds
 *   parameters  numbers and words the section's code reads (quick: overrides them under
 *               --quick);
 *   scenes      named scenes: a scene file and the values the section sets in it, by key
 *               path ("laws.0.e"); a value "$name" is a parameter;
 *   checks      the rows of the report that compare Talus with the papers and with itself:
 *               the quantity, the paper's value and source, the tolerance and its kind (its
 *               width a number or a name, `of:` a quantity it is a fraction of), and the
 *               measured quantity it compares, by name.
 * The section's code runs the scenes (or the lab), measures, gives each measured quantity
 * to the case by name (vcase_measure) and asks for a group of rows where the report shows
 * them (vcase_rows). A mistake in a case file is named by file, line, column and key. */
#ifndef TALUS_APP_CASES_H
#define TALUS_APP_CASES_H

#include <stdbool.h>

#include "reference.h"
#include "report.h"
#include "talus/scene.h"
#include "verdict.h"

typedef struct vcase vcase;

/* Loads validation/cases/<section>/checks.yaml (quick: with its quick: overrides). NULL
 * when it is missing or malformed, after saying where on stderr. */
vcase *vcase_load(const char *section, bool quick);
void vcase_free(vcase *c);

/* A parameter's value (NAN when absent or not a number), an integer parameter from lo to hi
 * (lo when it is not one), or its text ("" when absent). A parameter refused is said on
 * stderr, and the case then writes no rows (vcase_rows fails: the section could not run). */
double vcase_param(vcase *c, const char *name);
int vcase_int(vcase *c, const char *name, int lo, int hi);
const char *vcase_text(const vcase *c, const char *name);

/* A measured quantity (or a value computed from measurements) the checks name. */
void vcase_measure(vcase *c, const char *name, double value);
/* A word the checks' quantities may show as ${name} (a law's name, say). */
void vcase_word(vcase *c, const char *name, const char *text);
/* Each number of row `row` of a reference table (a validation/ CSV file) as `prefix.<column>`, for
 * the checks that compare with the paper's tables. */
void vcase_measure_row(vcase *c, const char *prefix, const ref_table *t, int row);
/* A prediction that may explain a difference (verdict.h); its texts are copied. */
void vcase_explain(vcase *c, const char *name, const prediction *p);

/* The scene `name` of the case, its set: values written in; NULL (said on stderr and in
 * the report under `label`) when it cannot be made or is refused. */
tl_scene *vcase_scene(vcase *c, report *r, const char *name, const char *label);

/* The text of the scene `name` with its set: values written in and its drop: items taken out
 * (malloc'd; NULL, said on stderr, when it cannot be made), and *file the scene's file. */
char *vcase_scene_text(vcase *c, const char *name, const char **file);

/* The rows of group `group` in the file's order (those for the other mode skipped).
 * Returns 0, or -1 after naming on stderr a row whose quantities are not measured. */
int vcase_rows(vcase *c, report *r, const char *group);

#endif
