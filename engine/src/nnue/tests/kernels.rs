//! Every SIMD path this CPU has gives the portable path's integers, on random and extreme
//! values: accumulators across the whole i16 range (wrapping included), the clamp edges 0 and
//! QA, output weights up to the ±128 the loader allows.

use super::{extreme_network, Rng};
use crate::board::Position;
use crate::nnue::simd::{Kernels, Selection, OUTPUT_WEIGHT_LIMIT};
use crate::nnue::{Column, Network, HIDDEN, QA};

fn extreme_column(rng: &mut Rng) -> Column {
    Column(std::array::from_fn(|_| rng.extreme_i16()))
}

fn weight_column(rng: &mut Rng) -> Column {
    Column(std::array::from_fn(|_| rng.within(OUTPUT_WEIGHT_LIMIT)))
}

/// The output sum straight from the formula, in i64, then wrapped to i32 as the format's i32
/// sum wraps.
fn formula_sum(us: &Column, them: &Column, w_us: &Column, w_them: &Column) -> i32 {
    let side = |acc: &Column, w: &Column| -> i64 {
        acc.0
            .iter()
            .zip(w.0.iter())
            .map(|(&x, &w)| i64::from(x.clamp(0, QA as i16)).pow(2) * i64::from(w))
            .sum()
    };
    (side(us, w_us) + side(them, w_them)) as i32
}

#[test]
fn the_scalar_output_is_the_formula() {
    let mut rng = Rng::new(0x51);
    for _ in 0..2000 {
        let columns: [Column; 4] =
            std::array::from_fn(|i| if i < 2 { extreme_column(&mut rng) } else { weight_column(&mut rng) });
        let [us, them, w_us, w_them] = &columns;
        assert_eq!(
            Kernels::SCALAR.screlu_output(us, them, w_us, w_them),
            formula_sum(us, them, w_us, w_them)
        );
    }
    // Everything at the top: 512 · 255² · 128 overflows i32 and wraps the same way.
    let full = Column([i16::MAX; HIDDEN]);
    let top = Column([OUTPUT_WEIGHT_LIMIT; HIDDEN]);
    assert_eq!(
        Kernels::SCALAR.screlu_output(&full, &full, &top, &top),
        formula_sum(&full, &full, &top, &top)
    );
}

#[test]
fn every_path_gives_the_scalar_output() {
    let mut rng = Rng::new(0x52);
    let paths = Kernels::available();
    eprintln!("kernels compared: {:?}", paths.iter().map(|k| k.name()).collect::<Vec<_>>());
    let edges = [
        (Column([i16::MAX; HIDDEN]), Column([OUTPUT_WEIGHT_LIMIT; HIDDEN])),
        (Column([QA as i16; HIDDEN]), Column([-OUTPUT_WEIGHT_LIMIT; HIDDEN])),
        (Column([i16::MIN; HIDDEN]), Column([OUTPUT_WEIGHT_LIMIT; HIDDEN])),
        (Column([QA as i16 + 1; HIDDEN]), Column([127; HIDDEN])),
    ];
    for round in 0..5000 {
        let (us, them, w_us, w_them) = if round < edges.len() * edges.len() {
            let (a, wa) = &edges[round % edges.len()];
            let (b, wb) = &edges[round / edges.len()];
            (*a, *b, *wa, *wb)
        } else {
            (
                extreme_column(&mut rng),
                extreme_column(&mut rng),
                weight_column(&mut rng),
                weight_column(&mut rng),
            )
        };
        let expected = Kernels::SCALAR.screlu_output(&us, &them, &w_us, &w_them);
        for &path in &paths {
            assert_eq!(
                path.screlu_output(&us, &them, &w_us, &w_them),
                expected,
                "{} in round {round}",
                path.name()
            );
        }
    }
}

