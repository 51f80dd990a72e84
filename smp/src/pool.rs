//! The thread pool: persistent workers, each owning a `Searcher`, parked on a channel between
//! searches. Worker 0 is the main thread: it reports, manages time and decides when everyone
//! stops; the helpers search the same position silently and share what they learn through the
//! transposition table.

use crate::control::Latch;
use crate::vote::VoteMode;
use arc_swap::ArcSwapOption;
use crossbeam_channel::{unbounded, Receiver, Sender};
use crossbeam_utils::CachePadded;
use engine::board::Board;
use engine::search::{
    HelperPolicy, Limits, Reporter, SearchControl, SearchResult, Searcher, SharedState, SilentReporter,
    TbContext,
};
use engine::tb::Tablebases;
use engine::tt::TranspositionTable;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Called once with the final result, when the search has stopped.
pub type OnDone = Box<dyn FnOnce(SearchResult) + Send>;

/// How long the main thread waits for helpers to finish before answering.
const HELPER_GRACE: Duration = Duration::from_millis(2);
/// How long `stop` waits for the main thread to answer before answering for it, when every
/// thread can have a core (with more threads than cores, `stop` answers at once: see
/// `stop_grace`).
const STOP_GRACE: Duration = Duration::from_millis(1);
/// How often `stop` looks whether the main thread has answered during the grace.
const STOP_POLL: Duration = Duration::from_micros(100);

/// Tablebases and how to use them in the search.
#[derive(Clone)]
pub struct TbSettings {
    pub tables: Arc<Tablebases>,
    pub probe_depth: i32,
    pub probe_limit: usize,
    pub rule50: bool,
}

struct SearchJob {
    board: Board,
    limits: Limits,
    tt: Arc<TranspositionTable>,
    tb: Option<TbSettings>,
    search_id: u64,
    /// Main thread only: where to report, and what to do at the end.
    main: Option<MainJob>,
}

struct MainJob {
    reporter: Box<dyn Reporter + Send>,
    infinite: bool,
}

enum Job {
    Search(Box<SearchJob>),
    Clear,
    Policy(HelperPolicy),
    Exit,
}

struct Worker {
    jobs: Sender<Job>,
    handle: Option<JoinHandle<()>>,
}

/// State every worker shares.
struct Shared {
    control: SearchControl,
    counters: Vec<CachePadded<AtomicU64>>,
    /// Helpers still searching (the main thread waits for them before reporting).
    helpers_running: Latch,
    /// Workers still busy with a job (the pool waits for it before changing anything).
    busy: Latch,
    /// Wakes the main thread waiting out `go infinite` or a ponder search, and the timer.
    wake: (Mutex<()>, Condvar),
    /// Each thread's latest result (its last completed iteration, then its final result), for
    /// the vote. Lock-free, so answering never waits for a thread that was preempted while
    /// publishing (with many more threads than cores it may not run again for tens of ms).
    results: Vec<ArcSwapOption<SearchResult>>,
    /// Counts searches, so a timer of an earlier search never touches a later one.
    search_id: AtomicU64,
    /// Successful tablebase probes of the current search.
    tb_hits: AtomicU64,
    /// How to answer the current search: taken by whoever answers first (the main thread when
    /// it finishes, or the thread that raised `stop` or the timer when the main thread is slow
    /// to get a core), after claiming the search in `answered`.
    answer: Mutex<Option<OnDone>>,
    /// Which threads the final move of the current search may come from (`VoteMode::index`):
    /// the pool's mode, or `Main` when the search must report the main thread's result.
    vote: AtomicU8,
    /// The id (`search_id`) of the last search answered: whoever answers search `n` first moves
    /// it from `n - 1` to `n` (only the winner then touches `answer`). Every search is answered
    /// before the next starts, so a late claim for an earlier search always fails.
    answered: AtomicU64,
    /// How long `stop` gives the main thread to answer (`stop_grace`).
    stop_grace: Duration,
}

