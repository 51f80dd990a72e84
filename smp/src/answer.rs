//! Answering a search: `bestmove` from the threads' published results, given by whoever gets
//! there first (the main thread, the thread that read `stop`, or the hard-limit timer), and
//! exactly once per search.

use crate::pool::Shared;
use crate::vote::VoteMode;
use engine::search::SearchResult;
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// How long `stop` waits for the main thread to answer before answering for it, when every
/// thread can have a core (with more threads than cores, `stop` answers at once: see
/// `stop_grace`).
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(1);
/// How often `stop` looks whether the main thread has answered during the grace.
const STOP_POLL: Duration = Duration::from_micros(100);

/// Stops whatever search the pool is running (see `Pool::stop_handle`).
#[derive(Clone)]
pub struct StopHandle {
    pub(crate) current: Arc<Mutex<Arc<Shared>>>,
}

impl StopHandle {
    pub fn stop(&self) {
        let shared = Arc::clone(&self.current.lock());
        let search_id = shared.search_id.load(Ordering::SeqCst);
        shared.stop_and_wake();
        answer_after_grace(&shared, search_id);
    }
}

/// Give `bestmove` for the current search from the results published so far, unless it has
/// been given already or no thread has a result yet. Returns whether it is answered. Takes no
/// lock a searching thread may hold: the one answering `stop` must not wait for a thread that
/// is waiting for a core. The answer's `nodes` are every thread's nodes so far (a helper still
/// winding down adds at most a thousand more).
pub(crate) fn answer(shared: &Shared, search_id: u64) -> bool {
    if shared.answered.load(Ordering::SeqCst) >= search_id {
        return true;
    }
    let mode = VoteMode::from_index(shared.vote.load(Ordering::SeqCst));
    let results: Vec<Option<Arc<SearchResult>>> = shared.results.iter().map(|r| r.load_full()).collect();
    // The main thread's result, or (when it has none yet) any thread's.
    let Some(fallback) = results.iter().flatten().next().cloned() else { return false };
    let chosen = crate::vote::choose(&results, mode);
    let result = results[chosen].clone().filter(|r| !r.best_move.is_null()).unwrap_or(fallback);
    if shared.answered.compare_exchange(search_id - 1, search_id, Ordering::SeqCst, Ordering::SeqCst).is_err()
    {
        return true;
    }
    // Only the winner of the claim above reaches here; `go` set the slot before the search.
    let Some(on_done) = shared.answer.lock().take() else { return true };
    let mut result = Arc::unwrap_or_clone(result);
    result.nodes = result.nodes.max(shared.total_nodes());
    on_done(result);
    true
}

/// How long `stop` waits for the main thread of a pool of `threads` on `cores` cores to answer. With a core for
/// every thread the main thread answers within microseconds, with its last, possibly unfinished
/// iteration. With more threads than cores it is usually waiting for a core, and the thread that
/// read `stop` answers at once from the completed iterations: waiting would only add the grace,
/// and polling through it costs that thread its place with the scheduler, so the next `stop`
/// wakes it later.
pub(crate) fn stop_grace(threads: usize, cores: usize) -> Duration {
    if threads > cores {
        Duration::ZERO
    } else {
        STOP_GRACE
    }
}

/// After `stop`: give the main thread `stop_grace` to answer, then answer for it from the
/// published results (when it is waiting for a core).
pub(crate) fn answer_after_grace(shared: &Shared, search_id: u64) {
    let deadline = std::time::Instant::now() + shared.stop_grace;
    while shared.answered.load(Ordering::SeqCst) < search_id {
        if std::time::Instant::now() >= deadline {
            answer(shared, search_id);
            return;
        }
        std::thread::sleep(STOP_POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::Pool;
    use engine::board::{Board, Position};
    use engine::search::{Limits, SilentReporter};
    use std::sync::mpsc::{channel, Receiver};

    fn go_infinite(pool: &mut Pool) -> Receiver<SearchResult> {
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult| {
            let _ = tx.send(result);
        });
        pool.go(
            Board::new(Position::startpos()),
            Limits::default(),
            false,
            true,
            Box::new(SilentReporter),
            on_done,
        );
        rx
    }

    #[test]
    fn stop_answers_at_once_only_with_more_threads_than_cores() {
        let cores = crate::available_cores();
        assert_eq!(stop_grace(1, cores), STOP_GRACE);
        assert_eq!(stop_grace(cores, cores), STOP_GRACE);
        assert_eq!(stop_grace(cores + 1, cores), Duration::ZERO);
        // An oversubscribed pool still answers `stop` with a legal move.
        let mut pool = Pool::new(cores + 2, 4);
        let result = go_infinite(&mut pool);
        std::thread::sleep(Duration::from_millis(20));
        pool.stop();
        let result = result.recv_timeout(Duration::from_secs(10)).expect("bestmove after stop");
        assert!(Board::new(Position::startpos()).position().is_legal_move(result.best_move));
    }

    #[test]
    fn a_late_answer_for_an_earlier_search_never_answers_the_next() {
        let mut pool = Pool::new(2, 4);
        let first = go_infinite(&mut pool);
        std::thread::sleep(Duration::from_millis(20));
        let first_id = pool.shared.search_id.load(Ordering::SeqCst);
        pool.stop();
        first.recv_timeout(Duration::from_secs(10)).expect("bestmove after stop");

        let second = go_infinite(&mut pool);
        std::thread::sleep(Duration::from_millis(20));
        // A `stop` or timer of the first search, delayed until now, answers nothing.
        assert!(answer(&pool.shared, first_id));
        answer_after_grace(&pool.shared, first_id);
        assert!(second.recv_timeout(Duration::from_millis(50)).is_err(), "answered before `stop`");
        pool.stop();
        let result = second.recv_timeout(Duration::from_secs(10)).expect("bestmove after stop");
        assert!(!result.best_move.is_null());
        assert!(second.recv_timeout(Duration::from_millis(50)).is_err(), "answered twice");
    }
}
