/* Steady contacts four or eight at a time (steady_lanes.h). The scalar code this mirrors,
 * operation by operation (in steady_lanes_body.h, once for each width): steady_body in
 * contact_forces.c, tl_hm_eval_sr in fused.h, tl_coulomb_eval in coulomb.h. A change there must
 * be made here too; test_threads compares both widths with the general path. */
#include "steady_lanes.h"

#include <stddef.h>

#include "contacts.h"
#include "fused.h"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(TALUS_NO_LANES)
#include <immintrin.h>
#define TL_LANES 1
#endif

bool tl_lanes_available(void) { return tl_lanes_width() > 0; }

unsigned tl_lanes_width(void) {
#ifdef TL_LANES
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return 8;
    return __builtin_cpu_supports("avx2") ? 4 : 0;
#else
    return 0;
#endif
}

bool tl_lanes_law_make(tl_lanes_law *c, const tl_law *law, const tl_pair_law *pl, double r, double sr,
                       double A, double dt, int hist_values, int record_stride, unsigned max_width) {
#ifdef TL_LANES
    const unsigned width = tl_lanes_width();
    if (width == 0) return false;
    c->width = max_width == 4 ? 4 : width;
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
    (void)max_width;
    return false;
#endif
}

#ifdef TL_LANES
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx2,avx512f,avx512dq")))
typedef __m256d V4;
typedef __m512d V8;

/* three values at each of four addresses, as three vectors of the lanes */
AVX2 static inline void load3(const double *p0, const double *p1, const double *p2, const double *p3, V4 *X,
                              V4 *Y, V4 *Z) {
    const __m256i m = _mm256_set_epi64x(0, -1, -1, -1);
    V4 a0 = _mm256_maskload_pd(p0, m), a1 = _mm256_maskload_pd(p1, m);
    V4 a2 = _mm256_maskload_pd(p2, m), a3 = _mm256_maskload_pd(p3, m);
    V4 t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);
    V4 t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
    *X = _mm256_permute2f128_pd(t0, t2, 0x20);
    *Y = _mm256_permute2f128_pd(t1, t3, 0x20);
    *Z = _mm256_permute2f128_pd(t0, t2, 0x31);
}

/* rows r0..r3 (one value of each lane per row) -> the lanes' four values, in t[lane] */
AVX2 static inline void transpose4(V4 r0, V4 r1, V4 r2, V4 r3, V4 t[4]) {
    V4 u0 = _mm256_unpacklo_pd(r0, r1), u1 = _mm256_unpackhi_pd(r0, r1);
    V4 u2 = _mm256_unpacklo_pd(r2, r3), u3 = _mm256_unpackhi_pd(r2, r3);
    t[0] = _mm256_permute2f128_pd(u0, u2, 0x20);
    t[1] = _mm256_permute2f128_pd(u1, u3, 0x20);
    t[2] = _mm256_permute2f128_pd(u0, u2, 0x31);
    t[3] = _mm256_permute2f128_pd(u1, u3, 0x31);
}


/* eight lanes: two groups of four, joined */
AVX512 static inline void load3_8(const double *const p[8], V8 *X, V8 *Y, V8 *Z) {
    V4 x0, y0, z0, x1, y1, z1;
    load3(p[0], p[1], p[2], p[3], &x0, &y0, &z0);
    load3(p[4], p[5], p[6], p[7], &x1, &y1, &z1);
    *X = _mm512_insertf64x4(_mm512_castpd256_pd512(x0), x1, 1);
    *Y = _mm512_insertf64x4(_mm512_castpd256_pd512(y0), y1, 1);
    *Z = _mm512_insertf64x4(_mm512_castpd256_pd512(z0), z1, 1);
}
AVX512 static inline void transpose8(V8 r0, V8 r1, V8 r2, V8 r3, V4 t[8]) {
    transpose4(_mm512_castpd512_pd256(r0), _mm512_castpd512_pd256(r1), _mm512_castpd512_pd256(r2),
               _mm512_castpd512_pd256(r3), t);
    transpose4(_mm512_extractf64x4_pd(r0, 1), _mm512_extractf64x4_pd(r1, 1), _mm512_extractf64x4_pd(r2, 1),
               _mm512_extractf64x4_pd(r3, 1), t + 4);
}

