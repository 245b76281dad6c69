#include "mass.h"

#include <math.h>
#include <string.h>

#include "vec.h"

/* Eberly's subexpressions of the integrals over one triangle, per axis */
static void subexpr(double w0, double w1, double w2, double *f1, double *f2, double *f3, double *g0, double *g1,
                    double *g2) {
    double t0 = w0 + w1;
    *f1 = t0 + w2;
    double t1 = w0 * w0;
    double t2 = t1 + w1 * t0;
    *f2 = t2 + w2 * (*f1);
    *f3 = w0 * t1 + w1 * t2 + w2 * (*f2);
    *g0 = *f2 + w0 * (*f1 + w0);
    *g1 = *f2 + w1 * (*f1 + w1);
    *g2 = *f2 + w2 * (*f1 + w2);
}

void tl_mesh_mass(const tl_mesh *m, tl_mass_props *out) {
    /* the integrals are taken about the centre of the bounding box, which
     * keeps the rounding relative to the body's size, not its position */
    double o[3];
    for (int k = 0; k < 3; k++) o[k] = 0.5 * (m->lo[k] + m->hi[k]);
    double in[10] = {0};
    for (size_t f = 0; f < m->nt; f++) {
        double p[3][3];
        for (int j = 0; j < 3; j++) v3_sub(p[j], m->v[m->tri[f][j]], o);
        double a1 = p[1][0] - p[0][0], b1 = p[1][1] - p[0][1], c1 = p[1][2] - p[0][2];
        double a2 = p[2][0] - p[0][0], b2 = p[2][1] - p[0][1], c2 = p[2][2] - p[0][2];
        double d0 = b1 * c2 - b2 * c1, d1 = a2 * c1 - a1 * c2, d2 = a1 * b2 - a2 * b1;
        double f1x, f2x, f3x, g0x, g1x, g2x, f1y, f2y, f3y, g0y, g1y, g2y, f1z, f2z, f3z, g0z, g1z, g2z;
        subexpr(p[0][0], p[1][0], p[2][0], &f1x, &f2x, &f3x, &g0x, &g1x, &g2x);
        subexpr(p[0][1], p[1][1], p[2][1], &f1y, &f2y, &f3y, &g0y, &g1y, &g2y);
        subexpr(p[0][2], p[1][2], p[2][2], &f1z, &f2z, &f3z, &g0z, &g1z, &g2z);
        in[0] += d0 * f1x;
        in[1] += d0 * f2x;
        in[2] += d1 * f2y;
        in[3] += d2 * f2z;
        in[4] += d0 * f3x;
        in[5] += d1 * f3y;
        in[6] += d2 * f3z;
        in[7] += d0 * (p[0][1] * g0x + p[1][1] * g1x + p[2][1] * g2x);
        in[8] += d1 * (p[0][2] * g0y + p[1][2] * g1y + p[2][2] * g2y);
        in[9] += d2 * (p[0][0] * g0z + p[1][0] * g1z + p[2][0] * g2z);
    }
    static const double mult[10] = {1.0 / 6.0,   1.0 / 24.0,  1.0 / 24.0,  1.0 / 24.0,  1.0 / 60.0,
                                    1.0 / 60.0,  1.0 / 60.0,  1.0 / 120.0, 1.0 / 120.0, 1.0 / 120.0};
    for (int i = 0; i < 10; i++) in[i] *= mult[i];
    double V = in[0];
    double c[3] = {in[1] / V, in[2] / V, in[3] / V};
    out->volume = V;
    /* second moments about the centroid (parallel-axis shift from o) */
    double xx = in[4] - V * c[0] * c[0], yy = in[5] - V * c[1] * c[1], zz = in[6] - V * c[2] * c[2];
    double xy = in[7] - V * c[0] * c[1], yz = in[8] - V * c[1] * c[2], zx = in[9] - V * c[2] * c[0];
    out->inertia[0][0] = yy + zz;
    out->inertia[1][1] = zz + xx;
    out->inertia[2][2] = xx + yy;
    out->inertia[0][1] = out->inertia[1][0] = -xy;
    out->inertia[1][2] = out->inertia[2][1] = -yz;
    out->inertia[0][2] = out->inertia[2][0] = -zx;
    for (int k = 0; k < 3; k++) out->centroid[k] = c[k] + o[k];
}

