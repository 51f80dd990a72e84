//! The thread pool: one persistent search thread per `Threads`, each owning its `Searcher`
//! (its histories survive between moves) and sleeping in its slot between searches
//! (`thread.rs`). `go` wakes the main thread, which wakes the helpers, searches, stops them,
//! votes and answers; `stop` only raises a flag. The pool knows nothing of the table beyond the
//! one each search is given: its owner is the `Engine` (`facade.rs`).

use crate::helpers::HelperPolicy;
use crate::numa::{self, NumaPolicy, Plan};
use crate::thread::{
    fallback_answer, Finish, MainJob, OnBestmove, SearchJob, SearcherSetup, Shared, Signals, Task, TbSettings,
};
use crate::vote::VoteMode;
use crate::Ended;
use engine::board::Board;
use engine::nnue::NetworkCopies;
use engine::search::params::SearchConstants;
use engine::search::{Limits, Reporter, SharedHistories};
use engine::tt::TranspositionTable;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

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

/// One search as the pool runs it: the position, the limits, and the table and tablebases to
/// search with.
pub struct Search {
    pub board: Board,
    pub limits: Limits,
    /// A ponder search: its limits wait for `ponderhit`.
    pub ponder: bool,
    /// `go infinite`: no answer before `stop`.
    pub infinite: bool,
    pub table: Arc<TranspositionTable>,
    pub tablebases: Option<TbSettings>,
    /// The network to evaluate with, and its copies for the NUMA nodes threads run on.
    pub network: Arc<NetworkCopies>,
    /// The search constants every thread reads.
    pub constants: Arc<SearchConstants>,
    /// The engine's steps before the answer is given.
    pub(crate) finish: Finish,
}

pub struct Pool {
    threads: Vec<JoinHandle<()>>,
    shared: Arc<Shared>,
    signals: Arc<Signals>,
    /// The histories every thread reads and teaches (kept when `Threads` changes).
    learned: SharedHistories,
    policy: HelperPolicy,
    vote_mode: VoteMode,
    numa: NumaPolicy,
    /// Where the threads run, and the bindings the system refused.
    placement: (Plan, Vec<String>),
}

impl Pool {
    /// A pool of `threads` threads (one if the system refuses that many) teaching `learned`.
    pub fn new(threads: usize, learned: SharedHistories) -> Pool {
        let signals = Arc::new(Signals::default());
        let mut pool = Pool {
            threads: Vec::new(),
            shared: Arc::new(Shared::new(0, Arc::clone(&signals))),
            signals,
            learned,
            policy: HelperPolicy::default(),
            vote_mode: VoteMode::default(),
            numa: NumaPolicy::default(),
            placement: (Plan::unbound(threads, String::new()), Vec::new()),
        };
        if !pool.spawn(threads) {
            pool.spawn(1);
        }
        pool
    }

    /// Starts `threads` threads, each bound to its NUMA node's CPUs by the policy's plan before
    /// it makes its searcher. If the system refuses one, none is left running and it says false.
    fn spawn(&mut self, threads: usize) -> bool {
        self.shutdown();
        let threads = threads.max(1);
        let plan =
            numa::plan(numa::machine(), &self.numa, threads).unwrap_or_else(|e| Plan::unbound(threads, e));
        let shared = Arc::new(Shared::new(threads, Arc::clone(&self.signals)));
        self.shared = Arc::clone(&shared);
        let (bound_tx, bound_rx) = std::sync::mpsc::channel();
        // A copy of the network for each node that runs threads, where there are several.
        let copies = plan.nodes_with_threads().len() > 1;
        for index in 0..threads {
            let cpus = plan.cpus_for(index).cloned();
            let node = plan.thread_node.get(index).filter(|_| copies).map(|&k| plan.nodes[k].id);
            let setup = SearcherSetup { learned: self.learned.clone(), node };
            let (shared, bound) = (Arc::clone(&shared), bound_tx.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("lazuli-worker-{index}"))
                .stack_size(THREAD_STACK)
                .spawn(move || {
                    let refused = cpus.and_then(|cpus| numa::bind_current_thread(&cpus).err());
                    let _ = bound.send(refused.map(|e| format!("thread {index}: {e}")));
                    crate::thread::run(index, shared, setup)
                });
            match spawned {
                Ok(handle) => self.threads.push(handle),
                Err(_) => {
                    self.shutdown();
                    return false;
                }
            }
        }
        drop(bound_tx);
        let refused = bound_rx.iter().take(threads).flatten().collect();
        self.placement = (plan, refused);
        true
    }

