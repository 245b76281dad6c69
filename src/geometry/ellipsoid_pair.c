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

/* the support function h(u) = sqrt(u M u) and, where g is not NULL, its gradient M u / h */
static void support_terms(double M[3][3], const double u[3], double *h, double g[3]) {
    double Mu[3];
    mv(Mu, M, u);
    double hh = sqrt(v3_dot(u, Mu));
    *h = hh;
    if (g)
        for (int i = 0; i < 3; i++) g[i] = Mu[i] / hh;
}

/* One body's terms of f on the sphere at u, added to the sums: its support h(u) = sqrt(u M u) to
 * *f, its gradient M u / h along t1 and t2 to *g1, *g2, and its Hessian (M - (M u)(M u)^T / h^2) / h
 * in the basis (t1, t2) to *h11, *h12, *h22 (M symmetric) */
static void tangent_terms(double M[3][3], const double u[3], const double t1[3], const double t2[3], double *f,
                          double *g1, double *g2, double *h11, double *h12, double *h22) {
    double Mu[3], Mt1[3], Mt2[3];
    mv(Mu, M, u);
    mv(Mt1, M, t1);
    mv(Mt2, M, t2);
    double h = sqrt(v3_dot(u, Mu)), ih = 1.0 / h;
    double m1 = v3_dot(t1, Mu) * ih, m2 = v3_dot(t2, Mu) * ih; /* the gradient's components */
    *f += h;
    *g1 += m1;
    *g2 += m2;
    *h11 += (v3_dot(t1, Mt1) - m1 * m1) * ih;
    *h12 += (v3_dot(t1, Mt2) - m1 * m2) * ih;
    *h22 += (v3_dot(t2, Mt2) - m2 * m2) * ih;
}

/* an orthonormal pair spanning the plane normal to the unit n, without a square root (Duff et al.,
 * "Building an orthonormal basis, revisited", JCGT 6(1), 2017): continuous but at n_z = 0's sign */
static void tangent_basis(const double n[3], double t1[3], double t2[3]) {
    const double sg = copysign(1.0, n[2]), a = -1.0 / (sg + n[2]), b = n[0] * n[1] * a;
    v3_set(t1, 1.0 + sg * n[0] * n[0] * a, sg * b, -sg * n[0]);
    v3_set(t2, b, sg + n[1] * n[1] * a, -n[1]);
}

/* The shape operator of the surface x^T Mi x = 1 at its point r (from the centre), S = P Mi P /
 * |Mi r| (P the projection on the tangent plane), in an orthonormal basis (t1, t2) of that plane:
 * added to k = (S11, S12, S22) */
static void curvature_terms(double Mi[3][3], const double r[3], const double t1[3], const double t2[3],
                            double k[3]) {
    double g[3], a1[3], a2[3];
    mv(g, Mi, r);
    mv(a1, Mi, t1);
    mv(a2, Mi, t2);
    double ig = 1.0 / v3_norm(g);
    k[0] += v3_dot(t1, a1) * ig;
    k[1] += v3_dot(t1, a2) * ig;
    k[2] += v3_dot(t2, a2) * ig;
}

/* 1 / sqrt(det) of the sum of the shape operators on the tangent plane (Johnson's (R' R'')^1/2) */
static double equivalent_radius(const double k[3]) {
    double det = k[0] * k[2] - k[1] * k[1];
    return det > 0.0 ? 1.0 / sqrt(det) : INFINITY;
}

/* rad: a Newton step this short is the search's last (quadratic convergence: the next would be of
 * the order of its square, about 1e-18 rad, below the round-off of u) */
#define NEWTON_DONE 1e-9
/* rad: a Newton step (where the tangent Hessian is positive) this short is taken without a trial
 * evaluation: its quadratic model is exact to third order in it, so it descends */
#define NEWTON_TRUSTED 1e-3

