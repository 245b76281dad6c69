/* The body of the steady-contact lanes (steady_lanes.c), included once per width with these
 * defined: LANES (4 or 8), LANES_FN (the function's name), LN(name) (a helper's name for this
 * width), TARGET (the function attribute), V (a vector of LANES doubles), M (a mask of LANES
 * lanes), ZERO, SET1, ADD, SUB, MUL, DIV, SQRT, NEG, CMP(a, b, predicate) -> M, MAND(m, n),
 * MANDNOT(m, n) = ~m & n, BLEND(f, t, m) (m ? t : f, lane by lane), MBITS(m) (the lanes as bits),
 * LOAD3(p, &X, &Y, &Z) (three values at each lane's address as three vectors), STORE(to, v), and
 * TRANSPOSE(v0, v1, v3, v3, t) (four vectors -> each lane's four values in t[lane], 256 bits).
 * The operations are steady_body, tl_hm_eval_sr and tl_coulomb_eval's, in their order. */

/* The lanes at the Coulomb limit (slide): the force f there, and where moved (and k > 0) the
 * spring's displacement -f / k (tl_coulomb_eval's `v3_scale(x, f, -1.0 / k)`). */
TARGET static inline void LN(at_limit)(V fX, V fY, V fZ, V kk, M slide, M moved, V *xoX, V *xoY, V *xoZ, V *ftX, V *ftY,
                                 V *ftZ) {
    V mi = DIV(SET1(-1.0), kk);
    M sx = MAND(moved, CMP(kk, ZERO(), _CMP_GT_OQ));
    *xoX = BLEND(*xoX, MUL(fX, mi), sx);
    *xoY = BLEND(*xoY, MUL(fY, mi), sx);
    *xoZ = BLEND(*xoZ, MUL(fZ, mi), sx);
    *ftX = BLEND(*ftX, fX, slide);
    *ftY = BLEND(*ftY, fY, slide);
    *ftZ = BLEND(*ftZ, fZ, slide);
}

