/* The spring + dashpot + Coulomb step shared by the linear and Mindlin
 * tangential models (tangential.c) and the fused kernels (fused.c). The
 * Coulomb test options are described in tangential.c. */
#ifndef TL_COULOMB_H
#define TL_COULOMB_H

#include "submodel.h"
#include "vec.h"

/* The shared spring + dashpot + Coulomb step on plain values. k: spring
 * stiffness (N/m), eta: dashpot (N s/m), xi_in: the tangential displacement;
 * out: the force on a (ft, its dashpot part ft_damp), the displacement kept
 * (xi_in, or rescaled when sliding), the spring's elastic energy. xi may be
 * xi_in. contact/steady_lanes_body.h performs the same operations in 4 or 8 lanes:
 * a change here is a change there (test_threads compares the two). */
static inline void tl_coulomb_eval(const double xi_in[3], const double vt[3], double k, double eta,
                                   double mu, double fn, int test, double xi[3], double ft[3],
                                   double ft_damp[3], bool *sliding, double *e_el_t) {
    double fs[3], fd[3], f[3], x[3];
    v3_scale(fs, xi_in, -k);
    v3_scale(fd, vt, -eta);
    v3_copy(x, xi_in);
    /* no friction under tension; LAMMPS's and LIGGGHTS's readings take mu |F_n| there too */
    const bool peer = test == TL_COULOMB_LAMMPS || test == TL_COULOMB_LIGGGHTS;
    double limit = mu * (peer ? fabs(fn) : dmax(fn, 0.0));
    bool slide = false;
    /* the limit is tested on squares: no square root unless sliding */
    if (test == TL_COULOMB_SPRING || test == TL_COULOMB_SPRING_CAPPED || test == TL_COULOMB_LIGGGHTS) {
        double fsn2 = v3_norm2(fs);
        /* at the limit, or (LIGGGHTS) beyond it: there a spring at rest never slides, and its
         * dashpot acts even without a normal force */
        if (test == TL_COULOMB_LIGGGHTS ? fsn2 > limit * limit : fsn2 >= limit * limit) {
            slide = true;
            if (fsn2 > 0.0) {
                v3_scale(f, fs, limit / sqrt(fsn2));
                if (k > 0.0) v3_scale(x, f, -1.0 / k);
            } else {
                v3_zero(f);
            }
            v3_zero(fd);
        } else {
            v3_add(f, fs, fd);
            double f2 = v3_norm2(f);
            if (test == TL_COULOMB_SPRING_CAPPED && f2 > limit * limit) {
                /* the sum is capped; the spring (below the limit) keeps its displacement */
                double s = limit / sqrt(f2);
                v3_scale(f, f, s);
                v3_scale(fd, fd, s);
            }
        }
    } else if (test == TL_COULOMB_LAMMPS) {
        v3_add(f, fs, fd);
        double f2 = v3_norm2(f);
        if (f2 > limit * limit) {
            slide = true;
            if (v3_norm2(xi_in) != 0.0) {
                /* spring and dashpot scaled together onto the cone; xi such that the
                 * spring -k xi plus the whole dashpot -eta vt is the capped force */
                double s = limit / sqrt(f2);
                v3_scale(f, f, s);
                if (k > 0.0) {
                    v3_sub(x, f, fd);
                    v3_scale(x, x, -1.0 / k);
                }
                v3_zero(fd); /* the books: a step at the limit dissipates by friction */
            } else {
                v3_zero(f);
                v3_zero(fd);
            }
        }
    } else {
        v3_add(f, fs, fd);
        double f2 = v3_norm2(f);
        if (f2 > limit * limit) {
            slide = true;
            double s = limit / sqrt(f2); /* f2 > 0 here */
            v3_scale(f, f, s);
            /* the spring alone carries the capped force */
            if (k > 0.0) v3_scale(x, f, -1.0 / k);
            v3_zero(fd);
        }
    }
    v3_copy(ft, f);
    v3_copy(ft_damp, fd);
    v3_copy(xi, x);
    *sliding = slide;
    *e_el_t = 0.5 * k * v3_norm2(x);
}

/* The same on a contact record (c->xi in and out). */
static inline void tl_spring_dashpot_coulomb(tl_contact *c, double k, double eta, double mu, int test) {
    bool slide;
    tl_coulomb_eval(c->xi, c->vt, k, eta, mu, c->fn, test, c->xi, c->ft, c->ft_damp, &slide,
                    &c->e_el_t);
    if (slide) c->sliding = true;
    c->kt = k; /* what a twisting model derived from the tangential one reads */
    c->kt_xi = k;
    c->eta_t = eta;
    c->mu_t = mu;
}

#endif
