//! The worker threads: each owns a `Searcher` and waits in its mailbox for jobs. Worker 0 is
//! the main thread. It starts the helpers once it has completed its first iteration, owns the
//! limits, and when its search ends it stops the helpers, waits for them, chooses the move and
//! answers: it is the only thread that gives `bestmove`. Helpers only search and leave their
//! result for it.

use crate::mailbox::{Receiver, Sender};
use crate::shared::{Shared, TbSettings};
use crate::vote::{self, VoteMode};
use engine::board::{Board, Move};
use engine::movegen::legal_moves;
use engine::search::{
    Limits, Reporter, SearchResult, Searcher, SharedHistories, SharedState, TbContext, Variation,
};
use engine::tt::TranspositionTable;
use parking_lot::Mutex;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long the main thread looks for the helpers to finish before it sleeps until they have,
/// when each has a core: they see the stop flag within microseconds. With more threads than
/// cores it sleeps at once, leaving its core to the helpers that have yet to see the flag.
const HELPER_SPIN: Duration = Duration::from_millis(1);

/// Called once with the final result, when every thread has stopped.
pub type OnDone = Box<dyn FnOnce(SearchResult, &Ended) + Send>;

/// Ends the search as the pool sees it (`Pool::is_searching` becomes false). `on_done` may call
/// it under its own output lock just before it writes the answer, so that nothing reads the
/// search as ended before the answer or as running after it; otherwise it takes effect when
/// `on_done` returns.
pub struct Ended<'a>(pub(crate) &'a std::sync::atomic::AtomicBool);

impl Ended<'_> {
    pub fn now(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// Called after each search has been answered and the pool counts it as ended.
pub type OnSearchEnd = Arc<dyn Fn() + Send + Sync>;

pub(crate) struct SearchJob {
    pub(crate) board: Board,
    pub(crate) limits: Limits,
    pub(crate) tt: Arc<TranspositionTable>,
    pub(crate) tb: Option<TbSettings>,
    /// Main thread only: where to report, and what to do at the end.
    pub(crate) main: Option<MainJob>,
}

/// Each helper's job, with the way to send it.
pub(crate) type HelperJobs = Vec<(Sender<Job>, Box<SearchJob>)>;

pub(crate) struct MainJob {
    pub(crate) reporter: Box<dyn Reporter + Send>,
    pub(crate) infinite: bool,
    pub(crate) vote: VoteMode,
    /// The helpers' jobs, started after the main thread's first iteration (`start_helpers`).
    pub(crate) helpers: HelperJobs,
    pub(crate) on_done: OnDone,
    pub(crate) on_search_end: Option<OnSearchEnd>,
}

pub(crate) enum Job {
    Search(Box<SearchJob>),
    Clear,
    Variation(Variation),
    Exit,
}

pub(crate) struct Worker {
    pub(crate) jobs: Sender<Job>,
    pub(crate) handle: Option<JoinHandle<()>>,
}

/// Helpers obey only the stop flag: the main thread owns every limit.
pub(crate) fn helper_limits(limits: &Limits) -> Limits {
    Limits {
        start: limits.start,
        search_moves: limits.search_moves.clone(),
        contempt: limits.contempt,
        ..Limits::default()
    }
}

/// A worker's life: its searcher, made on its own thread (after any binding to a NUMA node, so
/// that its tables are first touched there), serving jobs until `Exit`. With `node`, it reads
/// that node's copy of the network.
pub(crate) fn worker_loop(
    index: usize,
    variation: Variation,
    learned: SharedHistories,
    node: Option<usize>,
    inbox: Receiver<Job>,
    shared: Arc<Shared>,
) {
    let fresh = |variation: Variation| {
        let mut searcher = Searcher::new();
        searcher.set_variation(variation);
        searcher.share_histories(&learned);
        if let Some(node) = node {
            searcher.set_eval_source(engine::nnue::EvalSource::ActiveOnNode(node));
        }
        searcher
    };
    let (mut variation, mut searcher) = (variation, fresh(variation));
    while let Some(job) = inbox.recv() {
        match job {
            Job::Exit => break,
            Job::Clear => {
                // The shared histories are cleared once, by the pool.
                searcher.clear_own();
                shared.busy.done();
            }
            Job::Variation(next) => {
                variation = next;
                searcher.set_variation(variation);
                shared.busy.done();
            }
            Job::Search(job) => {
                // A panic (in debug and test builds; release builds abort) has been answered
                // and its counters released by the search's `PanicGuard`: the thread goes on
                // with a new searcher, and the pool stays usable.
                let run = catch_unwind(AssertUnwindSafe(|| run_search(index, &mut searcher, *job, &shared)));
                if run.is_err() {
                    eprintln!("search thread {index} panicked; its search was ended and the pool goes on");
                    searcher = fresh(variation);
                }
            }
        }
    }
}

/// The answer of a search that could not run: the first of `search_moves` (when given) that is
/// legal, else the first legal move (`0000` with none).
pub(crate) fn fallback_answer(board: &Board, search_moves: &[Move]) -> SearchResult {
    let legal = legal_moves(board.position());
    let allowed = |m: &Move| search_moves.is_empty() || search_moves.contains(m);
    SearchResult {
        best_move: legal
            .iter()
            .copied()
            .find(allowed)
            .or_else(|| legal.iter().next().copied())
            .unwrap_or(Move::NULL),
        ponder_move: Move::NULL,
        score: 0,
        depth: 0,
        nodes: 0,
        pv: Vec::new(),
    }
}

/// What a search holds until it ends, released by `Drop` if the search panics: a helper's place
/// among the running helpers, the pool's busy count and, for the main thread, the answer (the
/// helpers stopped and waited for, then a legal move, or `0000` with none) and the end of the
/// search. Without it a panic would leave the pool waiting for ever.
struct PanicGuard<'a> {
    shared: &'a Shared,
    /// The main thread's answer.
    main: Option<OnDone>,
    /// The search, for the answer it falls back on (worked out only after a panic).
    board: &'a Board,
    search_moves: &'a [Move],
    armed: bool,
}

