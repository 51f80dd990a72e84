//! The thread pool: persistent workers, each owning a `Searcher`, parked on a condition
//! variable between searches (`mailbox.rs`). Worker 0 is the main thread: it reports, owns the limits, decides when everyone
//! stops and gives `bestmove`; the helpers search the same position silently and share what
//! they learn through the transposition table. `stop` only raises a flag.

use crate::helpers::HelperPolicy;
use crate::numa::{self, NumaPolicy, Plan};
use crate::pages::PageToucher;
use crate::shared::{Shared, Signals, TbSettings};
use crate::vote::VoteMode;
use crate::worker::{
    fallback_answer, helper_limits, worker_loop, Job, MainJob, OnDone, OnSearchEnd, SearchJob, Worker,
};
use engine::board::Board;
use engine::search::{Limits, Reporter, SharedHistories};
use engine::tt::TranspositionTable;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// With more threads than cores, a move whose hard limit is shorter than this, or one that would
/// leave less than this on the clock if it ran to its hard limit, is searched by one thread per
/// core. The scheduler shares the cores among all runnable threads, and the main thread, which
/// alone watches the clock, can then wait for one longer than such a move lasts, and lose on
/// time. The clock test
/// covers `movestogo 1`, where the hard limit may take most of a short clock. On such short
/// moves the extra threads gain nothing measurable anyway (notes/results.md).
const OVERSUBSCRIBED_MIN_TIME: Duration = Duration::from_millis(100);

/// How many of a pool's `helpers` a search with these limits starts, on `cores` cores.
pub(crate) fn helpers_to_start(helpers: usize, cores: usize, limits: &Limits) -> usize {
    let short_move = limits.hard_time.is_some_and(|hard| {
        let margin = limits.clock.map_or(Duration::MAX, |clock| clock.saturating_sub(hard));
        hard < OVERSUBSCRIBED_MIN_TIME || margin < OVERSUBSCRIBED_MIN_TIME
    });
    if short_move && helpers >= cores {
        cores.saturating_sub(1)
    } else {
        helpers
    }
}

/// Stops whatever search the pool is running, from any thread (see `Pool::stop_handle`).
#[derive(Clone)]
pub struct StopHandle {
    signals: Arc<Signals>,
}

impl StopHandle {
    pub fn stop(&self) {
        self.signals.stop_and_wake();
    }

    /// `Pool::is_searching`, from any thread.
    pub fn is_searching(&self) -> bool {
        self.signals.searching.load(Ordering::SeqCst)
    }
}

pub struct Pool {
    workers: Vec<Worker>,
    pub(crate) shared: Arc<Shared>,
    signals: Arc<Signals>,
    tt: Arc<TranspositionTable>,
    /// The histories every worker reads and teaches (kept when `Threads` changes).
    learned: SharedHistories,
    policy: HelperPolicy,
    vote_mode: VoteMode,
    tb: Option<TbSettings>,
    on_search_end: Option<OnSearchEnd>,
    /// Brings a new or cleared table into memory off the search's clock.
    pages: Option<PageToucher>,
    numa: NumaPolicy,
    /// Where the workers run, and the bindings the system refused.
    placement: (Plan, Vec<String>),
}

impl Pool {
    pub fn new(threads: usize, hash_mb: usize) -> Pool {
        let tt = Arc::new(TranspositionTable::new(hash_mb));
        let signals = Arc::new(Signals::default());
        let mut pool = Pool {
            workers: Vec::new(),
            shared: Shared::new(threads, Arc::clone(&signals)),
            signals,
            tt,
            learned: SharedHistories::new(),
            policy: HelperPolicy::default(),
            vote_mode: VoteMode::default(),
            tb: None,
            on_search_end: None,
            pages: None,
            numa: NumaPolicy::default(),
            placement: (Plan::unbound(threads, String::new()), Vec::new()),
        };
        pool.spawn_workers(threads);
        pool.pages = PageToucher::start(&pool.tt, &pool.table_nodes());
        pool
    }

