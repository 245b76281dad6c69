/* The spring + dashpot + Coulomb step shared by the linear and Mindlin
 * tangential models (tangential.c) and the fused kernels (fused.c). The
 * Coulomb test options are described in tangential.c. */
#ifndef TL_COULOMB_H
#define TL_COULOMB_H

#include "registry.h"
#include "vec.h"

/* The shared spring + dashpot + Coulomb step. k: spring stiffness (N/m),
 * eta: dashpot (N s/m). Rescales c->xi when sliding. */
static inline void tl_spring_dashpot_coulomb(tl_contact *c, double k, double eta, double mu, int test) {
    double fs[3], fd[3];
    v3_scale(fs, c->xi, -k);
    v3_scale(fd, c->vt, -eta);
    double limit = mu * dmax(c->fn, 0.0);
    /* the limit is tested on squares: no square root unless sliding */
    if (test == TL_COULOMB_SPRING) {
        double fsn2 = v3_norm2(fs);
        if (fsn2 >= limit * limit) {
            c->sliding = true;
            if (fsn2 > 0.0) {
                v3_scale(c->ft, fs, limit / sqrt(fsn2));
                if (k > 0.0) v3_scale(c->xi, c->ft, -1.0 / k);
            } else {
                v3_zero(c->ft);
            }
            v3_zero(c->ft_damp);
        } else {
            v3_add(c->ft, fs, fd);
            v3_copy(c->ft_damp, fd);
        }
    } else {
        double f[3];
        v3_add(f, fs, fd);
        double f2 = v3_norm2(f);
        v3_copy(c->ft_damp, fd);
        if (f2 > limit * limit) {
            c->sliding = true;
            double s = limit / sqrt(f2); /* f2 > 0 here */
            v3_scale(c->ft, f, s);
            /* the spring alone carries the capped force */
            if (k > 0.0) v3_scale(c->xi, c->ft, -1.0 / k);
            v3_zero(c->ft_damp);
        } else {
            v3_copy(c->ft, f);
        }
    }
    c->e_el_t = 0.5 * k * v3_norm2(c->xi);
}

#endif