impl Shared {
    fn total_nodes(&self) -> u64 {
        self.counters.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }
}

pub struct Pool {
    workers: Vec<Worker>,
    shared: Arc<Shared>,
    /// The state stop handles act on (replaced with `shared` when the thread count changes).
    current: Arc<Mutex<Arc<Shared>>>,
    tt: Arc<TranspositionTable>,
    policy: HelperPolicy,
    vote_mode: VoteMode,
    tb: Option<TbSettings>,
}

impl Pool {
    pub fn new(threads: usize, hash_mb: usize) -> Pool {
        let tt = Arc::new(TranspositionTable::new(hash_mb));
        let shared = Self::new_shared(threads);
        let mut pool = Pool {
            workers: Vec::new(),
            shared: Arc::clone(&shared),
            current: Arc::new(Mutex::new(shared)),
            tt,
            policy: HelperPolicy::default(),
            vote_mode: VoteMode::default(),
            tb: None,
        };
        pool.spawn_workers(threads);
        pool
    }

    fn new_shared(threads: usize) -> Arc<Shared> {
        Arc::new(Shared {
            control: SearchControl::default(),
            counters: (0..threads.max(1)).map(|_| CachePadded::new(AtomicU64::new(0))).collect(),
            helpers_running: Latch::default(),
            busy: Latch::default(),
            wake: (Mutex::new(()), Condvar::new()),
            results: (0..threads.max(1)).map(|_| ArcSwapOption::empty()).collect(),
            search_id: AtomicU64::new(0),
            tb_hits: AtomicU64::new(0),
            answer: Mutex::new(None),
            vote: AtomicU8::new(VoteMode::Main.index()),
            answered: AtomicU64::new(0),
            stop_grace: stop_grace(threads),
        })
    }

    fn spawn_workers(&mut self, threads: usize) {
        for index in 0..threads.max(1) {
            let (jobs, inbox) = unbounded();
            let shared = Arc::clone(&self.shared);
            let policy = self.policy;
            let handle = std::thread::Builder::new()
                .name(format!("lazuli-worker-{index}"))
                .stack_size(16 << 20)
                .spawn(move || worker_loop(index, policy, inbox, shared))
                .ok();
            self.workers.push(Worker { jobs, handle });
        }
    }

    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    pub fn tt(&self) -> &TranspositionTable {
        &self.tt
    }

    /// Use these tablebases from the next search on (`None`: none).
    pub fn set_tablebases(&mut self, tb: Option<TbSettings>) {
        self.wait();
        self.tb = tb;
    }

    pub fn tablebases(&self) -> Option<&TbSettings> {
        self.tb.as_ref()
    }

    pub fn policy(&self) -> HelperPolicy {
        self.policy
    }

    /// Choose how helper threads differ from the main thread (takes effect at the next search).
    pub fn set_policy(&mut self, policy: HelperPolicy) {
        if policy == self.policy {
            return;
        }
        self.wait();
        self.policy = policy;
        self.shared.busy.add(self.workers.len());
        for worker in &self.workers {
            if worker.jobs.send(Job::Policy(policy)).is_err() {
                self.shared.busy.done();
            }
        }
        self.wait();
    }

    /// Choose which threads the final move may come from (from the next search on).
    pub fn set_vote_mode(&mut self, mode: VoteMode) {
        self.vote_mode = mode;
    }

    /// Change the number of threads (waits for a running search to end). Same count: no-op.
    pub fn set_threads(&mut self, threads: usize) {
        let threads = threads.max(1);
        if threads == self.workers.len() {
            return;
        }
        self.wait();
        self.shutdown_workers();
        self.shared = Self::new_shared(threads);
        *self.current.lock() = Arc::clone(&self.shared);
        self.spawn_workers(threads);
    }