    /// Ends every thread (after the search, if one runs).
    fn shutdown(&mut self) {
        self.wait();
        for slot in &self.shared.slots[..self.threads.len()] {
            slot.give(Task::Exit);
        }
        for handle in self.threads.drain(..) {
            let _ = handle.join();
        }
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

    /// The CPUs of each node that runs search threads, where they run on several (their
    /// owner spreads the table's pages over them); empty otherwise.
    pub fn nodes_in_use(&self) -> Vec<numa::CpuSet> {
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
        let threads = self.threads().max(1);
        numa::plan(numa::machine(), &policy, threads).map_err(|e| format!("{e}; kept {}", self.numa))?;
        if policy == self.numa {
            return Ok(self.placement());
        }
        let old = std::mem::replace(&mut self.numa, policy);
        if self.spawn(threads) {
            return Ok(self.placement());
        }
        self.numa = old;
        self.spawn(threads);
        Err(format!("the system refused a thread; kept {}", self.numa))
    }

    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Choose how helper threads differ from the main thread (from the next search on).
    pub fn set_policy(&mut self, policy: HelperPolicy) {
        self.policy = policy;
    }

    /// Choose which threads the final move may come from (from the next search on).
    pub fn set_vote_mode(&mut self, mode: VoteMode) {
        self.vote_mode = mode;
    }

    /// How the threads' results choose the move (`set_vote_mode`).
    pub fn vote_mode(&self) -> VoteMode {
        self.vote_mode
    }

    /// Change the number of threads (waits for a running search to end). Same count: no-op.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        let threads = threads.max(1);
        let old = self.threads();
        if threads == old {
            return Ok(());
        }
        if threads > old && !room_for_threads(old, threads) {
            return Err(format!("not enough memory (address space) for {threads} threads; kept {old}"));
        }
        if self.spawn(threads) {
            return Ok(());
        }
        self.spawn(old);
        Err(format!("the system refused to start {threads} threads; kept {old}"))
    }

    /// New game: every thread forgets its own histories (the shared ones are their owner's).
    pub fn clear_histories(&mut self) {
        self.wait();
        for slot in &self.shared.slots[..self.threads.len()] {
            slot.give(Task::Clear);
        }
        self.wait();
    }

    /// Each thread's own histories, in thread order (waits for a running search to end).
    pub fn own_histories(&mut self) -> Vec<Vec<u8>> {
        self.wait();
        let list = Arc::new(parking_lot::Mutex::new(vec![Vec::new(); self.threads()]));
        for slot in &self.shared.slots[..self.threads.len()] {
            slot.give(Task::Export(Arc::clone(&list)));
        }
        self.wait();
        let taken = std::mem::take(&mut *list.lock());
        taken
    }

    /// Gives the threads their own histories from `list` (`own_histories`' order; a shorter
    /// list is reused from its start). An empty list changes nothing.
    pub fn set_own_histories(&mut self, list: Vec<Vec<u8>>) {
        self.wait();
        if list.is_empty() {
            return;
        }
        let list = Arc::new(list);
        for slot in &self.shared.slots[..self.threads.len()] {
            slot.give(Task::Import(Arc::clone(&list)));
        }
        self.wait();
    }

