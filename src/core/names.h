/* Name matching for "did you mean ...?" suggestions. */
#ifndef TL_NAMES_H
#define TL_NAMES_H

#include <stddef.h>

/* Levenshtein distance, case-insensitive, '-' and '_' treated alike. */
int tl_edit_distance(const char *a, const char *b);
/* The candidate closest to `name`, or NULL when none is reasonably close. */
const char *tl_closest_name(const char *name, const char *const *candidates, size_t count);

#endif
