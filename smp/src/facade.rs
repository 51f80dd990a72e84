//! The engine as its users drive it: the pool of search threads, and what the threads search
//! with and outlive them: the network (with its copies for NUMA nodes), the transposition table (its size, clearing, saving and loading, its
//! pages brought in off the clock), the histories all threads teach, and what each root's last
//! search completed, all of which a table file carries. Each search is handed the table by
//! this owner.

use crate::answer::Finish;
use crate::helpers::HelperPolicy;
use crate::numa::{self, NumaPolicy, Plan};
use crate::pages::PageToucher;
use crate::peers::Peers;
use crate::pool::Pool;
use crate::thread::{MainJob, Mode, OnBestmove, SearchJob};
use crate::vote::VoteMode;
use engine::board::Board;
use engine::nnue::{Network, NetworkCopies};
use engine::search::params::SearchConstants;
use engine::search::{Limits, Reporter, RootRecord, SharedHistories, TbSettings};
use engine::tt::TranspositionTable;
use parking_lot::Mutex;
use std::sync::Arc;

/// Why the threads were kept as they were.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadsRefusal {
    /// Not enough address space for the new threads' stacks and allocators.
    AddressSpace,
    /// The system refused to start a thread.
    System,
    /// The NUMA policy cannot apply on this machine, in the plan's own words.
    Policy(String),
}

pub struct Engine {
    pub(crate) pool: Pool,
    /// The network this engine's searches evaluate with, and its NUMA nodes' copies.
    pub(crate) network: Arc<NetworkCopies>,
    pub(crate) tt: Arc<TranspositionTable>,
    /// The histories every thread reads and teaches, kept between moves and saved with the table.
    pub(crate) learned: SharedHistories,
    /// What the last completed iteration of each recent root's search found, most recent
    /// first: where an analysis of the root resumes. Cleared with the table.
    pub(crate) roots: Arc<Mutex<Vec<RootRecord>>>,
    pub(crate) tb: Option<TbSettings>,
    /// Brings a new or cleared table into memory off the search's clock.
    pub(crate) pages: Option<PageToucher>,
    /// The other processes of a search over several machines; none for one machine.
    pub(crate) peers: Option<Arc<dyn Peers>>,
    /// The search constants this engine's searches use (a `spsa` build's UCI options).
    pub(crate) constants: Arc<SearchConstants>,
    /// How helper threads differ from the main thread.
    pub(crate) helpers: HelperPolicy,
    /// Which threads' results the move may come from.
    pub(crate) vote: VoteMode,
    /// Where the threads run on a machine with several NUMA nodes.
    pub(crate) numa: NumaPolicy,
}

impl Engine {
    /// An engine searching with `threads` threads (one if the system refuses that many) and a
    /// table of `hash_mb` MB.
    pub fn new(threads: usize, hash_mb: usize) -> Engine {
        Engine::try_new(threads, hash_mb).expect("memory for the transposition table")
    }

    /// `new`, or `None` when the system refuses the table's memory (a server's new client is
    /// then refused; the server goes on).
    pub fn try_new(threads: usize, hash_mb: usize) -> Option<Engine> {
        let tt = Arc::new(TranspositionTable::try_new(hash_mb)?);
        let learned = SharedHistories::new();
        let mut pool = Pool::new(learned.clone());
        let numa = NumaPolicy::default();
        if !pool.start(plan(&numa, threads)) {
            pool.start(plan(&numa, 1));
        }
        let pages = PageToucher::start(&tt, &pool.placement().nodes_in_use());
        let network = Arc::new(NetworkCopies::new(engine::nnue::default_network()));
        let (roots, constants, helpers, vote) = Default::default();
        Some(Engine {
            pool,
            network,
            tt,
            learned,
            roots,
            tb: None,
            pages,
            peers: None,
            constants,
            helpers,
            vote,
            numa,
        })
    }

