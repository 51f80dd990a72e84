//! A minimal UCI loop: enough for `position` and `go perft`. The full server comes later.

use crate::perft::write_divide;
use smp::engine::board::{Move, Position};
use smp::engine::movegen::legal_moves;
use std::io::{BufRead, Write};

pub fn run_stdio() {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut pos = Position::startpos();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let mut words = line.split_whitespace();
        let reply = match words.next() {
            Some("uci") => "id name Lazuli\nid author The Lazuli developers\nuciok".to_string(),
            Some("isready") => "readyok".to_string(),
            Some("quit") => break,
            Some("position") => match parse_position(&line) {
                Ok(p) => {
                    pos = p;
                    continue;
                }
                Err(e) => format!("info string {e}"),
            },
            Some("go") if words.next() == Some("perft") => {
                match words.next().and_then(|d| d.parse::<u32>().ok()) {
                    Some(depth) => {
                        let _ = write_divide(&mut out, &pos, depth, false);
                        let _ = out.flush();
                        continue;
                    }
                    None => "info string go perft needs a depth".to_string(),
                }
            }
            Some(cmd) => format!("info string unknown command '{}'", cmd.escape_debug()),
            None => continue,
        };
        let _ = writeln!(out, "{reply}");
        let _ = out.flush();
    }
}

/// `position startpos|fen <FEN> [moves m1 m2 ...]`.
pub fn parse_position(line: &str) -> Result<Position, String> {
    let rest = line.trim_start().strip_prefix("position").unwrap_or(line).trim();
    let (setup, moves) = match rest.split_once("moves") {
        Some((s, m)) => (s.trim(), Some(m)),
        None => (rest, None),
    };
    let mut pos = if setup == "startpos" {
        Position::startpos()
    } else if let Some(fen) = setup.strip_prefix("fen") {
        Position::from_fen(fen.trim()).map_err(|e| format!("bad FEN: {e}"))?
    } else {
        return Err(format!("position needs 'startpos' or 'fen', found '{}'", setup.escape_debug()));
    };
    for text in moves.unwrap_or_default().split_whitespace() {
        let mv = find_move(&pos, text)
            .ok_or_else(|| format!("illegal or unknown move '{}'", text.escape_debug()))?;
        pos.make_move(mv);
    }
    Ok(pos)
}

/// The legal move written `text` in UCI (either castling notation).
pub fn find_move(pos: &Position, text: &str) -> Option<Move> {
    legal_moves(pos).iter().copied().find(|m| m.to_uci(false) == text || m.to_uci(true) == text)
}
