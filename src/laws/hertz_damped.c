/*
 * The damped Hertzian collision in one parameter (Ray, Kempe & Fröhlich 2015):
 *
 *     m z'' = -d z' - k z^3/2,  z(0) = 0, z'(0) = u_in
 *
 * becomes, with t = tau t*, zeta = z u_in t*, t* = (m^2 / (k^2 u_in))^(1/5) (eq. 5),
 *
 *     z'' + 2 lambda z' + z^3/2 = 0,  z(0) = 0, z'(0) = 1,  lambda = d t* / (2 m)   (eq. 6-7)
 *
 * so the restitution e = -z'(tau_c) and the dimensionless duration tau_c depend on lambda
 * alone. This file solves eq. 6 to about 1e-11 (RK4 with a fine step, the return to z = 0
 * located on the cubic Hermite interpolant of the last step), inverts e(lambda), and gives
 * the paper's approximations (43)-(44) and direct inverse (51)-(54) with its constants.
 */
#include <math.h>

#include "talus/talus.h"

/* the paper's fitted constants (section 4), used by the direct method only */
#define RAY_TAU_C0 3.218
#define RAY_ALPHA 1.111
#define RAY_C 0.744
#define RAY_A 0.716
#define RAY_B 0.830

static void rhs(double lambda, double z, double v, double *dz, double *dv) {
    *dz = v;
    *dv = -2.0 * lambda * v - (z > 0.0 ? z * sqrt(z) : 0.0);
}

/* cubic Hermite on [0, h] through (z0, v0) and (z1, v1) */
static void hermite(double z0, double v0, double z1, double v1, double h, double s, double *z,
                    double *v) {
    double t = s / h, t2 = t * t, t3 = t2 * t;
    double h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + t, h01 = -2 * t3 + 3 * t2, h11 = t3 - t2;
    *z = h00 * z0 + h10 * h * v0 + h01 * z1 + h11 * h * v1;
    double d00 = (6 * t2 - 6 * t) / h, d10 = 3 * t2 - 4 * t + 1, d01 = (-6 * t2 + 6 * t) / h,
           d11 = 3 * t2 - 2 * t;
    *v = d00 * z0 + d10 * v0 + d01 * z1 + d11 * v1;
}

tl_status tl_hertz_damped_solve(double lambda, tl_hertz_damped *out) {
    if (!out || !(lambda >= 0.0) || !isfinite(lambda)) return TL_ERROR_ARGUMENT;
    out->lambda = lambda;
    out->restitution = 0.0;
    out->tau_c = INFINITY;
    out->z_max = 0.0;
    const double h = 2.0e-5, tau_limit = 400.0;
    double z = 0.0, v = 1.0, tau = 0.0;
    bool turned = false;
    while (tau < tau_limit) {
        double k1z, k1v, k2z, k2v, k3z, k3v, k4z, k4v;
        rhs(lambda, z, v, &k1z, &k1v);
        rhs(lambda, z + 0.5 * h * k1z, v + 0.5 * h * k1v, &k2z, &k2v);
        rhs(lambda, z + 0.5 * h * k2z, v + 0.5 * h * k2v, &k3z, &k3v);
        rhs(lambda, z + h * k3z, v + h * k3v, &k4z, &k4v);
        double zn = z + h / 6.0 * (k1z + 2 * k2z + 2 * k3z + k4z);
        double vn = v + h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v);
        if (!turned && vn <= 0.0) {
            /* the deepest point: where z' = 0 on the interpolant */
            double lo = 0.0, hi = h, zz, vv;
            for (int it = 0; it < 60; it++) {
                double mid = 0.5 * (lo + hi);
                hermite(z, v, zn, vn, h, mid, &zz, &vv);
                if (vv > 0.0) lo = mid;
                else hi = mid;
            }
            hermite(z, v, zn, vn, h, 0.5 * (lo + hi), &zz, &vv);
            out->z_max = zz;
            turned = true;
        }
        if (tau > 0.0 && zn <= 0.0) {
            double lo = 0.0, hi = h, zz, vv;
            for (int it = 0; it < 80; it++) {
                double mid = 0.5 * (lo + hi);
                hermite(z, v, zn, vn, h, mid, &zz, &vv);
                if (zz > 0.0) lo = mid;
                else hi = mid;
            }
            double s = 0.5 * (lo + hi);
            hermite(z, v, zn, vn, h, s, &zz, &vv);
            out->tau_c = tau + s;
            out->restitution = -vv;
            return TL_OK;
        }
        z = zn;
        v = vn;
        tau += h;
    }
    return TL_OK; /* over-damped: no return within tau_limit (e = 0, tau_c = inf) */
}