    /// Starts the workers, each bound to its NUMA node's CPUs by the policy's plan before it
    /// allocates its own tables; false if the system refused a thread (those started stay).
    fn spawn_workers(&mut self, threads: usize) -> bool {
        let threads = threads.max(1);
        let plan =
            numa::plan(numa::machine(), &self.numa, threads).unwrap_or_else(|e| Plan::unbound(threads, e));
        let (bound_tx, bound_rx) = std::sync::mpsc::channel();
        // A copy of the network for each node that runs threads, where there are several.
        let copies = plan.nodes_with_threads().len() > 1;
        let mut all_started = true;
        for index in 0..threads {
            let (jobs, inbox) = crate::mailbox::channel();
            let shared = Arc::clone(&self.shared);
            let variation = self.policy.variation(index);
            let learned = self.learned.clone();
            let cpus = plan.cpus_for(index).cloned();
            let node = plan.thread_node.get(index).filter(|_| copies).map(|&k| plan.nodes[k].id);
            let bound = bound_tx.clone();
            let handle = std::thread::Builder::new()
                .name(format!("lazuli-worker-{index}"))
                .stack_size(WORKER_STACK)
                .spawn(move || {
                    let refused = cpus.and_then(|cpus| numa::bind_current_thread(&cpus).err());
                    let _ = bound.send(refused.map(|e| format!("thread {index}: {e}")));
                    worker_loop(index, variation, learned, node, inbox, shared)
                });
            match handle {
                Ok(handle) => self.workers.push(Worker { jobs, handle: Some(handle) }),
                Err(_) => {
                    all_started = false;
                    break;
                }
            }
        }
        drop(bound_tx);
        let refused = bound_rx.iter().take(self.workers.len()).flatten().collect();
        self.placement = (plan, refused);
        all_started
    }

    /// Where the threads run: `2 threads on 2 NUMA nodes: 1 on 0-7, 1 on 8-15`, or why they
    /// are not bound, and any binding the system refused.
    pub fn placement(&self) -> String {
        let (plan, refused) = &self.placement;
        let mut text = plan.describe();
        if !refused.is_empty() {
            text.push_str(&format!("; the system refused to bind {}", refused.join(", ")));
        }
        text
    }

    /// The CPUs of each node that runs search threads, where they run on several: the table's
    /// pages are spread over those nodes.
    fn table_nodes(&self) -> Vec<numa::CpuSet> {
        let plan = &self.placement.0;
        let used: Vec<numa::CpuSet> =
            plan.nodes.iter().filter(|n| n.threads > 0).map(|n| n.cpus.clone()).collect();
        if used.len() > 1 {
            used
        } else {
            Vec::new()
        }
    }

    pub fn numa_policy(&self) -> &NumaPolicy {
        &self.numa
    }