impl PanicGuard<'_> {
    /// The search ended normally: nothing to release here; the main thread's answer comes back.
    fn disarm(mut self) -> Option<OnDone> {
        self.armed = false;
        self.main.take()
    }
}

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if !self.armed || !std::thread::panicking() {
            return;
        }
        let shared = self.shared;
        match self.main.take() {
            None => shared.helpers_running.done(),
            Some(on_done) => {
                let mut fallback = fallback_answer(self.board, self.search_moves);
                shared.signals.stop_and_wake();
                shared.helpers_running.wait_zero();
                fallback.nodes = shared.total_nodes();
                let ended = Ended(&shared.signals.searching);
                on_done(fallback, &ended);
                ended.now();
            }
        }
        shared.busy.done();
    }
}

fn run_search(index: usize, searcher: &mut Searcher, mut job: SearchJob, shared: &Shared) {
    let signals = &shared.signals;
    let main_answer = job.main.as_mut().map(|main| std::mem::replace(&mut main.on_done, Box::new(|_, _| {})));
    let guard = PanicGuard {
        shared,
        main: main_answer,
        board: &job.board,
        search_moves: &job.limits.search_moves,
        armed: true,
    };
    let total = || shared.total_nodes();
    let tb = job.tb.as_ref().map(|t| TbContext {
        tables: &t.tables,
        probe_depth: t.probe_depth,
        probe_limit: t.probe_limit,
        rule50: t.rule50,
        hits: &shared.tb_hits,
    });
    // Main thread only: the helpers' jobs, sent once it has completed its first iteration.
    let helpers =
        Mutex::new(job.main.as_mut().map(|main| std::mem::take(&mut main.helpers)).unwrap_or_default());
    let start_now = || {
        let waiting = std::mem::take(&mut *helpers.lock());
        if !waiting.is_empty() {
            start_helpers(shared, waiting);
        }
    };
    // A resumed analysis starts deep, where the first iteration is most of the work: the
    // helpers join it at once (a game's first iteration takes microseconds; they wait for it).
    if job.limits.resume {
        start_now();
    }
    let start_waiting_helpers = |_: &SearchResult| start_now();
    let on_iteration: &(dyn Fn(&SearchResult) + Sync) = &start_waiting_helpers;
    let ctx = SharedState {
        tt: &job.tt,
        control: &signals.control,
        nodes: &shared.counters[index],
        total_nodes: &total,
        reporter: job.main.as_ref().map(|main| main.reporter.as_ref() as &dyn Reporter),
        tb,
        on_iteration: job.main.is_some().then_some(on_iteration),
    };
    let result = searcher.search(&job.board, &job.limits, &ctx);
    let on_done = guard.disarm();
    let (Some(main), Some(on_done)) = (job.main, on_done) else {
        if result.depth > 0 {
            *shared.results[index].lock() = Some(result);
        }
        shared.helpers_running.done();
        shared.busy.done();
        return;
    };

    // `go infinite` and pondering never answer before `stop` (or `ponderhit`).
    {
        let mut guard = signals.wake.0.lock();
        while !signals.control.stopped()
            && (main.infinite || signals.control.pondering.load(Ordering::SeqCst))
        {
            signals.wake.1.wait_for(&mut guard, Duration::from_millis(50));
        }
    }
    signals.stop_and_wake();
    let oversubscribed = shared.counters.len() > shared.cores;
    shared.helpers_running.wait_zero_spinning(if oversubscribed { Duration::ZERO } else { HELPER_SPIN });
    let mut results: Vec<Option<SearchResult>> =
        shared.results.iter().map(|slot| slot.lock().take()).collect();
    results[0] = Some(result.clone());
    let chosen = vote::choose(&results, main.vote);
    let mut answer = results[chosen].clone().filter(|r| !r.best_move.is_null()).unwrap_or(result);
    answer.nodes = answer.nodes.max(shared.total_nodes());
    let ended = Ended(&signals.searching);
    on_done(answer, &ended);
    ended.now();
    shared.busy.done();
    if let Some(hook) = &main.on_search_end {
        hook();
    }
}

