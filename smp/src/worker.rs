//! The worker threads: each owns a `Searcher` and waits on its channel for jobs. Worker 0 is
//! the main thread: when its search ends it stops the helpers, waits briefly for them and
//! answers. It also starts the helpers, once it has completed its first iteration; they only
//! search and publish their results.

use crate::answer::answer;
use crate::mailbox::{Receiver, Sender};
use crate::pool::{Shared, TbSettings};
use engine::board::Board;
use engine::search::{
    HelperPolicy, Limits, Reporter, SearchResult, Searcher, SharedHistories, SharedState, SilentReporter,
    TbContext,
};
use engine::tt::TranspositionTable;
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long the main thread waits for helpers to finish before answering.
const HELPER_GRACE: Duration = Duration::from_millis(2);

pub(crate) struct SearchJob {
    pub(crate) board: Board,
    pub(crate) limits: Limits,
    pub(crate) tt: Arc<TranspositionTable>,
    pub(crate) tb: Option<TbSettings>,
    pub(crate) search_id: u64,
    /// Main thread only: where to report, and what to do at the end.
    pub(crate) main: Option<MainJob>,
}

/// Each helper's job, with the way to send it.
pub(crate) type HelperJobs = Vec<(Sender<Job>, Box<SearchJob>)>;

pub(crate) struct MainJob {
    pub(crate) reporter: Box<dyn Reporter + Send>,
    pub(crate) infinite: bool,
    /// The helpers' jobs, started after the main thread's first iteration (`start_helpers`).
    pub(crate) helpers: HelperJobs,
}

pub(crate) enum Job {
    Search(Box<SearchJob>),
    Clear,
    Policy(HelperPolicy),
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
        depth: None,
        nodes: None,
        soft_nodes: None,
        mate: None,
        soft_time: None,
        hard_time: None,
        clock: None,
        search_moves: limits.search_moves.clone(),
        multipv: 1,
        contempt: limits.contempt,
    }
}

pub(crate) fn worker_loop(
    index: usize,
    policy: HelperPolicy,
    learned: SharedHistories,
    inbox: Receiver<Job>,
    shared: Arc<Shared>,
) {
    let mut searcher = Searcher::for_thread(index, policy);
    searcher.share_histories(&learned);
    while let Some(job) = inbox.recv() {
        match job {
            Job::Exit => break,
            Job::Clear => {
                // The shared histories are cleared once, by the pool.
                searcher.clear_own();
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

fn run_search(index: usize, searcher: &mut Searcher, mut job: SearchJob, shared: &Shared) {
    let total = || shared.total_nodes();
    let tb = job.tb.as_ref().map(|t| TbContext {
        tables: &t.tables,
        probe_depth: t.probe_depth,
        probe_limit: t.probe_limit,
        rule50: t.rule50,
        hits: &shared.tb_hits,
    });
    let helpers =
        Mutex::new(job.main.as_mut().map(|main| std::mem::take(&mut main.helpers)).unwrap_or_default());
    let publish = |result: &SearchResult| {
        shared.results[index].store(Some(Arc::new(result.clone())));
        let waiting = std::mem::take(&mut *helpers.lock());
        if !waiting.is_empty() {
            start_helpers(shared, waiting);
        }
    };
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
        // Stopped before completing an iteration: nothing worth a vote.
        if result.depth > 0 {
            publish(&result);
        }
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
    shared.stop_and_wake();
    // Helpers stop within microseconds when they have a core; with far more threads than cores
    // some may wait for one. Their results are not worth a late `bestmove`: vote among those
    // that are done. (The next search still waits for every thread to be idle.)
    shared.helpers_running.wait_zero_for(HELPER_GRACE);
    publish(&result);
    answer(shared, job.search_id);
}

/// Start the helpers, when the main thread has completed its first iteration (unless the search
/// has been stopped by then). Returns how many were started (a helper whose thread is gone is
/// not).
///
/// The main thread always completes depth 1 (there is no move to play before), which takes it
/// well under a millisecond with a core to itself. With more threads than cores, helpers that
/// started with it took the cores away, and its first iteration could end past the whole budget
/// of a short clock, with nothing to answer before. The jobs go through each helper's own
/// channel, so no lock is shared by all helpers (a condition variable they all waited on made
/// the timer, which needed its lock, wait behind every one of them).
pub(crate) fn start_helpers(shared: &Shared, helpers: HelperJobs) -> usize {
    if shared.control.stopped() {
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
    use crate::pool::Pool;
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
                    search_id: 1,
                    main: None,
                });
                ((jobs, job), inbox)
            })
            .unzip()
    }

    #[test]
    fn helpers_get_their_jobs_and_are_counted_as_running() {
        let shared = Pool::new_shared(4);
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
        let shared = Pool::new_shared(4);
        shared.stop_and_wake();
        let (jobs, inboxes) = helper_jobs(3);
        assert_eq!(start_helpers(&shared, jobs), 0);
        assert_eq!(shared.helpers_running.count(), 0);
        assert_eq!(shared.busy.count(), 0);
        drop(inboxes);
    }

    #[test]
    fn a_helper_whose_thread_is_gone_is_not_waited_for() {
        let shared = Pool::new_shared(4);
        let (jobs, inboxes) = helper_jobs(2);
        drop(inboxes);
        assert_eq!(start_helpers(&shared, jobs), 0);
        assert_eq!(shared.helpers_running.count(), 0);
        assert_eq!(shared.busy.count(), 0);
    }
}