    /// Places the threads by `policy` from now on (restarting them, after a running search). A
    /// custom list naming CPUs that do not exist or that the process may not use is refused and
    /// the policy kept. Returns the new placement, which names nodes left without a thread (a
    /// list of more nodes than threads is taken: `Threads` may come after it).
    pub fn set_numa_policy(&mut self, policy: NumaPolicy) -> Result<String, String> {
        numa::plan(numa::machine(), &policy, self.workers.len())
            .map_err(|e| format!("{e}; kept {}", self.numa))?;
        if policy == self.numa {
            return Ok(self.placement());
        }
        self.wait();
        self.numa = policy;
        if !self.restart_workers(self.workers.len().max(1)) {
            return Err(format!("the system refused a thread; {} running", self.workers.len()));
        }
        Ok(self.placement())
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

    /// Choose how helper threads differ from the main thread (takes effect at the next search).
    pub fn set_policy(&mut self, policy: HelperPolicy) {
        if policy == self.policy {
            return;
        }
        self.wait();
        self.policy = policy;
        self.shared.busy.add(self.workers.len());
        for (index, worker) in self.workers.iter().enumerate() {
            if worker.jobs.send(Job::Variation(policy.variation(index))).is_err() {
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
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        let threads = threads.max(1);
        let old = self.workers.len();
        if threads == old {
            return Ok(());
        }
        if threads > old && !room_for_workers(old, threads) {
            return Err(format!("not enough memory (address space) for {threads} threads; kept {old}"));
        }
        self.wait();
        if self.restart_workers(threads) {
            return Ok(());
        }
        // The system refused a thread: go back to the count that worked.
        self.restart_workers(old);
        Err(format!("the system refused to start {threads} threads; kept {old}"))
    }

    /// Replaces the workers by `threads` new ones; false if the system refused a thread.
    fn restart_workers(&mut self, threads: usize) -> bool {
        self.shutdown_workers();
        self.shared = Shared::new(threads, Arc::clone(&self.signals));
        self.spawn_workers(threads)
    }

    /// Resize the table. Same size: no-op, contents kept. On allocation failure the old table
    /// stays and the error says so.
    pub fn set_hash(&mut self, mb: usize) -> Result<(), String> {
        if mb == self.tt.size_mb() {
            return Ok(());
        }
        self.wait();
        let old_mb = self.tt.size_mb();
        if let Some(room) = self.room_for_table_mb() {
            if mb > room {
                return Err(format!(
                    "{mb} MB is more memory than this machine has free ({room} MB with the table's {old_mb}); kept {old_mb} MB"
                ));
            }
        }
        // Free the old table first when possible, so resizing needs no room for both.
        self.pages = None;
        self.tt = Arc::new(TranspositionTable::new(1));
        let result = match TranspositionTable::try_new(mb) {
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
        };
        self.pages = PageToucher::start(&self.tt, &self.table_nodes());
        result
    }

    /// The largest table the machine could back now, in MB: what the system (or, in a container,
    /// its memory cgroup) has free, and the current table's memory, which a new one replaces.
    fn room_for_table_mb(&self) -> Option<usize> {
        crate::memory::available_mb().map(|free| free + self.tt.size_mb())
    }

    /// Save the table to `path` (between searches). Returns what to tell the user.
    pub fn save_hash(&mut self, path: &std::path::Path) -> Result<String, String> {
        self.wait();
        let bytes = self.tt.save(path, &self.learned.to_bytes())?;
        Ok(format!(
            "saved the hash ({} MB) and the search's histories, {bytes} bytes, to '{}'",
            self.tt.size_mb(),
            path.display()
        ))
    }

    /// Load a table saved by `save_hash`, taking the file's size (the new table is allocated
    /// before the old one is freed, so a failure keeps the old one). A bad file, or one larger
    /// than `max_mb` (the `Hash` option's maximum), changes nothing.
    pub fn load_hash(&mut self, path: &std::path::Path, max_mb: usize) -> Result<String, String> {
        self.wait();
        let file = TranspositionTable::check_file(path)?;
        // A load writes every entry (or clears the table when it fails).
        self.pages = None;
        let loaded = self.load_checked(path, &file, max_mb);
        self.pages = PageToucher::start(&self.tt, &self.table_nodes());
        loaded
    }

    fn load_checked(
        &mut self,
        path: &std::path::Path,
        file: &engine::tt::TableFile,
        max_mb: usize,
    ) -> Result<String, String> {
        if file.size_mb() > max_mb as u64 {
            return Err(format!(
                "cannot load the hash from '{}': it holds {} MB, more than Hash allows ({max_mb} MB); the table is kept",
                path.display(),
                file.size_mb()
            ));
        }
        let old_mb = self.tt.size_mb();
        if let Some(room) = self.room_for_table_mb().filter(|&room| file.size_mb() > room as u64) {
            return Err(format!(
                "cannot load the hash from '{}': it holds {} MB, more memory than this machine has free ({room} MB); the table is kept",
                path.display(),
                file.size_mb()
            ));
        }
        let histories;
        if file.buckets != self.tt.bucket_count() as u64 {
            let table = TranspositionTable::try_with_buckets(file.buckets).ok_or_else(|| {
                format!(
                    "cannot allocate {} MB to load '{}'; the table is kept",
                    file.size_mb(),
                    path.display()
                )
            })?;
            histories = table.load(path, file)?;
            self.tt = Arc::new(table);
        } else {
            histories = self.tt.load(path, file)?;
        }
        let what = match histories {
            // Checked with the file: loading them cannot fail.
            Some(bytes) => match self.learned.load_bytes(&bytes) {
                Ok(()) => " and the search's histories",
                Err(_) => "",
            },
            None => " (a version 1 file: no histories)",
        };
        let resized = if old_mb == self.tt.size_mb() {
            String::new()
        } else {
            format!("; Hash is now {} MB (was {old_mb})", self.tt.size_mb())
        };
        Ok(format!("loaded the hash ({} MB){what} from '{}'{resized}", self.tt.size_mb(), path.display()))
    }

    /// A new game for a benchmark: as `clear`, but the table is written with zeros instead of
    /// handed back, so that every page is in memory and no background thread touches pages
    /// during the timed searches that follow.
    pub fn clear_for_benchmark(&mut self) {
        self.clear(true);
        self.pages = None;
        self.tt.clear_resident(self.workers.len().max(1));
    }

    /// New game: clear the table (unless `keep_table`), the shared histories and every
    /// thread's own.
    pub fn clear(&mut self, keep_table: bool) {
        self.wait();
        if !keep_table {
            self.pages = None;
            self.tt.clear(self.workers.len());
            self.pages = PageToucher::start(&self.tt, &self.table_nodes());
        }
        self.learned.clear();
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
        self.pages = None;
        self.tt.clear(self.workers.len());
        self.pages = PageToucher::start(&self.tt, &self.table_nodes());
    }

    /// Called on the main worker's thread after each search has been answered (`on_done` has
    /// returned) and `is_searching` has become false.
    pub fn on_search_end(&mut self, hook: impl Fn() + Send + Sync + 'static) {
        self.on_search_end = Some(Arc::new(hook));
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
        if self.workers.is_empty() {
            // The system refused every search thread: answer at once rather than never.
            on_done(fallback_answer(&board, &limits.search_moves), &crate::Ended(&self.signals.searching));
            return;
        }
        self.signals.control.reset(ponder);
        for counter in &self.shared.counters {
            counter.store(0, Ordering::Relaxed);
        }
        self.shared.tb_hits.store(0, Ordering::Relaxed);
        self.tt.new_search();
        self.tt.set_keep_deeper(limits.resume);
        let helpers = helpers_to_start(self.workers.len() - 1, self.shared.cores, &limits);
        let vote =
            helpers > 0 && limits.depth.is_none() && limits.multipv <= 1 && limits.search_moves.is_empty();
        let job = |limits: Limits, main: Option<MainJob>| {
            Box::new(SearchJob {
                board: board.clone(),
                limits,
                tt: Arc::clone(&self.tt),
                tb: self.tb.clone(),
                main,
            })
        };
        let helper_jobs = self.workers[1..=helpers]
            .iter()
            .map(|worker| (worker.jobs.clone(), job(helper_limits(&limits), None)))
            .collect();
        let main = MainJob {
            reporter,
            infinite,
            vote: if vote { self.vote_mode } else { VoteMode::Main },
            helpers: helper_jobs,
            on_done,
            on_search_end: self.on_search_end.clone(),
        };
        // The main thread's job only: it starts the helpers after its first iteration.
        self.shared.busy.add(1);
        self.signals.searching.store(true, Ordering::SeqCst);
        if self.workers[0].jobs.send(Job::Search(job(limits, Some(main)))).is_err() {
            // The main thread is gone (it never is while the pool lives): answer nothing.
            self.signals.searching.store(false, Ordering::SeqCst);
            self.shared.busy.done();
        }
    }

    /// Raise the stop flag of the current search and return at once; the main thread answers.
    pub fn stop(&self) {
        self.signals.stop_and_wake();
    }

    /// A handle that stops the current search from another thread (an input reader can then
    /// stop it without waiting for the thread that owns the pool).
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle { signals: Arc::clone(&self.signals) }
    }

    /// The opponent played the expected move: the ponder search becomes a timed search, its
    /// time counted from its `go`. One that has already had its time answers at once.
    pub fn ponderhit(&self) {
        let control = &self.signals.control;
        // SeqCst on both sides (see `soft_limit_reached`): a mark made while the hit comes is
        // seen here, or the search sees the hit.
        control.pondering.store(false, Ordering::SeqCst);
        if control.stop_on_ponderhit.load(Ordering::SeqCst) {
            self.signals.stop_and_wake();
        } else {
            self.signals.wake();
        }
    }

    /// Whether a search runs: from `go` until its `bestmove` has been given.
    pub fn is_searching(&self) -> bool {
        self.signals.searching.load(Ordering::SeqCst)
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

/// Each worker's stack: the search recurses up to the maximum ply.
const WORKER_STACK: usize = 16 << 20;
/// More than a worker's own tables take (histories, pawn cache, search stack, accumulators).
const WORKER_HEAP: usize = 4 << 20;

/// Address space the C library reserves for each thread that allocates, up to eight threads per
/// core (glibc's malloc arenas).
const ARENA: usize = if cfg!(all(target_os = "linux", target_env = "gnu")) { 64 << 20 } else { 0 };

/// Whether the address space has room to grow from `current` workers to `wanted`: checked by
/// reserving it and handing it back at once, so that a limit (`ulimit -v`, a container's) is met
/// with a refusal instead of an allocation failure inside a new thread, which would abort the
/// process. Deliberately generous: threads share arenas when they can.
fn room_for_workers(current: usize, wanted: usize) -> bool {
    let arenas = 8 * crate::available_cores();
    let new_arenas = wanted.min(arenas).saturating_sub(current.min(arenas));
    let bytes = (wanted - current)
        .checked_mul(WORKER_STACK + WORKER_HEAP)
        .and_then(|b| b.checked_add(new_arenas.checked_mul(ARENA)?));
    let Some(bytes) = bytes else { return false };
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).is_ok()
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop();
        self.wait();
        self.pages = None;
        self.shutdown_workers();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::Position;
    use engine::search::time::{allocate, Clock};
    use engine::search::{SearchResult, SilentReporter};
    use std::sync::mpsc::channel;
    use std::time::Instant;

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    /// Limits with this hard limit and clock, in ms.
    fn timed(hard: Option<u64>, clock: Option<u64>) -> Limits {
        Limits { hard_time: hard.and_then(ms), clock: clock.and_then(ms), ..Limits::default() }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_hash_larger_than_the_free_memory_is_refused_and_the_table_kept() {
        let mut pool = Pool::new(1, 2);
        let free = crate::memory::available_mb().expect("Linux reports MemAvailable");
        let error = pool.set_hash(free + 2048).expect_err("more than the machine has");
        assert!(error.contains("more memory than this machine has free"), "{error}");
        assert_eq!(pool.hash_mb(), 2);
        pool.set_hash(4).expect("a small table fits");
        assert_eq!(pool.hash_mb(), 4);
    }

    #[test]
    fn a_table_file_larger_than_hash_allows_is_refused_and_the_table_kept() {
        let path = std::env::temp_dir().join(format!("lazuli-pool-cap-{}.lzh", std::process::id()));
        let mut pool = Pool::new(1, 4);
        pool.save_hash(&path).expect("saved");
        let mut small = Pool::new(1, 2);
        let refused = small.load_hash(&path, 3).expect_err("4 MB is more than 3");
        assert!(refused.contains("more than Hash allows (3 MB)"), "{refused}");
        assert_eq!(small.hash_mb(), 2, "the table is kept");
        small.load_hash(&path, 4).expect("4 MB is allowed");
        assert_eq!(small.hash_mb(), 4);
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn short_moves_start_one_thread_per_core_only_when_oversubscribed() {
        // 64 threads on 2 cores: a 10 ms move runs 2, a long or untimed one all 64.
        assert_eq!(helpers_to_start(63, 2, &timed(Some(10), None)), 1);
        assert_eq!(helpers_to_start(63, 2, &timed(Some(100), None)), 63);
        assert_eq!(helpers_to_start(63, 2, &timed(Some(100), Some(10_000))), 63);
        assert_eq!(helpers_to_start(63, 2, &timed(None, None)), 63);
        // With a core for every thread nothing changes.
        assert_eq!(helpers_to_start(1, 2, &timed(Some(10), None)), 1);
        assert_eq!(helpers_to_start(7, 8, &timed(Some(1), None)), 7);
        assert_eq!(helpers_to_start(8, 8, &timed(Some(1), None)), 7);
        assert_eq!(helpers_to_start(5, 1, &timed(Some(1), None)), 0);
    }

    #[test]
    fn a_move_that_may_nearly_empty_the_clock_runs_one_thread_per_core() {
        // `movestogo 1` with 200 ms left: a 150 ms hard limit would leave 50 ms.
        assert_eq!(helpers_to_start(63, 2, &timed(Some(150), Some(200))), 1);
        assert_eq!(helpers_to_start(63, 2, &timed(Some(150), Some(250))), 63);
        // From the session's own clock: the last move before the time control.
        let clock =
            Clock { time: Some(Duration::from_millis(200)), moves_to_go: Some(1), ..Clock::default() };
        let hard = allocate(&clock, Duration::from_millis(10)).expect("limits").hard;
        assert!(hard >= OVERSUBSCRIBED_MIN_TIME, "{hard:?}: the hard limit alone would not apply the rule");
        let limits = Limits { hard_time: Some(hard), clock: clock.time, ..Limits::default() };
        assert_eq!(helpers_to_start(63, 2, &limits), 1);
    }

    /// Search `fen` to `depth` and wait for the answer.
    fn search_to_depth(pool: &mut Pool, fen: &str, depth: i32) -> SearchResult {
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult, _: &crate::Ended| {
            let _ = tx.send(result);
        });
        let board = Board::new(Position::from_fen(fen).expect("a valid FEN"));
        pool.go(board, Limits::depth(depth), false, false, Box::new(SilentReporter), on_done);
        let result = rx.recv_timeout(Duration::from_secs(30)).expect("a bestmove");
        pool.wait();
        result
    }

    #[test]
    fn the_threads_teach_one_set_of_shared_histories_kept_until_a_new_game() {
        let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8";
        let mut pool = Pool::new(2, 4);
        let learned = |pool: &Pool| (pool.learned.correction.learned(), pool.learned.continuation.learned());
        assert_eq!(learned(&pool), (0, 0));
        search_to_depth(&mut pool, fen, 9);
        let first = learned(&pool);
        assert!(first.0 > 0 && first.1 > 0, "the pool's tables learned {first:?}: the workers use their own");
        // Changing the thread count keeps what was learned, and the new workers go on teaching it.
        pool.set_threads(3).expect("threads start");
        assert_eq!(learned(&pool), first);
        search_to_depth(&mut pool, "4rrk1/1pp2ppp/p1n5/3q4/3P4/P1P2N2/5PPP/R2QR1K1 b - - 0 18", 9);
        let second = learned(&pool);
        assert!(second.0 > first.0 && second.1 > first.1, "{second:?} after {first:?}");
        // A new game forgets it.
        pool.clear(false);
        assert_eq!(learned(&pool), (0, 0));
    }

    #[test]
    fn an_oversubscribed_pool_searches_a_short_move_on_one_thread_per_core() {
        let cores = crate::available_cores();
        let threads = cores + 3;
        let mut pool = Pool::new(threads, 4);
        let (tx, rx) = channel();
        let limits = Limits { soft_time: ms(20), hard_time: ms(30), ..Limits::default() };
        let on_done = Box::new(move |result: SearchResult, _: &crate::Ended| {
            let _ = tx.send(result);
        });
        let board = Board::new(Position::startpos());
        pool.go(board.clone(), limits, false, false, Box::new(SilentReporter), on_done);
        let result = rx.recv_timeout(Duration::from_secs(10)).expect("a bestmove");
        pool.wait();
        assert!(board.position().is_legal_move(result.best_move));
        let nodes: Vec<u64> = pool.shared.counters.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        assert!(nodes[0] > 0, "{nodes:?}");
        assert!(nodes[cores..].iter().all(|&n| n == 0), "threads beyond the cores searched: {nodes:?}");
    }

    #[test]
    fn stop_only_raises_the_flag_and_the_main_thread_answers_once_then_the_search_has_ended() {
        let mut pool = Pool::new(3, 4);
        let (ended_tx, ended_rx) = channel();
        let searching = Arc::clone(&pool.signals);
        pool.on_search_end(move || {
            // The hook runs once the search counts as ended.
            let _ = ended_tx.send(searching.searching.load(Ordering::SeqCst));
        });
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult, ended: &crate::Ended| {
            let before = std::thread::current().name().map(str::to_string);
            ended.now();
            let _ = tx.send((result, before));
        });
        // Bare kings: a search without limits runs through every depth and answers by itself
        // within milliseconds; `go infinite` must still wait for `stop`, for ten times as long.
        let board = Board::new(Position::from_fen("8/8/8/4k3/8/8/8/4K3 w - - 0 1").expect("valid"));
        let mut finite = Pool::new(1, 1);
        let (finite_tx, finite_rx) = channel();
        let started = std::time::Instant::now();
        let finite_done = Box::new(move |_: SearchResult, _: &crate::Ended| {
            let _ = finite_tx.send(());
        });
        finite.go(board.clone(), Limits::default(), false, false, Box::new(SilentReporter), finite_done);
        finite_rx.recv_timeout(Duration::from_secs(10)).expect("a search without limits ends by itself");
        let every_depth = started.elapsed();
        pool.go(board.clone(), Limits::default(), false, true, Box::new(SilentReporter), on_done);
        assert!(pool.is_searching());
        std::thread::sleep(every_depth * 10 + Duration::from_millis(20));
        assert!(rx.try_recv().is_err(), "go infinite answered before stop, though every depth was done");
        pool.stop();
        let (result, thread) = rx.recv_timeout(Duration::from_secs(10)).expect("bestmove after stop");
        assert_eq!(thread.as_deref(), Some("lazuli-worker-0"), "answered by another thread");
        assert!(board.position().is_legal_move(result.best_move));
        assert_eq!(ended_rx.recv_timeout(Duration::from_secs(10)), Ok(false));
        assert!(!pool.is_searching());
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err(), "answered twice");
    }

    /// Starts a ponder search from the start position with these limits; its results come on
    /// the channel.
    fn ponder(pool: &mut Pool, soft: u64, hard: u64) -> (std::sync::mpsc::Receiver<SearchResult>, Instant) {
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult, _: &crate::Ended| {
            let _ = tx.send(result);
        });
        let limits = Limits { soft_time: ms(soft), hard_time: ms(hard), ..Limits::default() };
        let start = limits.start;
        pool.go(Board::new(Position::startpos()), limits, true, false, Box::new(SilentReporter), on_done);
        (rx, start)
    }

    /// A reporter that panics at the first iteration it is told of.
    struct PanickingReporter;

    impl Reporter for PanickingReporter {
        fn info(&self, _: &engine::search::SearchInfo) {
            panic!("a reporter that fails (on purpose, in a test)");
        }
    }

    /// Searches the start position with `reporter` and returns the answer, or `None` if none
    /// came within 10 s.
    fn answer_with(
        pool: &mut Pool,
        limits: Limits,
        reporter: Box<dyn Reporter + Send>,
    ) -> Option<SearchResult> {
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult, _: &crate::Ended| {
            let _ = tx.send(result);
        });
        pool.go(Board::new(Position::startpos()), limits, false, false, reporter, on_done);
        rx.recv_timeout(Duration::from_secs(10)).ok()
    }

