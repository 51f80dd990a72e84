//! One search thread of a pool: a persistent `Searcher` on its own OS thread, which sleeps in its
//! slot until the pool or the main thread gives it a task. Thread 0 is the main thread: it wakes
//! the helpers, searches with the limits and the reporter, and when it is done it stops the
//! helpers, waits for each, chooses the move and answers. Helpers only search and leave their
//! result in their slot.

use crate::helpers::HelperPolicy;
use crate::vote::{self, VoteMode};
use crossbeam_utils::CachePadded;
use engine::board::{Board, Move, Position};
use engine::movegen::legal_moves;
use engine::nnue::NetworkCopies;
use engine::search::params::SearchConstants;
use engine::search::{
    Limits, Reporter, SearchControl, SearchResult, Searcher, SharedHistories, SharedState, TbContext,
};
use engine::tb::Tablebases;
use engine::tt::TranspositionTable;
use parking_lot::{Condvar, Mutex};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Tablebases and how to use them in the search.
#[derive(Clone)]
pub struct TbSettings {
    pub tables: Arc<Tablebases>,
    pub probe_depth: i32,
    pub probe_limit: usize,
    pub rule50: bool,
}

/// The engine's steps between the vote and `on_bestmove` (`crate::answer`): the answer to give
/// for the threads' own, searched at the given root.
pub(crate) type Finish = Box<dyn FnOnce(SearchResult, &Position) -> SearchResult + Send>;

/// The front end's answer to a search: called once with the final result, when every thread
/// has stopped.
pub type OnBestmove = Box<dyn FnOnce(SearchResult, &Ended) + Send>;

/// Ends the search as the pool sees it (`Pool::is_searching` becomes false). `on_bestmove` may
/// call it under its own output lock just before it writes the answer, so that nothing reads
/// the search as ended before the answer or as running after it; otherwise it takes effect
/// when `on_bestmove` returns.
pub struct Ended<'a>(pub(crate) &'a AtomicBool);