#[test]
fn every_path_gives_the_scalar_updates() {
    let mut rng = Rng::new(0x53);
    for round in 0..5000 {
        let input = extreme_column(&mut rng);
        let columns: Vec<Column> = (0..8).map(|_| extreme_column(&mut rng)).collect();
        let (adds, subs) = columns.split_at(4);
        let adds: Vec<&Column> = adds.iter().take(rng.below(5)).collect();
        let subs: Vec<&Column> = subs.iter().take(rng.below(3)).collect();
        let mut expected = Column::ZERO;
        Kernels::SCALAR.add_sub(&mut expected, &input, &adds, &subs);
        for lane in 0..HIDDEN {
            let mut v = input.0[lane];
            adds.iter().for_each(|c| v = v.wrapping_add(c.0[lane]));
            subs.iter().for_each(|c| v = v.wrapping_sub(c.0[lane]));
            assert_eq!(expected.0[lane], v, "scalar lane {lane}");
        }
        for path in Kernels::available() {
            let mut out = extreme_column(&mut rng);
            path.add_sub(&mut out, &input, &adds, &subs);
            assert_eq!(
                out,
                expected,
                "{} in round {round} ({} adds, {} subs)",
                path.name(),
                adds.len(),
                subs.len()
            );
        }
    }
}

#[test]
fn every_path_evaluates_positions_alike() {
    let positions: Vec<Position> = super::epd_positions("perft.epd").into_iter().take(60).collect();
    for network in [Network::random(11), extreme_network(12, 8)] {
        let bytes = network.to_bytes();
        let scalar = Network::from_bytes(&bytes).expect("reads back").with_kernels(Kernels::SCALAR);
        for path in Kernels::available() {
            let other = Network::from_bytes(&bytes).expect("reads back").with_kernels(path);
            for pos in &positions {
                assert_eq!(other.accumulate(pos), scalar.accumulate(pos), "{}", path.name());
                assert_eq!(other.evaluate_position(pos), scalar.evaluate_position(pos), "{}", path.name());
            }
        }
    }
}

#[test]
fn the_simd_variable_caps_the_path_and_names_what_it_cannot_follow() {
    let available = Kernels::available();
    let fastest = *available.last().unwrap();
    for request in [None, Some(""), Some("  ")] {
        assert_eq!(Kernels::select(request), Selection { kernels: fastest, problem: None });
    }
    let bogus = Kernels::select(Some("sse9"));
    assert_eq!(bogus.kernels, fastest);
    assert!(bogus.problem.as_deref().is_some_and(|p| p.contains("sse9") && p.contains(fastest.name())));
    assert_eq!(Kernels::select(Some("scalar")), Selection { kernels: Kernels::SCALAR, problem: None });
    for (rank, name) in ["scalar", "avx2", "avx512"].into_iter().enumerate() {
        for spelling in [name.to_string(), name.to_uppercase()] {
            let chosen = Kernels::select(Some(&spelling));
            // The fastest available path at or below the one named.
            let expected = *available.iter().take_while(|k| rank_of(k) <= rank).last().unwrap();
            assert_eq!(chosen.kernels, expected, "{spelling}");
            assert_eq!(chosen.problem.is_some(), expected.name() != name, "{spelling}: {:?}", chosen.problem);
        }
    }
}

fn rank_of(kernels: &Kernels) -> usize {
    ["scalar", "avx2", "avx512"].iter().position(|&n| n == kernels.name()).unwrap()
}

#[test]
fn every_path_the_cpu_offers_is_built_and_offered() {
    let names: Vec<&str> = Kernels::available().iter().map(|k| k.name()).collect();
    assert_eq!(names.first(), Some(&"scalar"));
    #[cfg(target_arch = "x86_64")]
    {
        // The toolchain the workspace declares (Rust 1.95) has the AVX-512 intrinsics: a build
        // probe that finds none is broken, and would leave the AVX-512 path out unseen.
        #[cfg(not(has_avx512_intrinsics))]
        panic!("the build probe found no AVX-512 intrinsics");
        let avx2 = std::is_x86_feature_detected!("avx2");
        let avx512 = std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw");
        assert_eq!(names.contains(&"avx2"), avx2, "{names:?}");
        assert_eq!(names.contains(&"avx512"), avx512, "{names:?}");
        println!("paths this CPU runs in the kernel tests: {names:?}");
    }
}
