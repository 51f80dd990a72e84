//! The search: one `Searcher` per thread, owning its stack and most of its histories, sharing
//! the correction and continuation histories with the other threads of a pool
//! (`SharedHistories`) and borrowing the shared transposition table and stop flag. It never
//! spawns threads; the `smp` crate runs N of them.
//!
//! Files by phase: `driver` (iterative deepening, aspiration windows, MultiPV, limits),
//! `alphabeta` (the main PVS search with its pruning, reductions and extensions), `node` (what
//! every node needs: counting, stopping, draws, the PV, reading table entries), `qsearch`,
//! `picker` (staged move ordering), `history` (ordering statistics), `params` (every constant),
//! `time` (the time manager: allocation, the soft stop, the hard limit).

mod alphabeta;
mod correction;
mod driver;
pub mod history;
mod learning;
mod node;
pub mod params;
pub mod picker;
mod probcut;
mod qsearch;
pub mod score;
mod search_memory;
#[cfg(test)]
mod test_probe;
pub mod time;
mod variation;

use crate::board::{Move, Piece, Position};
use crate::nnue::{AccumulatorStack, Network};
use crate::tb::Tablebases;
use crate::tt::TranspositionTable;
use history::{ContKey, ContinuationHistory, Histories};
use score::MAX_PLY;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use correction::CorrectionHistory;
pub use driver::SearchResult;
pub use node::{evaluation_fingerprint, evaluation_of_network_output};
pub use search_memory::{RootRecord, SearchMemory};
pub use variation::Variation;

/// What the threads of a pool learn together: the correction history and the continuation
/// history. A clone shares the same tables.
#[derive(Clone, Default)]
pub struct SharedHistories {
    pub correction: Arc<CorrectionHistory>,
    pub continuation: Arc<ContinuationHistory>,
}

impl SharedHistories {
    pub fn new() -> SharedHistories {
        SharedHistories::default()
    }

    /// Forget what the tables learned (a new game).
    pub fn clear(&self) {
        self.correction.clear();
        self.continuation.clear();
    }

    /// Bytes of `to_bytes`.
    pub const BYTES: usize = ContinuationHistory::BYTES + CorrectionHistory::BYTES;

    /// What the tables learned, for a hash file (`tt::persist`): the continuation history,
    /// then the correction history.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::BYTES);
        self.continuation.write_to(&mut out);
        self.correction.write_to(&mut out);
        out
    }

    /// Whether `bytes` could have come from `to_bytes`.
    pub fn check_bytes(bytes: &[u8]) -> Result<(), String> {
        if bytes.len() != Self::BYTES {
            return Err(format!("histories of {} bytes, this build keeps {}", bytes.len(), Self::BYTES));
        }
        let (continuation, correction) = bytes.split_at(ContinuationHistory::BYTES);
        ContinuationHistory::check(continuation)?;
        CorrectionHistory::check(correction)
    }

    /// Replaces what the tables hold with `bytes`, if `check_bytes` accepts them.
    pub fn load_bytes(&self, bytes: &[u8]) -> Result<(), String> {
        Self::check_bytes(bytes)?;
        let (continuation, correction) = bytes.split_at(ContinuationHistory::BYTES);
        self.continuation.read_from(continuation);
        self.correction.read_from(correction);
        Ok(())
    }
}

