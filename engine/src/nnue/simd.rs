//! The network's inner loops, the only code of the network that uses `unsafe`: adding and
//! subtracting feature columns to and from an accumulator, and the SCReLU output layer.
//!
//! Each loop exists as portable scalar code and as AVX2 code. Which one runs is decided once per
//! process by run-time detection (`Kernels::detected`); the default build targets the baseline
//! x86-64 and gains the AVX2 path on every CPU that has it. A `Kernels` value can only be made
//! for code the CPU runs, so the safe functions below never execute an instruction the CPU
//! lacks. Every path gives the same integers (the tests compare them on random and extreme
//! values):
//!
//! - the accumulator arithmetic is i16 with wrap-around in both paths (a network written by the
//!   trainer never comes near the limits; one that does still evaluates the same everywhere);
//! - the output layer computes `clamp(x, 0, QA)² · w` summed in i32 with wrap-around. The AVX2
//!   path multiplies `clamp · w` in i16 first, which is exact because the loader refuses output
//!   weights beyond `OUTPUT_WEIGHT_LIMIT` (`QA · 128` fits an i16).
//!
//! AVX-512 would halve the instruction count again, but its intrinsics need Rust 1.89 while the
//! workspace promises 1.85; the AVX2 path is written to compile on both.

use super::{Column, HIDDEN, QA};
use std::sync::OnceLock;

/// Which implementation of the inner loops runs. Only `detected` and `available` make one, so
/// holding a value proves the CPU supports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernels(Path);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernels {
    /// The portable loops, which every CPU runs.
    pub const SCALAR: Kernels = Kernels(Path::Scalar);

    /// The fastest path this CPU supports, detected on the first call.
    pub fn detected() -> Kernels {
        static DETECTED: OnceLock<Kernels> = OnceLock::new();
        *DETECTED.get_or_init(|| *Kernels::available().last().expect("the scalar path is always available"))
    }

    /// Every path this CPU supports, the portable one first (for the tests that compare them).
    pub fn available() -> Vec<Kernels> {
        #[allow(unused_mut)]
        let mut paths = vec![Kernels::SCALAR];
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            paths.push(Kernels(Path::Avx2));
        }
        paths
    }

    pub fn name(self) -> &'static str {
        match self.0 {
            Path::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => "avx2",
        }
    }

    /// `out = input + Σ adds − Σ subs`, lane by lane, wrapping in i16.
    #[inline]
    pub fn add_sub(self, out: &mut Column, input: &Column, adds: &[&Column], subs: &[&Column]) {
        match self.0 {
            Path::Scalar => add_sub_scalar(&mut out.0, &input.0, adds, subs),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kernels` holding `Avx2` is only made after detecting AVX2 on this CPU.
            Path::Avx2 => unsafe { avx2::add_sub(&mut out.0, &input.0, adds, subs) },
        }
    }

    /// `Σ clamp(us[i], 0, QA)² · w_us[i] + Σ clamp(them[i], 0, QA)² · w_them[i]`, wrapping in i32.
    /// The weights must lie within ±`OUTPUT_WEIGHT_LIMIT` (the loader guarantees it).
    #[inline]
    pub fn screlu_output(self, us: &Column, them: &Column, w_us: &Column, w_them: &Column) -> i32 {
        match self.0 {
            Path::Scalar => {
                screlu_dot_scalar(&us.0, &w_us.0).wrapping_add(screlu_dot_scalar(&them.0, &w_them.0))
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kernels` holding `Avx2` is only made after detecting AVX2 on this CPU.
            Path::Avx2 => unsafe { avx2::screlu_output(&us.0, &them.0, &w_us.0, &w_them.0) },
        }
    }
}

/// The largest output weight magnitude for which `clamp · w` fits an i16 (`QA · 128 < 2¹⁵`).
pub const OUTPUT_WEIGHT_LIMIT: i16 = i16::MAX / QA as i16;

fn add_sub_scalar(out: &mut [i16; HIDDEN], input: &[i16; HIDDEN], adds: &[&Column], subs: &[&Column]) {
    *out = *input;
    for add in adds {
        for (o, &a) in out.iter_mut().zip(add.0.iter()) {
            *o = o.wrapping_add(a);
        }
    }
    for sub in subs {
        for (o, &s) in out.iter_mut().zip(sub.0.iter()) {
            *o = o.wrapping_sub(s);
        }
    }
}

/// The output formula's sum for one perspective, exactly as the format defines it.
fn screlu_dot_scalar(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
    acc.iter().zip(weights.iter()).fold(0i32, |sum, (&x, &w)| {
        let c = i32::from(x.clamp(0, QA as i16));
        // At most 255² · 2¹⁵ < 2³¹: the product itself never overflows.
        sum.wrapping_add(c * c * i32::from(w))
    })
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::HIDDEN;
    use crate::nnue::{Column, QA};
    use std::arch::x86_64::*;

    /// Lanes of i16 in one 256-bit register.
    const LANES: usize = 16;
    const _: () = assert!(HIDDEN % LANES == 0);

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
    unsafe fn add_sub_any(
        out: &mut [i16; HIDDEN],
        input: &[i16; HIDDEN],
        adds: &[&Column],
        subs: &[&Column],
    ) {
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
        // SAFETY: the caller guarantees AVX2. Every load reads `LANES` i16 starting at
        // `at + LANES <= HIDDEN`, inside its array.
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
}
