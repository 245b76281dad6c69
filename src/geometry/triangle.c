#include "triangle.h"

#include <math.h>

#include "vec.h"

void tl_tri_closest(const double p[3], const double a[3], const double b[3], const double c[3],
                    double q[3], tl_feature *feature, int *index, double w[3]) {
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    double wt[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_sub(ap, p, a);
    double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        *feature = TL_FEATURE_VERTEX;
        *index = 0;
        v3_set(wt, 1.0, 0.0, 0.0);
        goto done;
    }
    v3_sub(bp, p, b);
    double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        *feature = TL_FEATURE_VERTEX;
        *index = 1;
        v3_set(wt, 0.0, 1.0, 0.0);
        goto done;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        *feature = TL_FEATURE_EDGE;
        *index = 0;
        v3_set(wt, 1.0 - v, v, 0.0);
        goto done;
    }
    v3_sub(cp, p, c);
    double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        *feature = TL_FEATURE_VERTEX;
        *index = 2;
        v3_set(wt, 0.0, 0.0, 1.0);
        goto done;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double s = d2 / (d2 - d6);
        *feature = TL_FEATURE_EDGE;
        *index = 2;
        v3_set(wt, 1.0 - s, 0.0, s);
        goto done;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        *feature = TL_FEATURE_EDGE;
        *index = 1;
        v3_set(wt, 0.0, 1.0 - s, s);
        goto done;
    }
    {
        double den = 1.0 / (va + vb + vc);
        double v = vb * den, s = vc * den;
        *feature = TL_FEATURE_FACE;
        *index = 0;
        v3_set(wt, 1.0 - v - s, v, s);
    }
done:
    for (int k = 0; k < 3; k++) q[k] = wt[0] * a[k] + wt[1] * b[k] + wt[2] * c[k];
    if (w) v3_copy(w, wt);
}

/* an edge function value e (sign-normalised) with the edge's direction (dx, dy) */
static bool edge_in(double e, double dx, double dy, double s) {
    if (e != 0.0) return e > 0.0;
    dx *= s;
    dy *= s;
    return dy > 0.0 || (dy == 0.0 && dx > 0.0);
}

bool tl_tri_ray(const double o[3], const double d[3], const double a[3], const double b[3],
                const double c[3], double tmin, double tmax, double *t) {
    /* the axis where the direction is largest becomes z; shear the triangle
     * so that the ray is the z axis through the origin */
    int kz = 0;
    if (fabs(d[1]) > fabs(d[kz])) kz = 1;
    if (fabs(d[2]) > fabs(d[kz])) kz = 2;
    int kx = (kz + 1) % 3, ky = (kx + 1) % 3;
    if (d[kz] < 0.0) {
        int s = kx;
        kx = ky;
        ky = s;
    }
    double sx = d[kx] / d[kz], sy = d[ky] / d[kz], sz = 1.0 / d[kz];
    double A[3], B[3], C[3];
    v3_sub(A, a, o);
    v3_sub(B, b, o);
    v3_sub(C, c, o);
    double ax = A[kx] - sx * A[kz], ay = A[ky] - sy * A[kz];
    double bx = B[kx] - sx * B[kz], by = B[ky] - sy * B[kz];
    double cx = C[kx] - sx * C[kz], cy = C[ky] - sy * C[kz];
    double U = cx * by - cy * bx, V = ax * cy - ay * cx, W = bx * ay - by * ax;
    if (U == 0.0 || V == 0.0 || W == 0.0) {
        /* the ray passes through an edge or vertex: decide in higher precision */
        long double lax = ax, lay = ay, lbx = bx, lby = by, lcx = cx, lcy = cy;
        U = (double)(lcx * lby - lcy * lbx);
        V = (double)(lax * lcy - lay * lcx);
        W = (double)(lbx * lay - lby * lax);
    }
    double det = U + V + W;
    if (det == 0.0) return false;
    /* inside: every edge function has the sign of det; one that is exactly zero
     * (the ray through an edge) counts for one of the two facets of a
     * consistently oriented mesh only: the edge's owner by a top-left rule */
    double s = det > 0.0 ? 1.0 : -1.0;
    if (!edge_in(s * U, cx - bx, cy - by, s) || !edge_in(s * V, ax - cx, ay - cy, s) ||
        !edge_in(s * W, bx - ax, by - ay, s))
        return false;
    double T = U * (sz * A[kz]) + V * (sz * B[kz]) + W * (sz * C[kz]);
    double tt = T / det;
    if (!(tt >= tmin && tt <= tmax)) return false;
    *t = tt;
    return true;
}

