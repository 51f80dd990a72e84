use super::*;
use crate::chess::{feature_index, parse_fen, PieceType};
use crate::optimiser::Schedule;
use crate::trainer::{Settings, State, Trainer};

pub(crate) const FENS: [&str; 10] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "4k3/8/8/8/8/8/8/4K2R b K - 0 1",
    "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1",
    "2kr3r/p1ppqpb1/bn2Qnp1/3PN3/1p2P3/2N5/PPPBBPPP/R3K2R b KQ - 3 2",
];

pub(crate) fn positions() -> Vec<(Vec<Piece>, Colour)> {
    FENS.iter().map(|f| parse_fen(f).expect("a good FEN")).collect()
}

/// A search score and a game result (0, 1, 2) for each of `FENS`.
const SCORES_AND_RESULTS: [(i16, u8); 10] =
    [(35, 2), (-120, 0), (300, 2), (0, 1), (-40, 1), (800, 2), (-15, 0), (60, 1), (5, 0), (-300, 0)];

fn entries(objective_scores: &[(i16, u8)]) -> Vec<Entry> {
    positions()
        .iter()
        .zip(objective_scores)
        .map(|((pieces, stm), &(score, result))| Entry::new(pieces, *stm, score, result))
        .collect()
}

/// An independent f64 evaluation of the mean error, straight from the architecture's definition
/// (docs/network-format.md) for `buckets` output buckets.
fn reference_loss(params: &[f64], h: usize, buckets: usize, data: &[Entry], obj: &Objective) -> f64 {
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    let mut total = 0.0;
    for e in data {
        let stm = e.side_to_move();
        let pieces = e.pieces().count();
        let bucket = (pieces.clamp(2, 32) - 2) * buckets / 31;
        let out_w = INPUTS * h + h + bucket * 2 * h;
        let mut out = params[INPUTS * h + h + buckets * 2 * h + bucket];
        for (side, perspective) in [(0, stm), (1, stm.flip())] {
            for i in 0..h {
                let mut acc = params[INPUTS * h + i];
                for p in e.pieces() {
                    acc += params[feature_index(perspective, p.colour, p.kind, p.square) * h + i];
                }
                let c = acc.clamp(0.0, 1.0);
                out += c * c * params[out_w + side * h + i];
            }
        }
        let target = f64::from(obj.wdl) * f64::from(e.result())
            + (1.0 - f64::from(obj.wdl)) * sig(f64::from(e.score()) / f64::from(obj.k));
        let p = sig(out * f64::from(SCALE) / f64::from(obj.k));
        total += (p - target).abs().powf(f64::from(obj.power));
    }
    total / data.len() as f64
}

#[test]
fn gradients_match_finite_differences() {
    let h = 5;
    let data = entries(&SCORES_AND_RESULTS);
    // Four buckets: the positions' piece counts fall in three of them, and the fourth must get
    // no gradient.
    for (seed, power, buckets) in [(1u64, 2.0f32, 1), (2, 2.5, 1), (3, 2.0, 4)] {
        let mut rng = Rng::new(seed);
        let mut net = Network::random(h, buckets, &mut rng);
        // Larger weights and biases than the start of training, so that some accumulators sit
        // inside (0, 1), some below and some above.
        for w in net.params.iter_mut() {
            *w = 0.35 * rng.symmetric();
        }
        let obj = Objective { wdl: 0.3, power, k: 400.0 };
        let mut grads = Gradients::new(h, buckets);
        let mut scratch = Scratch::new(h);
        let weight = 1.0 / data.len() as f32;
        let mut loss = 0.0;
        for e in &data {
            loss += backward(&net, e, &obj, weight, &mut scratch, &mut grads) as f64 * f64::from(weight);
        }
        let mut params: Vec<f64> = net.params.iter().map(|&w| f64::from(w)).collect();
        let base = reference_loss(&params, h, buckets, &data, &obj);
        assert!((loss - base).abs() < 1e-5 * base.max(1e-3), "forward {loss} vs reference {base}");

        let eps = 1e-6;
        let mut checked = 0;
        for i in 0..params.len() {
            let keep = params[i];
            params[i] = keep + eps;
            let up = reference_loss(&params, h, buckets, &data, &obj);
            params[i] = keep - eps;
            let down = reference_loss(&params, h, buckets, &data, &obj);
            params[i] = keep;
            let numeric = (up - down) / (2.0 * eps);
            let analytic = f64::from(grads.values[i]);
            let tolerance = 2e-3 * numeric.abs().max(analytic.abs()) + 1e-7;
            assert!(
                (numeric - analytic).abs() <= tolerance,
                "param {i}: numeric {numeric}, analytic {analytic}"
            );
            if numeric.abs() > 1e-5 {
                checked += 1;
            }
        }
        assert!(checked > 200, "only {checked} parameters had a gradient to check");
    }
}