/* ---- four lanes: AVX2 ---- */
#define LANES 4
#define LANES_FN tl_steady_lanes4
#define LN(name) name##4
#define TARGET AVX2
#define V V4
#define M V4 /* a lane's mask: all bits set or none */
#define ZERO _mm256_setzero_pd
#define SET1 _mm256_set1_pd
#define ADD _mm256_add_pd
#define SUB _mm256_sub_pd
#define MUL _mm256_mul_pd
#define DIV _mm256_div_pd
#define SQRT _mm256_sqrt_pd
#define NEG(x) _mm256_xor_pd((x), _mm256_set1_pd(-0.0)) /* -x, as the scalar code's unary minus */
#define CMP _mm256_cmp_pd
#define MAND _mm256_and_pd
#define MANDNOT _mm256_andnot_pd
#define BLEND(f, t, m) _mm256_blendv_pd((f), (t), (m))
#define MBITS(m) ((unsigned)_mm256_movemask_pd(m))
#define LOAD3(p, X, Y, Z) load3((p)[0], (p)[1], (p)[2], (p)[3], X, Y, Z)
#define STORE _mm256_store_pd
#define TRANSPOSE transpose4
#include "steady_lanes_body.h"
#undef LANES
#undef LANES_FN
#undef LN
#undef TARGET
#undef V
#undef M
#undef ZERO
#undef SET1
#undef ADD
#undef SUB
#undef MUL
#undef DIV
#undef SQRT
#undef NEG
#undef CMP
#undef MAND
#undef MANDNOT
#undef BLEND
#undef MBITS
#undef LOAD3
#undef STORE
#undef TRANSPOSE

/* ---- eight lanes: AVX-512 (masks in mask registers) ---- */
#define LANES 8
#define LANES_FN tl_steady_lanes8
#define LN(name) name##8
#define TARGET AVX512
#define V V8
#define M __mmask8
#define ZERO _mm512_setzero_pd
#define SET1 _mm512_set1_pd
#define ADD _mm512_add_pd
#define SUB _mm512_sub_pd
#define MUL _mm512_mul_pd
#define DIV _mm512_div_pd
#define SQRT _mm512_sqrt_pd
#define NEG(x) _mm512_xor_pd((x), _mm512_set1_pd(-0.0))
#define CMP _mm512_cmp_pd_mask
#define MAND(m, n) ((__mmask8)((m) & (n)))
#define MANDNOT(m, n) ((__mmask8)(~(m) & (n)))
#define BLEND(f, t, m) _mm512_mask_blend_pd((m), (f), (t))
#define MBITS(m) ((unsigned)(m))
#define LOAD3(p, X, Y, Z) load3_8((p), X, Y, Z)
#define STORE _mm512_store_pd
#define TRANSPOSE transpose8
#include "steady_lanes_body.h"
#else
unsigned tl_steady_lanes4(const tl_lanes_law *c, const double (*x)[3], const double (*v)[3],
                          const double (*w)[3], const double (*shift)[3], const uint32_t *a,
                          const uint32_t *b, const uint8_t *img, double *rec, uint8_t *state,
                          const size_t *k, const uint8_t *force_bit, unsigned n, tl_lanes_out *o) {
    (void)c, (void)x, (void)v, (void)w, (void)shift, (void)a, (void)b, (void)img, (void)rec, (void)state;
    (void)k, (void)force_bit, (void)n, (void)o;
    return 0;
}
unsigned tl_steady_lanes8(const tl_lanes_law *c, const double (*x)[3], const double (*v)[3],
                          const double (*w)[3], const double (*shift)[3], const uint32_t *a,
                          const uint32_t *b, const uint8_t *img, double *rec, uint8_t *state,
                          const size_t *k, const uint8_t *force_bit, unsigned n, tl_lanes_out *o) {
    return tl_steady_lanes4(c, x, v, w, shift, a, b, img, rec, state, k, force_bit, n, o);
}
#endif
