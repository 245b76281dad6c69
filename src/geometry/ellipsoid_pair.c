/*
 * Contacts of ellipsoids (and spheres) by the minimum overlap over directions
 * (docs/ellipsoid.md).
 *
 * For a convex body K centred at x, its support function about the centre is
 * h_K(u) = max_{y in K} u . (y - x); for an ellipsoid of semi-axes D =
 * diag(a, b, c) turned by R, h(u) = sqrt(u^T M u) with M = R D^2 R^T, and the
 * point of K farthest along u is x + M u / h(u). Two bodies a and b (centres
 * x_a, x_b, c = x_b - x_a) overlap along a unit direction u by
 *
 *     f(u) = h_a(u) + h_b(-u) - u . c,
 *
 * and the least of f over all directions is the minimum translation distance
 * (the penetration depth, when positive; its direction the contact normal):
 * this is the separating-axis principle for smooth convex bodies. At the
 * minimum the two extreme points p_a = x_a + grad h_a(u) and p_b = x_b -
 * grad h_b(u) have normals u and -u: it is also the common-normal contact
 * (Lin & Ng 1995; Wellmann, Lillie & Wriggers 2008), solved here as a smooth
 * minimisation on the unit sphere by Newton's method projected on the tangent
 * plane, started from the line of centres (or the last step's normal).
 *
 * The equivalent radius of the Hertzian laws comes from the curvatures at the
 * two points (Johnson, Contact Mechanics 1985, section 4.2): with S_a, S_b the
 * shape operators of the surfaces there (for x^T M^-1 x = 1: S = P M^-1 P /
 * |M^-1 r|, P the projection on the tangent plane), the gap near the contact
 * is 1/2 r^T (S_a + S_b) r, and R_e = 1/sqrt(det(S_a + S_b)) on the tangent
 * plane = (R' R'')^1/2 in Johnson's notation. Two spheres give R_a R_b /
 * (R_a + R_b). No correction for the ellipticity of the contact area is made
 * (Johnson's F_1(e) differs from 1 by 2 % at a curvature ratio of 5).
 */
#include "ellipsoid_pair.h"

#include <math.h>
#include <string.h>

#include "vec.h"
#include "face.h"

/* M = R D^2 R^T and its inverse Mi = R D^-2 R^T of a body (a sphere: r^2 I); either may be NULL;
 * taken from the body when its caller worked them out (the same numbers) */
static void body_matrices_of(const tl_body *b, double M[3][3], double Mi[3][3]) {
    if (M && b->M) {
        memcpy(M, b->M, 9 * sizeof *b->M);
        M = NULL;
    }
    if (Mi && b->Mi) {
        memcpy(Mi, b->Mi, 9 * sizeof *b->Mi);
        Mi = NULL;
    }
    if (!M && !Mi) return;
    double d2[3];
    if (b->shape) {
        for (int k = 0; k < 3; k++) d2[k] = b->shape->semi[k] * b->shape->semi[k];
    } else {
        for (int k = 0; k < 3; k++) d2[k] = b->radius * b->radius;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0, si = 0.0;
            for (int k = 0; k < 3; k++) {
                double rr = b->shape ? b->pose.R[i][k] * b->pose.R[j][k] : (i == j && j == k ? 1.0 : 0.0);
                if (M) s += rr * d2[k];
                if (Mi) si += rr / d2[k];
            }
            if (M) M[i][j] = s;
            if (Mi) Mi[i][j] = si;
        }
}


void tl_ellipsoid_matrices(const tl_body *b, double M[9], double Mi[9]) {
    tl_body c = *b;
    c.M = c.Mi = NULL;
    body_matrices_of(&c, (double(*)[3])M, (double(*)[3])Mi);
}

static void mv(double r[3], double M[3][3], const double v[3]) {
    for (int i = 0; i < 3; i++) r[i] = M[i][0] * v[0] + M[i][1] * v[1] + M[i][2] * v[2];
}

/* the support function h(u) = sqrt(u M u) (g: its gradient M u / h; H: its Hessian; either may be
 * NULL where the caller needs less: the values computed are the same) */
static void support_terms(double M[3][3], const double u[3], double *h, double g[3], double H[3][3]) {
    double Mu[3];
    mv(Mu, M, u);
    double hh = sqrt(v3_dot(u, Mu));
    *h = hh;
    if (!g) return;
    for (int i = 0; i < 3; i++) {
        g[i] = Mu[i] / hh;
        if (H)
            for (int j = 0; j < 3; j++) H[i][j] = (M[i][j] - Mu[i] * Mu[j] / (hh * hh)) / hh;
    }
}

static void shape_operator(double Mi[3][3], const double r[3], const double n[3], double S[3][3]) {
    double g[3];
    mv(g, Mi, r);
    double gn = v3_norm(g);
    double P[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) P[i][j] = (i == j ? 1.0 : 0.0) - n[i] * n[j];
    double T[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += Mi[i][k] * P[k][j];
            T[i][j] = s;
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += P[i][k] * T[k][j];
            S[i][j] = s / gn;
        }
}

