//! The worker threads: each owns a `Searcher` and waits on its channel for jobs. Worker 0 is
//! the main thread: when its search ends it stops the helpers, waits briefly for them and
//! answers; the helpers only search and publish their results.

use crate::answer::answer;
use crate::pool::{Shared, TbSettings};
use crossbeam_channel::{Receiver, Sender};
use engine::board::Board;
use engine::search::{
    HelperPolicy, Limits, Reporter, SearchResult, Searcher, SharedState, SilentReporter, TbContext,
};
use engine::tt::TranspositionTable;
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

pub(crate) struct MainJob {
    pub(crate) reporter: Box<dyn Reporter + Send>,
    pub(crate) infinite: bool,
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
        mate: None,
        soft_time: None,
        hard_time: None,
        search_moves: limits.search_moves.clone(),
        multipv: 1,
    }
}

pub(crate) fn worker_loop(index: usize, policy: HelperPolicy, inbox: Receiver<Job>, shared: Arc<Shared>) {
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
    shared.stop_and_wake();
    // Helpers stop within microseconds when they have a core; with far more threads than cores
    // some may wait for one. Their results are not worth a late `bestmove`: vote among those
    // that are done. (The next search still waits for every thread to be idle.)
    shared.helpers_running.wait_zero_for(HELPER_GRACE);
    publish(&result);
    answer(shared, job.search_id);
}
