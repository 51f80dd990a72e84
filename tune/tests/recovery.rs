//! End to end: positions labelled by a *different* parameter set are tuned from the built-in set,
//! and the tuner must move the weights towards the labelling set and cut the error (a sign or
//! index mistake anywhere in linearisation, gradient or write-back fails it).

use engine::board::Position;
use engine::eval::{evaluate_uncached, Params};
use std::path::Path;
use tune::dataset::Labelled;
use tune::optimizer::sigmoid;
use tune::tuner::{tune, Settings};

fn positions() -> Vec<Position> {
    // The repository's test data, as for the other tests.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
    let mut out = Vec::new();
    for file in ["perft.epd", "perft960.epd"] {
        let text = std::fs::read_to_string(data.join(file)).expect("test data present");
        for line in text.lines() {
            let fen = line.split(';').next().unwrap_or("").trim();
            if let Ok(pos) = Position::from_fen(fen) {
                out.push(pos);
            }
        }
    }
    out
}

#[test]
fn tuning_recovers_a_changed_weight() {
    let start = Params::DEFAULT;
    let list = start.list();
    let knight = list.iter().position(|p| p.name == "material[n]").expect("listed");
    let rook_open = list.iter().position(|p| p.name == "bishop_pair").expect("listed");
    // The labelling set: knights worth 80 more, the bishop pair 40 more (mg and eg).
    let mut truth = start.clone();
    let (n, r) = (start.get(knight).expect("exists"), start.get(rook_open).expect("exists"));
    truth.set(knight, n.mg() + 80, n.eg() + 80);
    truth.set(rook_open, r.mg() + 40, r.eg() + 40);

    // Expected scores of the true evaluation serve as (fractional) results.
    let k = 1.0;
    let labelled: Vec<Labelled> = positions()
        .into_iter()
        .map(|position| {
            let white = evaluate_uncached(&position, &truth) * position.side_to_move().sign();
            Labelled { position, score: 0.0, result: sigmoid(k, white as f64) as f32 }
        })
        .collect();
    assert!(labelled.len() > 1000, "{} positions", labelled.len());
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    for (i, entry) in labelled.into_iter().enumerate() {
        if i % 10 == 0 {
            valid.push(entry);
        } else {
            train.push(entry);
        }
    }

    let settings = Settings { rounds: 2, epochs: 600, rate: 2.0, lambda: 1.0, l2: 0.0, min_positions: 1 };
    let outcome = tune(&train, &valid, &start, &settings, &mut |_| {});
    assert!((outcome.k - k).abs() < 0.25, "K {}", outcome.k);
    assert!(
        outcome.after.0 < outcome.before.0 / 4.0,
        "train error {:?} -> {:?}",
        outcome.before,
        outcome.after
    );
    assert!(
        outcome.after.1 < outcome.before.1 / 2.0,
        "held-out error {:?} -> {:?}",
        outcome.before,
        outcome.after
    );
    let tuned = outcome.params.get(knight).expect("exists");
    assert!(tuned.mg() + tuned.eg() > n.mg() + n.eg() + 80, "knight {tuned:?} from {n:?}");
    let tuned = outcome.params.get(rook_open).expect("exists");
    // Far fewer positions show the pair, and other weights share its effect: ask for the direction.
    assert!(tuned.mg() + tuned.eg() > r.mg() + r.eg() + 10, "bishop pair {tuned:?} from {r:?}");
}
