//! Input held back behind a `go` that waits for the current search.
//!
//! A `go` (or `ucinewgame`) that arrives while a search with a limit of its own (depth, nodes,
//! time) is running waits for that search's `bestmove`, and so does every command after it,
//! until each is handled in order once the search has ended: a script that pipes several
//! `position`/`go` pairs gets every one answered, in order, as from an engine that reads its
//! input only between searches (Stockfish does). `isready`, `stop` and `quit` are never held:
//! `isready` is answered at once, `stop` ends the current search and marks every held line, so
//! each `go` held before it is stopped as soon as it starts, and `quit` drops what is held.
//!
//! Nothing is ever dropped. The limits below bound memory instead: once they are reached
//! behind a search that ends by itself, the input loop stops reading until that search has
//! ended, so a writer that outpaces the engine is held back by the pipe. Behind a search that
//! waits for `stop`, reading goes on past them (the `stop` is somewhere further in the input).

use crate::command::{Command, ParseError, Parsed};
use std::collections::VecDeque;
use std::time::Instant;

/// Lines held before reading pauses.
pub const MAX_HELD_LINES: usize = 1024;
/// Bytes held before reading pauses (a line itself may take up to 1 MiB).
pub const MAX_HELD_BYTES: usize = 16 << 20;

/// A line waiting for the search, as read (parsed once, when it arrived), and whether a
/// `stop` came after it.
#[derive(Debug, PartialEq, Eq)]
pub struct HeldLine {
    pub line: String,
    pub parsed: Result<Parsed, ParseError>,
    pub stopped: bool,
    /// When it was read.
    pub received: Instant,
    /// It arrived while the search before it was already stopping (a GUI that sends `stop`,
    /// `position`, `go` without waiting for `bestmove`): its clock runs from its arrival.
    pub behind_stop: bool,
}

impl HeldLine {
    /// When the line counts as received, once it is handled at `now`: a line held behind a
    /// stopped search counts from its arrival, since the GUI's clock did; one held behind a
    /// search that ends by itself (a script piping several searches) from `now`, so that each
    /// search gets its whole time.
    pub fn counts_from(&self, now: Instant) -> Instant {
        if self.behind_stop {
            self.received
        } else {
            now
        }
    }
}

#[derive(Default, Debug)]
pub struct HeldLines {
    lines: VecDeque<HeldLine>,
    bytes: usize,
}

impl HeldLines {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Hold `line`, read as `parsed` at `received`; `behind_stop`: the search it waits for was
    /// already told to stop.
    pub fn push(
        &mut self,
        line: &str,
        parsed: Result<Parsed, ParseError>,
        received: Instant,
        behind_stop: bool,
    ) {
        self.bytes += line.len();
        self.lines.push_back(HeldLine {
            line: line.to_string(),
            parsed,
            stopped: false,
            received,
            behind_stop,
        });
    }

    /// Whether either limit is reached (reading should pause while the search runs).
    pub fn is_full(&self) -> bool {
        self.lines.len() >= MAX_HELD_LINES || self.bytes >= MAX_HELD_BYTES
    }

    /// A `stop` arrived: every line held so far is to be stopped once it starts a search.
    pub fn stop_all(&mut self) {
        self.lines.iter_mut().for_each(|held| held.stopped = true);
    }

    /// Whether a `go` is held (a `ponderhit` arriving now may be for it).
    pub fn has_go(&self) -> bool {
        self.lines.iter().any(|held| matches!(held.parsed, Ok(Parsed { command: Command::Go(_), .. })))
    }

    /// Takes out the first held `ponderhit` that comes before any other `go`: it is for the
    /// pondering search that the lines before it started, whatever else waits between them.
    pub fn take_ponderhit(&mut self) -> Option<HeldLine> {
        let at = self.lines.iter().position(|held| {
            matches!(held.parsed, Ok(Parsed { command: Command::PonderHit | Command::Go(_), .. }))
        })?;
        if !matches!(self.lines[at].parsed, Ok(Parsed { command: Command::PonderHit, .. })) {
            return None;
        }
        let held = self.lines.remove(at)?;
        self.bytes -= held.line.len();
        Some(held)
    }