/* an orthonormal pair spanning the plane normal to n */
static void tangent_basis(const double n[3], double t1[3], double t2[3]) {
    double a[3] = {1.0, 0.0, 0.0};
    if (fabs(n[0]) > 0.6) v3_set(a, 0.0, 1.0, 0.0);
    v3_reject(t1, a, n);
    v3_scale(t1, t1, 1.0 / v3_norm(t1));
    v3_cross(t2, n, t1);
}

/* 1 / sqrt(det) of a symmetric tensor restricted to the plane normal to n */
static double equivalent_radius(double K[3][3], const double n[3]) {
    double t1[3], t2[3], k1[3], k2[3];
    tangent_basis(n, t1, t2);
    mv(k1, K, t1);
    mv(k2, K, t2);
    double a = v3_dot(t1, k1), b = v3_dot(t1, k2), d = v3_dot(t2, k2);
    double det = a * d - b * b;
    return det > 0.0 ? 1.0 / sqrt(det) : INFINITY;
}

int tl_ellipsoid_pair(const tl_body *a, const tl_body *b, const double *u_start, tl_patch *out,
                      double *u_out) {
    double Ma[3][3], Mia[3][3], Mb[3][3], Mib[3][3];
    body_matrices_of(a, Ma, NULL); /* the inverses only for a touching pair, below */
    body_matrices_of(b, Mb, NULL);
    double c[3];
    v3_sub(c, b->pose.x, a->pose.x);
    double u[3];
    if (u_start && v3_norm2(u_start) > 0.0) v3_scale(u, u_start, 1.0 / v3_norm(u_start));
    else if (v3_norm2(c) > 0.0) v3_scale(u, c, 1.0 / v3_norm(c));
    else v3_set(u, 0.0, 0.0, 1.0);
    double f = INFINITY;
    for (int it = 0; it < 60; it++) {
        double ha, hb, ga[3], gb[3], Ha[3][3], Hb[3][3];
        support_terms(Ma, u, &ha, ga, Ha);
        support_terms(Mb, u, &hb, gb, Hb);
        f = ha + hb - v3_dot(u, c);
        /* a direction with f <= 0 separates the bodies: the minimum is no larger, so they do
         * not touch (the answer the converged search would give; most candidates end here) */
        if (!(f > 0.0) && !u_out) return 0;
        double g[3], H[3][3];
        for (int i = 0; i < 3; i++) {
            g[i] = ga[i] + gb[i] - c[i];
            for (int j = 0; j < 3; j++) H[i][j] = Ha[i][j] + Hb[i][j];
        }
        /* on the sphere: the tangential gradient, the Hessian less (u . g) I (f is homogeneous
         * of degree 1, so u . g = f) */
        double t1[3], t2[3];
        tangent_basis(u, t1, t2);
        double g1 = v3_dot(g, t1), g2 = v3_dot(g, t2);
        double Ht1[3], Ht2[3];
        mv(Ht1, H, t1);
        mv(Ht2, H, t2);
        double ug = v3_dot(u, g);
        double h11 = v3_dot(t1, Ht1) - ug, h12 = v3_dot(t1, Ht2), h22 = v3_dot(t2, Ht2) - ug;
        double det = h11 * h22 - h12 * h12;
        double s1, s2;
        if (h11 > 0.0 && det > 0.0) {
            s1 = -(h22 * g1 - h12 * g2) / det;
            s2 = -(-h12 * g1 + h11 * g2) / det;
        } else {
            /* not convex here: a gradient step of a tenth of a radian at most */
            double gn = sqrt(g1 * g1 + g2 * g2), sc = gn > 0.0 ? 0.1 / gn : 0.0;
            s1 = -sc * g1;
            s2 = -sc * g2;
        }
        double step = sqrt(s1 * s1 + s2 * s2);
        if (step > 0.5) { /* at most half a radian per iteration */
            s1 *= 0.5 / step;
            s2 *= 0.5 / step;
            step = 0.5;
        }
        double un[3];
        for (int k = 0; k < 3; k++) un[k] = u[k] + s1 * t1[k] + s2 * t2[k];
        v3_scale(un, un, 1.0 / v3_norm(un));
        /* accept only a descent (or the converged last digits) */
        double hn_a, hn_b;
        support_terms(Ma, un, &hn_a, NULL, NULL);
        support_terms(Mb, un, &hn_b, NULL, NULL);
        double fn = hn_a + hn_b - v3_dot(un, c);
        if (fn > f + 1e-15 * fabs(f) + 1e-300) {
            /* backtrack */
            int ok = 0;
            for (int bt = 0; bt < 30 && !ok; bt++) {
                s1 *= 0.5;
                s2 *= 0.5;
                for (int k = 0; k < 3; k++) un[k] = u[k] + s1 * t1[k] + s2 * t2[k];
                v3_scale(un, un, 1.0 / v3_norm(un));
                support_terms(Ma, un, &hn_a, NULL, NULL);
                support_terms(Mb, un, &hn_b, NULL, NULL);
                fn = hn_a + hn_b - v3_dot(un, c);
                ok = fn <= f;
            }
            if (!ok) break;
            step = sqrt(s1 * s1 + s2 * s2);
        }
        v3_copy(u, un);
        f = fn;
        if (step < 1e-13) break;
    }
    if (u_out) v3_copy(u_out, u);
    if (!(f > 0.0)) return 0;
    /* the extreme points along u and -u */
    double ha, hb, ga[3], gb[3];
    support_terms(Ma, u, &ha, ga, NULL);
    support_terms(Mb, u, &hb, gb, NULL);
    body_matrices_of(a, NULL, Mia);
    body_matrices_of(b, NULL, Mib);
    double pa[3], pb[3];
    v3_add(pa, a->pose.x, ga);
    v3_sub(pb, b->pose.x, gb);
    out->delta = f;
    v3_copy(out->n, u);
    for (int k = 0; k < 3; k++) out->p[k] = 0.5 * (pa[k] + pb[k]);
    double Sa[3][3], Sb[3][3], mu[3], K[3][3];
    v3_scale(mu, u, -1.0);
    shape_operator(Mia, ga, u, Sa);
    double rb[3];
    v3_scale(rb, gb, -1.0);
    shape_operator(Mib, rb, mu, Sb);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) K[i][j] = Sa[i][j] + Sb[i][j];
    out->r_eff = equivalent_radius(K, u);
    out->area = 0.0;
    out->fn_scale = 1.0;
    v3_zero(out->couple);
    for (int k = 0; k < 6; k++) out->rock[k] = 0.0;
    /* the curvature now, every step; the rate of R with the pose is not worked out (the ledger
     * books what its change does to the stored energy: docs/ellipsoid.md) */
    out->r_kind = a->shape || b->shape ? TL_PATCH_R_CURRENT : TL_PATCH_R_KEPT;
    v3_zero(out->r_grad);
    return 1;
}

