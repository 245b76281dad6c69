/* Small inline vector and quaternion helpers on double[3] / double[4]. */
#ifndef TL_VEC_H
#define TL_VEC_H

#include <math.h>

#define TL_PI 3.14159265358979323846

static inline void v3_set(double r[3], double x, double y, double z) { r[0] = x; r[1] = y; r[2] = z; }
static inline void v3_copy(double r[3], const double a[3]) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; }
static inline void v3_zero(double r[3]) { r[0] = r[1] = r[2] = 0.0; }
static inline double v3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double v3_norm2(const double a[3]) { return v3_dot(a, a); }
static inline double v3_norm(const double a[3]) { return sqrt(v3_dot(a, a)); }
static inline void v3_add(double r[3], const double a[3], const double b[3]) {
    r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
}
static inline void v3_sub(double r[3], const double a[3], const double b[3]) {
    r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void v3_scale(double r[3], const double a[3], double s) { r[0] = a[0] * s; r[1] = a[1] * s; r[2] = a[2] * s; }
/* r += s a */
static inline void v3_axpy(double r[3], double s, const double a[3]) { r[0] += s * a[0]; r[1] += s * a[1]; r[2] += s * a[2]; }
static inline void v3_cross(double r[3], const double a[3], const double b[3]) {
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    r[0] = x; r[1] = y; r[2] = z;
}
/* removes the component along the unit vector n */
static inline void v3_reject(double r[3], const double a[3], const double n[3]) {
    double d = v3_dot(a, n);
    r[0] = a[0] - d * n[0]; r[1] = a[1] - d * n[1]; r[2] = a[2] - d * n[2];
}

/* q = (w, x, y, z); r = a * b (Hamilton product) */
static inline void q_mul(double r[4], const double a[4], const double b[4]) {
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    r[0] = w; r[1] = x; r[2] = y; r[3] = z;
}
static inline void q_normalize(double q[4]) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0.0) { double r = 1.0 / n; q[0] *= r; q[1] *= r; q[2] *= r; q[3] *= r; }
}
/* sin x and cos x; below |x| = 1e-3 (a turn per step at any resolved step) by their Taylor
 * series, exact to double precision there (the next terms are x^9/9! and x^10/10! relative),
 * at a tenth of the libm calls' cost. */
static inline void small_sincos(double x, double *s, double *c) {
    double x2 = x * x;
    if (x2 < 1e-6) {
        const double i6 = 1.0 / 6.0, i20 = 1.0 / 20.0, i42 = 1.0 / 42.0;
        const double i12 = 1.0 / 12.0, i30 = 1.0 / 30.0, i56 = 1.0 / 56.0;
        *s = x * (1.0 - x2 * i6 * (1.0 - x2 * i20 * (1.0 - x2 * i42)));
        *c = 1.0 - 0.5 * x2 * (1.0 - x2 * i12 * (1.0 - x2 * i30 * (1.0 - x2 * i56)));
    } else {
        *s = sin(x);
        *c = cos(x);
    }
}

/* q <- exp(w dt / 2) * q for a world-frame angular velocity w: the exact
 * rotation by |w| dt about w, then renormalised. Small half-angles (every
 * resolved time step) use the Taylor series of sin and cos, exact to double
 * precision below 1e-3 (next terms h^9/9! and h^10/10! relative). */
static inline void q_rotate_by(double q[4], const double w[3], double dt) {
    double w2 = v3_norm2(w);
    if (!(w2 > 0.0) || !(dt > 0.0)) return;
    double h2 = 0.25 * w2 * dt * dt, s, c;
    if (h2 < 1e-6) {
        const double i6 = 1.0 / 6.0, i20 = 1.0 / 20.0, i42 = 1.0 / 42.0;
        const double i12 = 1.0 / 12.0, i30 = 1.0 / 30.0, i56 = 1.0 / 56.0;
        s = 0.5 * dt * (1.0 - h2 * i6 * (1.0 - h2 * i20 * (1.0 - h2 * i42)));
        c = 1.0 - 0.5 * h2 * (1.0 - h2 * i12 * (1.0 - h2 * i30 * (1.0 - h2 * i56)));
    } else {
        double wn = sqrt(w2), h = 0.5 * wn * dt;
        s = sin(h) / wn;
        c = cos(h);
    }
    double dq[4] = {c, w[0] * s, w[1] * s, w[2] * s};
    q_mul(q, dq, q);
    /* renormalise: one Newton step for 1/|q| (|q| differs from 1 by rounding only) */
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    double r = 1.5 - 0.5 * n2;
    q[0] *= r;
    q[1] *= r;
    q[2] *= r;
    q[3] *= r;
}

static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline double dclamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

#endif