void tl_sym3_eigen(const double A[3][3], double w[3], double V[3][3]) {
    double a[3][3];
    memcpy(a, A, sizeof a);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) V[i][j] = i == j ? 1.0 : 0.0;
    double scale = dmax(fabs(a[0][0]), dmax(fabs(a[1][1]), fabs(a[2][2])));
    double tiny = 1e-14 * scale;
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        if (!(off > tiny)) break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (!(fabs(a[p][q]) > tiny / 3.0)) continue;
                /* the rotation in the (p, q) plane that zeroes a[p][q] (Golub & Van Loan, alg. 8.4.2) */
                double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double cs = 1.0 / sqrt(t * t + 1.0), sn = t * cs;
                for (int k = 0; k < 3; k++) {
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = cs * akp - sn * akq;
                    a[k][q] = sn * akp + cs * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = cs * apk - sn * aqk;
                    a[q][k] = sn * apk + cs * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = cs * vkp - sn * vkq;
                    V[k][q] = sn * vkp + cs * vkq;
                }
            }
    }
    /* ascending order; values equal to 1e-12 of the largest keep their order
     * (an isotropic tensor keeps the coordinate axes) */
    int order[3] = {0, 1, 2};
    double same = 1e-12 * dmax(fabs(a[0][0]), dmax(fabs(a[1][1]), fabs(a[2][2])));
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && a[order[j]][order[j]] < a[order[j - 1]][order[j - 1]] - same; j--) {
            int s = order[j];
            order[j] = order[j - 1];
            order[j - 1] = s;
        }
    double U[3][3];
    for (int c = 0; c < 3; c++) {
        w[c] = a[order[c]][order[c]];
        for (int k = 0; k < 3; k++) U[k][c] = V[k][order[c]];
    }
    /* signs: the largest component of the first two axes positive; the third is their cross product */
    for (int c = 0; c < 2; c++) {
        int big = 0;
        for (int k = 1; k < 3; k++)
            if (fabs(U[k][c]) > fabs(U[big][c])) big = k;
        if (U[big][c] < 0.0)
            for (int k = 0; k < 3; k++) U[k][c] = -U[k][c];
    }
    double e0[3] = {U[0][0], U[1][0], U[2][0]}, e1[3] = {U[0][1], U[1][1], U[2][1]}, e2[3];
    v3_cross(e2, e0, e1);
    for (int k = 0; k < 3; k++) U[k][2] = e2[k];
    memcpy(V, U, sizeof U);
}

tl_status tl_mesh_to_body_frame(tl_mesh *m, tl_body_frame *out) {
    tl_mass_props mp;
    tl_mesh_mass(m, &mp);
    double w[3], E[3][3];
    tl_sym3_eigen((const double(*)[3])mp.inertia, w, E);
    /* x_body = E^T (x - c) */
    double Rt[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Rt[i][j] = E[j][i];
    tl_status st = tl_mesh_transform(m, (const double(*)[3])Rt, mp.centroid);
    if (out) {
        v3_copy(out->origin, mp.centroid);
        memcpy(out->R, E, sizeof E);
        for (int k = 0; k < 3; k++) out->moments[k] = w[k] / mp.volume;
        out->volume = mp.volume;
    }
    return st;
}

void tl_ellipsoid_moments(double a, double b, double c, double mass, double I[3]) {
    I[0] = mass * (b * b + c * c) / 5.0;
    I[1] = mass * (a * a + c * c) / 5.0;
    I[2] = mass * (a * a + b * b) / 5.0;
}

double tl_sphere_moment(double R, double mass) { return 0.4 * mass * R * R; }