    /// Start searching. Returns at once; `on_bestmove` receives the result when all threads have
    /// stopped. With `infinite` or `ponder`, the search does not end by itself before `stop`
    /// (or, when pondering, `ponderhit` after the limits are reached).
    pub fn go(&mut self, search: Search, reporter: Box<dyn Reporter + Send>, on_bestmove: OnBestmove) {
        self.wait();
        if self.threads.is_empty() {
            // The system refused every search thread: answer at once rather than never.
            let answer = fallback_answer(&search.board, &search.limits.search_moves);
            let answer = (search.finish)(answer, search.board.position());
            on_bestmove(answer, &Ended(&self.signals.searching));
            return;
        }
        self.signals.reset(search.ponder);
        for counter in &self.shared.counters {
            counter.store(0, Ordering::Relaxed);
        }
        self.shared.tb_hits.store(0, Ordering::Relaxed);
        #[cfg(feature = "cluster")]
        self.signals.others_nodes.store(0, Ordering::Relaxed);
        let limits = &search.limits;
        let vote = self.threads() > 1
            && limits.depth.is_none()
            && limits.multipv <= 1
            && limits.search_moves.is_empty();
        let main = MainJob {
            reporter,
            infinite: search.infinite,
            vote: if vote { self.vote_mode } else { VoteMode::Main },
            finish: search.finish,
            on_bestmove,
        };
        let job = SearchJob {
            board: search.board,
            limits: search.limits,
            tt: search.table,
            tb: search.tablebases,
            network: search.network,
            constants: search.constants,
            policy: self.policy,
        };
        self.signals.searching.store(true, Ordering::SeqCst);
        self.shared.slots[0].give(Task::Search(Arc::new(job), Some(main)));
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

    /// Block until every thread is idle (the main thread finishes last of a search's).
    pub fn wait(&self) {
        for slot in &self.shared.slots[..self.threads.len()] {
            slot.wait_idle();
        }
    }

    /// Nodes searched so far by all threads.
    pub fn nodes(&self) -> u64 {
        self.shared.total_nodes()
    }

    /// This pool's node count of the current search, and where the other processes' goes.
    #[cfg(feature = "cluster")]
    pub fn node_counts(&self) -> crate::peers::NodeCounts {
        crate::peers::NodeCounts(Arc::clone(&self.shared))
    }
}

/// Each thread's stack: the search recurses up to the maximum ply.
const THREAD_STACK: usize = 16 << 20;
/// More than a thread's own tables take (histories, pawn cache, search stack, accumulators).
const THREAD_HEAP: usize = 4 << 20;

/// Address space the C library reserves for each thread that allocates, up to eight threads per
/// core (glibc's malloc arenas).
const ARENA: usize = if cfg!(all(target_os = "linux", target_env = "gnu")) { 64 << 20 } else { 0 };

/// Whether the address space has room to grow from `current` threads to `wanted`: checked by
/// reserving it and handing it back at once, so that a limit (`ulimit -v`, a container's) is met
/// with a refusal instead of an allocation failure inside a new thread, which would abort the
/// process. Deliberately generous: threads share arenas when they can.
fn room_for_threads(current: usize, wanted: usize) -> bool {
    let arenas = 8 * crate::available_cores();
    let new_arenas = wanted.min(arenas).saturating_sub(current.min(arenas));
    let bytes = (wanted - current)
        .checked_mul(THREAD_STACK + THREAD_HEAP)
        .and_then(|b| b.checked_add(new_arenas.checked_mul(ARENA)?));
    let Some(bytes) = bytes else { return false };
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).is_ok()
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop();
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::Position;
    use engine::search::{SearchResult, SilentReporter};
    use std::sync::mpsc::channel;
    use std::time::{Duration, Instant};

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    fn new_pool(threads: usize) -> Pool {
        Pool::new(threads, SharedHistories::new())
    }

    /// A search of `board` over a small table of its own.
    fn search(board: Board, limits: Limits, ponder: bool, infinite: bool) -> Search {
        let table = Arc::new(TranspositionTable::new(1));
        let network = Arc::new(NetworkCopies::new(engine::nnue::default_network()));
        Search {
            board,
            limits,
            ponder,
            infinite,
            table,
            tablebases: None,
            network,
            constants: Arc::default(),
            finish: crate::answer::Finish::default().into_step(),
        }
    }

    #[test]
    fn helpers_keep_the_hard_limit_and_the_root_moves_and_nothing_else() {
        let limits = Limits {
            depth: Some(9),
            nodes: Some(1000),
            soft_time: ms(10),
            hard_time: ms(20),
            clock: ms(500),
            search_moves: vec![engine::board::Move::NULL],
            contempt: 7,
            ..Limits::default()
        };
        let helper = crate::thread::helper_limits(&limits);
        assert_eq!((helper.hard_time, helper.start), (ms(20), limits.start));
        assert_eq!((helper.search_moves, helper.contempt), (limits.search_moves, 7));
        assert_eq!((helper.depth, helper.nodes, helper.soft_time, helper.clock), (None, None, None, None));
    }