impl Ended<'_> {
    pub fn now(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// What every thread of one search reads.
pub(crate) struct SearchJob {
    pub(crate) board: Board,
    pub(crate) limits: Limits,
    pub(crate) tt: Arc<TranspositionTable>,
    pub(crate) tb: Option<TbSettings>,
    pub(crate) network: Arc<NetworkCopies>,
    pub(crate) constants: Arc<SearchConstants>,
    pub(crate) policy: HelperPolicy,
}

/// What only the main thread has: where to report, and how to answer.
pub(crate) struct MainJob {
    pub(crate) reporter: Box<dyn Reporter + Send>,
    /// `go infinite`: no answer before `stop`, however soon the search is done.
    pub(crate) infinite: bool,
    pub(crate) vote: VoteMode,
    /// The engine's steps before the answer is given.
    pub(crate) finish: Finish,
    pub(crate) on_bestmove: OnBestmove,
}

pub(crate) enum Task {
    Search(Arc<SearchJob>, Option<MainJob>),
    /// A new game: forget this thread's own histories.
    Clear,
    /// Copy this thread's own histories into its place in the list (for a hash file).
    Export(Arc<Mutex<Vec<Vec<u8>>>>),
    /// Take this thread's own histories from the list (from a hash file): thread `i` takes
    /// entry `i` modulo its length, so a file saved with fewer threads fills every thread.
    Import(Arc<Vec<Vec<u8>>>),
    Exit,
}

/// A thread's task and its outcome, behind one lock.
#[derive(Default)]
struct SlotState {
    task: Option<Task>,
    busy: bool,
    result: Option<SearchResult>,
}

/// Where a thread sleeps between tasks, and where others wait for it to finish one.
#[derive(Default)]
pub(crate) struct Slot {
    state: Mutex<SlotState>,
    changed: Condvar,
}

impl Slot {
    /// Gives the thread its next task (it is idle: whoever gives tasks waits for it first).
    pub(crate) fn give(&self, task: Task) {
        let mut state = self.state.lock();
        state.task = Some(task);
        state.busy = true;
        self.changed.notify_all();
    }

    /// Waits until the thread has finished its task, and takes the result it left.
    pub(crate) fn wait_idle(&self) -> Option<SearchResult> {
        let mut state = self.state.lock();
        while state.busy {
            self.changed.wait(&mut state);
        }
        state.result.take()
    }

    fn next_task(&self) -> Task {
        let mut state = self.state.lock();
        loop {
            if let Some(task) = state.task.take() {
                return task;
            }
            self.changed.wait(&mut state);
        }
    }

    fn finish(&self, result: Option<SearchResult>) {
        let mut state = self.state.lock();
        state.busy = false;
        state.result = result;
        self.changed.notify_all();
    }
}

/// What any thread may signal to a search, kept for the pool's whole life (a `StopHandle`
/// holds it while the threads are replaced).
#[derive(Default)]
pub(crate) struct Signals {
    pub(crate) control: SearchControl,
    /// Raised by `go`, lowered once the answer is given: whether a search runs.
    pub(crate) searching: AtomicBool,
    /// `stop` (or a `ponderhit` that ends the search) came: `go infinite` and a ponder search
    /// may answer. A limit the search reached stops its threads, never this.
    answer_now: AtomicBool,
    /// Wakes the main thread waiting out `go infinite` or a ponder search.
    wake: (Mutex<()>, Condvar),
    /// The other processes' nodes in the current search, as last reported (`crate::peers`).
    #[cfg(feature = "cluster")]
    pub(crate) others_nodes: AtomicU64,
}

impl Signals {
    /// Wakes the main thread if it waits out `go infinite` or a ponder search.
    pub(crate) fn wake(&self) {
        let _guard = self.wake.0.lock();
        self.wake.1.notify_all();
    }

    /// Raises the stop flag for every thread and lets the search answer (`stop`), and wakes
    /// the main thread if it waits for it.
    pub(crate) fn stop_and_wake(&self) {
        self.answer_now.store(true, Ordering::SeqCst);
        self.control.stop.store(true, Ordering::SeqCst);
        self.wake();
    }

    /// Ready for a new search (`ponder`: one that waits for `ponderhit`).
    pub(crate) fn reset(&self, ponder: bool) {
        self.answer_now.store(false, Ordering::SeqCst);
        self.control.reset(ponder);
    }

    /// Waits until the search may answer: at once, unless it is `go infinite` or a ponder
    /// search, which wait for `stop` (or `ponderhit`) whatever limit ended their search.
    fn wait_for_answer_time(&self, infinite: bool) {
        let mut guard = self.wake.0.lock();
        while !self.answer_now.load(Ordering::SeqCst)
            && (infinite || self.control.pondering.load(Ordering::SeqCst))
        {
            self.wake.1.wait_for(&mut guard, Duration::from_millis(50));
        }
    }
}

/// What the threads of a pool share: the signals, their slots, their node counters.
pub(crate) struct Shared {
    pub(crate) signals: Arc<Signals>,
    pub(crate) slots: Vec<Slot>,
    /// Helpers still searching: the main thread sleeps until none is, and is woken once (one
    /// wake-up per helper would each wait for a core when the threads outnumber the cores).
    searching_helpers: (Mutex<usize>, Condvar),
    pub(crate) counters: Vec<CachePadded<AtomicU64>>,
    /// Successful tablebase probes of the current search.
    pub(crate) tb_hits: AtomicU64,
}

impl Shared {
    pub(crate) fn new(threads: usize, signals: Arc<Signals>) -> Shared {
        Shared {
            signals,
            slots: (0..threads).map(|_| Slot::default()).collect(),
            searching_helpers: (Mutex::new(0), Condvar::new()),
            counters: (0..threads).map(|_| CachePadded::new(AtomicU64::new(0))).collect(),
            tb_hits: AtomicU64::new(0),
        }
    }

    /// Nodes of the current search: this process's threads' and, in a cluster, the others'.
    pub(crate) fn total_nodes(&self) -> u64 {
        let own = self.own_nodes();
        #[cfg(feature = "cluster")]
        let own = own + self.signals.others_nodes.load(Ordering::Relaxed);
        own
    }

    pub(crate) fn own_nodes(&self) -> u64 {
        self.counters.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    fn helper_done(&self) {
        let mut count = self.searching_helpers.0.lock();
        *count -= 1;
        if *count == 0 {
            self.searching_helpers.1.notify_all();
        }
    }

    fn wait_for_helpers(&self) {
        let mut count = self.searching_helpers.0.lock();
        while *count > 0 {
            self.searching_helpers.1.wait(&mut count);
        }
    }
}

/// Helpers obey the stop flag and the hard time limit only: the main thread owns every other
/// limit. Any thread that sees the hard limit pass stops them all, so a move ends on time even
/// while the main thread waits for a core. Only the main thread must complete depth 1: a helper
/// still at it, or not yet started, when the search stops adds nothing and ends at once.
pub(crate) fn helper_limits(limits: &Limits) -> Limits {
    Limits {
        start: limits.start,
        hard_time: limits.hard_time,
        search_moves: limits.search_moves.clone(),
        contempt: limits.contempt,
        answers: false,
        ..Limits::default()
    }
}

/// How a thread makes its searcher: on its own thread, after binding it to its node, so that the
/// searcher's tables are first touched there; with `node`, it reads that node's network copy
/// (`network_for`).
pub(crate) struct SearcherSetup {
    pub(crate) learned: SharedHistories,
    pub(crate) node: Option<usize>,
}

impl SearcherSetup {
    fn make(&self) -> Searcher {
        let mut searcher = Searcher::new();
        searcher.share_histories(&self.learned);
        searcher
    }

    /// The network this thread searches `job` with: its node's copy, or the network itself.
    fn network_for(&self, job: &SearchJob) -> Arc<engine::nnue::Network> {
        match self.node {
            Some(node) => job.network.for_node(node),
            None => Arc::clone(job.network.original()),
        }
    }
}

/// A thread's life: serves its slot's tasks until `Exit`.
pub(crate) fn run(index: usize, shared: Arc<Shared>, setup: SearcherSetup) {
    let mut searcher = setup.make();
    loop {
        let result = match shared.slots[index].next_task() {
            Task::Exit => return,
            Task::Clear => {
                searcher.clear_own();
                None
            }
            Task::Export(list) => {
                list.lock()[index] = searcher.own_histories();
                None
            }
            Task::Import(list) => {
                if let Some(own) = list.get(index % list.len().max(1)) {
                    // Checked with the file: a refusal leaves the thread's own as they were.
                    let _ = searcher.load_own_histories(own);
                }
                None
            }
            Task::Search(job, main) => {
                job.constants.install();
                searcher.set_variation(job.policy.variation(index));
                searcher.set_network(setup.network_for(&job));
                let limits = if main.is_some() { job.limits.clone() } else { helper_limits(&job.limits) };
                let reporter = main.as_ref().map(|main| main.reporter.as_ref());
                if main.is_some() {
                    *shared.searching_helpers.0.lock() = shared.slots.len() - 1;
                    for helper in &shared.slots[1..] {
                        helper.give(Task::Search(Arc::clone(&job), None));
                    }
                }
                // A panic (in debug and test builds; release builds abort) ends this thread's
                // search only: it goes on with a new searcher, and the pool stays usable.
                let searched = catch_unwind(AssertUnwindSafe(|| {
                    search(&mut searcher, index, &job, &limits, reporter, &shared)
                }));
                let result = searched.unwrap_or_else(|_| {
                    eprintln!("search thread {index} panicked; its search was ended and the pool goes on");
                    searcher = setup.make();
                    fallback_answer(&job.board, &job.limits.search_moves)
                });
                match main {
                    Some(main) => {
                        answer(result, main, &job.board, &shared);
                        None
                    }
                    None => {
                        shared.slots[index].finish((result.depth > 0).then_some(result));
                        shared.helper_done();
                        continue;
                    }
                }
            }
        };
        shared.slots[index].finish(result);
    }
}

fn search(
    searcher: &mut Searcher,
    index: usize,
    job: &SearchJob,
    limits: &Limits,
    reporter: Option<&(dyn Reporter + Send)>,
    shared: &Shared,
) -> SearchResult {
    let total = || shared.total_nodes();
    let ctx = SharedState {
        tt: &job.tt,
        control: &shared.signals.control,
        nodes: &shared.counters[index],
        total_nodes: &total,
        reporter: reporter.map(|r| r as &dyn Reporter),
        tb: job.tb.as_ref().map(|t| TbContext {
            tables: &t.tables,
            probe_depth: t.probe_depth,
            probe_limit: t.probe_limit,
            rule50: t.rule50,
            hits: &shared.tb_hits,
        }),
    };
    searcher.search(&job.board, limits, &ctx)
}

/// The main thread's end of a search: waits until it may answer, stops the helpers, waits for
/// each, and gives the chosen move.
fn answer(result: SearchResult, main: MainJob, root: &Board, shared: &Shared) {
    shared.signals.wait_for_answer_time(main.infinite);
    shared.signals.stop_and_wake();
    shared.wait_for_helpers();
    let mut results = vec![Some(result.clone())];
    results.extend(shared.slots[1..].iter().map(Slot::wait_idle));
    let chosen = vote::choose(&results, main.vote);
    let mut answer = results[chosen].take().filter(|r| !r.best_move.is_null()).unwrap_or(result);
    answer.nodes = answer.nodes.max(shared.total_nodes());
    let answer = (main.finish)(answer, root.position());
    let ended = Ended(&shared.signals.searching);
    (main.on_bestmove)(answer, &ended);
    ended.now();
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
        bound: engine::search::Bound::Exact,
        depth: 0,
        nodes: 0,
        pv: Vec::new(),
    }
}
