//! The AVX2 kernels: 16 lanes of i16 a register, so a 256-neuron accumulator is 16 registers.

use crate::nnue::{Column, HIDDEN, QA};
use std::arch::x86_64::*;

/// Lanes of i16 in one 256-bit register.
const LANES: usize = 16;
const _: () = assert!(HIDDEN.is_multiple_of(LANES));

/// See `Kernels::add_sub`. The counts that moves produce (quiet 1 + 1, capture or
/// promotion 1 + 2, castling 2 + 2, null move 0 + 0) get loops with the counts fixed, which
/// the compiler unrolls; any other count takes the general loop.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn add_sub(
    out: &mut [i16; HIDDEN],
    input: &[i16; HIDDEN],
    adds: &[&Column],
    subs: &[&Column],
) {
    // SAFETY: the caller guarantees AVX2, all that the functions called need.
    unsafe {
        match (adds, subs) {
            (&[a], &[s]) => add_sub_fixed(out, input, [a], [s]),
            (&[a], &[s, t]) => add_sub_fixed(out, input, [a], [s, t]),
            (&[a, b], &[s, t]) => add_sub_fixed(out, input, [a, b], [s, t]),
            _ => add_sub_any(out, input, adds, subs),
        }
    }
}

/// `add_sub` for `A` columns added and `S` removed.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn add_sub_fixed<const A: usize, const S: usize>(
    out: &mut [i16; HIDDEN],
    input: &[i16; HIDDEN],
    adds: [&Column; A],
    subs: [&Column; S],
) {
    for chunk in 0..HIDDEN / LANES {
        let at = chunk * LANES;
        // SAFETY: the caller guarantees AVX2. `at + LANES <= HIDDEN`, so every unaligned
        // 32-byte load and store stays inside its array of `HIDDEN` i16; `out` is borrowed
        // mutably, so it overlaps none of the arrays read.
        unsafe {
            let mut v = _mm256_loadu_si256(input.as_ptr().add(at).cast());
            for add in adds {
                v = _mm256_add_epi16(v, _mm256_loadu_si256(add.0.as_ptr().add(at).cast()));
            }
            for sub in subs {
                v = _mm256_sub_epi16(v, _mm256_loadu_si256(sub.0.as_ptr().add(at).cast()));
            }
            _mm256_storeu_si256(out.as_mut_ptr().add(at).cast(), v);
        }
    }
}

/// `add_sub` for any counts.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn add_sub_any(out: &mut [i16; HIDDEN], input: &[i16; HIDDEN], adds: &[&Column], subs: &[&Column]) {
    for chunk in 0..HIDDEN / LANES {
        let at = chunk * LANES;
        // SAFETY: as in `add_sub_fixed`.
        unsafe {
            let mut v = _mm256_loadu_si256(input.as_ptr().add(at).cast());
            for add in adds {
                v = _mm256_add_epi16(v, _mm256_loadu_si256(add.0.as_ptr().add(at).cast()));
            }
            for sub in subs {
                v = _mm256_sub_epi16(v, _mm256_loadu_si256(sub.0.as_ptr().add(at).cast()));
            }
            _mm256_storeu_si256(out.as_mut_ptr().add(at).cast(), v);
        }
    }
}

/// See `Kernels::screlu_output`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn screlu_output(
    us: &[i16; HIDDEN],
    them: &[i16; HIDDEN],
    w_us: &[i16; HIDDEN],
    w_them: &[i16; HIDDEN],
) -> i32 {
    // SAFETY: the caller guarantees AVX2. Every load reads `LANES` i16 starting at `at`, with
    // `at + LANES <= HIDDEN`: inside its array.
    unsafe {
        let zero = _mm256_setzero_si256();
        let ceiling = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for (acc, weights) in [(us, w_us), (them, w_them)] {
            for chunk in 0..HIDDEN / LANES {
                let at = chunk * LANES;
                let x = _mm256_loadu_si256(acc.as_ptr().add(at).cast());
                let w = _mm256_loadu_si256(weights.as_ptr().add(at).cast());
                let clamped = _mm256_min_epi16(_mm256_max_epi16(x, zero), ceiling);
                // `clamped · w` fits an i16 for the weights the loader accepts; the
                // multiply-add then forms `clamped² · w` in i32, two lanes at a time.
                let product = _mm256_mullo_epi16(clamped, w);
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(product, clamped));
            }
        }
        let halves = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        let pairs = _mm_add_epi32(halves, _mm_shuffle_epi32(halves, 0b01_00_11_10));
        let total = _mm_add_epi32(pairs, _mm_shuffle_epi32(pairs, 0b10_11_00_01));
        _mm_cvtsi128_si32(total)
    }
}
