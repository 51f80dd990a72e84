//! The hard-limit timer: one thread per pool that raises the stop flag at the hard time limit
//! and answers from the published results, even when the main thread is starved of CPU (many
//! threads on few cores).
//!
//! It lives as long as the pool and is armed by each timed `go`; nothing it waits on is
//! shared with the search threads. A thread spawned for each search
//! first ran up to 100 ms late at 64 threads on 2 cores, and a lock shared with waiting helpers
//! kept it from the deadline for hundreds of milliseconds more.

use crate::answer::answer_after_grace;
use crate::pool::Shared;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a pondering search's deadline is looked at again (`ponderhit` also wakes the
/// timer).
const PONDER_POLL: Duration = Duration::from_millis(20);

struct Armed {
    shared: Arc<Shared>,
    search_id: u64,
    start: Instant,
    hard: Duration,
}

#[derive(Default)]
struct State {
    armed: Option<Armed>,
    exit: bool,
}

/// What the timer thread and the pool share: a lock taken only by them, never by a search
/// thread. (Not a channel: crossbeam's blocking receive yields the CPU a few times before it
/// sleeps, and each yield pushes the thread back in the scheduler's queue; the timer woke
/// 5 ms late at 8 threads on 2 cores.)
#[derive(Default)]
struct Mailbox {
    state: Mutex<State>,
    changed: Condvar,
}

pub(crate) struct Timer {
    mailbox: Arc<Mailbox>,
    handle: Option<JoinHandle<()>>,
}

impl Timer {
    pub(crate) fn new() -> Timer {
        let mailbox = Arc::new(Mailbox::default());
        let inbox = Arc::clone(&mailbox);
        let handle = std::thread::Builder::new().name("lazuli-timer".into()).spawn(move || run(&inbox)).ok();
        // Without a timer thread the main thread's own clock checks still end the search.
        Timer { mailbox, handle }
    }

    /// Stop search `search_id` of `shared` at `hard` after `start` (counted from `ponderhit`
    /// when pondering). Replaces the previous search's deadline.
    pub(crate) fn arm(&self, shared: Arc<Shared>, search_id: u64, start: Instant, hard: Duration) {
        self.mailbox.state.lock().armed = Some(Armed { shared, search_id, start, hard });
        self.mailbox.changed.notify_one();
    }

    /// Look at the deadline again (the clock started at `ponderhit`).
    pub(crate) fn wake(&self) {
        let _state = self.mailbox.state.lock();
        self.mailbox.changed.notify_one();
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.mailbox.state.lock().exit = true;
        self.mailbox.changed.notify_one();
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn run(mailbox: &Mailbox) {
    // Mostly asleep: a short slice lets it preempt busy search threads when the deadline comes
    // (see `engine::sched`; without one it woke up to 100 ms late at 64 threads).
    engine::sched::request_short_slice();
    let mut state = mailbox.state.lock();
    while !state.exit {
        if state.armed.as_ref().is_some_and(|armed| !is_current(armed)) {
            state.armed = None;
        }
        let Some(armed) = &state.armed else {
            mailbox.changed.wait(&mut state);
            continue;
        };
        match wait_time(armed) {
            Some(wait) => {
                mailbox.changed.wait_for(&mut state, wait);
            }
            None => {
                let due = state.armed.take();
                MutexGuard::unlocked(&mut state, || due.map(fire));
            }
        }
    }
}

/// The search is still running, and it is the one the timer was armed for.
fn is_current(armed: &Armed) -> bool {
    armed.shared.search_id.load(Ordering::SeqCst) == armed.search_id && !armed.shared.control.stopped()
}

/// How long to sleep before looking again, or `None` when the deadline has come.
fn wait_time(armed: &Armed) -> Option<Duration> {
    let control = &armed.shared.control;
    if control.pondering.load(Ordering::SeqCst) {
        return Some(PONDER_POLL);
    }
    let origin = Duration::from_millis(control.time_origin_ms.load(Ordering::SeqCst));
    let deadline = armed.start + origin + armed.hard;
    deadline.checked_duration_since(Instant::now()).filter(|left| !left.is_zero())
}

fn fire(armed: Armed) {
    if !is_current(&armed) {
        return;
    }
    armed.shared.stop_and_wake();
    answer_after_grace(&armed.shared, armed.search_id);
}