/// What ends a search. Time limits are measured from `start`.
#[derive(Clone, Debug)]
pub struct Limits {
    pub start: Instant,
    pub depth: Option<i32>,
    /// Total nodes (the caller sums every thread's count through `SharedState::total_nodes`).
    pub nodes: Option<u64>,
    /// Do not start a new iteration once this searcher has searched this many nodes (`nodes`
    /// stays the hard cap): a budget for data generation that keeps whole iterations.
    pub soft_nodes: Option<u64>,
    /// `soft_nodes` ends the search only once this depth is complete (a strength-limited search
    /// must see at least a mate in one against it).
    pub min_depth: i32,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<i32>,
    /// Do not start a new iteration after this (scaled by the time manager's stability factors).
    pub soft_time: Option<Duration>,
    /// Stop at once after this.
    pub hard_time: Option<Duration>,
    /// The time is a fixed time per move, spent in full (no soft stop).
    pub fixed_time: bool,
    /// Time left on the mover's clock when the search was asked for (`None` without a clock).
    pub clock: Option<Duration>,
    /// Restrict the root to these moves (empty: all).
    pub search_moves: Vec<Move>,
    pub multipv: usize,
    /// Centipawns a draw is worth less than equality to the side to move at the root (and more
    /// to its opponent): positive values make the engine avoid draws, negative seek them.
    pub contempt: i32,
    /// An analysis: when the table holds the root from an earlier search (of this process or
    /// a loaded file), iterative deepening starts at that entry's depth instead of 1, or at the
    /// depth `resume_from` completed.
    pub resume: bool,
    /// What the last completed iteration of an earlier search of this root found (its owner
    /// remembers them, and a hash file carries them).
    pub resume_from: Option<RootRecord>,
    /// This search gives the answer: it completes depth 1 whatever stops it, so that there is
    /// a move to play. A helper's search does not, and ends at `stop` from its first node.
    pub answers: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            start: Instant::now(),
            depth: None,
            nodes: None,
            soft_nodes: None,
            min_depth: 0,
            mate: None,
            soft_time: None,
            hard_time: None,
            fixed_time: false,
            clock: None,
            search_moves: Vec::new(),
            multipv: 1,
            contempt: 0,
            resume: false,
            resume_from: None,
            answers: true,
        }
    }
}

impl Limits {
    pub fn depth(depth: i32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }
}

/// Signals shared by every thread of a search.
#[derive(Default)]
pub struct SearchControl {
    /// Raised to end the search on every thread.
    pub stop: AtomicBool,
    /// While set (pondering), time limits are not applied; time counts from `go` all the same.
    pub pondering: AtomicBool,
    /// Raised while pondering once the search has had the time it would have taken: the
    /// `ponderhit` then ends it at once.
    pub stop_on_ponderhit: AtomicBool,
}

impl SearchControl {
    /// Ready for a new search.
    pub fn reset(&self, pondering: bool) {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(pondering, Ordering::SeqCst);
        self.stop_on_ponderhit.store(false, Ordering::SeqCst);
    }

    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// State shared between all threads of one search.
pub struct SharedState<'a> {
    pub tt: &'a TranspositionTable,
    pub control: &'a SearchControl,
    /// This thread's published node count (read by the reporting thread).
    pub nodes: &'a AtomicU64,
    /// Nodes of all threads together (for `go nodes` and reporting).
    pub total_nodes: &'a (dyn Fn() -> u64 + Sync),
    /// Where the search reports (`None`: nowhere, as for a pool's helpers).
    pub reporter: Option<&'a dyn Reporter>,
    /// Endgame tablebases, when configured.
    pub tb: Option<TbContext<'a>>,
}

/// Tablebase settings for a search.
#[derive(Clone, Copy)]
pub struct TbContext<'a> {
    pub tables: &'a Tablebases,
    /// Probe in the tree only at this depth or more (positions with fewer pieces than the
    /// limit are always probed).
    pub probe_depth: i32,
    /// Probe positions with at most this many pieces.
    pub probe_limit: usize,
    /// Whether the 50-move rule counts (cursed wins and blessed losses are draws).
    pub rule50: bool,
    /// Successful probes, all threads together.
    pub hits: &'a AtomicU64,
    /// The root's moves as the tables rank them (`Tablebases::rank_root`), made once for all
    /// the threads of a search; `None` where the tables do not rank the root.
    pub root: Option<&'a crate::tb::RootRanking>,
}

/// Tablebases and how a search uses them, as an engine keeps them between searches.
#[derive(Clone)]
pub struct TbSettings {
    pub tables: Arc<Tablebases>,
    pub probe_depth: i32,
    pub probe_limit: usize,
    pub rule50: bool,
}

