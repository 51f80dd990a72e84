//! The single writer of standard output: whole lines, flushed, from any thread.

use crate::wdl::wdl;
use arc_swap::ArcSwap;
use engine::board::Move;
use engine::search::score::uci_score;
use engine::search::{Bound, Reporter, SearchInfo, SearchResult};
use parking_lot::Mutex;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Sink>>,
}

struct Sink {
    writer: Box<dyn Write + Send>,
    /// What a failed write does: end the process (standard output), or whatever a network
    /// session needs (`Output::remote`). Called once; later lines are dropped.
    on_closed: Option<Box<dyn FnOnce() + Send>>,
    closed: bool,
}

impl Output {
    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    /// Lines to `sink`; when it cannot be written (the GUI closed the engine's output), the
    /// process ends: nobody can read a result any more, and a search left running would keep
    /// every core busy.
    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output::with_closed_hook(
            sink,
            Box::new(|| {
                tracing::info!("output closed; quitting");
                std::process::exit(0);
            }),
        )
    }

    /// Lines to `sink`; the first write that fails calls `on_closed` (for a network client:
    /// stop its search, end its session) and every line after it is dropped.
    pub fn with_closed_hook(sink: Box<dyn Write + Send>, on_closed: Box<dyn FnOnce() + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(Sink { writer: sink, on_closed: Some(on_closed), closed: false })),
        }
    }

    /// Write one line (or several joined by newlines) and flush. Every line also goes to the
    /// debug log.
    ///
    /// The debug log gets the line first, outside the lock, so that it holds every line a
    /// client may already have read; the lock is held only for the write itself: a thread
    /// preempted while holding it would delay every other line, `bestmove` included.
    pub fn line(&self, text: &str) {
        self.line_after(text, || {});
    }

    /// `line`, running `first` under the output's lock just before the write: no other line
    /// can come between the two.
    pub fn line_after(&self, text: &str, first: impl FnOnce()) {
        self.line_if(text, || {
            first();
            true
        });
    }

    /// `line`, unless `wanted`, asked under the output's lock just before the write, says no
    /// (a line that must not follow some other line).
    pub fn line_if(&self, text: &str, wanted: impl FnOnce() -> bool) {
        for line in text.lines() {
            tracing::info!("out: {line}");
        }
        let mut sink = self.sink.lock();
        if !wanted() || sink.closed {
            return;
        }
        // One write for the whole text: a socket sends it as one packet, not the text and then
        // its newline.
        let whole = format!("{text}\n");
        let Sink { writer, .. } = &mut *sink;
        if writer.write_all(whole.as_bytes()).and_then(|()| writer.flush()).is_err() {
            sink.closed = true;
            if let Some(hook) = sink.on_closed.take() {
                hook();
            }
        }
    }

    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }
}

/// How `info` lines are written for one search.
#[derive(Clone, Copy, Debug, Default)]
pub struct InfoStyle {
    pub chess960: bool,
    /// Add `wdl w d l` (the `UCI_ShowWDL` option), estimated with this much material.
    pub show_wdl: bool,
    pub material: i32,
}

pub fn format_info(info: &SearchInfo, style: InfoStyle) -> String {
    let ms = info.time.as_millis().max(1) as u64;
    let nps = info.nodes.saturating_mul(1000) / ms;
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {}",
        info.depth,
        info.seldepth,
        info.multipv,
        uci_score(info.score)
    );
    match info.bound {
        Bound::Exact => {}
        Bound::Lower => line.push_str(" lowerbound"),
        Bound::Upper => line.push_str(" upperbound"),
    }
    if style.show_wdl {
        let w = wdl(info.score, style.material);
        line.push_str(&format!(" wdl {} {} {}", w.win, w.draw, w.loss));
    }
    line.push_str(&format!(" nodes {} nps {} hashfull {}", info.nodes, nps, info.hashfull));
    if info.tb_hits > 0 {
        line.push_str(&format!(" tbhits {}", info.tb_hits));
    }
    line.push_str(&format!(" time {}", info.time.as_millis()));
    if !info.pv.is_empty() {
        line.push_str(" pv");
        for mv in &info.pv {
            line.push(' ');
            line.push_str(&mv.to_uci(style.chess960));
        }
    }
    line
}