tl_status tl_hertz_damped_from_restitution(double e, tl_hertz_damped *out) {
    if (!out || !(e > 0.0 && e <= 1.0)) return TL_ERROR_ARGUMENT;
    if (e == 1.0) return tl_hertz_damped_solve(0.0, out);
    /* start from the paper's approximation, then secant steps safeguarded by bisection */
    double lo = 0.0, hi = 0.0, elo = 1.0, ehi = 1.0;
    double guess;
    {
        double lambda_direct, k, d;
        tl_actm_direct(e, 1.0, 1.0, 1.0, &k, &d, &lambda_direct);
        guess = lambda_direct;
    }
    tl_hertz_damped s;
    hi = guess > 0.0 ? guess : 0.01;
    for (;;) {
        tl_hertz_damped_solve(hi, &s);
        ehi = s.restitution;
        if (ehi < e) break;
        lo = hi;
        elo = ehi;
        hi *= 1.5;
        if (hi > 1e3) return TL_ERROR_ARGUMENT;
    }
    for (int it = 0; it < 100; it++) {
        double x = lo + (elo - e) * (hi - lo) / (elo - ehi); /* secant on the bracket */
        if (!(x > lo && x < hi) || it % 3 == 2) x = 0.5 * (lo + hi);
        tl_hertz_damped_solve(x, &s);
        if (fabs(s.restitution - e) < 1e-14) break;
        if (s.restitution > e) {
            lo = x;
            elo = s.restitution;
        } else {
            hi = x;
            ehi = s.restitution;
        }
        if (hi - lo < 1e-15 * hi) break;
    }
    *out = s;
    return TL_OK;
}

void tl_hertz_damped_approx(double lambda, double *e, double *tau_c) {
    if (e) *e = exp(-RAY_ALPHA * lambda * RAY_TAU_C0 / sqrt(1.0 - RAY_C * lambda)); /* eq. 43 */
    if (tau_c) *tau_c = RAY_TAU_C0 / sqrt(1.0 - RAY_A * lambda - RAY_B * lambda * lambda); /* eq. 44 */
}

/* eq. 51-54 */
tl_status tl_actm_direct(double e, double T_c, double m, double u_in, double *k, double *d,
                         double *lambda) {
    if (!(e > 0.0 && e <= 1.0) || !(T_c > 0.0) || !(m > 0.0) || !(u_in > 0.0))
        return TL_ERROR_ARGUMENT;
    double eta = log(e) * log(e);
    double at2 = RAY_ALPHA * RAY_ALPHA * RAY_TAU_C0 * RAY_TAU_C0;
    double lam = (-0.5 * RAY_C * eta + sqrt(0.25 * RAY_C * RAY_C * eta * eta + at2 * eta)) / at2;
    double tstar = T_c / RAY_TAU_C0 * sqrt(1.0 - RAY_A * lam - RAY_B * lam * lam);
    if (lambda) *lambda = lam;
    if (d) *d = 2.0 * lam * m / tstar;
    if (k) *k = m / sqrt(u_in * pow(tstar, 5.0));
    return TL_OK;
}

tl_status tl_actm_exact(double e, double T_c, double m, double u_in, double *k, double *d,
                        double *lambda) {
    if (!(e > 0.0 && e <= 1.0) || !(T_c > 0.0) || !(m > 0.0) || !(u_in > 0.0))
        return TL_ERROR_ARGUMENT;
    tl_hertz_damped s;
    tl_status st = tl_hertz_damped_from_restitution(e, &s);
    if (st != TL_OK) return st;
    double tstar = T_c / s.tau_c;
    if (lambda) *lambda = s.lambda;
    if (d) *d = 2.0 * s.lambda * m / tstar;
    if (k) *k = m / sqrt(u_in * pow(tstar, 5.0));
    return TL_OK;
}
