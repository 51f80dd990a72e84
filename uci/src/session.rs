//! The engine session: the state a GUI builds up (position, options) and what each command does
//! to it. Every error is answered with one `info string`; the previous valid state is kept.

use crate::command::{parse, shorten, Command, GoParams, ParseError};
use crate::options::{self, OptionValue};
use crate::output::{Output, UciReporter};
use smp::engine::bench::{run_bench, DEFAULT_BENCH_DEPTH};
use smp::engine::board::{Board, Color, Move, Position};
use smp::engine::movegen::legal_moves;
use smp::engine::search::score::MAX_PLY;
use smp::engine::search::Limits;
use smp::time::{allocate, Clock};
use smp::Pool;
use std::time::{Duration, Instant};

pub struct Session {
    out: Output,
    pool: Pool,
    board: Board,
    chess960: bool,
    multipv: usize,
    move_overhead: Duration,
    debug: bool,
    /// `Hash`/`Threads` set while searching apply when the search has ended.
    pending_hash: Option<usize>,
    pending_threads: Option<usize>,
    /// When the current search started (for `ponderhit`).
    search_start: Instant,
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
            chess960: false,
            multipv: 1,
            move_overhead: Duration::from_millis(10),
            debug: false,
            pending_hash: None,
            pending_threads: None,
            search_start: Instant::now(),
        }
    }

    /// Handle one input line received at `received`.
    pub fn handle_line(&mut self, line: &str, received: Instant) -> Flow {
        match parse(line) {
            Ok(command) => self.handle(command, received),
            Err(ParseError::Empty) => Flow::Continue,
            Err(e) => {
                self.out.info_string(&e.to_string());
                Flow::Continue
            }
        }
    }

    pub fn handle(&mut self, command: Command, received: Instant) -> Flow {
        match command {
            Command::Uci => {
                let mut lines =
                    vec!["id name Lazuli".to_string(), "id author The Lazuli developers".to_string()];
                lines.extend(options::uci_lines());
                lines.push("uciok".to_string());
                self.out.line(&lines.join("\n"));
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => {
                self.apply_pending_if_idle();
                self.out.line("readyok");
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::UciNewGame => {
                self.pool.stop();
                self.apply_pending_if_idle();
                self.pool.clear();
            }
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::Go(params) => self.go(params, received),
            Command::Stop => self.pool.stop(),
            Command::PonderHit => self.pool.ponderhit(self.search_start.elapsed().as_millis() as u64),
            Command::Quit => {
                self.pool.stop();
                self.pool.wait();
                return Flow::Quit;
            }
            Command::Display => self.display(),
            Command::Eval => self.out.line(&smp::engine::eval::trace(self.board.position())),
            Command::Bench(depth) => {
                if self.pool.is_searching() {
                    self.out.info_string("bench is not available during a search");
                } else {
                    let depth = depth.unwrap_or(DEFAULT_BENCH_DEPTH).clamp(1, MAX_PLY as i32 - 1);
                    let result = run_bench(depth, |_, _, _| {});
                    self.out.line(&format!("{} nodes {} nps", result.nodes, result.nps()));
                }
            }
        }
        Flow::Continue
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let (name, value) = match options::validate(name, value) {
            Ok(v) => v,
            Err(e) => {
                self.out.info_string(&e);
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
            ("UCI_Chess960", OptionValue::Check(on)) => self.chess960 = on,
            ("Ponder", OptionValue::Check(_)) => {}
            ("Clear Hash", _) => {
                if self.pool.is_searching() {
                    self.out.info_string("Clear Hash ignored during a search");
                } else {
                    self.pool.clear_hash();
                }
            }
            _ => self.out.info_string(&format!("option '{name}' cannot take that value")),
        }
    }

    fn apply_pending_if_idle(&mut self) {
        if self.pool.is_searching() {
            return;
        }
        if let Some(threads) = self.pending_threads.take() {
            self.pool.set_threads(threads);
        }
        if let Some(mb) = self.pending_hash.take() {
            if let Err(e) = self.pool.set_hash(mb) {
                self.out.info_string(&e);
            }
        }
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let root = match fen {
            None => Position::startpos(),
            Some(fen) => match Position::from_fen(fen) {
                Ok(pos) => pos,
                Err(e) => {
                    self.out.info_string(&format!("bad FEN '{}': {e}; position unchanged", shorten(fen)));
                    return;
                }
            },
        };
        let mut board = Board::new(root);
        for text in moves {
            match find_move(board.position(), text) {
                Some(mv) => board.make_move(mv),
                None => {
                    self.out.info_string(&format!(
                        "illegal or unknown move '{}'; position unchanged",
                        shorten(text)
                    ));
                    return;
                }
            }
        }
        self.board = board;
    }

    fn go(&mut self, params: GoParams, received: Instant) {
        if self.pool.is_searching() {
            self.out.info_string("already searching; send stop first");
            return;
        }
        self.apply_pending_if_idle();
        if let Some(depth) = params.perft {
            let mut buffer = Vec::new();
            if crate::perft::write_divide(&mut buffer, self.board.position(), depth.min(12), self.chess960)
                .is_ok()
            {
                self.out.line(String::from_utf8_lossy(&buffer).trim_end());
            }
            return;
        }

        let pos = *self.board.position();
        let mut search_moves = Vec::new();
        for text in &params.searchmoves {
            match find_move(&pos, text) {
                Some(mv) => search_moves.push(mv),
                None => self
                    .out
                    .info_string(&format!("searchmoves: '{}' is not legal here; ignored", shorten(text))),
            }
        }

        let us = pos.side_to_move();
        let (time, inc) = match us {
            Color::White => (params.wtime, params.winc),
            Color::Black => (params.btime, params.binc),
        };
        let millis = |v: i64| Duration::from_millis(v.clamp(0, i64::MAX) as u64);
        let clock = Clock {
            time: time.map(millis),
            increment: inc.map(millis).unwrap_or_default(),
            moves_to_go: params.movestogo.map(|m| m.clamp(1, 10_000) as u32),
            move_time: params.movetime.map(millis),
        };
        let time_limits = if params.infinite { None } else { allocate(&clock, self.move_overhead) };
        let limits = Limits {
            start: received,
            depth: params.depth.map(|d| d.clamp(1, MAX_PLY as i64 - 1) as i32),
            nodes: params.nodes.map(|n| n.max(1)),
            mate: params.mate.map(|m| m.clamp(1, MAX_PLY as i64) as i32),
            soft_time: time_limits.map(|t| t.soft),
            hard_time: time_limits.map(|t| t.hard),
            search_moves,
            multipv: self.multipv,
        };
        if self.debug {
            self.out.info_string(&format!("limits {:?}", time_limits));
        }

        let out = self.out.clone();
        let chess960 = self.chess960;
        let reporter = Box::new(UciReporter { out: self.out.clone(), chess960 });
        let on_done = Box::new(move |result: smp::engine::search::SearchResult| {
            let mut line = format!("bestmove {}", result.best_move.to_uci(chess960));
            if !result.ponder_move.is_null() {
                line.push_str(&format!(" ponder {}", result.ponder_move.to_uci(chess960)));
            }
            out.line(&line);
        });
        self.search_start = received;
        self.pool.go(self.board.clone(), limits, params.ponder, params.infinite, reporter, on_done);
    }

    fn display(&self) {
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
        self.out.line(&text);
    }
}

/// The legal move written `text` in UCI (either castling notation).
pub fn find_move(pos: &Position, text: &str) -> Option<Move> {
    if text.len() > 5 {
        return None;
    }
    legal_moves(pos).iter().copied().find(|m| m.to_uci(false) == text || m.to_uci(true) == text)
}