#[test]
fn the_loss_of_an_evaluation_is_the_loss_of_the_network_that_gave_it() {
    let data = entries(&SCORES_AND_RESULTS);
    let h = 8;
    let mut rng = Rng::new(7);
    let mut net = Network::random(h, 8, &mut rng);
    for w in net.params.iter_mut() {
        *w = 0.35 * rng.symmetric();
    }
    let params: Vec<f64> = net.params.iter().map(|&w| f64::from(w)).collect();
    let obj = Objective { wdl: 0.3, power: 2.0, k: 150.0 };
    for e in &data {
        let pieces: Vec<_> = e.pieces().collect();
        let centipawns = net.output(&pieces, e.side_to_move()) * SCALE;
        let reference = reference_loss(&params, h, 8, std::slice::from_ref(e), &obj);
        let got = f64::from(loss_of_eval(centipawns, e, &obj));
        assert!((got - reference).abs() < 1e-5, "{got} against {reference}");
    }
    // With the result given no weight, an evaluation equal to the search score costs nothing.
    let score_only = Objective { wdl: 0.0, power: 2.0, k: 150.0 };
    assert!(loss_of_eval(300.0, &data[2], &score_only) < 1e-12);
    assert!(loss_of_eval(-300.0, &data[2], &score_only) > 0.1);
}

#[test]
fn clearing_and_adding_gradients_touch_only_used_rows() {
    let h = 4;
    let net = Network::random(h, 1, &mut Rng::new(9));
    let data = entries(&[(50, 2), (-50, 0)]);
    let obj = Objective::default();
    let mut scratch = Scratch::new(h);
    let (mut a, mut b) = (Gradients::new(h, 1), Gradients::new(h, 1));
    backward(&net, &data[0], &obj, 1.0, &mut scratch, &mut a);
    backward(&net, &data[1], &obj, 1.0, &mut scratch, &mut b);
    let mut both = Gradients::new(h, 1);
    backward(&net, &data[0], &obj, 1.0, &mut scratch, &mut both);
    backward(&net, &data[1], &obj, 1.0, &mut scratch, &mut both);
    a.add(&b);
    for (x, y) in a.values.iter().zip(&both.values) {
        assert!((x - y).abs() <= 1e-6 * x.abs().max(1.0));
    }
    a.clear();
    assert!(a.values.iter().all(|&v| v == 0.0));
}

/// Random legal-looking positions: two kings and up to 12 other pieces.
pub(crate) fn random_position(rng: &mut Rng) -> (Vec<Piece>, Colour) {
    let mut used = [false; 64];
    let mut pieces = Vec::new();
    let mut place = |rng: &mut Rng, colour, kind: PieceType| loop {
        let square = rng.below(64) as u8;
        let pawn_rank_ok = kind != PieceType::Pawn || (8..56).contains(&square);
        if !used[square as usize] && pawn_rank_ok {
            used[square as usize] = true;
            return Piece { colour, kind, square };
        }
    };
    pieces.push(place(rng, Colour::White, PieceType::King));
    pieces.push(place(rng, Colour::Black, PieceType::King));
    for _ in 0..rng.below(13) {
        let colour = if rng.below(2) == 0 { Colour::White } else { Colour::Black };
        let kind = PieceType::from_index(rng.below(5) as usize).expect("0..5");
        pieces.push(place(rng, colour, kind));
    }
    let stm = if rng.below(2) == 0 { Colour::White } else { Colour::Black };
    (pieces, stm)
}

/// Material balance, White's view, in centipawns.
pub(crate) fn material(pieces: &[Piece]) -> i32 {
    const VALUE: [i32; 6] = [100, 300, 320, 500, 900, 0];
    pieces.iter().map(|p| if p.colour == Colour::White { 1 } else { -1 } * VALUE[p.kind.index()]).sum()
}

/// Random positions labelled with their material balance (side to move's view after packing).
pub(crate) fn material_data(count: usize, seed: u64) -> Vec<Entry> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let (pieces, stm) = random_position(&mut rng);
            let score = material(&pieces).clamp(-3000, 3000);
            let result = match score {
                s if s > 150 => 2,
                s if s < -150 => 0,
                _ => 1,
            };
            Entry::new(&pieces, stm, score as i16, result)
        })
        .collect()
}

#[test]
fn a_tiny_network_learns_material() {
    let data = material_data(4000, 42);
    let settings = Settings {
        epochs: 20,
        batch: 256,
        lr: 0.01,
        schedule: Schedule::Step { every: 15, gamma: 0.3 },
        objective: Objective { wdl: 0.0, power: 2.0, k: 400.0 },
        mirror: true,
    };
    let mut trainer = Trainer::new(State::new(16, 1, 0.01, 5));
    let start = trainer.mean_loss(&data, &settings.objective);
    let mut losses = Vec::new();
    trainer
        .run(&data, &[], &settings, &mut |report, _| {
            losses.push(report.train_loss);
            Ok(())
        })
        .unwrap();
    let end = trainer.mean_loss(&data, &settings.objective);
    assert_eq!(losses.len(), 20);
    assert!(end < start * 0.1, "loss {start} -> {end}");
}

#[test]
fn the_fitted_eval_scale_is_the_one_the_results_were_drawn_with() {
    // For each score, wins and losses in the proportion sigmoid(score / 150).
    let mut scored = Vec::new();
    for score in (-600..=600).step_by(20) {
        let wins = (100.0 * sigmoid(score as f32 / 150.0)).round() as usize;
        scored.extend((0..100).map(|n| (score as i16, if n < wins { 2 } else { 0 })));
    }
    let (pieces, stm) = &positions()[0];
    let data: Vec<Entry> =
        scored.iter().map(|&(score, result)| Entry::new(pieces, *stm, score, result)).collect();
    let fitted = fitted_eval_scale(&data);
    assert!((fitted - 150.0).abs() < 3.0, "fitted {fitted}");
}