static double tri_area(const double x0[3], const double x1[3], const double x2[3]) {
    double e1[3], e2[3], n[3];
    v3_sub(e1, x1, x0);
    v3_sub(e2, x2, x0);
    v3_cross(n, e1, e2);
    return 0.5 * v3_norm(n);
}

static void add_tri(const double x0[3], const double x1[3], const double x2[3], double h0, double h1,
                    double h2, tl_tri_moments *m) {
    double A = tri_area(x0, x1, x2);
    double hs = h0 + h1 + h2;
    m->area += A;
    m->h += A * hs / 3.0;
    /* a linear function's square over a triangle: A/6 (sum h_i^2 + sum_{i<j} h_i h_j) */
    m->hh += A / 6.0 * (h0 * h0 + h1 * h1 + h2 * h2 + h0 * h1 + h1 * h2 + h2 * h0);
    double s[3];
    for (int k = 0; k < 3; k++) {
        double xs = x0[k] + x1[k] + x2[k];
        s[k] = xs;
        m->x[k] += A * xs / 3.0;
        m->hx[k] += A / 12.0 * (h0 * x0[k] + h1 * x1[k] + h2 * x2[k] + hs * xs);
    }
    /* int x_i x_j dA = A/12 (sum_k v_ki v_kj + s_i s_j), s the corners' sum */
    static const int I[6] = {0, 1, 2, 0, 1, 2}, J[6] = {0, 1, 2, 1, 2, 0};
    for (int q = 0; q < 6; q++) {
        int i = I[q], j = J[q];
        m->xx[q] += A / 12.0 * (x0[i] * x0[j] + x1[i] * x1[j] + x2[i] * x2[j] + s[i] * s[j]);
    }
}

void tl_poly_moments(const double (*x)[3], const double *h, int n, tl_tri_moments *m) {
    for (int i = 1; i + 1 < n; i++) add_tri(x[0], x[i], x[i + 1], h[0], h[i], h[i + 1], m);
}

int tl_poly_clip(const double (*x)[3], const double *h, const double *g, int n, double (*xo)[3], double *ho) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        int j = i + 1 == n ? 0 : i + 1;
        bool in_i = g[i] >= 0.0, in_j = g[j] >= 0.0;
        if (in_i) {
            v3_copy(xo[m], x[i]);
            ho[m++] = h[i];
        }
        if (in_i != in_j) {
            double s = g[i] / (g[i] - g[j]);
            for (int k = 0; k < 3; k++) xo[m][k] = x[i][k] + s * (x[j][k] - x[i][k]);
            ho[m++] = h[i] + s * (h[j] - h[i]);
        }
    }
    return m;
}

void tl_tri_clip_moments(const double x0[3], const double x1[3], const double x2[3], const double h[3],
                         tl_tri_moments *m) {
    if (h[0] >= 0.0 && h[1] >= 0.0 && h[2] >= 0.0) {
        add_tri(x0, x1, x2, h[0], h[1], h[2], m);
        return;
    }
    if (h[0] < 0.0 && h[1] < 0.0 && h[2] < 0.0) return;
    double x[3][3], xo[4][3], ho[4];
    v3_copy(x[0], x0);
    v3_copy(x[1], x1);
    v3_copy(x[2], x2);
    int n = tl_poly_clip((const double(*)[3])x, h, h, 3, xo, ho);
    tl_poly_moments((const double(*)[3])xo, ho, n, m);
}
