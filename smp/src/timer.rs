//! The hard-limit timer: one thread per pool that raises the stop flag at the hard time limit
//! and answers from the published results, even when the main thread is starved of CPU (many
//! threads on few cores).
//!
//! It lives as long as the pool and is armed by each timed `go`; the lock it waits on is taken
//! by no search thread. A timer thread spawned for each search started late when the cores were
//! busy, and one that shared a lock with waiting helpers fired later still. With many more
//! threads than cores it can still wake a little late, which is the scheduler's doing: short
//! moves then run one thread per core (`OVERSUBSCRIBED_MIN_TIME` in `pool.rs`).

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

/// The deadline, shared by the timer thread and the pool only. A condition variable rather than
/// a channel, whose blocking receive yields the CPU before sleeping (see `crate::mailbox`); the
/// timer needs a timed wait, which `crate::mailbox` does not offer.
#[derive(Default)]
struct Alarm {
    state: Mutex<State>,
    changed: Condvar,
}

pub(crate) struct Timer {
    alarm: Arc<Alarm>,
    handle: Option<JoinHandle<()>>,
}

impl Timer {
    pub(crate) fn new() -> Timer {
        let alarm = Arc::new(Alarm::default());
        let inbox = Arc::clone(&alarm);
        let handle = std::thread::Builder::new().name("lazuli-timer".into()).spawn(move || run(&inbox)).ok();
        // Without a timer thread the main thread's own clock checks still end the search.
        Timer { alarm, handle }
    }

    /// Stop search `search_id` of `shared` at `hard` after `start` (counted from `ponderhit`
    /// when pondering). Replaces the previous search's deadline.
    pub(crate) fn arm(&self, shared: Arc<Shared>, search_id: u64, start: Instant, hard: Duration) {
        self.alarm.state.lock().armed = Some(Armed { shared, search_id, start, hard });
        self.alarm.changed.notify_one();
    }

    /// Look at the deadline again (the clock started at `ponderhit`).
    pub(crate) fn wake(&self) {
        let _state = self.alarm.state.lock();
        self.alarm.changed.notify_one();
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.alarm.state.lock().exit = true;
        self.alarm.changed.notify_one();
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn run(alarm: &Alarm) {
    // Mostly asleep: a short slice lets it preempt busy search threads when the deadline comes
    // (see `engine::sched`; without one it woke far past the deadline among many threads).
    engine::sched::request_short_slice();
    let mut state = alarm.state.lock();
    while !state.exit {
        if state.armed.as_ref().is_some_and(|armed| !is_current(armed)) {
            state.armed = None;
        }
        let Some(armed) = &state.armed else {
            alarm.changed.wait(&mut state);
            continue;
        };
        match wait_time(armed) {
            Some(wait) => {
                alarm.changed.wait_for(&mut state, wait);
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

/// The deadline has come (the loop has just checked the search is still current).
fn fire(armed: Armed) {
    armed.shared.stop_and_wake();
    answer_after_grace(&armed.shared, armed.search_id);
}
