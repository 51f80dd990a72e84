//! The engine session: the state a GUI builds up (position, options) and what each command does
//! to it. Every error is answered with one `info string`; the previous valid state is kept.

use crate::command::{shorten, Command, ParseError, Parsed};
use crate::desk::{DeskState, FrontDesk};
use crate::input::{Input, Line};
use crate::options;
use crate::output::Output;
use engine::bench::{run_bench, DEFAULT_BENCH_DEPTH};
use engine::board::{Board, FenError, Move, Position};
use engine::movegen::legal_moves;
use engine::movegen::perft::perft_divide;
use engine::nnue::Network;
use engine::tb::Tablebases;
use smp::Engine;
use std::sync::Arc;
use std::time::{Duration, Instant};

use network::NetworkChoice;

pub use gate::Gate;

mod gate;
mod go;
mod network;
mod setoption;
pub mod strength;
mod table_words;

/// Deepest `go perft` and `bench` accepted over UCI (both run to completion before the next
/// command is read).
const MAX_PERFT_DEPTH: u32 = 12;
const MAX_BENCH_DEPTH: i32 = 64;

pub struct Session {
    out: Output,
    engine: Engine,
    /// The position the GUI set.
    root: Root,
    /// The options' values that the session itself reads (the engine holds the rest).
    options: OptionValues,
    /// Option changes made during a search, applied in their order when it has ended.
    pending: Vec<Change>,
    /// What the current search is.
    search: SearchState,
    /// Text the current command ignored: told in its first `info string`, or alone before its
    /// first other output, so every command gets at most one `info string`.
    note: Option<String>,
    /// What this session and its input thread tell each other.
    desk: Arc<DeskState>,
    /// The channel the session's input comes on: each search's end is posted there too.
    inbox: Option<crossbeam_channel::Sender<(Input, Instant)>>,
    /// The limits of a session served over the network (`None`: a local one).
    gate: Option<Box<dyn Gate>>,
}

/// The position searches start from.
struct Root {
    board: Board,
    /// Whether a `position` command has set up `board` (else it is the start position).
    given: bool,
    /// The last `position` was refused: no position stands, and `go` answers `bestmove 0000`
    /// rather than search the one before.
    refused: bool,
}

/// The values of the options that the session reads when it handles a command.
struct OptionValues {
    chess960: bool,
    show_wdl: bool,
    /// `UCI_AnalyseMode`: searches without a clock are analyses (see `go`).
    analyse_mode: bool,
    /// `UCI_LimitStrength`, `UCI_Elo` and `Strength Seed` (`strength`).
    limit_strength: bool,
    elo: i64,
    strength_seed: u64,
    multipv: usize,
    move_overhead: Duration,
    /// Centipawns a draw is worth less than equality to the engine (`Contempt`).
    contempt: i32,
    debug: bool,
    /// The network `EvalFile` chose (the embedded one by default).
    network_choice: NetworkChoice,
    /// `Hash File`: where `Save Hash` writes the table and `Load Hash` reads it.
    hash_file: String,
    /// `Never Clear Hash`: `ucinewgame` keeps the table.
    never_clear_hash: bool,
    /// `Keep Hash File`: `Hash File` is loaded when set and saved at `ucinewgame` and `quit`.
    keep_hash_file: bool,
    /// Tablebase options; the tables themselves live in the pool.
    syzygy: SyzygyOptions,
    /// The `Ponder` option: the GUI may let the engine think on the opponent's time.
    ponder: bool,
}

/// What kind of search runs, as the session must answer `stop`, `ponderhit` and `go`.
#[derive(Default)]
struct SearchState {
    /// A ponder search that has not had its `ponderhit` or `stop`.
    pondering: bool,
    /// `go infinite`: it waits for `stop` however soon it is done.
    infinite: bool,
    /// `stop` was sent (a `go` may then follow before its `bestmove`).
    stopping: bool,
}

/// An option change that waits for the current search to end. Changes take effect in the order
/// they were sent (`apply_pending_if_idle`).
enum Change {
    Numa(smp::numa::NumaPolicy),
    /// Tablebase settings changed.
    Syzygy,
    Threads(usize),
    Hash(usize),
    /// The network `EvalFile` chose.
    Network(Arc<Network>),
    /// `Clear Hash`, and `Save Hash` and `Load Hash` with the path they were asked for.
    ClearHash,
    SaveHash(String),
    LoadHash(String),
}

