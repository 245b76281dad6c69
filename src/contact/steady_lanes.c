/* Steady contacts four at a time (steady_lanes.h). The scalar code this mirrors, operation by
 * operation: steady_body in contact_forces.c, tl_hm_eval_sr in fused.h, tl_coulomb_eval in
 * coulomb.h. A change there must be made here too; test_threads compares
 * this path with the general one. */
#include "steady_lanes.h"

#include <stddef.h>

#include "contacts.h"
#include "fused.h"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(TALUS_NO_LANES)
#include <immintrin.h>
#define TL_LANES 1
#endif

bool tl_lanes_available(void) {
#ifdef TL_LANES
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

bool tl_lanes_law_make(tl_lanes_law *c, const tl_law *law, const tl_pair_law *pl, double r, double sr,
                       double A, double dt, int hist_values, int record_stride) {
#ifdef TL_LANES
    if (!tl_lanes_available()) return false;
    if (law->fused_kind != TL_FUSED_HERTZ_MINDLIN || law->hist_offset[TL_SLOT_HISTORY] != 0 ||
        hist_values != 3 || record_stride != 8)
        return false;
    const double *pn = pl->p[TL_SLOT_NORMAL], *pd = pl->p[TL_SLOT_DAMPING];
    const double *pt = pl->p[TL_SLOT_TANGENTIAL];
    const int test = (int)pt[3];
    if (test != TL_COULOMB_TOTAL && test != TL_COULOMB_SPRING && test != TL_COULOMB_SPRING_CAPPED) return false;
    c->test = test;
    c->ri = c->rj = r;
    c->rr = r + r;
    c->split = pl->split;
    c->split_b = pl->split_b;
    c->dt = dt;
    c->K = pn[0] * sr;
    c->Cd = TL_SQRT5 * pd[0] * (pl->fused[0] * A);
    c->Ckt = pt[1] * sr;
    c->Ce1 = TL_TWO_SQRT_5_6 * pt[2];
    c->Ce2 = pl->fused[1] * A;
    c->kfac = pt[4];
    c->mu = pt[0];
    c->clamp = law->clamp_tensile;
    return true;
#else
    (void)c, (void)law, (void)pl, (void)r, (void)sr, (void)A, (void)dt, (void)hist_values, (void)record_stride;
    return false;
#endif
}

#ifdef TL_LANES
#define AVX2 __attribute__((target("avx2")))
typedef __m256d V;

/* three values at each of four addresses, as three vectors of the lanes */
AVX2 static inline void load3(const double *p0, const double *p1, const double *p2, const double *p3, V *X,
                              V *Y, V *Z) {
    const __m256i m = _mm256_set_epi64x(0, -1, -1, -1);
    V a0 = _mm256_maskload_pd(p0, m), a1 = _mm256_maskload_pd(p1, m);
    V a2 = _mm256_maskload_pd(p2, m), a3 = _mm256_maskload_pd(p3, m);
    V t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);
    V t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
    *X = _mm256_permute2f128_pd(t0, t2, 0x20);
    *Y = _mm256_permute2f128_pd(t1, t3, 0x20);
    *Z = _mm256_permute2f128_pd(t0, t2, 0x31);
}

/* rows r0..r3 (one value of each lane per row) -> the lanes' four values, in t[lane] */
AVX2 static inline void transpose4(V r0, V r1, V r2, V r3, V t[4]) {
    V u0 = _mm256_unpacklo_pd(r0, r1), u1 = _mm256_unpackhi_pd(r0, r1);
    V u2 = _mm256_unpacklo_pd(r2, r3), u3 = _mm256_unpackhi_pd(r2, r3);
    t[0] = _mm256_permute2f128_pd(u0, u2, 0x20);
    t[1] = _mm256_permute2f128_pd(u1, u3, 0x20);
    t[2] = _mm256_permute2f128_pd(u0, u2, 0x31);
    t[3] = _mm256_permute2f128_pd(u1, u3, 0x31);
}

#define ADD _mm256_add_pd
#define SUB _mm256_sub_pd
#define MUL _mm256_mul_pd
#define DIV _mm256_div_pd
#define SET1 _mm256_set1_pd
#define BLEND(f, t, m) _mm256_blendv_pd((f), (t), (m)) /* m ? t : f, lane by lane */
#define CMP _mm256_cmp_pd
#define NEG(x) _mm256_xor_pd((x), _mm256_set1_pd(-0.0)) /* -x, as the scalar code's unary minus */

