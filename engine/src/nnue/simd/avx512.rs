//! The AVX-512 kernels (AVX-512 F and BW): 32 lanes of i16 a register, so a 256-neuron
//! accumulator is 8 registers. The same arithmetic as the AVX2 kernels, twice as wide.

use crate::nnue::{Column, HIDDEN, QA};
use std::arch::x86_64::*;

/// Lanes of i16 in one 512-bit register.
const LANES: usize = 32;
const _: () = assert!(HIDDEN.is_multiple_of(LANES));

/// See `Kernels::add_sub`; the counts that moves produce get loops with the counts fixed, as in
/// the AVX2 kernel.
///
/// # Safety
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn add_sub(
    out: &mut [i16; HIDDEN],
    input: &[i16; HIDDEN],
    adds: &[&Column],
    subs: &[&Column],
) {
    match (adds, subs) {
        (&[a], &[s]) => add_sub_fixed(out, input, [a], [s]),
        (&[a], &[s, t]) => add_sub_fixed(out, input, [a], [s, t]),
        (&[a, b], &[s, t]) => add_sub_fixed(out, input, [a, b], [s, t]),
        _ => add_sub_any(out, input, adds, subs),
    }
}

/// `add_sub` for `A` columns added and `S` removed.
#[target_feature(enable = "avx512f,avx512bw")]
fn add_sub_fixed<const A: usize, const S: usize>(
    out: &mut [i16; HIDDEN],
    input: &[i16; HIDDEN],
    adds: [&Column; A],
    subs: [&Column; S],
) {
    add_sub_any(out, input, &adds, &subs);
}

/// `add_sub` for any counts; inlined into `add_sub_fixed`, where the counts are constants.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn add_sub_any(out: &mut [i16; HIDDEN], input: &[i16; HIDDEN], adds: &[&Column], subs: &[&Column]) {
    for chunk in 0..HIDDEN / LANES {
        let at = chunk * LANES;
        // SAFETY: `at + LANES <= HIDDEN`, so every unaligned 64-byte load and store stays
        // inside its array of `HIDDEN` i16; `out` is borrowed mutably, so it overlaps none of
        // the arrays read. The instructions are those this function's target features enable.
        unsafe {
            let mut v = _mm512_loadu_si512(input.as_ptr().add(at).cast());
            for add in adds {
                v = _mm512_add_epi16(v, _mm512_loadu_si512(add.0.as_ptr().add(at).cast()));
            }
            for sub in subs {
                v = _mm512_sub_epi16(v, _mm512_loadu_si512(sub.0.as_ptr().add(at).cast()));
            }
            _mm512_storeu_si512(out.as_mut_ptr().add(at).cast(), v);
        }
    }
}

/// See `Kernels::screlu_output`.
///
/// # Safety
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn screlu_output(
    us: &[i16; HIDDEN],
    them: &[i16; HIDDEN],
    w_us: &[i16; HIDDEN],
    w_them: &[i16; HIDDEN],
) -> i32 {
    let zero = _mm512_setzero_si512();
    let ceiling = _mm512_set1_epi16(QA as i16);
    let mut sum = _mm512_setzero_si512();
    for (acc, weights) in [(us, w_us), (them, w_them)] {
        for chunk in 0..HIDDEN / LANES {
            let at = chunk * LANES;
            // SAFETY: every load reads `LANES` i16 ending at `at + LANES <= HIDDEN`, inside its
            // array.
            let (x, w) = unsafe {
                (
                    _mm512_loadu_si512(acc.as_ptr().add(at).cast()),
                    _mm512_loadu_si512(weights.as_ptr().add(at).cast()),
                )
            };
            let clamped = _mm512_min_epi16(_mm512_max_epi16(x, zero), ceiling);
            // As in the AVX2 kernel: `clamped · w` fits an i16 for the weights the loader
            // accepts, and the multiply-add forms `clamped² · w` in i32.
            let product = _mm512_mullo_epi16(clamped, w);
            sum = _mm512_add_epi32(sum, _mm512_madd_epi16(product, clamped));
        }
    }
    _mm512_reduce_add_epi32(sum)
}