impl TbSettings {
    /// The settings for one search of a root the tables rank as `root`, which counts its
    /// probes in `hits`.
    pub fn context<'a>(
        &'a self,
        hits: &'a AtomicU64,
        root: Option<&'a crate::tb::RootRanking>,
    ) -> TbContext<'a> {
        let (probe_depth, probe_limit, rule50) = (self.probe_depth, self.probe_limit, self.rule50);
        TbContext { tables: &self.tables, probe_depth, probe_limit, rule50, hits, root }
    }

    /// The ranking of `board`'s root moves for a search with these settings (`rank_root`).
    pub fn rank_root(
        &self,
        board: &crate::board::Board,
        hurry: &dyn Fn() -> bool,
    ) -> Option<crate::tb::RootRanking> {
        self.tables.rank_root(board, self.probe_limit, self.rule50, hurry)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

/// One line of search output, formatted by the front end.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: i32,
    pub bound: Bound,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: usize,
    pub tb_hits: u64,
    pub pv: Vec<Move>,
}

/// Receives the main thread's output (from the searching thread, hence `Sync`).
pub trait Reporter: Sync {
    fn info(&self, info: &SearchInfo);
    /// The root move being searched, sent only after the search has run for a while.
    fn current_move(&self, _depth: i32, _mv: Move, _number: usize) {}
    /// A remark for the user (an `info string` over UCI).
    fn note(&self, _text: &str) {}
}

/// A reporter that discards everything (bench, tests).
pub struct SilentReporter;

impl Reporter for SilentReporter {
    fn info(&self, _info: &SearchInfo) {}
}

/// Per-ply search state.
#[derive(Clone, Copy)]
struct StackEntry {
    static_eval: i32,
    mv: Move,
    piece: Option<Piece>,
    killers: [Move; 2],
    excluded: Move,
}

impl Default for StackEntry {
    fn default() -> Self {
        StackEntry {
            static_eval: EVAL_NONE,
            mv: Move::NULL,
            piece: None,
            killers: [Move::NULL; 2],
            excluded: Move::NULL,
        }
    }
}

/// Static evaluation of a node in check (none), also what the table stores then.
const EVAL_NONE: i32 = -score::INFINITY;

/// Statistics about a root move, for the time manager and MultiPV.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    pub mv: Move,
    pub nodes: u64,
    /// Its tablebase rank group (0, the best, when the tables did not rank the root).
    pub group: usize,
}

pub struct Searcher {
    hist: Box<Histories>,
    /// Shared by the threads of a pool (`share_histories`); a searcher's own otherwise.
    correction: Arc<CorrectionHistory>,
    /// The network the next search evaluates with (`set_network`; the embedded one by default).
    network: Arc<Network>,
    /// The accumulators of the last search's network, set up again for each search's root.
    nnue: AccumulatorStack,
    stack: Vec<StackEntry>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    reductions: Box<[[[i32; 64]; 64]; 2]>,
    /// How this searcher's iterative deepening differs from others' on the same table.
    variation: Variation,
    // Per-search state.
    nodes: u64,
    /// The other threads' nodes of this search, as last read (every 1024 of this one's).
    other_nodes: u64,
    seldepth: usize,
    root_depth: i32,
    stopped: bool,
    nmp_min_ply: usize,
    limits: Limits,
    root_moves: Vec<RootMove>,
    /// Root moves already used by earlier MultiPV lines of this iteration.
    excluded_root: Vec<Move>,
    /// The best root move of the current root search and its (fully searched) score.
    root_best: (Move, i32),
    /// The tablebase result of each rank group of root moves, when the tables ranked them.
    root_tb: Option<Vec<crate::tb::Wdl>>,
    /// The rank group the current root search chooses from: the best one that still has a
    /// move no earlier MultiPV line took.
    root_group: usize,
    /// Whether this iteration is the one a resumed analysis starts with: its principal
    /// variation's nodes then take the table's exact results too (`negamax`, step 2); the
    /// deeper iterations search as any other.
    resumed: bool,
    #[cfg(test)]
    probe: test_probe::SearchProbe,
}

impl Default for Searcher {
    fn default() -> Self {
        Searcher::new()
    }
}

impl Searcher {
    /// Search differently from the other searchers on the same table, from the next search on.
    pub fn set_variation(&mut self, variation: Variation) {
        self.variation = variation;
    }