TARGET unsigned LANES_FN(const tl_lanes_law *c, const double (*x)[3], const double (*v)[3], const double (*w)[3],
                         const double (*shift)[3], const uint32_t *a, const uint32_t *b, const uint8_t *img,
                         double *rec, uint8_t *state, const size_t *k, const uint8_t *force_bit, unsigned n,
                         tl_lanes_out *o) {
    const double *pxi[LANES], *pxj[LANES], *psh[LANES], *pvi[LANES], *pvj[LANES], *pwi[LANES], *pwj[LANES];
    double *rl[LANES];
    for (unsigned l = 0; l < LANES; l++) {
        const uint32_t i = a[k[l]], j = b[k[l]];
        pxi[l] = x[i];
        pxj[l] = x[j];
        psh[l] = shift[img[k[l]]];
        pvi[l] = v[i];
        pvj[l] = v[j];
        pwi[l] = w[i];
        pwj[l] = w[j];
        rl[l] = rec + 8 * k[l];
    }
    const V zero = ZERO();
    /* steady_body: the geometry */
    V xiX, xiY, xiZ, xjX, xjY, xjZ, shX, shY, shZ;
    LOAD3(pxi, &xiX, &xiY, &xiZ);
    LOAD3(pxj, &xjX, &xjY, &xjZ);
    LOAD3(psh, &shX, &shY, &shZ);
    xjX = ADD(xjX, shX);
    xjY = ADD(xjY, shY);
    xjZ = ADD(xjZ, shZ);
    V dX = SUB(xjX, xiX), dY = SUB(xjY, xiY), dZ = SUB(xjZ, xiZ);
    V dist = SQRT(ADD(ADD(MUL(dX, dX), MUL(dY, dY)), MUL(dZ, dZ)));
    V delta = SUB(SET1(c->rr), dist);
    M ok = MAND(CMP(delta, zero, _CMP_GT_OQ), CMP(dist, zero, _CMP_GT_OQ));
    unsigned mask = MBITS(ok) & ((1u << n) - 1u);
    if (!mask) return 0;
    V inv = DIV(SET1(1.0), dist);
    V nX = MUL(dX, inv), nY = MUL(dY, inv), nZ = MUL(dZ, inv);
    V la = SUB(SET1(c->ri), MUL(SET1(c->split), delta));
    V lb = SUB(SET1(c->rj), MUL(SET1(c->split_b), delta));
    /* contact_velocity: (va - vb) + (la wa + lb wb) x n */
    V viX, viY, viZ, vjX, vjY, vjZ, wiX, wiY, wiZ, wjX, wjY, wjZ;
    LOAD3(pvi, &viX, &viY, &viZ);
    LOAD3(pvj, &vjX, &vjY, &vjZ);
    LOAD3(pwi, &wiX, &wiY, &wiZ);
    LOAD3(pwj, &wjX, &wjY, &wjZ);
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
    V sd = SQRT(delta), q = SQRT(sd);
    V fn = ADD(MUL(MUL(SET1(c->K), delta), sd), MUL(MUL(SET1(c->Cd), q), rate));
    if (c->clamp) fn = BLEND(fn, zero, CMP(fn, zero, _CMP_LT_OQ));
    V hX, hY, hZ;
    LOAD3((const double *const *)rl, &hX, &hY, &hZ);
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
    M slide;
    if (c->test == TL_COULOMB_TOTAL) {
        /* the sum tested; at the limit it is scaled onto it and the spring alone carries it */
        V f2 = ADD(ADD(MUL(ftX, ftX), MUL(ftY, ftY)), MUL(ftZ, ftZ));
        slide = CMP(f2, lim2, _CMP_GT_OQ);
        if (MBITS(slide) & mask) {
            V s = DIV(limit, SQRT(f2));
            LN(at_limit)(MUL(ftX, s), MUL(ftY, s), MUL(ftZ, s), kk, slide, slide, &xoX, &xoY, &xoZ, &ftX, &ftY, &ftZ);
        }
    } else {
        /* the spring tested; (spring-capped) below it, the sum capped at the limit */
        V fsn2 = ADD(ADD(MUL(fsX, fsX), MUL(fsY, fsY)), MUL(fsZ, fsZ));
        slide = CMP(fsn2, lim2, _CMP_GE_OQ);
        if (c->test == TL_COULOMB_SPRING_CAPPED) {
            V f2 = ADD(ADD(MUL(ftX, ftX), MUL(ftY, ftY)), MUL(ftZ, ftZ));
            M cap = MANDNOT(slide, CMP(f2, lim2, _CMP_GT_OQ));
            if (MBITS(cap) & mask) {
                V s = DIV(limit, SQRT(f2));
                ftX = BLEND(ftX, MUL(ftX, s), cap);
                ftY = BLEND(ftY, MUL(ftY, s), cap);
                ftZ = BLEND(ftZ, MUL(ftZ, s), cap);
            }
        }
        if (MBITS(slide) & mask) {
            M pos = CMP(fsn2, zero, _CMP_GT_OQ);
            V s = DIV(limit, SQRT(fsn2));
            /* a spring of zero force slides with zero force and keeps its displacement */
            LN(at_limit)(BLEND(zero, MUL(fsX, s), pos), BLEND(zero, MUL(fsY, s), pos), BLEND(zero, MUL(fsZ, s), pos), kk,
                     slide, MAND(slide, pos), &xoX, &xoY, &xoZ, &ftX, &ftY, &ftZ);
        }
    }
    /* steady_body: the force on a, n x ft and the torques */
    V mfn = NEG(fn);
    V faX = ADD(MUL(nX, mfn), ftX), faY = ADD(MUL(nY, mfn), ftY), faZ = ADD(MUL(nZ, mfn), ftZ);
    V cX = SUB(MUL(nY, ftZ), MUL(nZ, ftY));
    V cY = SUB(MUL(nZ, ftX), MUL(nX, ftZ));
    V cZ = SUB(MUL(nX, ftY), MUL(nY, ftX));
    STORE(o->fa[0], faX);
    STORE(o->fa[1], faY);
    STORE(o->fa[2], faZ);
    STORE(o->cn[0], cX);
    STORE(o->cn[1], cY);
    STORE(o->cn[2], cZ);
    STORE(o->tqi[0], MUL(cX, la));
    STORE(o->tqi[1], MUL(cY, la));
    STORE(o->tqi[2], MUL(cZ, la));
    STORE(o->tqj[0], MUL(cX, lb));
    STORE(o->tqj[1], MUL(cY, lb));
    STORE(o->tqj[2], MUL(cZ, lb));
    STORE(o->la, la);
    STORE(o->lb, lb);
    /* the records: history, then overlap, normal force, tangential force */
    __m256d h[LANES], bk[LANES];
    TRANSPOSE(xoX, xoY, xoZ, delta, h);
    TRANSPOSE(fn, ftX, ftY, ftZ, bk);
    const unsigned sl = MBITS(slide);
    for (unsigned l = 0; l < LANES; l++) {
        if (!(mask >> l & 1u)) continue;
        _mm256_storeu_pd(rl[l], h[l]);
        _mm256_storeu_pd(rl[l] + 4, bk[l]);
        state[k[l]] = (uint8_t)(TL_PAIR_TOUCH | ((sl >> l & 1u) ? TL_PAIR_SLIDING : 0) | force_bit[l]);
    }
    return mask;
}
