//! The single writer of standard output: whole lines, flushed, from any thread.

use parking_lot::Mutex;
use smp::engine::board::Move;
use smp::engine::search::score::uci_score;
use smp::engine::search::{Bound, Reporter, SearchInfo};
use std::io::Write;
use std::sync::Arc;

#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output { sink: Arc::new(Mutex::new(sink)) }
    }

    /// Write one line (or several joined by newlines) and flush. Output errors (a closed pipe)
    /// are ignored: there is no one left to tell.
    pub fn line(&self, text: &str) {
        let mut sink = self.sink.lock();
        let _ = writeln!(sink, "{text}");
        let _ = sink.flush();
    }

    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }
}

/// Formats search progress as UCI `info` lines.
pub struct UciReporter {
    pub out: Output,
    pub chess960: bool,
}

pub fn format_info(info: &SearchInfo, chess960: bool) -> String {
    let ms = info.time.as_millis().max(1) as u64;
    let nps = info.nodes.saturating_mul(1000) / ms;
    let bound = match info.bound {
        Bound::Exact => "",
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
    };
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_uci(chess960)).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {}{} nodes {} nps {} hashfull {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        uci_score(info.score),
        bound,
        info.nodes,
        nps,
        info.hashfull,
        info.time.as_millis(),
        pv.join(" ")
    )
    .trim_end()
    .to_string()
}

impl Reporter for UciReporter {
    fn info(&self, info: &SearchInfo) {
        self.out.line(&format_info(info, self.chess960));
    }

    fn current_move(&self, depth: i32, mv: Move, number: usize) {
        self.out.line(&format!(
            "info depth {depth} currmove {} currmovenumber {number}",
            mv.to_uci(self.chess960)
        ));
    }
}