/// Start the helpers, when the main thread has completed its first iteration (unless the search
/// has been stopped by then). Returns how many were started (a helper whose thread is gone is
/// not).
///
/// The main thread always completes depth 1 (there is no move to play before), which takes it
/// well under a millisecond with a core to itself. With more threads than cores, helpers that
/// started with it took the cores away, and its first iteration could end past the whole budget
/// of a short clock.
pub(crate) fn start_helpers(shared: &Shared, helpers: HelperJobs) -> usize {
    if shared.signals.control.stopped() {
        return 0;
    }
    // Counted before they are sent: the main thread may wait for them as soon as they run.
    shared.helpers_running.add(helpers.len());
    shared.busy.add(helpers.len());
    let mut started = 0;
    for (jobs, job) in helpers {
        if jobs.send(Job::Search(job)).is_ok() {
            started += 1;
        } else {
            shared.busy.done();
            shared.helpers_running.done();
        }
    }
    started
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::Position;

    fn helper_jobs(count: usize) -> (HelperJobs, Vec<Receiver<Job>>) {
        let tt = Arc::new(TranspositionTable::new(1));
        (0..count)
            .map(|_| {
                let (jobs, inbox) = crate::mailbox::channel();
                let job = Box::new(SearchJob {
                    board: Board::new(Position::startpos()),
                    limits: Limits::default(),
                    tt: Arc::clone(&tt),
                    tb: None,
                    main: None,
                });
                ((jobs, job), inbox)
            })
            .unzip()
    }

    fn shared() -> Arc<Shared> {
        Shared::new(4, Arc::default())
    }

    #[test]
    fn helpers_get_their_jobs_and_are_counted_as_running() {
        let shared = shared();
        let (jobs, inboxes) = helper_jobs(3);
        assert_eq!(start_helpers(&shared, jobs), 3);
        assert_eq!(shared.helpers_running.count(), 3);
        assert_eq!(shared.busy.count(), 3);
        for inbox in &inboxes {
            assert!(matches!(inbox.recv(), Some(Job::Search(_))));
        }
    }

    #[test]
    fn a_stopped_search_starts_no_helpers() {
        let shared = shared();
        shared.signals.stop_and_wake();
        let (jobs, inboxes) = helper_jobs(3);
        assert_eq!(start_helpers(&shared, jobs), 0);
        assert_eq!(shared.helpers_running.count(), 0);
        assert_eq!(shared.busy.count(), 0);
        drop(inboxes);
    }

    #[test]
    fn a_helper_whose_thread_is_gone_is_not_waited_for() {
        let shared = shared();
        let (jobs, inboxes) = helper_jobs(2);
        drop(inboxes);
        assert_eq!(start_helpers(&shared, jobs), 0);
        assert_eq!(shared.helpers_running.count(), 0);
        assert_eq!(shared.busy.count(), 0);
    }
}
