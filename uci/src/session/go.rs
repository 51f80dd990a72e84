//! `go`: the search a GUI asks for, its limits, and the callback that gives its `bestmove`.

use super::{find_move, strength, Session};
use crate::command::{cap_list, shorten, GoParams};
use crate::output::{closing_info, format_info, InfoStyle, LastLines, RateGate, UciReporter, CURRMOVE_GAP};
use crate::wdl;
use engine::board::{Color, Move};
use engine::search::score::MAX_PLY;
use engine::search::time::{allocate, Clock};
use engine::search::{Limits, SearchResult};
use smp::Mode;
use std::time::{Duration, Instant};

impl Session {
    pub(super) fn go(&mut self, params: GoParams, received: Instant) {
        if self.is_searching() {
            self.info("already searching until stop; send stop first");
            return;
        }
        if let Some(depth) = params.perft {
            self.perft(depth, received);
            return;
        }
        if self.root.refused {
            // Never a move for another position than the one the GUI asked about.
            self.info("no position to search: the last position command was refused");
            self.line("bestmove 0000");
            return;
        }
        let pos = *self.root.board.position();

        // Root moves that are not legal here are left out, with a note; if none is left, every
        // move is searched: the GUI still gets a `bestmove`. `0000` (what some clients send for
        // an empty list) is skipped silently.
        let mut notes = params.problems.clone();
        let mut search_moves = Vec::new();
        let mut unknown = Vec::new();
        for text in params.searchmoves.iter().filter(|t| t.as_str() != "0000") {
            match find_move(&pos, text, self.options.chess960) {
                Some(mv) => search_moves.push(mv),
                None => unknown.push(format!("'{}'", shorten(text))),
            }
        }
        if !unknown.is_empty() {
            cap_list(&mut unknown);
            let instead = if search_moves.is_empty() { "searching every move" } else { "left out" };
            notes.push(format!("searchmoves: {} not legal here; {instead}", unknown.join(", ")));
        }
        if !self.root.given {
            notes.push("no position given; searching the start position".to_string());
        }
        let mut limits = self.limits(&params, received, search_moves, &mut notes);
        // At a limited strength: a short search of a few lines, then a choice among them.
        let strength = self.options.limit_strength.then(|| strength::level(self.options.elo));
        if let Some(level) = strength {
            limits.soft_nodes = Some(level.nodes_for(limits.soft_time, self.options.move_overhead));
            limits.min_depth = strength::MIN_DEPTH;
            limits.multipv = limits.multipv.max(level.lines);
            limits.resume = false;
        }
        let (key, seed) = (pos.key(), self.options.strength_seed);
        if !notes.is_empty() {
            self.info(&notes.join("; "));
        }
        self.apply_pending_if_idle();

        let style = InfoStyle {
            chess960: self.options.chess960,
            show_wdl: self.options.show_wdl,
            material: wdl::material(&pos),
        };
        let last_lines = LastLines::default();
        let reporter = Box::new(UciReporter {
            out: self.out.clone(),
            style,
            last_lines: last_lines.clone(),
            currmove_gate: RateGate::new(CURRMOVE_GAP),
        });
        let out = self.out.clone();
        let inbox = self.inbox.clone();
        let start = received;
        let on_bestmove = Box::new(move |mut result: SearchResult, ended: &smp::Ended| {
            if let Some(level) = strength {
                let lines = last_lines.load();
                if let Some((mv, ponder)) = strength::choose(&lines, &level, key, seed) {
                    if let Some(line) = lines.iter().find(|l| l.pv.first() == Some(&mv)) {
                        // The last `info` agrees with the move played: its own line.
                        (result.score, result.pv) = (line.score, line.pv.clone());
                    }
                    (result.best_move, result.ponder_move) = (mv, ponder);
                }
            }
            for info in closing_info(&last_lines.load(), &result, start.elapsed()) {
                out.line(&format_info(&info, style));
            }
            let mut line = format!("bestmove {}", result.best_move.to_uci(style.chess960));
            if !result.ponder_move.is_null() {
                line.push_str(&format!(" ponder {}", result.ponder_move.to_uci(style.chess960)));
            }
            // Ended under the output's lock: a `go` that finds the search over cannot print
            // before this `bestmove`, and a client that has read it never finds it running.
            out.line_after(&line, || ended.now());
            // Told in turn with the input (the inbox always takes it).
            if let Some(inbox) = inbox {
                let _ = inbox.send((crate::input::Input::SearchEnded, std::time::Instant::now()));
            }
        });
        // `go ponder infinite` waits for `stop` even after `ponderhit`.
        let mode = match (params.infinite, params.ponder) {
            (true, _) => Mode::Infinite,
            (false, true) => Mode::Ponder,
            (false, false) => Mode::Normal,
        };
        self.search.pondering = params.ponder;
        self.search.infinite = params.infinite;
        self.search.stopping = false;
        self.engine.go(self.root.board.clone(), limits, mode, reporter, on_bestmove);
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
        // `movestogo 0` (or less) is sent by some GUIs where the specification would send none.
        let movestogo = within("movestogo", params.movestogo.filter(|&m| m > 0), 1, 10_000);
        let winc = within("winc", params.winc, 0, i64::MAX);
        let binc = within("binc", params.binc, 0, i64::MAX);
        // A negative clock is what some GUIs send once the time has run out: no time left.
        let wtime = within("wtime", params.wtime, 0, i64::MAX);
        let btime = within("btime", params.btime, 0, i64::MAX);

        if let Some(m) = params.movestogo.filter(|&m| m <= 0) {
            notes.push(format!("movestogo {m} means no moves to go; ignored"));
        }
        let (time, inc, field) = match self.root.board.position().side_to_move() {
            Color::White => (wtime, winc, "wtime"),
            Color::Black => (btime, binc, "btime"),
        };
        // A clock for the opponent alone still means a game on the clock: the missing one counts
        // as no time left, so that the move comes at once rather than never.
        let time = if time.is_none() && (wtime.is_some() || btime.is_some()) && !params.infinite {
            notes.push(format!("no {field} for the side to move; counting its clock as 0"));
            Some(0)
        } else {
            time
        };
        let millis = |v: i64| Duration::from_millis(v.clamp(0, i64::MAX) as u64);
        let clock = Clock {
            time: time.map(millis),
            increment: inc.map(millis).unwrap_or_default(),
            moves_to_go: movestogo.map(|m| m as u32),
            move_time: movetime.map(millis),
        };
        let mut time_limits =
            if params.infinite { None } else { allocate(&clock, self.options.move_overhead) };
        // Thinking on the opponent's time pays for a longer plan: a quarter more, as Stockfish.
        if let Some(limits) = time_limits.as_mut().filter(|l| self.options.ponder && !l.fixed) {
            limits.soft = (limits.soft + limits.soft / 4).min(limits.hard);
        }
        if self.options.debug {
            notes.push(format!("time limits {time_limits:?}"));
        }
        Limits {
            start: received,
            depth: depth.map(|d| d as i32),
            nodes: nodes.map(|n| n as u64),
            mate: mate.map(|m| m as i32),
            soft_time: time_limits.map(|t| t.soft),
            hard_time: time_limits.map(|t| t.hard),
            fixed_time: time_limits.is_some_and(|t| t.fixed),
            clock: clock.time,
            search_moves,
            multipv: self.options.multipv,
            contempt: self.options.contempt,
            // An analysis resumes from the table: `go infinite`, or in analysis mode a search
            // without a clock or a time limit (a resumed first iteration may not complete in a
            // short `movetime`, and would then report nothing). Games (a clock, or pondering)
            // search from depth 1 as always.
            resume: !params.ponder
                && (params.infinite
                    || (self.options.analyse_mode && clock.time.is_none() && clock.move_time.is_none())),
            // The engine finds what an earlier search of the root completed (`resume_from`).
            ..Limits::default()
        }
    }
}