impl Change {
    /// Whether `self` makes `earlier`, queued just before it, pointless: a new value of the
    /// same setting (table operations all count).
    fn replaces(&self, earlier: &Change) -> bool {
        let table = matches!(self, Change::ClearHash | Change::SaveHash(_) | Change::LoadHash(_));
        !table && std::mem::discriminant(self) == std::mem::discriminant(earlier)
    }
}

/// What the loop should do after a command.
#[derive(PartialEq, Eq, Debug)]
pub enum Flow {
    Continue,
    Quit,
}

impl Session {
    pub fn new(out: Output) -> Session {
        Session::try_new(out).expect("memory for a session's table")
    }

    /// `new`, or `None` when the system refuses the memory of its table.
    pub fn try_new(out: Output) -> Option<Session> {
        Some(Session {
            out,
            engine: Engine::try_new(1, 16)?,
            root: Root { board: Board::new(Position::startpos()), given: false, refused: false },
            options: OptionValues {
                chess960: false,
                show_wdl: false,
                analyse_mode: false,
                limit_strength: false,
                elo: strength::MIN_ELO,
                strength_seed: 0,
                multipv: 1,
                move_overhead: Duration::from_millis(10),
                contempt: 0,
                debug: false,
                network_choice: NetworkChoice::embedded(),
                hash_file: String::new(),
                never_clear_hash: false,
                keep_hash_file: false,
                syzygy: SyzygyOptions::default(),
                ponder: false,
            },
            pending: Vec::new(),
            search: SearchState::default(),
            note: None,
            desk: Arc::default(),
            inbox: None,
            gate: None,
        })
    }