    pub fn new() -> Searcher {
        Searcher {
            hist: Histories::new(),
            correction: Arc::new(CorrectionHistory::new()),
            network: crate::nnue::default_network(),
            nnue: AccumulatorStack::new(crate::nnue::default_network(), &Position::startpos()),
            stack: vec![StackEntry::default(); MAX_PLY + STACK_OFFSET + 4],
            pv: vec![[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            reductions: alphabeta::reduction_table(),
            variation: Variation::default(),
            nodes: 0,
            other_nodes: 0,
            seldepth: 0,
            root_depth: 0,
            stopped: false,
            nmp_min_ply: 0,
            limits: Limits::default(),
            root_moves: Vec::new(),
            excluded_root: Vec::new(),
            root_best: (Move::NULL, 0),
            root_tb: None,
            root_group: 0,
            resumed: false,
            #[cfg(test)]
            probe: test_probe::SearchProbe::default(),
        }
    }

    /// Evaluate with `network` from the next search on (the embedded network by default): the
    /// searcher's owner decides, so searchers of different engines may use different networks.
    pub fn set_network(&mut self, network: Arc<Network>) {
        self.network = network;
    }

    /// Read and teach `shared`'s tables from now on, with the other searchers given them.
    pub fn share_histories(&mut self, shared: &SharedHistories) {
        self.correction = Arc::clone(&shared.correction);
        self.hist.share_continuation(Arc::clone(&shared.continuation));
    }

    /// The tables this searcher may share with others (its own, unless it was given some).
    pub fn shared_histories(&self) -> SharedHistories {
        SharedHistories {
            correction: Arc::clone(&self.correction),
            continuation: Arc::clone(self.hist.continuation_table()),
        }
    }

    /// Forget everything learned (new game), the shareable tables included.
    pub fn clear(&mut self) {
        self.clear_own();
        self.shared_histories().clear();
    }

    /// Forget what this thread alone learned: its histories, not the tables it may
    /// share (whose owner clears them once, not once per thread).
    pub fn clear_own(&mut self) {
        self.hist.clear_own();
    }

    /// This thread's own histories, for a hash file (`Histories::write_own`).
    pub fn own_histories(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Histories::OWN_BYTES);
        self.hist.write_own(&mut out);
        out
    }

    /// Takes `bytes` (from `own_histories`) as this thread's own histories, if they pass
    /// `Histories::check_own`.
    pub fn load_own_histories(&mut self, bytes: &[u8]) -> Result<(), String> {
        Histories::check_own(bytes)?;
        self.hist.read_own(bytes);
        Ok(())
    }

    #[inline]
    fn ss(&self, ply: usize) -> &StackEntry {
        &self.stack[ply + STACK_OFFSET]
    }

    #[inline]
    fn ss_mut(&mut self, ply: usize) -> &mut StackEntry {
        &mut self.stack[ply + STACK_OFFSET]
    }

    /// The entry `back` plies before `ply` (entries before the root are blank).
    #[inline]
    fn ss_back(&self, ply: usize, back: usize) -> &StackEntry {
        &self.stack[ply + STACK_OFFSET - back]
    }

    /// The continuation-history key of the move `back` plies before the node at `ply`.
    #[inline]
    fn cont_key(&self, ply: usize, back: usize) -> Option<ContKey> {
        let entry = &self.stack[ply + STACK_OFFSET - back];
        match entry.piece {
            Some(piece) if !entry.mv.is_null() => Some(ContKey { piece, to: entry.mv.to().index() as u8 }),
            _ => None,
        }
    }
}

impl Searcher {
    /// A search on this thread alone (bench, data generation, tests): a new table generation,
    /// its own stop flag and node counter, nothing reported.
    pub fn search_alone(
        &mut self,
        board: &crate::board::Board,
        limits: &Limits,
        tt: &TranspositionTable,
        tb: Option<TbContext<'_>>,
    ) -> SearchResult {
        let ranking = tb.and_then(|tb| tb.tables.rank_root(board, tb.probe_limit, tb.rule50, &|| false));
        let tb = tb.map(|tb| TbContext { root: ranking.as_ref(), ..tb });
        let control = SearchControl::default();
        let counter = AtomicU64::new(0);
        let total = || counter.load(Ordering::Relaxed);
        let ctx =
            SharedState { tt, control: &control, nodes: &counter, total_nodes: &total, reporter: None, tb };
        tt.new_search();
        self.search(board, limits, &ctx)
    }
}

/// Entries before ply 0, so `ply - 1` and `ply - 2` lookups need no bounds checks.
const STACK_OFFSET: usize = 4;