    #[test]
    fn a_panicking_main_search_is_answered_and_the_pool_stays_usable() {
        let mut pool = Pool::new(2, 1);
        let answer =
            answer_with(&mut pool, Limits::depth(6), Box::new(PanickingReporter)).expect("an answer");
        assert!(Position::startpos().is_legal_move(answer.best_move), "{answer:?}");
        pool.wait();
        assert!(!pool.is_searching());
        let next =
            answer_with(&mut pool, Limits::depth(6), Box::new(SilentReporter)).expect("the next search");
        assert_eq!(next.depth, 6);
        pool.set_threads(3).expect("the pool still changes");
        drop(pool);
    }

    #[test]
    fn threads_bound_to_two_nodes_read_their_own_copies_of_the_network() {
        let allowed = crate::numa::machine().allowed.cpus().to_vec();
        let Some(network) = engine::nnue::active().filter(|_| allowed.len() >= 2) else {
            eprintln!("skipped: needs a network and two CPUs");
            return;
        };
        let mut pool = Pool::new(2, 1);
        let policy = NumaPolicy::parse(&format!("{}:{}", allowed[0], allowed[1])).expect("valid");
        let placement = pool.set_numa_policy(policy).expect("CPUs it may use");
        assert!(placement.contains("on 2 NUMA nodes"), "{placement}");
        answer_with(&mut pool, Limits::depth(8), Box::new(SilentReporter)).expect("an answer");
        pool.wait();
        let copies = engine::nnue::node_copies();
        for node in [0, 1] {
            assert!(copies.contains(&(node, network.hash())), "node {node}: {copies:?}");
        }
    }