    /// Puts the session under `gate` (before its first command).
    pub fn set_gate(&mut self, gate: Box<dyn Gate>) {
        self.gate = Some(gate);
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

    /// Handle one input line received at `received`. Lines are handled in the order they came:
    /// a `go` or `ucinewgame` that arrives while a search that ends by itself runs waits for its
    /// answer here, as in an engine that reads its input between searches, so a script that
    /// pipes several searches gets each answered in turn. What must be answered meanwhile
    /// (`stop`, `quit`, `isready`) the input thread answers itself (`crate::desk`).
    pub fn handle_line(&mut self, line: Line, received: Instant) -> Flow {
        tracing::info!("in: {}", line.text.trim_end_matches(['\r', '\n']));
        let is_go = matches!(line.parsed, Ok(Parsed { command: Command::Go(_), .. }));
        let waits = is_go || matches!(line.parsed, Ok(Parsed { command: Command::UciNewGame, .. }));
        // Said before the line leaves the desk's count, so that an `isready` read in between is
        // still answered at once (`ucinewgame` ends a search that waits for `stop` itself).
        let will_wait =
            waits && self.is_searching() && (is_go || !self.waits_for_stop() || self.search.stopping);
        self.desk.set_waiting(will_wait);
        self.desk.take(&line);
        let Line { text, parsed } = line;
        let arrived = received;
        if waits && self.is_searching() && self.desk.quit_requested() {
            return self.handle(Command::Quit, received);
        }
        let received = if waits { self.wait_for_search(is_go, received) } else { received };
        self.desk.set_waiting(false);
        if waits && self.desk.quit_requested() {
            // `quit` came while this line waited: it does not run.
            return self.handle(Command::Quit, received);
        }
        // Options set during a search take effect once it has ended.
        self.apply_pending_if_idle();
        let flow = self.handle_parsed(parsed, &text, received);
        if is_go && self.desk.stop_read_since(arrived) {
            // A `stop` read after this `go` ends it as soon as it has started.
            self.handle(Command::Stop, received);
        }
        flow
    }

    /// Search together with `peers` (the other processes of a cluster) from now on.
    pub fn set_peers(&mut self, peers: std::sync::Arc<dyn smp::Peers>) {
        self.engine.set_peers(peers);
    }

    /// The channel this session's input comes on (the end of each search is posted there).
    pub fn set_inbox(&mut self, inbox: crossbeam_channel::Sender<(Input, Instant)>) {
        self.inbox = Some(inbox);
    }

    /// A search has given its answer: options set during it apply now.
    pub fn search_ended(&mut self) {
        self.apply_pending_if_idle();
    }

    /// Before a `go` (or, with `is_go` false, a `ucinewgame`): waits for the running search's
    /// answer. A `go` during `go infinite` or pondering first stops that search, which would
    /// otherwise wait for a `stop` the GUI may never send (`ucinewgame` ends it itself).
    /// Returns when the line counts as received: a `go` that waited behind a search told to stop
    /// counts from its arrival, since the GUI's clock has been running; one that waited behind
    /// a search that ended by itself (a script piping searches) from now, so it gets its time.
    fn wait_for_search(&mut self, is_go: bool, received: Instant) -> Instant {
        if !self.is_searching() {
            return received;
        }
        if self.waits_for_stop() && !self.search.stopping {
            if !is_go {
                return received;
            }
            self.info("go while searching until stop: that search answers first");
            self.handle(Command::Stop, received);
        }
        let stopped = self.search.stopping;
        self.desk.set_waiting(true);
        self.engine.pool().wait();
        self.desk.set_waiting(false);
        if stopped {
            received
        } else {
            Instant::now()
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
    pub fn report_long_line(&mut self, bytes: u64, limit: usize) {
        tracing::info!("in: a line of {bytes} bytes, dropped");
        self.out.info_string(&format!("input line of {bytes} bytes is longer than {limit} bytes; ignored"));
    }

    fn handle(&mut self, command: Command, received: Instant) -> Flow {
        match command {
            Command::Uci => {
                let mut lines = vec![
                    format!("id name {}", crate::version::name()),
                    "id author The Lazuli developers".to_string(),
                ];
                lines.extend(options::uci_lines(|name| self.gate.as_ref()?.spin_max(name)));
                lines.push("uciok".to_string());
                self.line(&lines.join("\n"));
            }
            Command::Debug(on) => self.options.debug = on,
            Command::IsReady => {
                self.apply_pending_if_idle();
                self.line("readyok");
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::UciNewGame => {
                self.stop_and_wait();
                self.apply_pending_if_idle();
                self.save_kept_hash_file();
                self.engine.clear(self.options.never_clear_hash);
                // A new game: nothing of the last one's position stands.
                self.root.board = Board::new(Position::startpos());
                self.root.given = false;
                self.root.refused = false;
            }
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::Go(params) => self.go(params, received),
            Command::Stop => {
                self.search.pondering = false;
                self.search.stopping = true;
                self.engine.pool().stop();
            }
            Command::PonderHit => {
                // The desk has told the search already; a ponder search that has ended since
                // ended by it.
                if self.search.pondering {
                    self.search.pondering = false;
                    self.engine.pool().ponderhit();
                } else {
                    self.info("ponderhit without a ponder search; ignored");
                }
            }
            Command::Quit => {
                self.stop_and_wait();
                // A `Save Hash` pressed during the search is carried out, not dropped.
                self.apply_pending_at_quit();
                self.save_kept_hash_file();
                return Flow::Quit;
            }
            Command::Display => self.display(),
            Command::Eval => self.eval(),
            Command::Bench(depth) => self.bench(depth),
        }
        Flow::Continue
    }

    fn stop_and_wait(&mut self) {
        self.search.pondering = false;
        self.engine.pool().stop();
        self.engine.pool().wait();
    }

    fn is_searching(&self) -> bool {
        self.engine.pool().is_searching()
    }

    /// The current search runs until `stop`: `go infinite`, or pondering without `ponderhit`.
    fn waits_for_stop(&self) -> bool {
        self.search.infinite || self.search.pondering
    }

    fn bench(&mut self, depth: Option<i32>) {
        let depth = depth.unwrap_or(DEFAULT_BENCH_DEPTH);
        let limit = self.gate.as_ref().map_or(MAX_BENCH_DEPTH, |g| g.max_bench_depth().min(MAX_BENCH_DEPTH));
        if self.is_searching() {
            self.info("bench is not available during a search");
        } else if !(1..=limit).contains(&depth) {
            self.info(&format!("bench depth must be from 1 to {limit}, found {depth}"));
        } else {
            self.engine.pool().wait();
            let result = run_bench(depth, |_, _, _| {});
            self.line(&format!("{} nodes {} nps", result.nodes, result.nps()));
        }
    }

    /// Stops the current search from any thread.
    pub fn stop_handle(&self) -> smp::StopHandle {
        self.engine.pool().stop_handle()
    }

    /// The input thread's desk for this session, answering on `out` (`crate::desk`).
    pub fn front_desk(&self, out: Output) -> FrontDesk {
        FrontDesk::new(self.stop_handle(), Arc::clone(&self.desk), out)
    }

    /// Sets the position, taking what can be read sensibly (castling rights without their king
    /// or rook, an impossible en-passant square, a promotion letter in upper case) with a note;
    /// a list of moves ends at `0000`. A position that still cannot be set is refused: none stands
    /// until the next `position`, and `go` answers `bestmove 0000`.
    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let mut notes = Vec::new();
        let root = match fen {
            None => Ok(Position::startpos()),
            Some(fen) => sanitized_position(fen, &mut notes),
        };
        let board = root.and_then(|root| {
            let mut board = Board::new(root);
            for (i, text) in moves.iter().enumerate() {
                if text == "0000" {
                    notes.push(format!("'0000' (move {} of the list) ends the moves there", i + 1));
                    break;
                }
                match find_move(board.position(), &text.to_ascii_lowercase(), self.options.chess960) {
                    Some(mv) => board.make_move(mv),
                    None => {
                        return Err(format!(
                            "illegal or unknown move '{}' (move {} of the list)",
                            shorten(text),
                            i + 1
                        ))
                    }
                }
            }
            Ok(board)
        });
        match board {
            Ok(board) => {
                if !notes.is_empty() {
                    self.info(&notes.join("; "));
                }
                self.root.board = board;
                self.root.given = true;
                self.root.refused = false;
            }
            Err(why) => {
                self.info(&format!("{why}; no position is set until the next position command"));
                self.root.refused = true;
            }
        }
    }

    /// `go perft`, received at `received`: it ends early, with nothing counted, at a `stop` read
    /// after it or at `quit` (a server's client that hangs up).
    fn perft(&mut self, depth: u32, received: Instant) {
        let limit = self.gate.as_ref().map_or(MAX_PERFT_DEPTH, |g| g.max_perft_depth().min(MAX_PERFT_DEPTH));
        if depth > limit {
            self.info(&format!("perft depth must be at most {limit}, found {depth}"));
            return;
        }
        self.engine.pool().wait();
        let desk = Arc::clone(&self.desk);
        let stop = || desk.stop_read_since(received) || desk.quit_requested();
        let Some(divide) = perft_divide(self.root.board.position(), depth, &stop) else {
            self.info("perft stopped before its end; nothing counted");
            return;
        };
        let mut buffer = Vec::new();
        if crate::perft::write_divide(&mut buffer, &divide, depth, self.options.chess960).is_ok() {
            self.line(String::from_utf8_lossy(&buffer).trim_end());
        }
    }

    fn display(&mut self) {
        let pos = self.root.board.position();
        let mut text = String::new();
        for rank in (0..8).rev() {
            text.push_str(" +---+---+---+---+---+---+---+---+\n");
            for file in 0..8 {
                let sq = engine::board::Square::from_file_rank(file, rank);
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

/// `fen` as a position, with castling rights whose king or rook is not in place dropped and an
/// en-passant square that no double push can have produced ignored, each with a note.
fn sanitized_position(fen: &str, notes: &mut Vec<String>) -> Result<Position, String> {
    let mut fields: Vec<String> = fen.split_ascii_whitespace().map(str::to_string).collect();
    // Each retry removes one flaw: at most four castling letters and one en-passant square.
    for _ in 0..6 {
        let error = match Position::from_fen(&fields.join(" ")) {
            Ok(pos) => return Ok(pos),
            Err(error) => error,
        };
        match error {
            FenError::CastlingWithoutKingAndRook(letter) if fields.len() >= 3 => {
                notes.push(format!("castling right '{letter}' has no king and rook in place; dropped"));
                fields[2] = fields[2].replacen(letter, "", 1);
                if fields[2].is_empty() {
                    fields[2] = "-".to_string();
                }
            }
            FenError::ImpossibleEnPassant(_) if fields.len() >= 4 => {
                notes
                    .push(format!("en-passant square '{}' is impossible here; ignored", shorten(&fields[3])));
                fields[3] = "-".to_string();
            }
            error => return Err(format!("bad FEN '{}': {error}", shorten(fen))),
        }
    }
    Err(format!("bad FEN '{}'", shorten(fen)))
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