/// The last `info` line printed for each MultiPV index (index 0 is the principal line), kept
/// for the lines printed just before `bestmove`.
pub type LastLines = Arc<ArcSwap<Vec<SearchInfo>>>;

/// Formats search progress as UCI `info` lines, remembering the last line of each MultiPV index
/// (for the closing lines before `bestmove`).
pub struct UciReporter {
    pub out: Output,
    pub style: InfoStyle,
    /// Lock-free, so `bestmove` given for a preempted main thread never waits for it.
    pub last_lines: LastLines,
    pub currmove_gate: RateGate,
}

/// Lets a kind of line through at most once per `gap`. At high depth the root's later moves are
/// refuted in microseconds, and a `currmove` line for each would flood the GUI with hundreds of
/// lines a second.
pub struct RateGate {
    start: std::time::Instant,
    gap_ms: u64,
    /// Milliseconds after `start` when the last line passed, plus one (0: none yet).
    last: std::sync::atomic::AtomicU64,
}

impl RateGate {
    pub fn new(gap: Duration) -> RateGate {
        RateGate {
            start: std::time::Instant::now(),
            gap_ms: gap.as_millis() as u64,
            last: Default::default(),
        }
    }

    /// Whether a line may pass now.
    pub fn pass(&self) -> bool {
        use std::sync::atomic::Ordering;
        let now = self.start.elapsed().as_millis() as u64 + 1;
        let last = self.last.load(Ordering::Relaxed);
        (last == 0 || now >= last + self.gap_ms)
            && self.last.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok()
    }
}

/// Least time between two `currmove` lines.
pub const CURRMOVE_GAP: Duration = Duration::from_millis(100);

impl Reporter for UciReporter {
    fn info(&self, info: &SearchInfo) {
        if let Some(index) = info.multipv.checked_sub(1) {
            let mut lines = Vec::clone(&self.last_lines.load());
            match lines.get_mut(index) {
                Some(line) => *line = info.clone(),
                None => lines.push(info.clone()),
            }
            self.last_lines.store(Arc::new(lines));
        }
        self.out.line(&format_info(info, self.style));
    }

    fn current_move(&self, depth: i32, mv: Move, number: usize) {
        if !self.currmove_gate.pass() {
            return;
        }
        self.out.line(&format!(
            "info depth {depth} currmove {} currmovenumber {number}",
            mv.to_uci(self.style.chess960)
        ));
    }

    fn note(&self, text: &str) {
        self.out.info_string(text);
    }
}