    #[test]
    fn a_pool_without_threads_still_answers() {
        let mut pool = Pool::new(1, 1);
        pool.shutdown_workers();
        let answer = answer_with(&mut pool, Limits::depth(6), Box::new(SilentReporter)).expect("an answer");
        assert!(Position::startpos().is_legal_move(answer.best_move), "{answer:?}");
        assert!(!pool.is_searching());
    }

    #[test]
    fn a_ponder_search_that_had_its_time_answers_at_once_on_ponderhit() {
        let mut pool = Pool::new(2, 4);
        // The soft limit passes while it ponders; the hard limit is far beyond the hit, so only
        // the mark made at the soft limit can end the search at the hit.
        let (rx, _) = ponder(&mut pool, 100, 5_000);
        assert!(rx.recv_timeout(Duration::from_millis(600)).is_err(), "answered while pondering");
        let hit = Instant::now();
        pool.ponderhit();
        rx.recv_timeout(Duration::from_secs(10)).expect("bestmove after ponderhit");
        // Its time counts from `go`: it has had it, and answers without another iteration.
        let after = hit.elapsed();
        // Without the mark it would search on to the hard limit, 4.4 s more.
        assert!(after < Duration::from_millis(40), "answered {after:?} after ponderhit: not at the hit");
    }

    #[test]
    fn a_ponderhit_before_the_soft_limit_leaves_the_search_the_rest_of_its_time() {
        let mut pool = Pool::new(2, 4);
        let (rx, start) = ponder(&mut pool, 400, 800);
        std::thread::sleep(Duration::from_millis(20));
        pool.ponderhit();
        rx.recv_timeout(Duration::from_secs(10)).expect("bestmove after ponderhit");
        // The time manager may shorten the soft limit to 0.4 of it for a stable best move, and
        // the hard limit ends it: both counted from `go`.
        let used = start.elapsed();
        assert!(
            used >= Duration::from_millis(150),
            "answered {used:?} after go: the rest of the time was not used"
        );
        assert!(used < Duration::from_millis(1500), "the hard limit was not kept: {used:?}");
    }
}
