//! The engine session: the state a GUI builds up (position, options) and what each command does
//! to it. Every error is answered with one `info string`; the previous valid state is kept.

use crate::command::{cap_list, parse_line, shorten, Command, GoParams, ParseError, Parsed};
use crate::held::HeldLines;
use crate::options::{self, OptionValue};
use crate::output::{closing_info, format_info, InfoStyle, LastLines, Output, UciReporter};
use crate::protocol::MAX_LINE;
use crate::wdl;
use smp::engine::bench::{run_bench, DEFAULT_BENCH_DEPTH};
use smp::engine::board::{Board, Color, Move, Position};
use smp::engine::movegen::legal_moves;
use smp::engine::search::score::MAX_PLY;
use smp::engine::search::HelperPolicy;
use smp::engine::search::{Limits, SearchResult};
use smp::engine::tb::Tablebases;
use smp::time::{allocate, Clock};
use smp::{Pool, TbSettings};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Deepest `go perft` and `bench` accepted over UCI (both run to completion before the next
/// command is read).
const MAX_PERFT_DEPTH: u32 = 12;
const MAX_BENCH_DEPTH: i32 = 64;

pub struct Session {
    out: Output,
    pool: Pool,
    board: Board,
    /// Whether a `position` command has set up `board` (else it is the start position).
    position_given: bool,
    chess960: bool,
    show_wdl: bool,
    multipv: usize,
    move_overhead: Duration,
    /// Centipawns a draw is worth less than equality to the engine (`Contempt`).
    contempt: i32,
    debug: bool,
    /// `Hash`/`Threads` set while searching apply when the search has ended.
    pending_hash: Option<usize>,
    pending_threads: Option<usize>,
    /// Tablebase options; the tables themselves live in the pool.
    syzygy: SyzygyOptions,
    /// Tablebase settings or helper policy changed during a search: applied after it.
    pending_syzygy: bool,
    pending_policy: Option<HelperPolicy>,
    /// When the current search started (for `ponderhit`).
    search_start: Instant,
    /// Raised by `go`, lowered once its `bestmove` is written (a `go` that arrives before then
    /// is held and started after it, see `held`).
    searching: Arc<AtomicBool>,
    /// The current search is a ponder search that has not had its `ponderhit` or `stop`.
    pondering: bool,
    /// The current search is `go infinite`: it waits for `stop` however soon it is done.
    infinite: bool,
    /// Lines that wait for the current search to end (`crate::held`).
    held: HeldLines,
    /// Called once each search's `bestmove` is written, so the loop can start what is held.
    on_search_end: Option<Arc<dyn Fn() + Send + Sync>>,
    /// `stop` was sent for the current search (a `go` may then follow before its `bestmove`).
    stopping: bool,
    /// Text the current command ignored: told in its first `info string`, or alone before its
    /// first other output, so every command gets at most one `info string`.
    note: Option<String>,
}

/// What the loop should do after a command.
#[derive(PartialEq, Eq, Debug)]
pub enum Flow {
    Continue,
    Quit,
}

impl Session {
    pub fn new(out: Output) -> Session {
        Session {
            out,
            pool: Pool::new(1, 16),
            board: Board::new(Position::startpos()),
            position_given: false,
            chess960: false,
            show_wdl: false,
            multipv: 1,
            move_overhead: Duration::from_millis(10),
            contempt: 0,
            debug: false,
            pending_hash: None,
            pending_threads: None,
            syzygy: SyzygyOptions::default(),
            pending_syzygy: false,
            pending_policy: None,
            search_start: Instant::now(),
            searching: Arc::new(AtomicBool::new(false)),
            pondering: false,
            infinite: false,
            held: HeldLines::default(),
            on_search_end: None,
            stopping: false,
            note: None,
        }
    }

    /// `hook` runs on whichever thread gives a search's `bestmove`, after writing it; the UCI
    /// loop uses it to call `resume` when lines are held.
    pub fn on_search_end(&mut self, hook: impl Fn() + Send + Sync + 'static) {
        self.on_search_end = Some(Arc::new(hook));
    }

    /// One `info string`, carrying the pending note if there is one.
    fn info(&mut self, text: &str) {
        match self.note.take() {
            Some(note) => self.out.info_string(&format!("{note}; {text}")),
            None => self.out.info_string(text),
        }
    }

    /// Any other output line (the pending note goes first).
    fn line(&mut self, text: &str) {
        self.flush_note();
        self.out.line(text);
    }

    fn flush_note(&mut self) {
        if let Some(note) = self.note.take() {
            self.out.info_string(&note);
        }
    }

    /// Handle one input line received at `received`, or hold it until the current search ends
    /// (see `crate::held`).
    pub fn handle_line(&mut self, line: &str, received: Instant) -> Flow {
        tracing::info!("in: {}", line.trim_end_matches(['\r', '\n']));
        self.resume();
        let parsed = parse_line(line);
        if self.holds(&parsed) {
            if let Err(e) = self.held.push(line) {
                self.info(&e);
            }
            return Flow::Continue;
        }
        if matches!(parsed, Ok(Parsed { command: Command::Stop, .. })) {
            self.held.stop_all();
        }
        self.handle_parsed(parsed, line, received)
    }

    /// Whether a line must wait for the current search: a `go` while a search that ends by
    /// itself (or was stopped) runs, and everything but `isready`, `stop` and `quit` after such
    /// a `go`. A `go` during `go infinite` or pondering is refused instead: it would wait for a
    /// `stop` that the GUI may never send.
    fn holds(&self, parsed: &Result<Parsed, ParseError>) -> bool {
        match parsed {
            Err(ParseError::Empty) => false,
            Ok(Parsed { command: Command::IsReady | Command::Stop | Command::Quit, .. }) => false,
            Ok(Parsed { command: Command::Go(_), .. }) => {
                !self.held.is_empty() || (self.is_searching() && (self.stopping || !self.waits_for_stop()))
            }
            _ => !self.held.is_empty(),
        }
    }

    /// Handle the held lines in order while no search runs: each `go` among them starts a
    /// search, and the rest wait for that one in turn (but a `ponderhit` right after a held
    /// `go ponder` is for that search). A held `go` that a `stop` followed is stopped as soon
    /// as it starts. Held lines count as received now: a `go` that waited for another search
    /// gets its whole time.
    pub fn resume(&mut self) {
        while let Some(next) = self.held.front() {
            let ponderhit = matches!(parse_line(&next.line), Ok(Parsed { command: Command::PonderHit, .. }));
            if self.is_searching() && !(ponderhit && self.pondering) {
                return;
            }
            let Some(held) = self.held.pop() else { return };
            tracing::info!("held: {}", held.line);
            self.handle_parsed(parse_line(&held.line), &held.line, Instant::now());
            if held.stopped && self.is_searching() {
                self.handle(Command::Stop, Instant::now());
            }
        }
    }

    fn handle_parsed(&mut self, parsed: Result<Parsed, ParseError>, line: &str, received: Instant) -> Flow {
        match parsed {
            Ok(Parsed { command, ignored }) => {
                if let Some(extra) = ignored {
                    let name = line.split_whitespace().next().unwrap_or_default();
                    self.note = Some(format!("ignored extra text '{}' after '{name}'", shorten(&extra)));
                }
                let flow = self.handle(command, received);
                self.flush_note();
                flow
            }
            Err(ParseError::Empty) => Flow::Continue,
            Err(e) => {
                self.info(&e.to_string());
                Flow::Continue
            }
        }
    }

    /// The reader dropped a line longer than the limit.
    pub fn report_long_line(&mut self, bytes: u64) {
        tracing::info!("in: a line of {bytes} bytes, dropped");
        self.out
            .info_string(&format!("input line of {bytes} bytes is longer than {MAX_LINE} bytes; ignored"));
    }

    pub fn handle(&mut self, command: Command, received: Instant) -> Flow {
        match command {
            Command::Uci => {
                let mut lines =
                    vec!["id name Lazuli".to_string(), "id author The Lazuli developers".to_string()];
                lines.extend(options::uci_lines());
                lines.push("uciok".to_string());
                self.line(&lines.join("\n"));
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => {
                self.apply_pending_if_idle();
                self.line("readyok");
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::UciNewGame => {
                self.stop_and_wait();
                self.apply_pending_if_idle();
                self.pool.clear();
            }
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::Go(params) => self.go(params, received),
            Command::Stop => {
                self.pondering = false;
                self.stopping = true;
                self.pool.stop();
            }
            Command::PonderHit => {
                if self.pondering && self.searching.load(Ordering::SeqCst) {
                    self.pondering = false;
                    let elapsed = received.saturating_duration_since(self.search_start);
                    self.pool.ponderhit(elapsed.as_millis() as u64);
                } else {
                    self.info("ponderhit without a ponder search; ignored");
                }
            }
            Command::Quit => {
                self.held.clear();
                self.stop_and_wait();
                return Flow::Quit;
            }
            Command::Display => self.display(),
            Command::Eval => self.line(&smp::engine::eval::trace(self.board.position())),
            Command::Bench(depth) => self.bench(depth),
        }
        Flow::Continue
    }

    fn stop_and_wait(&mut self) {
        self.pondering = false;
        self.pool.stop();
        self.pool.wait();
    }

    fn is_searching(&self) -> bool {
        self.searching.load(Ordering::SeqCst)
    }

    /// The current search runs until `stop`: `go infinite`, or pondering without `ponderhit`.
    fn waits_for_stop(&self) -> bool {
        self.infinite || self.pondering
    }

    fn bench(&mut self, depth: Option<i32>) {
        let depth = depth.unwrap_or(DEFAULT_BENCH_DEPTH);
        if self.is_searching() {
            self.info("bench is not available during a search");
        } else if !(1..=MAX_BENCH_DEPTH).contains(&depth) {
            self.info(&format!("bench depth must be from 1 to {MAX_BENCH_DEPTH}, found {depth}"));
        } else {
            self.pool.wait();
            let result = run_bench(depth, |_, _, _| {});
            self.line(&format!("{} nodes {} nps", result.nodes, result.nps()));
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let (name, value) = match options::validate(name, value) {
            Ok(v) => v,
            Err(e) => {
                self.info(&e);
                return;
            }
        };
        match (name, value) {
            ("Hash", OptionValue::Spin(mb)) => {
                self.pending_hash = Some(mb as usize);
                self.apply_pending_if_idle();
            }
            ("Threads", OptionValue::Spin(n)) => {
                self.pending_threads = Some(n as usize);
                self.apply_pending_if_idle();
            }
            ("MultiPV", OptionValue::Spin(n)) => self.multipv = n as usize,
            ("Move Overhead", OptionValue::Spin(ms)) => self.move_overhead = Duration::from_millis(ms as u64),
            ("Contempt", OptionValue::Spin(cp)) => self.contempt = cp as i32,
            ("UCI_Chess960", OptionValue::Check(on)) => self.chess960 = on,
            ("UCI_ShowWDL", OptionValue::Check(on)) => self.show_wdl = on,
            ("Ponder", OptionValue::Check(_)) => {}
            ("Clear Hash", _) => {
                if self.is_searching() {
                    self.info("Clear Hash ignored during a search");
                } else {
                    self.pool.clear_hash();
                }
            }
            ("SyzygyPath", OptionValue::String(path)) => {
                self.syzygy.path = path;
                self.syzygy.tables = None;
                self.pending_syzygy = true;
                self.apply_pending_if_idle();
            }
            ("SyzygyProbeDepth", OptionValue::Spin(d)) => {
                self.syzygy.probe_depth = d as i32;
                self.pending_syzygy = true;
                self.apply_pending_if_idle();
            }
            ("SyzygyProbeLimit", OptionValue::Spin(n)) => {
                self.syzygy.probe_limit = n as usize;
                self.pending_syzygy = true;
                self.apply_pending_if_idle();
            }
            ("Syzygy50MoveRule", OptionValue::Check(on)) => {
                self.syzygy.rule50 = on;
                self.pending_syzygy = true;
                self.apply_pending_if_idle();
            }
            ("SMP Helpers", OptionValue::String(policy)) => match policy.parse() {
                Ok(policy) => {
                    self.pending_policy = Some(policy);
                    self.apply_pending_if_idle();
                }
                Err(e) => self.info(&e),
            },
            ("SMP Vote", OptionValue::String(mode)) => match mode.parse() {
                Ok(mode) => self.pool.set_vote_mode(mode),
                Err(e) => self.info(&e),
            },
            ("Debug Log File", OptionValue::String(path)) => {
                if let Err(e) = crate::log::set_file(&path) {
                    self.info(&e);
                }
            }
            (name, OptionValue::Spin(value)) if options::is_tunable(name) => {
                if self.is_searching() {
                    self.info(&format!("{name} ignored during a search"));
                } else {
                    self.pool.wait();
                    smp::engine::search::params::set_tunable(name, value as i32);
                }
            }
            _ => self.info(&format!("option '{name}' cannot take that value")),
        }
    }

    /// Load the tables named by `SyzygyPath` (once) and hand them with the probe settings to
    /// the pool; every unreadable directory is reported.
    fn apply_syzygy(&mut self) {
        if self.syzygy.tables.is_none() && !self.syzygy.path.is_empty() {
            let (tables, warnings) = Tablebases::open(&self.syzygy.path);
            let mut message = warnings.join("; ");
            if tables.files() > 0 {
                if !message.is_empty() {
                    message.push_str("; ");
                }
                message.push_str(&format!(
                    "found {} Syzygy table files (up to {} pieces)",
                    tables.files(),
                    tables.max_pieces()
                ));
                self.syzygy.tables = Some(Arc::new(tables));
            } else if message.is_empty() {
                message = "SyzygyPath: no Syzygy table files found".to_string();
            }
            self.info(&message);
        }
        let settings = self.syzygy.tables.as_ref().map(|tables| TbSettings {
            tables: Arc::clone(tables),
            probe_depth: self.syzygy.probe_depth,
            probe_limit: self.syzygy.probe_limit,
            rule50: self.syzygy.rule50,
        });
        self.pool.set_tablebases(settings);
    }

    /// Stops the current search from any thread.
    pub fn stop_handle(&self) -> smp::StopHandle {
        self.pool.stop_handle()
    }

    fn apply_pending_if_idle(&mut self) {
        if self.is_searching() {
            return;
        }
        if let Some(policy) = self.pending_policy.take() {
            self.pool.set_policy(policy);
        }
        if std::mem::take(&mut self.pending_syzygy) {
            self.apply_syzygy();
        }
        if let Some(threads) = self.pending_threads.take() {
            self.pool.set_threads(threads);
        }
        if let Some(mb) = self.pending_hash.take() {
            if let Err(e) = self.pool.set_hash(mb) {
                self.info(&e);
            }
        }
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let root = match fen {
            None => Position::startpos(),
            Some(fen) => match Position::from_fen(fen) {
                Ok(pos) => pos,
                Err(e) => {
                    self.info(&format!("bad FEN '{}': {e}; position unchanged", shorten(fen)));
                    return;
                }
            },
        };
        let mut board = Board::new(root);
        for (i, text) in moves.iter().enumerate() {
            match find_move(board.position(), text, self.chess960) {
                Some(mv) => board.make_move(mv),
                None => {
                    self.info(&format!(
                        "illegal or unknown move '{}' (move {} of the list); position unchanged",
                        shorten(text),
                        i + 1
                    ));
                    return;
                }
            }
        }
        self.board = board;
        self.position_given = true;
    }

    fn go(&mut self, params: GoParams, received: Instant) {
        if self.is_searching() {
            self.info("already searching until stop; send stop first");
            return;
        }
        if let Some(depth) = params.perft {
            self.perft(depth);
            return;
        }
        let pos = *self.board.position();

        // Root moves that are not legal here are left out, with a note; if none is left, every
        // move is searched: the GUI still gets a `bestmove`. `0000` (what some clients send for
        // an empty list) is skipped silently.
        let mut notes = params.problems.clone();
        let mut search_moves = Vec::new();
        let mut unknown = Vec::new();
        for text in params.searchmoves.iter().filter(|t| t.as_str() != "0000") {
            match find_move(&pos, text, self.chess960) {
                Some(mv) => search_moves.push(mv),
                None => unknown.push(format!("'{}'", shorten(text))),
            }
        }
        if !unknown.is_empty() {
            cap_list(&mut unknown);
            let instead = if search_moves.is_empty() { "searching every move" } else { "left out" };
            notes.push(format!("searchmoves: {} not legal here; {instead}", unknown.join(", ")));
        }
        if !self.position_given {
            notes.push("no position given; searching the start position".to_string());
        }
        let limits = self.limits(&params, received, search_moves, &mut notes);
        if !notes.is_empty() {
            self.info(&notes.join("; "));
        }
        self.apply_pending_if_idle();

        let style =
            InfoStyle { chess960: self.chess960, show_wdl: self.show_wdl, material: wdl::material(&pos) };
        let last_lines = LastLines::default();
        let reporter = Box::new(UciReporter { out: self.out.clone(), style, last_lines: last_lines.clone() });
        let out = self.out.clone();
        let searching = Arc::clone(&self.searching);
        let on_search_end = self.on_search_end.clone();
        let start = received;
        let on_done = Box::new(move |result: SearchResult| {
            for info in closing_info(&last_lines.load(), &result, start.elapsed()) {
                out.line(&format_info(&info, style));
            }
            let mut line = format!("bestmove {}", result.best_move.to_uci(style.chess960));
            if !result.ponder_move.is_null() {
                line.push_str(&format!(" ponder {}", result.ponder_move.to_uci(style.chess960)));
            }
            // Lowered under the output's lock: a `go` that finds the search over cannot print
            // before this `bestmove`, and a client that has read it never finds it running.
            out.line_after(&line, || searching.store(false, Ordering::SeqCst));
            if let Some(hook) = &on_search_end {
                hook();
            }
        });
        self.search_start = received;
        self.pondering = params.ponder;
        self.infinite = params.infinite;
        self.stopping = false;
        self.searching.store(true, Ordering::SeqCst);
        self.pool.go(self.board.clone(), limits, params.ponder, params.infinite, reporter, on_done);
    }

    /// The search limits `go` asks for. Values out of range are brought into range, each with a
    /// note saying so; the search still runs, so the GUI still gets its `bestmove`.
    fn limits(
        &self,
        params: &GoParams,
        received: Instant,
        search_moves: Vec<Move>,
        notes: &mut Vec<String>,
    ) -> Limits {
        for what in &params.saturated {
            notes.push(format!("{what} does not fit in 64 bits; using the nearest value"));
        }
        let max_depth = MAX_PLY as i64 - 1;
        let mut within = |what: &str, value: Option<i64>, min: i64, max: i64| -> Option<i64> {
            let v = value?;
            let clamped = v.clamp(min, max);
            if clamped != v && !params.saturated.iter().any(|s| s.starts_with(what)) {
                notes.push(format!("{what} {v} is out of range; using {clamped}"));
            }
            Some(clamped)
        };
        let depth = within("depth", params.depth, 1, max_depth);
        let nodes = within("nodes", params.nodes, 1, i64::MAX);
        let mate = within("mate", params.mate, 1, MAX_PLY as i64 / 2);
        let movetime = within("movetime", params.movetime, 0, i64::MAX);
        let movestogo = within("movestogo", params.movestogo, 1, 10_000);
        let winc = within("winc", params.winc, 0, i64::MAX);
        let binc = within("binc", params.binc, 0, i64::MAX);
        // A negative clock is what some GUIs send once the time has run out: no time left.
        let wtime = within("wtime", params.wtime, 0, i64::MAX);
        let btime = within("btime", params.btime, 0, i64::MAX);

        let (time, inc) = match self.board.position().side_to_move() {
            Color::White => (wtime, winc),
            Color::Black => (btime, binc),
        };
        let millis = |v: i64| Duration::from_millis(v.clamp(0, i64::MAX) as u64);
        let clock = Clock {
            time: time.map(millis),
            increment: inc.map(millis).unwrap_or_default(),
            moves_to_go: movestogo.map(|m| m as u32),
            move_time: movetime.map(millis),
        };
        let time_limits = if params.infinite { None } else { allocate(&clock, self.move_overhead) };
        if self.debug {
            notes.push(format!("time limits {time_limits:?}"));
        }
        Limits {
            start: received,
            depth: depth.map(|d| d as i32),
            nodes: nodes.map(|n| n as u64),
            mate: mate.map(|m| m as i32),
            soft_time: time_limits.map(|t| t.soft),
            hard_time: time_limits.map(|t| t.hard),
            clock: clock.time,
            search_moves,
            multipv: self.multipv,
            contempt: self.contempt,
        }
    }

    fn perft(&mut self, depth: u32) {
        if depth > MAX_PERFT_DEPTH {
            self.info(&format!("perft depth must be at most {MAX_PERFT_DEPTH}, found {depth}"));
            return;
        }
        self.pool.wait();
        let mut buffer = Vec::new();
        if crate::perft::write_divide(&mut buffer, self.board.position(), depth, self.chess960).is_ok() {
            self.line(String::from_utf8_lossy(&buffer).trim_end());
        }
    }

    fn display(&mut self) {
        let pos = self.board.position();
        let mut text = String::new();
        for rank in (0..8).rev() {
            text.push_str(" +---+---+---+---+---+---+---+---+\n");
            for file in 0..8 {
                let sq = smp::engine::board::Square::from_file_rank(file, rank);
                let c = pos.piece_on(sq).map_or(' ', |p| p.fen_char());
                text.push_str(&format!(" | {c}"));
            }
            text.push_str(&format!(" | {}\n", rank + 1));
        }
        text.push_str(" +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n\n");
        text.push_str(&format!("Fen: {}\nKey: {:016X}\n", pos.to_fen(), pos.key()));
        let checkers: Vec<String> = pos.checkers().map(|s| s.to_string()).collect();
        text.push_str(&format!("Checkers: {}", checkers.join(" ")));
        self.line(&text);
    }
}

/// The legal move written `text` in UCI. Either castling notation is accepted; where the two
/// readings differ (a Chess960 king next to its rook), the current mode's reading wins.
pub fn find_move(pos: &Position, text: &str, chess960: bool) -> Option<Move> {
    if text.len() > 5 {
        return None;
    }
    let moves = legal_moves(pos);
    let spelled = |notation: bool| moves.iter().copied().find(|m| m.to_uci(notation) == text);
    spelled(chess960).or_else(|| spelled(!chess960))
}

/// The Syzygy options as set, and the tables they opened.
struct SyzygyOptions {
    path: String,
    probe_depth: i32,
    probe_limit: usize,
    rule50: bool,
    tables: Option<Arc<Tablebases>>,
}

impl Default for SyzygyOptions {
    fn default() -> Self {
        SyzygyOptions { path: String::new(), probe_depth: 1, probe_limit: 7, rule50: true, tables: None }
    }
}