    /// Resize the table. Same size: no-op, contents kept. On allocation failure the old table
    /// stays and the error says so.
    pub fn set_hash(&mut self, mb: usize) -> Result<(), String> {
        if mb == self.tt.size_mb() {
            return Ok(());
        }
        self.wait();
        // Free the old table first when possible, so resizing needs no room for both.
        let old_mb = self.tt.size_mb();
        self.tt = Arc::new(TranspositionTable::new(1));
        match TranspositionTable::try_new(mb) {
            Some(table) => {
                self.tt = Arc::new(table);
                Ok(())
            }
            None => {
                self.tt = Arc::new(
                    TranspositionTable::try_new(old_mb).unwrap_or_else(|| TranspositionTable::new(1)),
                );
                Err(format!("could not allocate {mb} MB for the hash table; kept {} MB", self.tt.size_mb()))
            }
        }
    }

    /// New game: clear the table and every thread's histories.
    pub fn clear(&mut self) {
        self.wait();
        self.tt.clear(self.workers.len());
        self.shared.busy.add(self.workers.len());
        for worker in &self.workers {
            if worker.jobs.send(Job::Clear).is_err() {
                self.shared.busy.done();
            }
        }
        self.wait();
    }

    /// Clear only the table (`Clear Hash`).
    pub fn clear_hash(&mut self) {
        self.wait();
        self.tt.clear(self.workers.len());
    }

    /// Start searching. Returns at once; `on_done` receives the result when all threads have
    /// stopped. With `infinite` or `ponder`, the search does not end by itself before `stop`
    /// (or, when pondering, `ponderhit` after the limits are reached).
    pub fn go(
        &mut self,
        board: Board,
        limits: Limits,
        ponder: bool,
        infinite: bool,
        reporter: Box<dyn Reporter + Send>,
        on_done: OnDone,
    ) {
        self.wait();
        self.shared.control.reset(ponder);
        for counter in &self.shared.counters {
            counter.store(0, Ordering::Relaxed);
        }
        self.shared.results.iter().for_each(|r| r.store(None));
        self.shared.tb_hits.store(0, Ordering::Relaxed);
        self.tt.new_search();
        let helpers = self.workers.len() - 1;
        self.shared.helpers_running.add(helpers);
        self.shared.busy.add(self.workers.len());
        let vote =
            helpers > 0 && limits.depth.is_none() && limits.multipv <= 1 && limits.search_moves.is_empty();
        let mode = if vote { self.vote_mode } else { VoteMode::Main };
        *self.shared.answer.lock() = Some(on_done);
        self.shared.vote.store(mode.index(), Ordering::SeqCst);
        // The new id last: a `stop` that reads it finds the search ready to be answered (one
        // that reads the previous id finds that search answered and does nothing).
        let search_id = self.shared.search_id.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some(hard) = limits.hard_time {
            start_timer(Arc::clone(&self.shared), search_id, limits.start, hard);
        }
        let mut main = Some(MainJob { reporter, infinite });
        for (index, worker) in self.workers.iter().enumerate() {
            let job = SearchJob {
                board: board.clone(),
                limits: if index == 0 { limits.clone() } else { helper_limits(&limits) },
                tt: Arc::clone(&self.tt),
                tb: self.tb.clone(),
                search_id,
                main: if index == 0 { main.take() } else { None },
            };
            if worker.jobs.send(Job::Search(Box::new(job))).is_err() {
                self.shared.busy.done();
                if index > 0 {
                    self.shared.helpers_running.done();
                }
            }
        }
    }

    /// End the current search as soon as possible. Returns once `bestmove` has been given, or
    /// after a short grace if the search has not completed its first iteration yet.
    pub fn stop(&self) {
        self.shared.control.stop.store(true, Ordering::SeqCst);
        self.wake_main();
        answer_after_grace(&self.shared, self.shared.search_id.load(Ordering::SeqCst));
    }

