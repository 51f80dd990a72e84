//! Syzygy endgame tablebases.
//!
//! Probing uses the `shakmaty-syzygy` crate: a maintained, pure-Rust (no `unsafe`) reader of the
//! Syzygy format that is safe to probe from many threads at once. Our positions are converted to
//! its representation only at probe time (through FEN, which also validates them), and only for
//! positions with few enough pieces and no castling rights, so the search pays nothing elsewhere.
//!
//! Two uses:
//! - in the search, a WDL probe right after a capture or pawn move (the only moment WDL tables
//!   are exact without the DTZ context) gives a bound or an exact result;
//! - at the root, DTZ ranks the moves, so a won position is converted within the 50-move rule,
//!   a drawn one held, and the search chooses only among moves that keep the best result.

use crate::board::{Move, PieceType, Position};
use crate::movegen::{count_legal_moves, legal_moves};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};
use shakmaty_syzygy::{Tablebase, Wdl as SyzygyWdl};
use std::path::Path;

/// Win/draw/loss for the side to move, with the 50-move-rule nuances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Wdl {
    Loss = -2,
    /// Lost, but saved by the 50-move rule.
    BlessedLoss = -1,
    Draw = 0,
    /// Won, but only beyond the 50-move rule.
    CursedWin = 1,
    Win = 2,
}

impl From<SyzygyWdl> for Wdl {
    fn from(w: SyzygyWdl) -> Wdl {
        match w {
            SyzygyWdl::Loss => Wdl::Loss,
            SyzygyWdl::BlessedLoss => Wdl::BlessedLoss,
            SyzygyWdl::Draw => Wdl::Draw,
            SyzygyWdl::CursedWin => Wdl::CursedWin,
            SyzygyWdl::Win => Wdl::Win,
        }
    }
}

pub struct Tablebases {
    tables: Tablebase<Chess>,
    files: usize,
}

/// Separator of directories in `SyzygyPath`, as users know it from other engines.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

impl Tablebases {
    /// Tables from every directory of `paths` (separated by `PATH_SEPARATOR`). Directories that
    /// cannot be read are reported in the returned warnings and skipped.
    pub fn open(paths: &str) -> (Tablebases, Vec<String>) {
        let mut tables = Tablebase::new();
        let mut warnings = Vec::new();
        let mut files = 0;
        for dir in paths.split(PATH_SEPARATOR).map(str::trim).filter(|d| !d.is_empty() && *d != "<empty>") {
            if !Path::new(dir).is_dir() {
                warnings.push(format!("SyzygyPath: '{dir}' is not a readable directory; skipped"));
                continue;
            }
            match tables.add_directory(dir) {
                Ok(n) => files += n,
                Err(e) => warnings.push(format!("SyzygyPath: cannot read '{dir}': {e}; skipped")),
            }
        }
        (Tablebases { tables, files }, warnings)
    }

    /// Number of table files found.
    pub fn files(&self) -> usize {
        self.files
    }

    /// Largest piece count (kings included) covered by the tables.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    fn convert(pos: &Position) -> Option<Chess> {
        if pos.castling_rights() != 0 {
            return None;
        }
        let fen: Fen = pos.to_fen().parse().ok()?;
        fen.into_position(CastlingMode::Chess960).ok()
    }

    /// WDL of a position reached by a capture or pawn move (halfmove clock 0), from the side
    /// to move's view. `None` when the tables do not cover it or a table file is unusable.
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        if pos.occupied().count() as usize > self.max_pieces() {
            return None;
        }
        let chess = Self::convert(pos)?;
        self.tables.probe_wdl_after_zeroing(&chess).ok().map(Wdl::from)
    }

    /// DTZ (plies to a zeroing move, Syzygy rounding), positive when the side to move wins.
    pub fn probe_dtz(&self, pos: &Position) -> Option<i32> {
        if pos.occupied().count() as usize > self.max_pieces() {
            return None;
        }
        let chess = Self::convert(pos)?;
        self.tables.probe_dtz(&chess).ok().map(|d| d.ignore_rounding().0)
    }

    /// Root moves that keep the best tablebase result, with that result (`None` when the root is
    /// not covered). With `rule50`, wins that the 50-move rule would spoil count as draws, and
    /// a winning move is kept only if it converts in time; among wins the moves with the fastest
    /// conversion are kept first, among losses those that resist longest.
    pub fn root_moves(&self, pos: &Position, rule50: bool) -> Option<(Vec<Move>, Wdl)> {
        if pos.castling_rights() != 0 || pos.occupied().count() as usize > self.max_pieces() {
            return None;
        }
        let mut ranked = Vec::new();
        for &mv in legal_moves(pos).iter() {
            let mut child = *pos;
            child.make_move(mv);
            let rank = if child.in_check() && count_legal_moves(&child) == 0 {
                // Checkmate: the best possible win.
                1_000
            } else {
                let dtz = self.probe_dtz(&child)?;
                // The child's DTZ is from the opponent's view; a zeroing move restarts the count.
                let zeroing =
                    mv.is_capture() || pos.piece_on(mv.from()).is_some_and(|p| p.kind() == PieceType::Pawn);
                let clock = if zeroing { 0 } else { child.halfmove_clock() as i32 };
                match dtz {
                    0 => 0,
                    d if d < 0 => {
                        let plies = -d;
                        if rule50 && plies + clock > 100 {
                            1 // a cursed win: only a draw under the rule
                        } else {
                            1_000 - plies
                        }
                    }
                    d => {
                        if rule50 && d + clock > 100 {
                            -1 // a blessed loss: drawn under the rule
                        } else {
                            -1_000 + d
                        }
                    }
                }
            };
            ranked.push((mv, rank));
        }
        let best = ranked.iter().map(|&(_, r)| r).max()?;
        let wdl = match best {
            r if r >= 2 => Wdl::Win,
            1 => Wdl::CursedWin,
            0 => Wdl::Draw,
            -1 => Wdl::BlessedLoss,
            _ => Wdl::Loss,
        };
        // Keep every move with the same outcome; for losses keep the longest resistance only.
        let keep: Vec<Move> = ranked
            .iter()
            .filter(|&&(_, r)| match wdl {
                Wdl::Win => r >= 2,
                Wdl::Loss => r == best,
                _ => r == best,
            })
            .map(|&(mv, _)| mv)
            .collect();
        Some((keep, wdl))
    }
}
