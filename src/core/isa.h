/* The hot loops of the step, compiled for two instruction sets: AVX2 and the x86-64
 * baseline. The program picks one when it loads (GCC's target_clones: an ifunc resolver asks
 * the CPU), so one binary runs everywhere and uses the wider encoding where it can. The
 * arithmetic is the same scalar IEEE double arithmetic in both (no fused multiply-add:
 * -ffp-contract=off, and -mavx2 does not enable FMA), so the results are bit-identical on
 * either path; what AVX2 saves is instructions, mostly the register copies that the
 * two-operand SSE forms need (docs/bench.md, "Where the time goes"). AVX-512 is not cloned:
 * for scalar code its encoding saves nothing over AVX2's.
 *
 * Off for other compilers and targets, and when TALUS_NO_ISA_CLONES is defined. */
#ifndef TL_ISA_H
#define TL_ISA_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__ELF__) && \
    !defined(TALUS_NO_ISA_CLONES)
#define TL_ISA_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TL_ISA_CLONES
#endif

#endif