    /// A handle that stops the current search from another thread (an input reader can then
    /// answer `stop` without waiting for the thread that owns the pool).
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle { current: Arc::clone(&self.current) }
    }

    /// The opponent played the expected move: the ponder search becomes a timed search whose
    /// clock starts now.
    pub fn ponderhit(&self, elapsed_ms: u64) {
        self.shared.control.time_origin_ms.store(elapsed_ms, Ordering::SeqCst);
        self.shared.control.pondering.store(false, Ordering::SeqCst);
        self.wake_main();
    }

    fn wake_main(&self) {
        let _guard = self.shared.wake.0.lock();
        self.shared.wake.1.notify_all();
    }

    pub fn is_searching(&self) -> bool {
        self.shared.busy.count() > 0
    }

    /// Block until no worker is busy.
    pub fn wait(&self) {
        self.shared.busy.wait_zero();
    }

    /// Nodes searched so far by all threads.
    pub fn nodes(&self) -> u64 {
        self.shared.total_nodes()
    }

    fn shutdown_workers(&mut self) {
        for worker in &self.workers {
            let _ = worker.jobs.send(Job::Exit);
        }
        for worker in &mut self.workers {
            if let Some(handle) = worker.handle.take() {
                let _ = handle.join();
            }
        }
        self.workers.clear();
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop();
        self.wait();
        self.shutdown_workers();
    }
}

/// Helpers obey only the stop flag: the main thread owns every limit.
fn helper_limits(limits: &Limits) -> Limits {
    Limits {
        start: limits.start,
        depth: None,
        nodes: None,
        mate: None,
        soft_time: None,
        hard_time: None,
        search_moves: limits.search_moves.clone(),
        multipv: 1,
    }
}

fn worker_loop(index: usize, policy: HelperPolicy, inbox: Receiver<Job>, shared: Arc<Shared>) {
    let mut searcher = Searcher::for_thread(index, policy);
    while let Ok(job) = inbox.recv() {
        match job {
            Job::Exit => break,
            Job::Clear => {
                searcher.clear();
                shared.busy.done();
            }
            Job::Policy(policy) => {
                searcher.set_policy(policy);
                shared.busy.done();
            }
            Job::Search(job) => {
                run_search(index, &mut searcher, *job, &shared);
                shared.busy.done();
            }
        }
    }
}

fn run_search(index: usize, searcher: &mut Searcher, job: SearchJob, shared: &Shared) {
    let total = || shared.total_nodes();
    let tb = job.tb.as_ref().map(|t| TbContext {
        tables: &t.tables,
        probe_depth: t.probe_depth,
        probe_limit: t.probe_limit,
        rule50: t.rule50,
        hits: &shared.tb_hits,
    });
    let publish = |result: &SearchResult| shared.results[index].store(Some(Arc::new(result.clone())));
    let silent = SilentReporter;
    let reporter: &dyn Reporter = match &job.main {
        Some(main) => main.reporter.as_ref(),
        None => &silent,
    };
    let ctx = SharedState {
        tt: &job.tt,
        control: &shared.control,
        nodes: &shared.counters[index],
        total_nodes: &total,
        reporter,
        tb,
        on_iteration: Some(&publish),
    };
    let result = searcher.search(&job.board, &job.limits, &ctx);
    let Some(main) = &job.main else {
        publish(&result);
        shared.helpers_running.done();
        return;
    };

    // `go infinite` and pondering never answer before `stop` (or `ponderhit`).
    {
        let mut guard = shared.wake.0.lock();
        while !shared.control.stopped() && (main.infinite || shared.control.pondering.load(Ordering::SeqCst))
        {
            shared.wake.1.wait_for(&mut guard, Duration::from_millis(50));
        }
    }
    shared.control.stop.store(true, Ordering::SeqCst);
    {
        let _guard = shared.wake.0.lock();
        shared.wake.1.notify_all();
    }
    // Helpers stop within microseconds when they have a core; with far more threads than cores
    // some may wait for one. Their results are not worth a late `bestmove`: vote among those
    // that are done. (The next search still waits for every thread to be idle.)
    shared.helpers_running.wait_zero_for(HELPER_GRACE);
    publish(&result);
    answer(shared, job.search_id);
}

