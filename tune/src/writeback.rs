//! Turning tuned values back into the parameter set and into `engine/src/eval/tuned.rs`.

use engine::eval::Params;
use std::fs;
use std::io;
use std::path::Path;

/// The base set moved by `delta` (interleaved mg, eg per parameter), rounded to whole
/// centipawns and kept inside the packed score's range.
pub fn apply(base: &Params, delta: &[f64]) -> Params {
    let mut out = base.clone();
    for i in 0..base.len() {
        let score = base.get(i).expect("index in range");
        let round = |v: f64| v.round().clamp(-16_000.0, 16_000.0) as i32;
        out.set(i, round(score.mg() as f64 + delta[2 * i]), round(score.eg() as f64 + delta[2 * i + 1]));
    }
    out
}

/// The text of `tuned.rs` for `params`, with `provenance` lines in its header.
pub fn tuned_source(params: &Params, provenance: &[String]) -> String {
    let mut out = String::new();
    out.push_str("//! The evaluation parameters the engine plays with (`Params::DEFAULT`), written by\n");
    out.push_str(
        "//! `lazuli-tune`; change the tuner or its data rather than editing the numbers by hand.\n",
    );
    if !provenance.is_empty() {
        out.push_str("//!\n");
        for line in provenance {
            out.push_str(&format!("//! {line}\n"));
        }
    }
    out.push_str("\nuse super::params::Params;\nuse super::score::s;\n\n#[rustfmt::skip]\n");
    out.push_str(&format!("pub(super) const TUNED: Params = {};\n", params.to_source()));
    out
}

pub fn write(path: &Path, params: &Params, provenance: &[String]) -> io::Result<()> {
    fs::write(path, tuned_source(params, provenance))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_rounds_and_moves_every_parameter() {
        let base = Params::HAND_SET;
        let mut delta = vec![0.0; 2 * base.len()];
        delta[0] = 2.6;
        delta[1] = -1.4;
        let moved = apply(&base, &delta);
        let (old, new) = (base.get(0).expect("exists"), moved.get(0).expect("exists"));
        assert_eq!((new.mg(), new.eg()), (old.mg() + 3, old.eg() - 1));
        assert_eq!(apply(&base, &vec![0.0; 2 * base.len()]), base);
    }

    #[test]
    fn source_contains_every_parameter_group() {
        let text = tuned_source(&Params::HAND_SET, &["from a test".to_string()]);
        assert!(text.contains("//! from a test"));
        assert!(text.contains("pub(super) const TUNED: Params = Params {"));
        assert!(text.contains("    tempo: s("));
    }
}
