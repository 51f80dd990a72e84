//! The thread pool: one persistent search thread per `Threads`, each owning its `Searcher`
//! (its histories survive between moves) and sleeping in its slot between searches
//! (`thread.rs`). `go` wakes the main thread, which wakes the helpers, searches, stops them,
//! votes and answers; `stop` only raises a flag. The pool knows nothing of the table beyond the
//! one each search is given: its owner is the `Engine` (`facade.rs`).

use crate::memory::THREAD_STACK;
use crate::numa::{self, Plan};
use crate::thread::{MainJob, Mode, SearchJob, Shared, Signals, Task, Visit};
use crate::Ended;
use engine::search::{SearchResult, Searcher, SharedHistories};
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

    /// `Pool::ponderhit`, from any thread.
    pub fn ponderhit(&self) {
        self.signals.ponderhit();
    }

    /// `Pool::is_searching`, from any thread.
    pub fn is_searching(&self) -> bool {
        self.signals.searching.load(Ordering::SeqCst)
    }
}

pub struct Pool {
    threads: Vec<JoinHandle<()>>,
    shared: Arc<Shared>,
    signals: Arc<Signals>,
    /// The histories every thread reads and teaches (kept when `Threads` changes).
    learned: SharedHistories,
    /// Where the threads run, with the bindings the system refused.
    placement: Plan,
}

impl Pool {
    /// A pool without threads (`start` starts them) teaching `learned`.
    pub(crate) fn new(learned: SharedHistories) -> Pool {
        let signals = Arc::new(Signals::default());
        let shared = Arc::new(Shared::new(0, Arc::clone(&signals)));
        Pool { threads: Vec::new(), shared, signals, learned, placement: Plan::unbound(0, String::new()) }
    }

