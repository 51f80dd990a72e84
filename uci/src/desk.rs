//! The input thread's desk: what it answers itself the moment it reads it, whatever the
//! session is doing, and what it and the session tell each other. The session handles every
//! line in order, and waits for a running search's answer before a `go` or `ucinewgame`; while
//! it waits, only the input thread can act:
//!
//! - `stop` raises the search's stop flag at once (with many search threads on few cores,
//!   waiting for the session thread to be scheduled would add to the latency), and ends every
//!   `go` read before it: such a `go` is stopped as soon as it starts;
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