/// The `info` lines to print just before `bestmove`, as Stockfish does: the search's final node
/// count and time (`result.nodes` counts every thread), so a GUI shows, and a benchmark reads,
/// what the whole search did, not what it had done when the last iteration completed. With
/// MultiPV every line is repeated with the final count. When the last principal line disagrees
/// with the result (a search stopped inside an iteration that had already found a better move,
/// or the threads' vote), one line gives the result's move, score and line instead, so the last
/// `info` always agrees with `bestmove`. Empty when the last lines say it all.
pub fn closing_info(last: &[SearchInfo], result: &SearchResult, elapsed: Duration) -> Vec<SearchInfo> {
    if result.best_move.is_null() {
        return Vec::new();
    }
    let Some(principal) = last.first() else {
        // Nothing reported: a resumed analysis stopped before its first iteration completed
        // answers with the line it resumed, which one line gives.
        return if result.depth > 0 && result.pv.first() == Some(&result.best_move) {
            vec![SearchInfo {
                depth: result.depth,
                seldepth: result.depth as usize,
                multipv: 1,
                score: result.score,
                bound: result.bound,
                nodes: result.nodes,
                time: elapsed,
                hashfull: 0,
                tb_hits: 0,
                pv: result.pv.clone(),
            }]
        } else {
            Vec::new()
        };
    };
    if principal.pv.first() == Some(&result.best_move) {
        let exact = principal.bound == Bound::Exact;
        if exact && result.nodes <= principal.nodes {
            return Vec::new();
        }
        let mut lines: Vec<SearchInfo> = last
            .iter()
            .map(|line| SearchInfo { nodes: result.nodes, time: elapsed.max(line.time), ..line.clone() })
            .collect();
        // A search stopped inside an aspiration re-search last printed a bound; GUIs record the
        // last score as the evaluation (and adjudicate on it): give the exact one played on.
        if !exact {
            let first = &mut lines[0];
            first.depth = result.depth.max(1);
            first.score = result.score;
            first.bound = Bound::Exact;
            first.nodes = first.nodes.max(principal.nodes);
            if result.pv.first() == Some(&result.best_move) {
                first.pv = result.pv.clone();
            }
        }
        return lines;
    }
    vec![SearchInfo {
        depth: principal.depth.max(result.depth),
        seldepth: principal.seldepth,
        multipv: 1,
        score: result.score,
        bound: Bound::Exact,
        nodes: principal.nodes.max(result.nodes),
        time: elapsed.max(principal.time),
        hashfull: principal.hashfull,
        tb_hits: principal.tb_hits,
        pv: if result.pv.first() == Some(&result.best_move) {
            result.pv.clone()
        } else {
            vec![result.best_move]
        },
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::find_move;
    use engine::board::Position;
    use engine::search::score::mate_in;

    fn mv(text: &str) -> Move {
        find_move(&Position::startpos(), text, false).expect("a legal move")
    }

    fn info(pv: &[&str], score: i32) -> SearchInfo {
        SearchInfo {
            depth: 7,
            seldepth: 11,
            multipv: 1,
            score,
            bound: Bound::Exact,
            nodes: 5000,
            time: Duration::from_millis(250),
            hashfull: 3,
            tb_hits: 0,
            pv: pv.iter().map(|m| mv(m)).collect(),
        }
    }

    #[test]
    fn info_lines_have_the_fields_in_order() {
        let line = format_info(&info(&["e2e4"], 31), InfoStyle::default());
        assert_eq!(
            line,
            "info depth 7 seldepth 11 multipv 1 score cp 31 nodes 5000 nps 20000 hashfull 3 time 250 pv e2e4"
        );
        let mut bounded = info(&["e2e4"], mate_in(3));
        bounded.bound = Bound::Lower;
        let style = InfoStyle { show_wdl: true, material: 78, ..InfoStyle::default() };
        assert!(format_info(&bounded, style).contains("score mate 2 lowerbound wdl 1000 0 0 nodes"));
        // No legal move: no dangling `pv`.
        let line = format_info(&info(&[], 0), InfoStyle::default());
        assert!(line.ends_with("time 250"), "{line}");
    }

    #[test]
    fn a_closing_line_gives_the_final_count_and_agrees_with_bestmove() {
        let result = |pv: &[&str], score| SearchResult {
            best_move: mv(pv[0]),
            ponder_move: Move::NULL,
            score,
            bound: Bound::Exact,
            depth: 7,
            nodes: 6000,
            pv: pv.iter().map(|m| mv(m)).collect(),
        };
        let last = info(&["e2e4"], 31);
        let elapsed = Duration::from_millis(300);
        // The same move, searched further after the last line: that line with the final count.
        let closing = closing_info(std::slice::from_ref(&last), &result(&["e2e4"], 35), elapsed);
        let [closing] = closing.as_slice() else { panic!("one closing line: {closing:?}") };
        assert_eq!(
            (closing.depth, closing.score, &closing.pv, closing.nodes, closing.time),
            (last.depth, last.score, &last.pv, 6000, elapsed)
        );
        // Nothing searched since the last line: nothing to add.
        let mut finished = result(&["e2e4"], 31);
        finished.nodes = last.nodes;
        assert!(closing_info(std::slice::from_ref(&last), &finished, elapsed).is_empty());
        // Nothing reported (a resumed analysis stopped at once): the line it answers with.
        let resumed = closing_info(&[], &result(&["d2d4", "g1f3"], 40), elapsed);
        let [resumed] = resumed.as_slice() else { panic!("one closing line: {resumed:?}") };
        assert_eq!((resumed.depth, resumed.score, resumed.pv.len(), resumed.nodes), (7, 40, 2, 6000));
        let mut nothing = result(&["d2d4"], 40);
        nothing.depth = 0;
        assert!(closing_info(&[], &nothing, elapsed).is_empty());
        let closing = closing_info(std::slice::from_ref(&last), &result(&["d2d4"], 40), elapsed);
        let [closing] = closing.as_slice() else { panic!("one closing line: {closing:?}") };
        assert_eq!((closing.pv[0], closing.score, closing.depth, closing.nodes), (mv("d2d4"), 40, 7, 6000));
        assert_eq!(closing.time, elapsed);
        // The last line a bound (stopped inside an aspiration re-search): the closing line is
        // exact, with the score and depth the move is played on, even with nothing searched since.
        let mut bounded = info(&["e2e4"], 120);
        bounded.depth = 8;
        bounded.bound = Bound::Lower;
        let mut played = result(&["e2e4"], 35);
        played.nodes = bounded.nodes;
        let closing = closing_info(std::slice::from_ref(&bounded), &played, elapsed);
        let [closing] = closing.as_slice() else { panic!("one closing line: {closing:?}") };
        assert_eq!((closing.bound, closing.score, closing.depth), (Bound::Exact, 35, 7));
        assert_eq!((closing.pv.clone(), closing.nodes), (played.pv.clone(), 5000));
    }

    #[test]
    fn with_multipv_every_line_closes_with_the_final_count() {
        let second = SearchInfo { multipv: 2, score: 20, ..info(&["d2d4"], 20) };
        let last = [info(&["e2e4"], 31), second];
        let result = SearchResult {
            best_move: mv("e2e4"),
            ponder_move: Move::NULL,
            score: 31,
            bound: Bound::Exact,
            depth: 7,
            nodes: 9000,
            pv: vec![mv("e2e4")],
        };
        let closing = closing_info(&last, &result, Duration::from_millis(400));
        let summary: Vec<_> = closing.iter().map(|l| (l.multipv, l.pv[0], l.score, l.nodes)).collect();
        assert_eq!(summary, [(1, mv("e2e4"), 31, 9000), (2, mv("d2d4"), 20, 9000)]);
        // A different move played: one line, the played one, never a stale second line.
        let changed = SearchResult { best_move: mv("d2d4"), pv: vec![mv("d2d4")], ..result };
        let closing = closing_info(&last, &changed, Duration::from_millis(400));
        assert_eq!(closing.iter().map(|l| (l.multipv, l.pv[0])).collect::<Vec<_>>(), [(1, mv("d2d4"))]);
    }

    #[test]
    fn the_reporter_keeps_the_last_line_of_each_multipv_index() {
        let reporter = UciReporter {
            out: Output::new(Box::new(std::io::sink())),
            style: InfoStyle::default(),
            last_lines: LastLines::default(),
            currmove_gate: RateGate::new(CURRMOVE_GAP),
        };
        reporter.info(&info(&["e2e4"], 31));
        reporter.info(&SearchInfo { multipv: 2, ..info(&["d2d4"], 20) });
        reporter.info(&SearchInfo { depth: 8, ..info(&["g1f3"], 25) });
        let kept: Vec<_> = reporter.last_lines.load().iter().map(|l| (l.multipv, l.depth, l.pv[0])).collect();
        assert_eq!(kept, [(1, 8, mv("g1f3")), (2, 7, mv("d2d4"))]);
    }

    #[test]
    fn a_rate_gate_lets_one_line_through_per_gap() {
        let gate = RateGate::new(Duration::from_millis(50));
        assert!(gate.pass(), "the first line passes");
        let burst = (0..1_000).filter(|_| gate.pass()).count();
        assert!(burst <= 1, "a burst right after it is held back: {burst}");
        std::thread::sleep(Duration::from_millis(60));
        assert!(gate.pass(), "a line after the gap passes");
    }

    /// A sink whose bytes the test reads afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_burst_of_current_moves_gives_one_line() {
        let sink = Shared::default();
        let reporter = UciReporter {
            out: Output::new(Box::new(sink.clone())),
            style: InfoStyle::default(),
            last_lines: LastLines::default(),
            currmove_gate: RateGate::new(CURRMOVE_GAP),
        };
        for number in 1..=500 {
            reporter.current_move(30, mv("e2e4"), number);
        }
        let text = String::from_utf8(sink.0.lock().clone()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with("info depth 30 currmove e2e4 currmovenumber 1"));
    }
}