    /// Ends the threads (after a running search) and starts `plan.threads` new ones, each bound
    /// to its NUMA node's CPUs by `plan` before it makes its searcher. If the system refuses
    /// one, none is left running and it says false.
    pub(crate) fn start(&mut self, mut plan: Plan) -> bool {
        self.shutdown();
        let threads = plan.threads;
        let shared = Arc::new(Shared::new(threads, Arc::clone(&self.signals)));
        self.shared = Arc::clone(&shared);
        let (bound_tx, bound_rx) = std::sync::mpsc::channel();
        // A copy of the network for each node that runs threads, where there are several.
        let copies = plan.nodes_with_threads().len() > 1;
        for index in 0..threads {
            let cpus = plan.cpus_for(index).cloned();
            let node = plan.thread_node.get(index).filter(|_| copies).map(|&k| plan.nodes[k].id);
            let (shared, bound, learned) = (Arc::clone(&shared), bound_tx.clone(), self.learned.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("lazuli-worker-{index}"))
                .stack_size(THREAD_STACK)
                .spawn(move || {
                    let refused = cpus.and_then(|cpus| numa::bind_current_thread(&cpus).err());
                    let _ = bound.send(refused.map(|e| format!("thread {index}: {e}")));
                    crate::thread::run(index, shared, learned, node)
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
        plan.refused = bound_rx.iter().take(threads).flatten().collect();
        self.placement = plan;
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

    /// Where the threads run (`Plan::describe` says it), and the bindings the system refused.
    pub fn placement(&self) -> &Plan {
        &self.placement
    }

    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Runs `visit` on every thread's searcher, with the thread's index, and returns when all
    /// are done (after a running search).
    pub(crate) fn each_searcher(&mut self, visit: impl Fn(usize, &mut Searcher) + Send + Sync + 'static) {
        self.wait();
        let visit: Visit = Arc::new(visit);
        for slot in &self.shared.slots[..self.threads.len()] {
            slot.give(Task::Each(Arc::clone(&visit)));
        }
        self.wait();
    }

    /// Starts searching `job`: returns at once, and the main thread answers with `main` when
    /// every thread has stopped (`Mode` says when that may be).
    pub(crate) fn go(&mut self, job: SearchJob, main: MainJob) {
        self.wait();
        if self.threads.is_empty() {
            // The system refused every search thread: answer at once rather than never.
            let answer = SearchResult::unsearched(&job.board, &job.limits.search_moves);
            let answer = (main.finish)(answer, job.board.position());
            (main.on_bestmove)(answer, &Ended(&self.signals.searching));
            return;
        }
        self.signals.reset(main.mode == Mode::Ponder);
        for counter in &self.shared.counters {
            counter.store(0, Ordering::Relaxed);
        }
        self.shared.tb_hits.store(0, Ordering::Relaxed);
        #[cfg(feature = "cluster")]
        self.signals.others_nodes.store(0, Ordering::Relaxed);
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
        self.signals.ponderhit();
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

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop();
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::{Board, Position};
    use engine::nnue::NetworkCopies;
    use engine::search::{Limits, Reporter, SilentReporter};
    use engine::tt::TranspositionTable;
    use std::sync::mpsc::channel;
    use std::time::{Duration, Instant};

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    fn new_pool(threads: usize) -> Pool {
        let mut pool = Pool::new(SharedHistories::new());
        assert!(pool.start(Plan::unbound(threads, String::new())));
        pool
    }

    /// Starts a search of `board` over a small table of its own, with `network`.
    fn go_with(
        pool: &mut Pool,
        board: Board,
        limits: Limits,
        mode: Mode,
        reporter: Box<dyn Reporter + Send>,
        on_bestmove: crate::OnBestmove,
        network: Arc<NetworkCopies>,
    ) {
        let job = SearchJob {
            board,
            limits,
            tt: Arc::new(TranspositionTable::new(1)),
            tb: None,
            tb_root: None,
            network,
            constants: Arc::default(),
            policy: Default::default(),
        };
        let finish = crate::answer::Finish::default().into_step();
        let vote = crate::VoteMode::All;
        pool.go(job, MainJob { reporter, mode, vote, finish, on_bestmove });
    }

    /// `go_with` the embedded network, reporting nowhere.
    fn go(pool: &mut Pool, board: Board, limits: Limits, mode: Mode, on_bestmove: crate::OnBestmove) {
        let network = Arc::new(NetworkCopies::new(engine::nnue::default_network()));
        go_with(pool, board, limits, mode, Box::new(SilentReporter), on_bestmove, network);
    }

    #[test]
    fn helpers_keep_the_hard_and_node_limits_and_the_root_moves_and_nothing_else() {
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
        assert_eq!((helper.depth, helper.soft_time, helper.clock), (None, None, None));
        assert_eq!(helper.nodes, Some(1000), "every thread keeps the node limit");
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
        go(&mut finite, board.clone(), Limits::default(), Mode::Normal, finite_done);
        finite_rx.recv_timeout(Duration::from_secs(10)).expect("a search without limits ends by itself");
        let every_depth = started.elapsed();
        go(&mut pool, board.clone(), Limits::default(), Mode::Infinite, on_done);
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
        go(pool, Board::new(Position::startpos()), limits, Mode::Ponder, on_done);
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
        let network = Arc::new(NetworkCopies::new(engine::nnue::default_network()));
        go_with(pool, Board::new(Position::startpos()), limits, Mode::Normal, reporter, on_done, network);
        rx.recv_timeout(Duration::from_secs(10)).ok()
    }

    /// A reporter that holds the main thread for a while at its first report, as a main thread
    /// waiting for a core would be held.
    struct SlowReporter(std::sync::atomic::AtomicBool);

    impl Reporter for SlowReporter {
        fn info(&self, _: &engine::search::SearchInfo) {
            if !self.0.swap(true, Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }

    #[test]
    fn helpers_keep_a_node_limit_while_the_main_thread_is_held() {
        let mut pool = new_pool(2);
        let limit = 20_000;
        let limits = Limits { nodes: Some(limit), ..Limits::default() };
        let slow = Box::new(SlowReporter(Default::default()));
        let answer = answer_with(&mut pool, limits, slow).expect("an answer");
        // Each thread may pass the limit by the nodes between two of its checks (1024).
        assert!(answer.nodes <= limit + 2 * 1024, "{} nodes for a limit of {limit}", answer.nodes);
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
        assert!(pool.start(Plan::unbound(3, String::new())), "the pool still changes");
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
        let policy =
            crate::numa::NumaPolicy::parse(&format!("{}:{}", allowed[0], allowed[1])).expect("valid");
        let plan = crate::numa::plan(crate::numa::machine(), &policy, 2).expect("CPUs it may use");
        assert!(pool.start(plan));
        let placement = pool.placement().describe();
        assert!(placement.contains("on 2 NUMA nodes"), "{placement}");
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult, _: &crate::Ended| {
            let _ = tx.send(result);
        });
        let copies = Arc::new(NetworkCopies::new(engine::nnue::default_network()));
        let (board, limits, silent) =
            (Board::new(Position::startpos()), Limits::depth(8), Box::new(SilentReporter));
        go_with(&mut pool, board, limits, Mode::Normal, silent, on_done, Arc::clone(&copies));
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