/// Stops whatever search the pool is running (see `Pool::stop_handle`).
#[derive(Clone)]
pub struct StopHandle {
    current: Arc<Mutex<Arc<Shared>>>,
}

impl StopHandle {
    pub fn stop(&self) {
        let shared = Arc::clone(&self.current.lock());
        let search_id = shared.search_id.load(Ordering::SeqCst);
        shared.control.stop.store(true, Ordering::SeqCst);
        {
            let _guard = shared.wake.0.lock();
            shared.wake.1.notify_all();
        }
        answer_after_grace(&shared, search_id);
    }
}

/// Give `bestmove` for the current search from the results published so far, unless it has
/// been given already or no thread has a result yet. Returns whether it is answered. Takes no
/// lock a searching thread may hold: the one answering `stop` must not wait for a thread that
/// is waiting for a core.
fn answer(shared: &Shared, search_id: u64) -> bool {
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
    on_done(Arc::unwrap_or_clone(result));
    true
}

/// How long `stop` waits for the main thread of a pool of `threads` to answer. With a core for
/// every thread the main thread answers within microseconds, with its last, possibly unfinished
/// iteration. With more threads than cores it is usually waiting for a core, and the thread that
/// read `stop` answers at once from the completed iterations: waiting would only add the grace,
/// and polling through it costs that thread its place with the scheduler, so the next `stop`
/// wakes it later (at 64 threads on 2 cores: median 1.2 ms and 90th percentile 21 ms with the
/// grace, 0.2 ms and 4 to 8 ms without).
fn stop_grace(threads: usize) -> Duration {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads > cores {
        Duration::ZERO
    } else {
        STOP_GRACE
    }
}

/// After `stop`: give the main thread `stop_grace` to answer, then answer for it from the
/// published results (when it is waiting for a core).
fn answer_after_grace(shared: &Shared, search_id: u64) {
    let deadline = std::time::Instant::now() + shared.stop_grace;
    while shared.answered.load(Ordering::SeqCst) < search_id {
        if std::time::Instant::now() >= deadline {
            answer(shared, search_id);
            return;
        }
        std::thread::sleep(STOP_POLL);
    }
}

/// Raise the stop flag at the hard time limit even if the main thread is starved of CPU (many
/// threads on few cores). Pondering postpones the deadline until `ponderhit`.
fn start_timer(shared: Arc<Shared>, search_id: u64, start: std::time::Instant, hard: Duration) {
    let spawned = std::thread::Builder::new().name("lazuli-timer".into()).spawn(move || {
        let mut guard = shared.wake.0.lock();
        loop {
            if shared.search_id.load(Ordering::SeqCst) != search_id || shared.control.stopped() {
                return;
            }
            if shared.control.pondering.load(Ordering::SeqCst) {
                shared.wake.1.wait_for(&mut guard, Duration::from_millis(20));
                continue;
            }
            let origin = Duration::from_millis(shared.control.time_origin_ms.load(Ordering::SeqCst));
            let deadline = start + origin + hard;
            let now = std::time::Instant::now();
            if now >= deadline {
                shared.control.stop.store(true, Ordering::SeqCst);
                shared.wake.1.notify_all();
                drop(guard);
                answer_after_grace(&shared, search_id);
                return;
            }
            shared.wake.1.wait_for(&mut guard, (deadline - now).min(Duration::from_millis(20)));
        }
    });
    // Without a timer thread the main thread's own clock checks still end the search.
    drop(spawned);
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::Position;
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
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(stop_grace(1), STOP_GRACE);
        assert_eq!(stop_grace(cores), STOP_GRACE);
        assert_eq!(stop_grace(cores + 1), Duration::ZERO);
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