int tl_ellipsoid_pair_within(const tl_body *a, const tl_body *b, const double *u_start, double floor, tl_patch *out,
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
        /* f, its gradient and its Hessian on the sphere in the tangent basis (t1, t2) at u: the
         * Hessian less (u . grad f) I, where u . grad f = f (f is homogeneous of degree 1) */
        double t1[3], t2[3];
        tangent_basis(u, t1, t2);
        double g1 = -v3_dot(c, t1), g2 = -v3_dot(c, t2), h11 = 0.0, h12 = 0.0, h22 = 0.0;
        f = -v3_dot(u, c);
        tangent_terms(Ma, u, t1, t2, &f, &g1, &g2, &h11, &h12, &h22);
        tangent_terms(Mb, u, t1, t2, &f, &g1, &g2, &h11, &h12, &h22);
        /* a direction with f <= floor (0: it separates the bodies) bounds the minimum: the pair is
         * apart beyond the floor (the answer the converged search would give; most candidates end
         * here) */
        if (!(f > floor) && !u_out) return 0;
        h11 -= f;
        h22 -= f;
        double det = h11 * h22 - h12 * h12;
        double s1, s2;
        const bool newton = h11 > 0.0 && det > 0.0;
        if (newton) {
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
        if (newton && step < NEWTON_DONE) { /* the last step: f is worked out at un below */
            v3_copy(u, un);
            break;
        }
        if (newton && step < NEWTON_TRUSTED) { /* taken without a trial: the next iteration's f */
            v3_copy(u, un);
            continue;
        }
        /* a long step: accepted only as a descent, else halved until it descends */
        double hn_a, hn_b;
        support_terms(Ma, un, &hn_a, NULL);
        support_terms(Mb, un, &hn_b, NULL);
        double fn = hn_a + hn_b - v3_dot(un, c);
        if (fn > f + 1e-15 * fabs(f) + 1e-300) {
            int ok = 0;
            for (int bt = 0; bt < 30 && !ok; bt++) {
                s1 *= 0.5;
                s2 *= 0.5;
                for (int k = 0; k < 3; k++) un[k] = u[k] + s1 * t1[k] + s2 * t2[k];
                v3_scale(un, un, 1.0 / v3_norm(un));
                support_terms(Ma, un, &hn_a, NULL);
                support_terms(Mb, un, &hn_b, NULL);
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
    /* the extreme points along u and -u */
    double ha, hb, ga[3], gb[3];
    support_terms(Ma, u, &ha, ga);
    support_terms(Mb, u, &hb, gb);
    f = ha + hb - v3_dot(u, c);
    if (!(f > floor)) return 0;
    body_matrices_of(a, NULL, Mia);
    body_matrices_of(b, NULL, Mib);
    double pa[3], pb[3];
    v3_add(pa, a->pose.x, ga);
    v3_sub(pb, b->pose.x, gb);
    out->delta = f;
    v3_copy(out->n, u);
    for (int k = 0; k < 3; k++) out->p[k] = 0.5 * (pa[k] + pb[k]);
    /* the two surfaces' tangent plane is the one normal to u (a's normal u, b's -u) */
    double t1[3], t2[3], K[3] = {0.0, 0.0, 0.0}, rb[3];
    tangent_basis(u, t1, t2);
    curvature_terms(Mia, ga, t1, t2, K);
    v3_scale(rb, gb, -1.0);
    curvature_terms(Mib, rb, t1, t2, K);
    out->r_eff = equivalent_radius(K);
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

int tl_ellipsoid_pair(const tl_body *a, const tl_body *b, const double *u_start, tl_patch *out, double *u_out) {
    return tl_ellipsoid_pair_within(a, b, u_start, 0.0, out, u_out);
}

/* a body against a plane through q with unit normal m, the body pushed along m; a patch where its
 * overlap is above floor */
static int against_plane(const tl_body *a, const double q[3], const double m[3], double floor, tl_patch *out,
                         double *proj) {
    double M[3][3], Mi[3][3];
    body_matrices_of(a, M, NULL);
    double h, g[3], nm[3];
    v3_scale(nm, m, -1.0);
    support_terms(M, nm, &h, g); /* the point deepest behind the plane: x + M(-m)/h */
    double rel[3];
    v3_sub(rel, a->pose.x, q);
    double delta = h - v3_dot(rel, m);
    if (!(delta > floor)) return 0;
    body_matrices_of(a, NULL, Mi);
    double s[3];
    v3_add(s, a->pose.x, g);
    if (proj) v3_copy(proj, s);
    out->delta = delta;
    v3_copy(out->n, nm); /* from the body to the face */
    v3_copy(out->p, s);
    v3_axpy(out->p, 0.5 * delta, m);
    double t1[3], t2[3], K[3] = {0.0, 0.0, 0.0};
    tangent_basis(nm, t1, t2);
    curvature_terms(Mi, g, t1, t2, K);
    double R = equivalent_radius(K);
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

int tl_ellipsoid_face_within(const tl_body *a, const tl_face *f, double floor, tl_patch *out) {
    if (f->kind == TL_FACE_PLANE) return against_plane(a, f->p, f->n, floor, out, NULL);
    /* a rectangle (two-sided): pushed to the side its centre is on, where its deepest point
     * lies over the rectangle */
    double rel[3], m[3];
    v3_sub(rel, a->pose.x, f->p);
    if (v3_dot(rel, f->n) >= 0.0) v3_copy(m, f->n);
    else v3_scale(m, f->n, -1.0);
    double s[3];
    if (!against_plane(a, f->p, m, floor, out, s)) return 0;
    double d[3];
    v3_sub(d, s, f->p);
    double x = v3_dot(d, f->u), y = v3_dot(d, f->v);
    if (fabs(x) <= f->hu && fabs(y) <= f->hv) return 1;
    return 0; /* the deepest point is beyond the rim: docs/ellipsoid.md */
}

int tl_ellipsoid_face(const tl_body *a, const tl_face *f, tl_patch *out) { return tl_ellipsoid_face_within(a, f, 0.0, out); }
