//! `EvalFile` and `eval`: which evaluation the searches use, and what it says of the current
//! position.
//!
//! A network file is read and checked at once, so the answer to `setoption` says whether it
//! loaded, naming the whole path (option values hold no control characters); a bad file changes
//! nothing. The switch itself waits for a running search to end (its threads keep the evaluation
//! they started with) and clears the hash table, whose stored evaluations came from the other
//! evaluation.

use super::Session;
use engine::nnue::{self, Network};
use std::path::Path;
use std::sync::Arc;

const HAND_CRAFTED: &str = "the hand-crafted evaluation";

/// The network `EvalFile` chose and the file it came from, always set together.
pub(super) struct NetworkChoice {
    /// `None`: there is no network (none embedded, none loaded).
    pub(super) network: Option<Arc<Network>>,
    /// Empty: the embedded network.
    pub(super) path: String,
}

impl NetworkChoice {
    /// The embedded network, if the build has one.
    pub(super) fn embedded() -> NetworkChoice {
        NetworkChoice { network: nnue::default_network(), path: String::new() }
    }

    /// How `setoption` answers name it: the file it came from (none: the embedded one) and its
    /// hash; with no network, the hand-crafted evaluation.
    fn describe(&self) -> String {
        match &self.network {
            Some(network) if self.path.is_empty() => format!("the embedded network {:016x}", network.hash()),
            Some(network) => format!("the network '{}' ({:016x})", self.path, network.hash()),
            None => HAND_CRAFTED.to_string(),
        }
    }
}

impl Session {
    /// `setoption name EvalFile value <path>`; an empty path returns to the default evaluation.
    pub(super) fn set_eval_file(&mut self, path: &str) {
        let choice = if path.is_empty() {
            NetworkChoice::embedded()
        } else {
            match Network::load_file(Path::new(path)) {
                Ok(network) => NetworkChoice { network: Some(Arc::new(network)), path: path.to_string() },
                Err(e) => {
                    self.info(&format!("EvalFile '{path}' not loaded: {e}; the evaluation is unchanged"));
                    return;
                }
            }
        };
        let named = choice.describe();
        self.network_choice = choice;
        let what = if self.use_nnue {
            named
        } else {
            format!("{HAND_CRAFTED} (Use NNUE is off; {named} is kept for it)")
        };
        self.switch_evaluation("EvalFile", &what);
    }

    /// `setoption name Use NNUE value <bool>`: off, the hand-crafted evaluation; on, the network
    /// `EvalFile` chose (or the embedded one).
    pub(super) fn set_use_nnue(&mut self, on: bool) {
        self.use_nnue = on;
        let what = match (&self.network_choice.network, on) {
            (Some(_), true) => self.network_choice.describe(),
            (None, true) => format!("{HAND_CRAFTED}: no network is loaded or embedded"),
            (_, false) => HAND_CRAFTED.to_string(),
        };
        self.switch_evaluation("Use NNUE", &what);
    }

    /// Ask for the evaluation the options now name, and say which it is.
    fn switch_evaluation(&mut self, option: &str, what: &str) {
        let when = if self.is_searching() { "from the next search on" } else { "from now on" };
        self.pending.network = Some(self.network_choice.network.clone().filter(|_| self.use_nnue));
        self.apply_pending_if_idle();
        self.info(&format!("{option}: searches use {what} {when}"));
    }

    /// Make a loaded `EvalFile` choice the active one (between searches only).
    pub(super) fn apply_pending_network(&mut self) {
        if let Some(network) = self.pending.network.take() {
            let same = match (&network, nnue::active()) {
                (Some(new), Some(old)) => Arc::ptr_eq(new, &old),
                (new, old) => new.is_none() && old.is_none(),
            };
            if !same {
                nnue::set_active(network);
                self.engine.clear_hash();
            }
        }
    }

    /// Said once at start-up when `LAZULI_SIMD` names no path, or one this CPU lacks.
    pub fn report_kernel_selection(&mut self) {
        if let Some(problem) = &nnue::simd::Kernels::selection().problem {
            self.info(problem);
        }
    }

    /// `eval`: the hand-crafted evaluation's breakdown, then the network's verdict if searches
    /// use one.
    pub(super) fn eval(&mut self) {
        let pos = *self.board.position();
        let mut text = engine::eval::trace(&pos).trim_end().to_string();
        match nnue::active() {
            Some(network) => {
                let stm = network.evaluate_position(&pos);
                let white = stm * pos.side_to_move().sign();
                text.push_str(&format!(
                    "\nNetwork {:016x}: {white} cp (White's view), {stm} cp (side to move's view); \
                     searches use the network ({} kernels)",
                    network.hash(),
                    network.kernels().name()
                ));
            }
            None => text.push_str("\nNo network in use; searches use the hand-crafted evaluation"),
        }
        self.line(&text);
    }
}
