//! The input thread's desk: what it answers itself the moment it reads it, whatever the
//! session is doing, and what it and the session tell each other. The session handles every
//! line in order, and waits for a running search's answer before a `go` or `ucinewgame`; while
//! it waits, only the input thread can act:
//!
//! - `stop` raises the search's stop flag at once (with many search threads on few cores,
//!   waiting for the session thread to be scheduled would add to the latency), and ends every
//!   `go` read before it: such a `go` is stopped as soon as it starts;
//! - `ponderhit` turns the running ponder search into a timed one at once, for the same reason;
//! - `quit` stops the search too, and a `go` or `ucinewgame` still queued behind a search is
//!   not waited for;
//! - `isready` is answered at once while the session waits for a search, or will (a `go` or
//!   `ucinewgame` is queued behind a search running or queued); otherwise it waits its turn,
//!   so that it follows the answers to the lines before it.
//!
//! Every line but an `isready` answered here goes on to the session.

use crate::command::Command;
use crate::input::{Input, Line};
use crate::output::Output;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What a session and its input thread tell each other.
#[derive(Default)]
pub struct DeskState {
    /// The session waits for a search's answer before it handles its next line.
    waiting: AtomicBool,
    /// The input thread has read `quit`.
    quit: AtomicBool,
    /// `go` and `ucinewgame` lines read and not yet handled by the session.
    queued_waits: AtomicUsize,
    /// When the last `stop` was read.
    last_stop: Mutex<Option<Instant>>,
}

/// Whether `line` is a `go` or `ucinewgame`: a line the session may wait with.
fn may_wait(line: &Line) -> bool {
    matches!(line.command(), Some(Command::Go(_) | Command::UciNewGame))
}

impl DeskState {
    /// The session takes `line` to handle it.
    pub fn take(&self, line: &Line) {
        if may_wait(line) {
            let _ = self.queued_waits.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
    }

    /// Whether a `stop` has been read since `received`.
    pub fn stop_read_since(&self, received: Instant) -> bool {
        self.last_stop.lock().is_some_and(|stop| stop > received)
    }

    /// The session waits for a search (`true`) or has stopped waiting.
    pub fn set_waiting(&self, waiting: bool) {
        self.waiting.store(waiting, Ordering::SeqCst);
    }

    pub fn quit_requested(&self) -> bool {
        self.quit.load(Ordering::SeqCst)
    }
}

#[derive(Clone)]
pub struct FrontDesk {
    stopper: smp::StopHandle,
    out: Output,
    state: Arc<DeskState>,
}

impl FrontDesk {
    /// The desk for the session with this stop handle and state (`Session::front_desk`).
    pub fn new(stopper: smp::StopHandle, state: Arc<DeskState>, out: Output) -> FrontDesk {
        FrontDesk { stopper, out, state }
    }

    pub fn stop_handle(&self) -> smp::StopHandle {
        self.stopper.clone()
    }

    /// The client has gone (a server's connection closed or idle): as a `quit` read now, so
    /// that the search, a `perft` and any `go` queued behind them end at once.
    pub fn hang_up(&self) {
        self.state.quit.store(true, Ordering::SeqCst);
        self.stopper.stop();
    }

    /// Whether the desk answered `input` itself (it is then not for the session).
    pub fn answers(&self, input: &Input) -> bool {
        let Input::Line(line) = input else { return false };
        let state = &self.state;
        match line.command() {
            Some(Command::Stop) => {
                *state.last_stop.lock() = Some(Instant::now());
                self.stopper.stop();
            }
            Some(Command::Quit) => {
                state.quit.store(true, Ordering::SeqCst);
                self.stopper.stop();
            }
            // At once, as `stop`: the session thread may wait for a core while every core
            // searches. The session hears it too, in turn (a ponder search it has yet to start).
            Some(Command::PonderHit) if self.stopper.is_searching() => self.stopper.ponderhit(),
            Some(Command::IsReady) => {
                // Queued: a `go` that will start a search and one that will wait for it, or one
                // behind the search running now.
                let queued = state.queued_waits.load(Ordering::SeqCst);
                let will_wait = queued >= 2 || (queued == 1 && self.stopper.is_searching());
                if state.waiting.load(Ordering::SeqCst) || will_wait {
                    self.out.line("readyok");
                    return true;
                }
            }
            _ if may_wait(line) => {
                state.queued_waits.fetch_add(1, Ordering::SeqCst);
            }
            _ => {}
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::{Board, Position};
    use engine::search::{Limits, SilentReporter};
    use std::time::Duration;

    #[test]
    fn the_desk_hands_a_ponderhit_to_the_search_without_the_session() {
        let mut engine = smp::Engine::new(1, 1);
        let (tx, rx) = std::sync::mpsc::channel();
        // The soft limit passes while it ponders: the hit ends the search at once.
        let ms = |n| Some(Duration::from_millis(n));
        let limits = Limits { soft_time: ms(10), hard_time: ms(5_000), ..Limits::default() };
        let on_bestmove = Box::new(move |result, _: &smp::Ended| {
            let _ = tx.send(result);
        });
        let board = Board::new(Position::startpos());
        engine.go(board, limits, smp::Mode::Ponder, Box::new(SilentReporter), on_bestmove);
        std::thread::sleep(Duration::from_millis(100));
        assert!(rx.try_recv().is_err(), "answered while pondering");
        let desk = FrontDesk::new(
            engine.pool().stop_handle(),
            Arc::default(),
            Output::new(Box::new(std::io::sink())),
        );
        assert!(!desk.answers(&Input::line("ponderhit")), "the session hears it too");
        rx.recv_timeout(Duration::from_secs(10)).expect("bestmove with no session to handle the line");
    }
}