    /// The oldest held line, left in place.
    pub fn front(&self) -> Option<&HeldLine> {
        self.lines.front()
    }

    /// The oldest held line.
    pub fn pop(&mut self) -> Option<HeldLine> {
        let held = self.lines.pop_front()?;
        self.bytes -= held.line.len();
        Some(held)
    }

    pub fn clear(&mut self) {
        self.lines.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::parse_line;

    fn hold(held: &mut HeldLines, line: &str) {
        held.push(line, parse_line(line), Instant::now(), false);
    }

    #[test]
    fn a_ponderhit_is_found_behind_other_lines_but_not_behind_another_go() {
        let mut held = HeldLines::default();
        for line in ["setoption name MultiPV value 1", "isready", "ponderhit", "go depth 3", "ponderhit"] {
            hold(&mut held, line);
        }
        assert_eq!(held.take_ponderhit().map(|h| h.line), Some("ponderhit".to_string()));
        assert_eq!(held.len(), 4);
        assert_eq!(held.take_ponderhit(), None, "the next ponderhit is for the next go");
        assert_eq!(held.front().map(|h| h.line.as_str()), Some("setoption name MultiPV value 1"));
    }

    #[test]
    fn a_line_held_behind_a_stop_counts_from_its_arrival() {
        let mut held = HeldLines::default();
        let arrived = Instant::now();
        held.push("go wtime 1000 btime 1000", parse_line("go wtime 1000 btime 1000"), arrived, true);
        held.push("go depth 3", parse_line("go depth 3"), arrived, false);
        let later = arrived + std::time::Duration::from_millis(50);
        assert_eq!(held.pop().map(|h| h.counts_from(later)), Some(arrived), "the GUI's clock ran");
        assert_eq!(held.pop().map(|h| h.counts_from(later)), Some(later), "a piped search gets its time");
    }

    #[test]
    fn lines_come_back_in_order_and_a_stop_marks_only_those_before_it() {
        let mut held = HeldLines::default();
        hold(&mut held, "go depth 5");
        hold(&mut held, "position startpos");
        held.stop_all();
        hold(&mut held, "go depth 3");
        assert_eq!(held.len(), 3);
        assert_eq!(held.front().map(|h| h.line.as_str()), Some("go depth 5"));
        let order: Vec<(String, bool)> = std::iter::from_fn(|| held.pop())
            .map(|h| {
                assert_eq!(h.parsed, parse_line(&h.line), "kept as read");
                (h.line, h.stopped)
            })
            .collect();
        assert_eq!(
            order,
            vec![
                ("go depth 5".to_string(), true),
                ("position startpos".to_string(), true),
                ("go depth 3".to_string(), false),
            ]
        );
        assert!(held.is_empty());
    }

    #[test]
    fn a_full_queue_says_so_keeps_everything_and_empties_again() {
        let mut held = HeldLines::default();
        for _ in 0..MAX_HELD_LINES - 1 {
            hold(&mut held, "go depth 1");
        }
        assert!(!held.is_full());
        hold(&mut held, "go depth 1");
        assert!(held.is_full());
        hold(&mut held, "go depth 2");
        assert_eq!(held.len(), MAX_HELD_LINES + 1, "nothing is dropped");
        held.pop();
        held.pop();
        assert!(!held.is_full());
        held.clear();
        let big = "x".repeat(MAX_HELD_BYTES / 2);
        hold(&mut held, &big);
        assert!(!held.is_full());
        hold(&mut held, &big);
        assert!(held.is_full(), "the byte limit counts");
        held.clear();
        assert!(held.is_empty() && !held.is_full());
    }
}