    #[test]
    fn stop_only_raises_the_flag_and_the_main_thread_answers_once_then_the_search_has_ended() {
        let mut pool = new_pool(3);
        let searching = pool.stop_handle();
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult, ended: &crate::Ended| {
            let thread = std::thread::current().name().map(str::to_string);
            let before = searching.is_searching();
            ended.now();
            let _ = tx.send((result, thread, (before, searching.is_searching())));
        });
        // Bare kings: a search without limits runs through every depth and answers by itself
        // within milliseconds; `go infinite` must still wait for `stop`, for ten times as long.
        let board = Board::new(Position::from_fen("8/8/8/4k3/8/8/8/4K3 w - - 0 1").expect("valid"));
        let mut finite = new_pool(1);
        let (finite_tx, finite_rx) = channel();
        let started = std::time::Instant::now();
        let finite_done = Box::new(move |_: SearchResult, _: &crate::Ended| {
            let _ = finite_tx.send(());
        });
        finite.go(
            search(board.clone(), Limits::default(), false, false),
            Box::new(SilentReporter),
            finite_done,
        );
        finite_rx.recv_timeout(Duration::from_secs(10)).expect("a search without limits ends by itself");
        let every_depth = started.elapsed();
        pool.go(search(board.clone(), Limits::default(), false, true), Box::new(SilentReporter), on_done);
        assert!(pool.is_searching());
        std::thread::sleep(every_depth * 10 + Duration::from_millis(20));
        assert!(rx.try_recv().is_err(), "go infinite answered before stop, though every depth was done");
        pool.stop();
        let (result, thread, searching) =
            rx.recv_timeout(Duration::from_secs(10)).expect("bestmove after stop");
        assert_eq!(thread.as_deref(), Some("lazuli-worker-0"), "answered by another thread");
        assert!(board.position().is_legal_move(result.best_move));
        assert_eq!(searching, (true, false), "the answer ends the search when it says so");
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
        pool.go(
            search(Board::new(Position::startpos()), limits, true, false),
            Box::new(SilentReporter),
            on_done,
        );
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
        pool.go(search(Board::new(Position::startpos()), limits, false, false), reporter, on_done);
        rx.recv_timeout(Duration::from_secs(10)).ok()
    }

    #[test]
    fn a_panicking_main_search_is_answered_and_the_pool_stays_usable() {
        let mut pool = new_pool(2);
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
        if allowed.len() < 2 {
            eprintln!("skipped: needs two CPUs");
            return;
        }
        let mut pool = new_pool(2);
        let policy = NumaPolicy::parse(&format!("{}:{}", allowed[0], allowed[1])).expect("valid");
        let placement = pool.set_numa_policy(policy).expect("CPUs it may use");
        assert!(placement.contains("on 2 NUMA nodes"), "{placement}");
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult, _: &crate::Ended| {
            let _ = tx.send(result);
        });
        let job = search(Board::new(Position::startpos()), Limits::depth(8), false, false);
        let copies = Arc::clone(&job.network);
        pool.go(job, Box::new(SilentReporter), on_done);
        rx.recv_timeout(Duration::from_secs(10)).expect("an answer");
        pool.wait();
        let mut nodes = copies.nodes();
        nodes.sort_unstable();
        assert_eq!(nodes, [0, 1], "each node's threads read its own copy");
    }

    #[test]
    fn a_pool_without_threads_still_answers() {
        let mut pool = new_pool(1);
        pool.shutdown();
        let answer = answer_with(&mut pool, Limits::depth(6), Box::new(SilentReporter)).expect("an answer");
        assert!(Position::startpos().is_legal_move(answer.best_move), "{answer:?}");
        assert!(!pool.is_searching());
    }

    #[test]
    fn a_ponder_search_that_had_its_time_answers_at_once_on_ponderhit() {
        let mut pool = new_pool(2);
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
        let mut pool = new_pool(2);
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
