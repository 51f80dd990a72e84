//! The one seeded generator of the workspace: SplitMix64. Its whole state is one `u64`, so a
//! stream is saved and resumed by storing that number (the trainer's checkpoints do), and its
//! step is a `const fn`, so tables such as the Zobrist keys are filled at compile time. Every
//! stream is fixed by its seed on every machine: `bench` node counts, self-play openings and
//! training runs repeat exactly.

/// The increment of each step: 2^64 divided by the golden ratio, odd, so the state visits every
/// `u64` before it repeats.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser: a bijective mix of all 64 bits. Also a fixed hash on its own, for
/// choices that must follow from a key rather than from a stream.
pub const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The top 53 bits of `bits` as a number in [0, 1), every value equally likely.
pub fn unit_f64(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    /// The whole state: `Rng::new(state)` continues the stream from here.
    pub state: u64,
}

impl Rng {
    pub const fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub const fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }

    /// Uniform in `0..n`, `n > 0` (multiply-shift: the bias, below n / 2^64, matters nowhere
    /// here, and it costs no division).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in [-1, 1), in steps of 2^-23.
    pub fn symmetric(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    /// Fisher–Yates: every order equally likely.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream is SplitMix64's own: the first outputs for seed 0 of the published generator
    /// (Steele, Lea and Flood's, as in Java's `SplittableRandom` and Vigna's C version).
    #[test]
    fn the_stream_is_splitmix64() {
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn the_step_runs_at_compile_time() {
        const FIRST: u64 = Rng::new(0).next_u64();
        assert_eq!(FIRST, Rng::new(0).next_u64());
    }

    #[test]
    fn the_state_resumes_the_stream() {
        let mut a = Rng::new(7);
        a.next_u64();
        let mut b = Rng::new(a.state);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn draws_stay_in_range() {
        let mut rng = Rng::new(7);
        for n in [1, 2, 3, 10, 1000, u64::MAX] {
            for _ in 0..1000 {
                assert!(rng.below(n) < n);
            }
        }
        for _ in 0..10_000 {
            assert!((-1.0..1.0).contains(&rng.symmetric()));
            assert!((0.0..1.0).contains(&unit_f64(rng.next_u64())));
        }
        assert_eq!(unit_f64(0), 0.0);
        assert!(unit_f64(u64::MAX) < 1.0);
    }

    #[test]
    fn below_covers_every_value() {
        let mut rng = Rng::new(3);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[rng.below(6) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
    }

    #[test]
    fn shuffle_permutes() {
        let mut rng = Rng::new(7);
        let mut v: Vec<u32> = (0..100).collect();
        rng.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        assert_ne!(v, sorted);
        let mut empty: [u8; 0] = [];
        rng.shuffle(&mut empty);
    }
}
