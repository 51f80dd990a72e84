//! `EvalFile` and `eval`: which network the searches use, and what it says of the current
//! position.
//!
//! A network file is read and checked at once, so the answer to `setoption` says whether it
//! loaded, naming the whole path (option values hold no control characters); a bad file changes
//! nothing. The switch itself waits for a running search to end (its threads keep the network
//! they started with) and clears the hash table, whose stored evaluations came from the other
//! network. The network is this session's engine's: other sessions of a server keep theirs.

use super::{Change, Session};
use engine::board::Position;
use engine::nnue::{self, Network};
use std::path::Path;
use std::sync::Arc;

/// The network `EvalFile` chose and the file it came from, always set together.
pub(super) struct NetworkChoice {
    pub(super) network: Arc<Network>,
    /// Empty: the embedded network.
    pub(super) path: String,
}

impl NetworkChoice {
    /// The embedded network.
    pub(super) fn embedded() -> NetworkChoice {
        NetworkChoice { network: nnue::default_network(), path: String::new() }
    }

    /// How `setoption` answers name it: the file it came from (none: the embedded one) and its
    /// hash.
    fn describe(&self) -> String {
        if self.path.is_empty() {
            format!("the embedded network {:016x}", self.network.hash())
        } else {
            format!("the network '{}' ({:016x})", self.path, self.network.hash())
        }
    }
}

impl Session {
    /// `setoption name EvalFile value <path>`; an empty path returns to the embedded network.
    pub(super) fn set_eval_file(&mut self, path: &str) {
        let choice = if path.is_empty() {
            NetworkChoice::embedded()
        } else {
            match Network::load_file(Path::new(path)) {
                Ok(network) => NetworkChoice { network: Arc::new(network), path: path.to_string() },
                Err(e) => {
                    self.info(&format!("EvalFile '{path}' not loaded: {e}; the evaluation is unchanged"));
                    return;
                }
            }
        };
        let what = choice.describe();
        self.options.network_choice = choice;
        let when = if self.is_searching() { "from the next search on" } else { "from now on" };
        self.defer(Change::Network(Arc::clone(&self.options.network_choice.network)));
        self.info(&format!("EvalFile: searches use {what} {when}"));
    }

    /// Said once at start-up when `LAZULI_SIMD` names no path, or one this CPU lacks.
    pub fn report_kernel_selection(&mut self) {
        if let Some(problem) = &nnue::simd::Kernels::selection().problem {
            self.info(problem);
        }
    }

    /// `eval`: what the network searches use makes of the current position, bucket by bucket,
    /// and the evaluation the search takes from it.
    pub(super) fn eval(&mut self) {
        let text = describe_evaluation(self.engine.network(), self.root.board.position());
        self.line(&text);
    }
}

/// The text of `eval`: the network, each output bucket's score (the one the position's pieces
/// choose marked), the network's output from both points of view, and the search's evaluation.
fn describe_evaluation(network: &Network, pos: &Position) -> String {
    let pieces = pos.occupied().count();
    let buckets = network.buckets();
    let chosen = nnue::output_bucket(pieces, buckets);
    let sign = pos.side_to_move().sign();
    let mut text = format!(
        "Network {:016x}, {} kernels, {buckets} output bucket{}\n",
        network.hash(),
        network.kernels().name(),
        if buckets == 1 { "" } else { "s" }
    );
    text.push_str("bucket | pieces | side to move | White's view\n");
    for (bucket, stm) in network.bucket_scores(pos).into_iter().enumerate() {
        let range: Vec<u32> = (2..=32).filter(|&p| nnue::output_bucket(p, buckets) == bucket).collect();
        let pieces_text = match (range.first(), range.last()) {
            (Some(first), Some(last)) if first != last => format!("{first}-{last}"),
            (Some(only), _) => only.to_string(),
            _ => "-".to_string(),
        };
        let mark = if bucket == chosen { format!("  <- {pieces} pieces") } else { String::new() };
        text.push_str(&format!(
            "{bucket:>6} | {pieces_text:>6} | {stm:>9} cp | {:>9} cp{mark}\n",
            stm * sign
        ));
    }
    let output = network.evaluate_position(pos);
    let eval = engine::search::evaluation_of_network_output(output);
    text.push_str(&format!(
        "Network output: {} cp (White's view), {output} cp (side to move's view)\n",
        output * sign
    ));
    text.push_str(&format!(
        "Final evaluation: {} cp (White's view), {eval} cp (side to move's view), as the search scales it",
        eval * sign
    ));
    text
}