    /// Changes the number of threads (after a running search). Same count: no-op. A refusal
    /// keeps the threads as they were.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), ThreadsRefusal> {
        let (threads, old) = (threads.max(1), self.pool.threads());
        if threads == old {
            return Ok(());
        }
        if threads > old && !crate::memory::room_for_threads(old, threads) {
            return Err(ThreadsRefusal::AddressSpace);
        }
        if self.pool.start(plan(&self.numa, threads)) {
            return Ok(());
        }
        self.pool.start(plan(&self.numa, old));
        Err(ThreadsRefusal::System)
    }

    pub fn numa_policy(&self) -> &NumaPolicy {
        &self.numa
    }

    /// Places the threads by `policy` from now on (restarting them, after a running search); the
    /// pool's placement then names nodes left without a thread (a list of more nodes than
    /// threads is taken: `Threads` may come after it). A custom list naming CPUs that do not
    /// exist or that the process may not use is refused, and the policy kept.
    pub fn set_numa_policy(&mut self, policy: NumaPolicy) -> Result<(), ThreadsRefusal> {
        let threads = self.pool.threads().max(1);
        let new_plan = numa::plan(numa::machine(), &policy, threads).map_err(ThreadsRefusal::Policy)?;
        if policy != self.numa {
            if !self.pool.start(new_plan) {
                self.pool.start(plan(&self.numa, threads));
                return Err(ThreadsRefusal::System);
            }
            self.numa = policy;
        }
        Ok(())
    }

    /// The network searches evaluate with (the embedded one until `set_network`).
    pub fn network(&self) -> &Arc<Network> {
        self.network.original()
    }

    /// Evaluate with `network` from the next search on (after a running one). Another network
    /// than the current one clears the table, whose evaluations came from the old one; returns
    /// whether it was another.
    pub fn set_network(&mut self, network: Arc<Network>) -> bool {
        self.pool.wait();
        if Arc::ptr_eq(&network, self.network.original()) {
            return false;
        }
        self.network = Arc::new(NetworkCopies::new(network));
        self.clear_hash();
        true
    }

    /// The NUMA nodes that hold a copy of the network, with the copies' hashes.
    pub fn network_copies(&self) -> Vec<(usize, u64)> {
        let hash = self.network.original().hash();
        self.network.nodes().into_iter().map(|node| (node, hash)).collect()
    }

    /// The search constants this engine's searches use.
    pub fn search_constants(&self) -> &SearchConstants {
        &self.constants
    }

    /// Sets the search constant `name` from the next search on (see `SearchConstants::set`).
    pub fn set_search_constant(&mut self, name: &str, value: i32) -> bool {
        Arc::make_mut(&mut self.constants).set(name, value)
    }

    /// How helper threads differ from the main thread, from the next search on.
    pub fn set_helper_policy(&mut self, policy: HelperPolicy) {
        self.helpers = policy;
    }

    /// Which threads' results the move may come from, from the next search on.
    pub fn set_vote_mode(&mut self, mode: VoteMode) {
        self.vote = mode;
    }

    /// The threads: their count, placement, stop and ponderhit.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    pub fn pool_mut(&mut self) -> &mut Pool {
        &mut self.pool
    }

    /// Search with `peers` from the next search on: each search's answer is theirs together.
    pub fn set_peers(&mut self, peers: Arc<dyn Peers>) {
        self.peers = Some(peers);
    }

    /// Starts searching `board` and returns at once. `on_bestmove` is called once, with the
    /// answer, when every thread has stopped: when the limits are reached or at `stop`, except
    /// that a ponder search waits for `ponderhit` or `stop` and an infinite one for `stop`.
    pub fn go(
        &mut self,
        board: Board,
        limits: Limits,
        mode: Mode,
        reporter: Box<dyn Reporter + Send>,
        on_bestmove: OnBestmove,
    ) {
        self.pool.wait();
        self.tt.new_search();
        self.tt.set_keep_deeper(limits.resume);
        let key = board.position().key();
        let mut limits = limits;
        if limits.resume {
            limits.resume_from = self.roots.lock().iter().find(|r| r.key == key).cloned();
        }
        let mut finish = Finish::default();
        // A search of every root move is remembered for its root (before the answer, so that
        // the next `go` finds it).
        if limits.search_moves.is_empty() {
            finish.remember = Some((Arc::clone(&self.roots), key));
        }
        if let Some(peers) = &self.peers {
            peers.search_on(&self.tt);
            #[cfg(feature = "cluster")]
            peers.count_with(self.pool.node_counts());
            let vote = crate::peers::votes(&limits).then_some(self.vote);
            finish.peers = Some((Arc::clone(peers), vote));
        }
        // With one thread, a depth limit, MultiPV or root moves, the main thread's result is
        // the answer as it is.
        let votes = self.pool.threads() > 1
            && limits.depth.is_none()
            && limits.multipv <= 1
            && limits.search_moves.is_empty();
        // An analysis that resumes lets only threads as deep as the main thread vote: helpers
        // start from depth 1, and a shallower one's move would replace the resumed line.
        let vote = match (votes, limits.resume, self.vote) {
            (false, _, _) => VoteMode::Main,
            (true, true, VoteMode::All) => VoteMode::Deeper,
            (true, _, mode) => mode,
        };
        let main = MainJob { reporter, mode, vote, finish: finish.into_step(), on_bestmove };
        // Ranked once for all threads; its DTZ probes read files, and give way to WDL ones once
        // a quarter of the hard limit has gone.
        let hurry = || limits.hard_time.is_some_and(|hard| limits.start.elapsed() > hard / 4);
        let tb_root = self.tb.as_ref().and_then(|tb| tb.rank_root(&board, &hurry));
        let job = SearchJob {
            board,
            limits,
            tt: Arc::clone(&self.tt),
            tb: self.tb.clone(),
            tb_root,
            network: Arc::clone(&self.network),
            constants: Arc::clone(&self.constants),
            policy: self.helpers,
        };
        self.pool.go(job, main);
    }

    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    pub fn tt(&self) -> &TranspositionTable {
        &self.tt
    }

    /// Use these tablebases from the next search on (`None`: none).
    pub fn set_tablebases(&mut self, tb: Option<TbSettings>) {
        self.pool.wait();
        self.tb = tb;
    }

    /// A new game for a benchmark: as `clear`, but every page of the table is brought into
    /// memory before it returns (by threads on each node the search threads use), so that no
    /// background thread touches pages during the timed searches that follow.
    pub fn clear_for_benchmark(&mut self) {
        self.clear(true);
        self.pages = None;
        let nodes = self.pool.placement().nodes_in_use();
        if nodes.is_empty() {
            self.tt.clear_resident(self.pool.threads().max(1));
        } else {
            self.tt.clear(1);
            PageToucher::run_to_end(&self.tt, &nodes);
        }
    }

    /// New game: clear the table (unless `keep_table`), the shared histories and every
    /// thread's own.
    pub fn clear(&mut self, keep_table: bool) {
        self.pool.wait();
        if !keep_table {
            self.clear_hash();
        }
        self.learned.clear();
        self.pool.each_searcher(|_, searcher| searcher.clear_own());
    }

    /// Each thread's own histories, in thread order (after a running search).
    pub(crate) fn own_histories(&mut self) -> Vec<Vec<u8>> {
        let list = Arc::new(Mutex::new(vec![Vec::new(); self.pool.threads()]));
        let each = Arc::clone(&list);
        self.pool.each_searcher(move |index, searcher| each.lock()[index] = searcher.own_histories());
        let taken = std::mem::take(&mut *list.lock());
        taken
    }

    /// Gives the threads their own histories from `list` (`own_histories`' order): thread `i`
    /// takes entry `i` modulo its length, so a file saved with fewer threads fills every thread.
    /// An empty list changes nothing.
    pub(crate) fn set_own_histories(&mut self, list: Vec<Vec<u8>>) {
        if !list.is_empty() {
            self.pool.each_searcher(move |index, searcher| {
                // Checked with the file: a refusal leaves the thread's own as they were.
                let _ = searcher.load_own_histories(&list[index % list.len()]);
            });
        }
    }

    /// Brings the table's pages into memory in the background (`PageToucher`).
    pub(crate) fn touch_pages(&mut self) {
        self.pages = PageToucher::start(&self.tt, &self.pool.placement().nodes_in_use());
    }

    /// Clear only the table (`Clear Hash`).
    pub fn clear_hash(&mut self) {
        self.pool.wait();
        self.roots.lock().clear();
        self.pages = None;
        self.tt.clear(self.pool.threads());
        self.touch_pages();
    }
}

