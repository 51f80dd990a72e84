//! The network's inner loops, the only code of the network that uses `unsafe`: adding and
//! subtracting feature columns to and from an accumulator, and the SCReLU output layer.
//!
//! Each loop exists as portable scalar code, as AVX2 code and as AVX-512 code (F and BW). Which
//! one runs is decided once per process by run-time detection (`Kernels::detected`); the default
//! build targets the baseline x86-64 and gains the wider paths on every CPU that has them. A
//! `Kernels` value can only be made for code the CPU runs, so the safe functions below never
//! execute an instruction the CPU lacks. Every path gives the same integers (the tests compare
//! them on random and extreme values):
//!
//! - the accumulator arithmetic is i16 with wrap-around in every path (a network written by the
//!   trainer never comes near the limits; one that does still evaluates the same everywhere);
//! - the output layer computes `clamp(x, 0, QA)² · w` summed in i32 with wrap-around. The vector
//!   paths multiply `clamp · w` in i16 first, which is exact because the loader refuses output
//!   weights beyond `OUTPUT_WEIGHT_LIMIT` (`QA · 128` fits an i16).
//!
//! The AVX-512 intrinsics need Rust 1.89: the build script sets `has_avx512_intrinsics` where the
//! compiler has them (every toolchain the workspace's declared Rust 1.95 allows; a test fails if
//! the probe finds none), and a compiler without them builds without that path.

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
    #[cfg(all(target_arch = "x86_64", has_avx512_intrinsics))]
    Avx512,
}

/// Every path's name, slowest first, whether or not this build or CPU has it.
const PATH_NAMES: [&str; 3] = ["scalar", "avx2", "avx512"];

/// The environment variable that caps the kernels at a path (`scalar`, `avx2` or `avx512`): the
/// fastest one this CPU has at or below it runs. It lets one binary measure a path against
/// another, and serves CPUs whose clock drops when they run the widest vectors.
pub const SIMD_VARIABLE: &str = "LAZULI_SIMD";

/// The kernels chosen for this process and, when `LAZULI_SIMD` asked for what could not be
/// given, a sentence saying so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub kernels: Kernels,
    pub problem: Option<String>,
}

impl Kernels {
    /// The portable loops, which every CPU runs.
    pub const SCALAR: Kernels = Kernels(Path::Scalar);

    /// The fastest path this CPU supports, capped by `LAZULI_SIMD`; decided on the first call.
    pub fn detected() -> Kernels {
        Kernels::selection().kernels
    }

    /// What `detected` returns, with the reason when `LAZULI_SIMD` could not be followed.
    pub fn selection() -> &'static Selection {
        static SELECTED: OnceLock<Selection> = OnceLock::new();
        SELECTED.get_or_init(|| match std::env::var_os(SIMD_VARIABLE) {
            None => Kernels::select(None),
            Some(value) => Kernels::select(Some(&value.to_string_lossy())),
        })
    }

    /// The fastest available path at or below `request` (a path's name; none or empty: no cap).
    pub fn select(request: Option<&str>) -> Selection {
        let available = Kernels::available();
        let fastest = *available.last().expect("the scalar path is always available");
        let Some(request) = request.map(str::trim).filter(|r| !r.is_empty()) else {
            return Selection { kernels: fastest, problem: None };
        };
        let Some(cap) = PATH_NAMES.iter().position(|name| name.eq_ignore_ascii_case(request)) else {
            let problem = format!(
                "{SIMD_VARIABLE}={request} is not one of {}; using {}",
                PATH_NAMES.join(", "),
                fastest.name()
            );
            return Selection { kernels: fastest, problem: Some(problem) };
        };
        let kernels =
            *available.iter().rev().find(|k| k.rank() <= cap).expect("the scalar path is below every cap");
        let problem = (kernels.rank() < cap).then(|| {
            format!(
                "{SIMD_VARIABLE}={request}: this CPU or build has no {request} path; using {}",
                kernels.name()
            )
        });
        Selection { kernels, problem }
    }

    /// Every path this CPU supports, the portable one first (for the tests that compare them).
    pub fn available() -> Vec<Kernels> {
        #[allow(unused_mut)]
        let mut paths = vec![Kernels::SCALAR];
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            paths.push(Kernels(Path::Avx2));
        }
        #[cfg(all(target_arch = "x86_64", has_avx512_intrinsics))]
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw") {
            paths.push(Kernels(Path::Avx512));
        }
        paths
    }

    pub fn name(self) -> &'static str {
        PATH_NAMES[self.rank()]
    }

    /// The path's place in `PATH_NAMES`.
    fn rank(self) -> usize {
        match self.0 {
            Path::Scalar => 0,
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => 1,
            #[cfg(all(target_arch = "x86_64", has_avx512_intrinsics))]
            Path::Avx512 => 2,
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
            #[cfg(all(target_arch = "x86_64", has_avx512_intrinsics))]
            // SAFETY: a `Kernels` holding `Avx512` is only made after detecting AVX-512 F and BW.
            Path::Avx512 => unsafe { avx512::add_sub(&mut out.0, &input.0, adds, subs) },
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
            #[cfg(all(target_arch = "x86_64", has_avx512_intrinsics))]
            // SAFETY: a `Kernels` holding `Avx512` is only made after detecting AVX-512 F and BW.
            Path::Avx512 => unsafe { avx512::screlu_output(&us.0, &them.0, &w_us.0, &w_them.0) },
        }
    }
}

/// The largest output weight magnitude for which `clamp · w` fits an i16 (`QA · 128 < 2¹⁵`).
pub const OUTPUT_WEIGHT_LIMIT: i16 = nnue_format::OUTPUT_WEIGHT_LIMIT as i16;

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
mod avx2;
// Compiled only from Rust 1.89 on, where its intrinsics are stable.
#[cfg(all(target_arch = "x86_64", has_avx512_intrinsics))]
#[clippy::msrv = "1.89"]
mod avx512;