/* The lanes at the Coulomb limit (slide): the force f there, and where moved (and k > 0) the
 * spring's displacement -f / k (tl_coulomb_eval's `v3_scale(x, f, -1.0 / k)`). */
AVX2 static inline void at_limit(V fX, V fY, V fZ, V kk, V slide, V moved, V *xoX, V *xoY, V *xoZ, V *ftX, V *ftY,
                                 V *ftZ) {
    V mi = DIV(SET1(-1.0), kk);
    V sx = _mm256_and_pd(moved, CMP(kk, _mm256_setzero_pd(), _CMP_GT_OQ));
    *xoX = BLEND(*xoX, MUL(fX, mi), sx);
    *xoY = BLEND(*xoY, MUL(fY, mi), sx);
    *xoZ = BLEND(*xoZ, MUL(fZ, mi), sx);
    *ftX = BLEND(*ftX, fX, slide);
    *ftY = BLEND(*ftY, fY, slide);
    *ftZ = BLEND(*ftZ, fZ, slide);
}

AVX2 unsigned tl_steady_lanes4(const tl_lanes_law *c, const double (*x)[3], const double (*v)[3],
                               const double (*w)[3], const double (*shift)[3], const uint32_t *a,
                               const uint32_t *b, const uint8_t *img, double *rec, uint8_t *state,
                               const size_t k[4], const uint8_t force_bit[4], unsigned n, tl_lanes_out *o) {
    const uint32_t i0 = a[k[0]], i1 = a[k[1]], i2 = a[k[2]], i3 = a[k[3]];
    const uint32_t j0 = b[k[0]], j1 = b[k[1]], j2 = b[k[2]], j3 = b[k[3]];
    const V zero = _mm256_setzero_pd();
    /* steady_body: the geometry */
    V xiX, xiY, xiZ, xjX, xjY, xjZ, shX, shY, shZ;
    load3(x[i0], x[i1], x[i2], x[i3], &xiX, &xiY, &xiZ);
    load3(x[j0], x[j1], x[j2], x[j3], &xjX, &xjY, &xjZ);
    load3(shift[img[k[0]]], shift[img[k[1]]], shift[img[k[2]]], shift[img[k[3]]], &shX, &shY, &shZ);
    xjX = ADD(xjX, shX);
    xjY = ADD(xjY, shY);
    xjZ = ADD(xjZ, shZ);
    V dX = SUB(xjX, xiX), dY = SUB(xjY, xiY), dZ = SUB(xjZ, xiZ);
    V dist = _mm256_sqrt_pd(ADD(ADD(MUL(dX, dX), MUL(dY, dY)), MUL(dZ, dZ)));
    V delta = SUB(SET1(c->rr), dist);
    V ok = _mm256_and_pd(CMP(delta, zero, _CMP_GT_OQ), CMP(dist, zero, _CMP_GT_OQ));
    unsigned mask = (unsigned)_mm256_movemask_pd(ok) & ((1u << n) - 1u);
    if (!mask) return 0;
    V inv = DIV(SET1(1.0), dist);
    V nX = MUL(dX, inv), nY = MUL(dY, inv), nZ = MUL(dZ, inv);
    V la = SUB(SET1(c->ri), MUL(SET1(c->split), delta));
    V lb = SUB(SET1(c->rj), MUL(SET1(c->split_b), delta));
    /* contact_velocity: (va - vb) + (la wa + lb wb) x n */
    V viX, viY, viZ, vjX, vjY, vjZ, wiX, wiY, wiZ, wjX, wjY, wjZ;
    load3(v[i0], v[i1], v[i2], v[i3], &viX, &viY, &viZ);
    load3(v[j0], v[j1], v[j2], v[j3], &vjX, &vjY, &vjZ);
    load3(w[i0], w[i1], w[i2], w[i3], &wiX, &wiY, &wiZ);
    load3(w[j0], w[j1], w[j2], w[j3], &wjX, &wjY, &wjZ);
    V omX = ADD(MUL(la, wiX), MUL(lb, wjX));
    V omY = ADD(MUL(la, wiY), MUL(lb, wjY));
    V omZ = ADD(MUL(la, wiZ), MUL(lb, wjZ));
    V tX = SUB(MUL(omY, nZ), MUL(omZ, nY));
    V tY = SUB(MUL(omZ, nX), MUL(omX, nZ));
    V tZ = SUB(MUL(omX, nY), MUL(omY, nX));
    V vrX = ADD(SUB(viX, vjX), tX), vrY = ADD(SUB(viY, vjY), tY), vrZ = ADD(SUB(viZ, vjZ), tZ);
    V rate = ADD(ADD(MUL(vrX, nX), MUL(vrY, nY)), MUL(vrZ, nZ));
    /* vt = vrel + (-rate) n, the same as vrel - rate n in IEEE arithmetic */
    V vtX = SUB(vrX, MUL(rate, nX)), vtY = SUB(vrY, MUL(rate, nY)), vtZ = SUB(vrZ, MUL(rate, nZ));
    const V dt = SET1(c->dt);
    V dxX = MUL(vtX, dt), dxY = MUL(vtY, dt), dxZ = MUL(vtZ, dt);
    /* tl_hm_eval_sr */
    V sd = _mm256_sqrt_pd(delta), q = _mm256_sqrt_pd(sd);
    V fn = ADD(MUL(MUL(SET1(c->K), delta), sd), MUL(MUL(SET1(c->Cd), q), rate));
    if (c->clamp) fn = BLEND(fn, zero, CMP(fn, zero, _CMP_LT_OQ));
    double *r0 = rec + 8 * k[0], *r1 = rec + 8 * k[1], *r2 = rec + 8 * k[2], *r3 = rec + 8 * k[3];
    V hX, hY, hZ;
    load3(r0, r1, r2, r3, &hX, &hY, &hZ);
    V xX = ADD(hX, dxX), xY = ADD(hY, dxY), xZ = ADD(hZ, dxZ);
    V dd = ADD(ADD(MUL(xX, nX), MUL(xY, nY)), MUL(xZ, nZ));
    V xiX_ = SUB(xX, MUL(dd, nX)), xiY_ = SUB(xY, MUL(dd, nY)), xiZ_ = SUB(xZ, MUL(dd, nZ));
    V kt0 = MUL(SET1(c->Ckt), sd);
    V eta = MUL(SET1(c->Ce1), MUL(SET1(c->Ce2), q));
    /* tl_coulomb_eval */
    V kk = MUL(SET1(c->kfac), kt0);
    V mk = NEG(kk), me = NEG(eta);
    V fsX = MUL(xiX_, mk), fsY = MUL(xiY_, mk), fsZ = MUL(xiZ_, mk);
    V fdX = MUL(vtX, me), fdY = MUL(vtY, me), fdZ = MUL(vtZ, me);
    V limit = MUL(SET1(c->mu), BLEND(zero, fn, CMP(fn, zero, _CMP_GT_OQ)));
    V lim2 = MUL(limit, limit);
    V ftX = ADD(fsX, fdX), ftY = ADD(fsY, fdY), ftZ = ADD(fsZ, fdZ); /* spring + dashpot */
    V xoX = xiX_, xoY = xiY_, xoZ = xiZ_;
    V slide;
    if (c->test == TL_COULOMB_TOTAL) {
        /* the sum tested; at the limit it is scaled onto it and the spring alone carries it */
        V f2 = ADD(ADD(MUL(ftX, ftX), MUL(ftY, ftY)), MUL(ftZ, ftZ));
        slide = CMP(f2, lim2, _CMP_GT_OQ);
        if (_mm256_movemask_pd(slide) & (int)mask) {
            V s = DIV(limit, _mm256_sqrt_pd(f2));
            at_limit(MUL(ftX, s), MUL(ftY, s), MUL(ftZ, s), kk, slide, slide, &xoX, &xoY, &xoZ, &ftX, &ftY, &ftZ);
        }
    } else {
        /* the spring tested; (spring-capped) below it, the sum capped at the limit */
        V fsn2 = ADD(ADD(MUL(fsX, fsX), MUL(fsY, fsY)), MUL(fsZ, fsZ));
        slide = CMP(fsn2, lim2, _CMP_GE_OQ);
        if (c->test == TL_COULOMB_SPRING_CAPPED) {
            V f2 = ADD(ADD(MUL(ftX, ftX), MUL(ftY, ftY)), MUL(ftZ, ftZ));
            V cap = _mm256_andnot_pd(slide, CMP(f2, lim2, _CMP_GT_OQ));
            if (_mm256_movemask_pd(cap) & (int)mask) {
                V s = DIV(limit, _mm256_sqrt_pd(f2));
                ftX = BLEND(ftX, MUL(ftX, s), cap);
                ftY = BLEND(ftY, MUL(ftY, s), cap);
                ftZ = BLEND(ftZ, MUL(ftZ, s), cap);
            }
        }
        if (_mm256_movemask_pd(slide) & (int)mask) {
            V pos = CMP(fsn2, zero, _CMP_GT_OQ);
            V s = DIV(limit, _mm256_sqrt_pd(fsn2));
            /* a spring of zero force slides with zero force and keeps its displacement */
            at_limit(BLEND(zero, MUL(fsX, s), pos), BLEND(zero, MUL(fsY, s), pos), BLEND(zero, MUL(fsZ, s), pos), kk,
                     slide, _mm256_and_pd(slide, pos), &xoX, &xoY, &xoZ, &ftX, &ftY, &ftZ);
        }
    }
    /* steady_body: the force on a, n x ft and the torques */
    V mfn = NEG(fn);
    V faX = ADD(MUL(nX, mfn), ftX), faY = ADD(MUL(nY, mfn), ftY), faZ = ADD(MUL(nZ, mfn), ftZ);
    V cX = SUB(MUL(nY, ftZ), MUL(nZ, ftY));
    V cY = SUB(MUL(nZ, ftX), MUL(nX, ftZ));
    V cZ = SUB(MUL(nX, ftY), MUL(nY, ftX));
    _mm256_store_pd(o->fa[0], faX);
    _mm256_store_pd(o->fa[1], faY);
    _mm256_store_pd(o->fa[2], faZ);
    _mm256_store_pd(o->cn[0], cX);
    _mm256_store_pd(o->cn[1], cY);
    _mm256_store_pd(o->cn[2], cZ);
    _mm256_store_pd(o->tqi[0], MUL(cX, la));
    _mm256_store_pd(o->tqi[1], MUL(cY, la));
    _mm256_store_pd(o->tqi[2], MUL(cZ, la));
    _mm256_store_pd(o->tqj[0], MUL(cX, lb));
    _mm256_store_pd(o->tqj[1], MUL(cY, lb));
    _mm256_store_pd(o->tqj[2], MUL(cZ, lb));
    _mm256_store_pd(o->la, la);
    _mm256_store_pd(o->lb, lb);
    /* the records: history, then overlap, normal force, tangential force */
    V h[4], bk[4];
    transpose4(xoX, xoY, xoZ, delta, h);
    transpose4(fn, ftX, ftY, ftZ, bk);
    double *rl[4] = {r0, r1, r2, r3};
    const unsigned sl = (unsigned)_mm256_movemask_pd(slide);
    for (unsigned l = 0; l < 4; l++) {
        if (!(mask >> l & 1u)) continue;
        _mm256_storeu_pd(rl[l], h[l]);
        _mm256_storeu_pd(rl[l] + 4, bk[l]);
        state[k[l]] = (uint8_t)(TL_PAIR_TOUCH | ((sl >> l & 1u) ? TL_PAIR_SLIDING : 0) | force_bit[l]);
    }
    return mask;
}
#else
unsigned tl_steady_lanes4(const tl_lanes_law *c, const double (*x)[3], const double (*v)[3],
                          const double (*w)[3], const double (*shift)[3], const uint32_t *a,
                          const uint32_t *b, const uint8_t *img, double *rec, uint8_t *state,
                          const size_t k[4], const uint8_t force_bit[4], unsigned n, tl_lanes_out *o) {
    (void)c, (void)x, (void)v, (void)w, (void)shift, (void)a, (void)b, (void)img, (void)rec, (void)state;
    (void)k, (void)force_bit, (void)n, (void)o;
    return 0;
}
#endif