/* a body against a plane through q with unit normal m, the body pushed along m */
static int against_plane(const tl_body *a, const double q[3], const double m[3], tl_patch *out, double *proj) {
    double M[3][3], Mi[3][3];
    body_matrices_of(a, M, NULL);
    double h, g[3], nm[3];
    v3_scale(nm, m, -1.0);
    support_terms(M, nm, &h, g, NULL); /* the point deepest behind the plane: x + M(-m)/h */
    double rel[3];
    v3_sub(rel, a->pose.x, q);
    double delta = h - v3_dot(rel, m);
    if (!(delta > 0.0)) return 0;
    body_matrices_of(a, NULL, Mi);
    double s[3];
    v3_add(s, a->pose.x, g);
    if (proj) v3_copy(proj, s);
    out->delta = delta;
    v3_copy(out->n, nm); /* from the body to the face */
    v3_copy(out->p, s);
    v3_axpy(out->p, 0.5 * delta, m);
    double S[3][3];
    shape_operator(Mi, g, nm, S);
    double R = equivalent_radius(S, nm);
    out->r_eff = R;
    out->area = 0.0;
    out->fn_scale = 1.0;
    v3_zero(out->couple);
    for (int k = 0; k < 6; k++) out->rock[k] = 0.0;
    /* The radius of curvature at the deepest point is a function of the body's attitude relative
     * to the face alone: R = abc / h^2 (the Gaussian curvature of an ellipsoid where its normal is
     * u is h(u)^4 / (abc)^2), and with the face's normal fixed in the face, h = h(-m) turns at the
     * rate dh/dt = (w_a - w_b) . (s x (-m)), s = g the deepest point from the centre (the support
     * function's derivative under a rotation of M). So dR/dt = -(2R/h) (w_a - w_b) . (g x nm). */
    if (a->shape) {
        double gx[3];
        v3_cross(gx, g, nm);
        out->r_kind = TL_PATCH_R_GRADIENT;
        v3_scale(out->r_grad, gx, -2.0 * R / h);
    } else {
        out->r_kind = TL_PATCH_R_KEPT;
        v3_zero(out->r_grad);
    }
    return 1;
}

int tl_ellipsoid_face(const tl_body *a, const tl_face *f, tl_patch *out) {
    if (f->kind == TL_FACE_PLANE) return against_plane(a, f->p, f->n, out, NULL);
    /* a rectangle (two-sided): pushed to the side its centre is on, where its deepest point
     * lies over the rectangle */
    double rel[3], m[3];
    v3_sub(rel, a->pose.x, f->p);
    if (v3_dot(rel, f->n) >= 0.0) v3_copy(m, f->n);
    else v3_scale(m, f->n, -1.0);
    double s[3];
    if (!against_plane(a, f->p, m, out, s)) return 0;
    double d[3];
    v3_sub(d, s, f->p);
    double x = v3_dot(d, f->u), y = v3_dot(d, f->v);
    if (fabs(x) <= f->hu && fabs(y) <= f->hv) return 1;
    return 0; /* the deepest point is beyond the rim: docs/ellipsoid.md */
}