/// Where `threads` threads run under `policy`: unbound, with the reason, where it cannot apply.
fn plan(policy: &NumaPolicy, threads: usize) -> Plan {
    numa::plan(numa::machine(), policy, threads).unwrap_or_else(|e| Plan::unbound(threads, e))
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.pool.stop();
        self.pages = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::Position;
    use engine::search::{Bound, SearchResult, SilentReporter};
    use std::sync::mpsc::channel;
    use std::time::Duration;

    #[test]
    fn an_engine_whose_table_cannot_be_had_is_none() {
        assert!(Engine::try_new(1, usize::MAX >> 20).is_none());
        assert!(Engine::try_new(1, 1).is_some());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_hash_larger_than_the_free_memory_is_refused_and_the_table_kept() {
        let mut engine = Engine::new(1, 2);
        let free = crate::memory::available_mb().expect("Linux reports MemAvailable");
        let error = engine.set_hash(free + 2048).expect_err("more than the machine has");
        assert!(matches!(error, crate::TableRefusal::NoRoom { .. }), "{error:?}");
        assert_eq!(engine.hash_mb(), 2);
        engine.set_hash(4).expect("a small table fits");
        assert_eq!(engine.hash_mb(), 4);
    }

    #[test]
    fn a_table_file_larger_than_hash_allows_is_refused_and_the_table_kept() {
        let path = std::env::temp_dir().join(format!("lazuli-engine-cap-{}.lzh", std::process::id()));
        let mut engine = Engine::new(1, 4);
        engine.save_hash(&path).expect("saved");
        let mut small = Engine::new(1, 2);
        let refused = small.load_hash(&path, 3).expect_err("4 MB is more than 3");
        assert_eq!(refused, crate::TableRefusal::AboveMax { mb: 4, max_mb: 3 });
        assert_eq!(small.hash_mb(), 2, "the table is kept");
        small.load_hash(&path, 4).expect("4 MB is allowed");
        assert_eq!(small.hash_mb(), 4);
        let _ = std::fs::remove_file(path);
    }

    /// Search `fen` to `depth` and wait for the answer.
    fn search_to_depth(engine: &mut Engine, fen: &str, depth: i32) -> SearchResult {
        let (tx, rx) = channel();
        let on_done = Box::new(move |result: SearchResult, _: &crate::Ended| {
            let _ = tx.send(result);
        });
        let board = Board::new(Position::from_fen(fen).expect("a valid FEN"));
        engine.go(board, Limits::depth(depth), crate::Mode::Normal, Box::new(SilentReporter), on_done);
        let result = rx.recv_timeout(Duration::from_secs(30)).expect("a bestmove");
        engine.pool().wait();
        result
    }

    /// Two engines in one process search at once, one with a changed search constant: each
    /// searches with its own constants (a server's clients in a tuning build).
    #[cfg(feature = "spsa")]
    #[test]
    fn each_engine_searches_with_its_own_constants() {
        const FEN: &str = "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9";
        let nodes_alone = search_to_depth(&mut Engine::new(1, 4), FEN, 8).nodes;
        let mut changed = Engine::new(1, 4);
        assert!(changed.set_search_constant("NNUE_OUTPUT_PERCENT", 140));
        assert!(!changed.set_search_constant("NNUE_OUTPUT_PERCENT", 1000), "out of range");
        let mut plain = Engine::new(1, 4);
        let other = std::thread::spawn(move || search_to_depth(&mut changed, FEN, 8).nodes);
        let plain_nodes = search_to_depth(&mut plain, FEN, 8).nodes;
        let changed_nodes = other.join().unwrap();
        assert_eq!(plain_nodes, nodes_alone, "the default engine searched as it does alone");
        assert_ne!(changed_nodes, nodes_alone, "the changed constant reached its engine's search");
    }

    #[test]
    fn a_table_file_brings_back_every_threads_own_histories_and_the_roots_searched() {
        let path = std::env::temp_dir().join(format!("lazuli-engine-memory-{}.lzh", std::process::id()));
        let mut engine = Engine::new(2, 4);
        search_to_depth(&mut engine, "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8", 9);
        let own = engine.own_histories();
        assert_eq!(own.len(), 2);
        assert!(own.iter().all(|h| h.iter().any(|&b| b != 0)), "both threads learned");
        let roots = engine.roots.lock().clone();
        assert_eq!((roots.len(), roots[0].depth, roots[0].bound), (1, 9, Bound::Exact));
        engine.save_hash(&path).expect("saved");

        // Three threads take the two saved ones in turn.
        let mut other = Engine::new(3, 4);
        let said = other.load_hash(&path, 16).expect("loaded");
        assert_eq!(said.memory, crate::LoadedMemory::Histories { roots: 1 });
        assert_eq!(other.own_histories(), vec![own[0].clone(), own[1].clone(), own[0].clone()]);
        assert_eq!(*other.roots.lock(), roots);
        // A search restricted to some moves is not remembered; a cleared table forgets the roots.
        let board = Board::new(Position::startpos());
        let (tx, rx) = channel();
        let only = Limits {
            search_moves: vec![engine::movegen::legal_moves(board.position()).get(0)],
            ..Limits::depth(5)
        };
        other.go(
            board,
            only,
            crate::Mode::Normal,
            Box::new(SilentReporter),
            Box::new(move |r, _| tx.send(r).unwrap()),
        );
        rx.recv_timeout(Duration::from_secs(30)).expect("a bestmove");
        other.pool().wait();
        assert_eq!(*other.roots.lock(), roots);
        other.clear(false);
        assert!(other.roots.lock().is_empty());
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn the_threads_teach_one_set_of_shared_histories_kept_until_a_new_game() {
        let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8";
        let mut engine = Engine::new(2, 4);
        let learned =
            |engine: &Engine| (engine.learned.correction.learned(), engine.learned.continuation.learned());
        assert_eq!(learned(&engine), (0, 0));
        search_to_depth(&mut engine, fen, 9);
        let first = learned(&engine);
        assert!(first.0 > 0 && first.1 > 0, "the pool's tables learned {first:?}: the workers use their own");
        // Changing the thread count keeps what was learned, and the new workers go on teaching it.
        engine.set_threads(3).expect("threads start");
        assert_eq!(learned(&engine), first);
        search_to_depth(&mut engine, "4rrk1/1pp2ppp/p1n5/3q4/3P4/P1P2N2/5PPP/R2QR1K1 b - - 0 18", 9);
        let second = learned(&engine);
        assert!(second.0 > first.0 && second.1 > first.1, "{second:?} after {first:?}");
        // A new game forgets it.
        engine.clear(false);
        assert_eq!(learned(&engine), (0, 0));
    }
}
