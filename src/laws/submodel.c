/*
 * The helpers a sub-model's kernels and prepare functions share (submodel.h).
 */
#include "submodel.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vec.h"

int tl_submodel_coeff_index(const tl_submodel *s, const char *name) {
    for (int i = 0; i < s->info.coeff_count; i++)
        if (strcmp(s->info.coeffs[i].name, name) == 0) return i;
    return -1;
}

double tl_damping_ratio(double e) {
    if (isnan(e) || e >= 1.0) return 0.0;
    double l = log(e);
    return -l / sqrt(l * l + TL_PI * TL_PI);
}

int tl_prep_fail(const tl_prep *in, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->msg, in->msg_size, fmt, ap);
    va_end(ap);
    return -1;
}
