//! One search thread of a pool: a persistent `Searcher` on its own OS thread, which sleeps in its
//! slot until the pool or the main thread gives it a task. Thread 0 is the main thread: it wakes
//! the helpers, searches with the limits and the reporter, and when it is done it stops the
//! helpers, waits for each, chooses the move and answers. Helpers only search and leave their
//! result in their slot.

use crate::helpers::HelperPolicy;
use crate::vote::{self, VoteMode};
use crossbeam_utils::CachePadded;
use engine::board::{Board, Position};
use engine::nnue::NetworkCopies;
use engine::search::params::SearchConstants;
use engine::search::{
    Limits, Reporter, SearchControl, SearchResult, Searcher, SharedHistories, SharedState, TbSettings,
};
use engine::tb::RootRanking;
use engine::tt::TranspositionTable;
use parking_lot::{Condvar, Mutex};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The engine's steps between the vote and `on_bestmove` (`crate::answer`, which the engine
/// hands in as one boxed step): the answer to give for the threads' own, searched at the root.
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
    /// The root's moves as the tables rank them, made once for every thread.
    pub(crate) tb_root: Option<RootRanking>,
    pub(crate) network: Arc<NetworkCopies>,
    pub(crate) constants: Arc<SearchConstants>,
    pub(crate) policy: HelperPolicy,
}

/// How a search ends (the UCI `go`, `go ponder` and `go infinite`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// It answers when its limits are reached, or at `stop`.
    Normal,
    /// Its limits wait for `ponderhit`; it never answers before `ponderhit` or `stop`.
    Ponder,
    /// No answer before `stop`, however soon the search is done.
    Infinite,
}

/// What only the main thread has: where to report, and how to answer.
pub(crate) struct MainJob {
    pub(crate) reporter: Box<dyn Reporter + Send>,
    pub(crate) mode: Mode,
    pub(crate) vote: VoteMode,
    /// The engine's steps before the answer is given.
    pub(crate) finish: Finish,
    pub(crate) on_bestmove: OnBestmove,
}

/// A step run on each thread's searcher, given the thread's index.
pub(crate) type Visit = Arc<dyn Fn(usize, &mut Searcher) + Send + Sync>;

pub(crate) enum Task {
    Search(Arc<SearchJob>, Option<MainJob>),
    /// Something done to every thread's searcher between searches, given the thread's index
    /// (its own histories forgotten, saved or loaded).
    Each(Visit),
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

    /// The opponent played the expected move: the ponder search becomes a timed search, its
    /// time counted from its `go`. One that has already had its time answers at once.
    pub(crate) fn ponderhit(&self) {
        // SeqCst on both sides (see `soft_limit_reached`): a mark made while the hit comes is
        // seen here, or the search sees the hit.
        self.control.pondering.store(false, Ordering::SeqCst);
        if self.control.stop_on_ponderhit.load(Ordering::SeqCst) {
            self.stop_and_wake();
        } else {
            self.wake();
        }
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

/// Helpers obey the stop flag, the hard time limit and the node limit only: the main thread
/// owns every other limit. Any thread that sees the hard limit or the node limit pass stops them
/// all, so a move ends on time, and within its nodes, even while the main thread waits for a
/// core. Only the main thread must complete depth 1: a helper still at it, or not yet started,
/// when the search stops adds nothing and ends at once.
pub(crate) fn helper_limits(limits: &Limits) -> Limits {
    Limits {
        start: limits.start,
        hard_time: limits.hard_time,
        nodes: limits.nodes,
        search_moves: limits.search_moves.clone(),
        contempt: limits.contempt,
        answers: false,
        ..Limits::default()
    }
}

/// A thread's life: serves its slot's tasks until `Exit`.
/// It makes its searcher on its own thread, after it was bound to its node, so that the
/// searcher's tables are first touched there; with `node`, it reads that node's network copy.
pub(crate) fn run(index: usize, shared: Arc<Shared>, learned: SharedHistories, node: Option<usize>) {
    let make = || {
        let mut searcher = Searcher::new();
        searcher.share_histories(&learned);
        searcher
    };
    let mut searcher = make();
    loop {
        let result = match shared.slots[index].next_task() {
            Task::Exit => return,
            Task::Each(visit) => {
                visit(index, &mut searcher);
                None
            }
            Task::Search(job, main) => {
                job.constants.install();
                searcher.set_variation(job.policy.variation(index));
                searcher.set_network(
                    node.map_or_else(|| Arc::clone(job.network.original()), |n| job.network.for_node(n)),
                );
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
                    searcher = make();
                    SearchResult::unsearched(&job.board, &job.limits.search_moves)
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
        tb: job.tb.as_ref().map(|t| t.context(&shared.tb_hits, job.tb_root.as_ref())),
    };
    searcher.search(&job.board, limits, &ctx)
}

/// The main thread's end of a search: waits until it may answer, stops the helpers, waits for
/// each, and gives the chosen move.
fn answer(result: SearchResult, main: MainJob, root: &Board, shared: &Shared) {
    shared.signals.wait_for_answer_time(main.mode == Mode::Infinite);
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
