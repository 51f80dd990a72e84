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

use crate::board::{Board, Move, PieceType, Position};
use crate::movegen::{count_legal_moves, legal_moves};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};
use shakmaty_syzygy::{MaybeRounded, Tablebase, Wdl as SyzygyWdl};
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

/// The root's moves in groups of equal tablebase rank, the best group first: the search plays
/// from the first group, and MultiPV shows the other groups after it, each with its own result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootRanking {
    pub groups: Vec<RankGroup>,
    /// False when a DTZ table was missing or unreadable and the WDL tables ranked the moves.
    pub by_dtz: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankGroup {
    pub wdl: Wdl,
    pub moves: Vec<Move>,
}

impl RootRanking {
    /// The moves that keep the best result, and that result.
    pub fn best(&self) -> &RankGroup {
        &self.groups[0]
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
        self.probe_dtz_rounding(pos).map(|(dtz, _)| dtz)
    }

    /// DTZ and whether the table stored it rounded (the true value may then be one ply longer).
    fn probe_dtz_rounding(&self, pos: &Position) -> Option<(i32, bool)> {
        if pos.occupied().count() as usize > self.max_pieces() {
            return None;
        }
        let chess = Self::convert(pos)?;
        match self.tables.probe_dtz(&chess).ok()? {
            MaybeRounded::Precise(dtz) => Some((dtz.0, false)),
            MaybeRounded::Rounded(dtz) => Some((dtz.0, true)),
        }
    }

    /// The root's moves grouped by tablebase result, the best group first (`None` when the root
    /// is not covered). With `rule50`, a winning move counts as a win only if it converts in time
    /// even when its stored DTZ was rounded down, and wins the rule would spoil count as cursed.
    /// A move that completes a threefold repetition is a draw, whatever the tables say of the
    /// position. Wins are ranked strictly by the plies to conversion where the tables' DTZ is a
    /// distance to mate (no pawns) or the game has already repeated, so that the search cannot
    /// spend the fifty moves without progress; elsewhere every certain win stands equal and the
    /// search chooses. Losses are ranked by how long they resist. When a DTZ table is missing or
    /// unreadable, the WDL tables rank the moves by result alone.
    pub fn root_ranking(&self, board: &Board, rule50: bool) -> Option<RootRanking> {
        self.rank_root(board, usize::MAX, rule50, &|| false)
    }

    /// `root_ranking` for a search that probes positions of at most `probe_limit` pieces: the
    /// DTZ probes, which may each read the disk, give way to the WDL ranking once `hurry` says
    /// the clock is short.
    pub fn rank_root(
        &self,
        board: &Board,
        probe_limit: usize,
        rule50: bool,
        hurry: &dyn Fn() -> bool,
    ) -> Option<RootRanking> {
        let pos = board.position();
        let pieces = pos.occupied().count() as usize;
        if pos.castling_rights() != 0 || pieces > self.max_pieces() || pieces > probe_limit {
            return None;
        }
        let strict = pos.pieces(PieceType::Pawn).is_empty() || board.has_repeated();
        let moves = legal_moves(pos);
        let rank_all = |rank: &dyn Fn(&Board) -> Option<(Wdl, i32)>| -> Option<Vec<(Move, (Wdl, i32))>> {
            moves
                .iter()
                .map(|&mv| {
                    let mut child = board.clone();
                    child.make_move(mv);
                    rank(&child).map(|r| (mv, r))
                })
                .collect()
        };
        let (mut ranked, by_dtz) =
            match rank_all(&|child| if hurry() { None } else { self.rank(child, rule50, strict) }) {
                Some(ranked) => (ranked, true),
                None => (rank_all(&|child| self.rank_by_wdl(child, rule50))?, false),
            };
        ranked.sort_by_key(|&(_, rank)| std::cmp::Reverse(rank));
        let mut groups: Vec<(Wdl, i32, Vec<Move>)> = Vec::new();
        for (mv, (wdl, tiebreak)) in ranked {
            match groups.last_mut() {
                Some(last) if (last.0, last.1) == (wdl, tiebreak) => last.2.push(mv),
                _ => groups.push((wdl, tiebreak, vec![mv])),
            }
        }
        let groups = groups.into_iter().map(|(wdl, _, moves)| RankGroup { wdl, moves }).collect::<Vec<_>>();
        (!groups.is_empty()).then_some(RootRanking { groups, by_dtz })
    }

    /// The result of the move that led to `child`, for the side that made it, and a tiebreak
    /// within that result (higher is better).
    fn rank(&self, child: &Board, rule50: bool, strict: bool) -> Option<(Wdl, i32)> {
        let pos = child.position();
        if pos.in_check() && count_legal_moves(pos) == 0 {
            return Some((Wdl::Win, i32::MAX));
        }
        if child.is_repetition(0) || (rule50 && pos.halfmove_clock() >= 100) {
            return Some((Wdl::Draw, 0));
        }
        let (dtz, rounded) = self.probe_dtz_rounding(pos)?;
        // The child's DTZ is from the opponent's view; its halfmove clock is already 0 after a
        // zeroing move. A rounded DTZ may be one ply longer in truth: a win counts the longer.
        let clock = pos.halfmove_clock() as i32;
        Some(match dtz {
            0 => (Wdl::Draw, 0),
            d if d < 0 => {
                let plies = -d + rounded as i32 + clock;
                if !rule50 || plies <= 100 {
                    (Wdl::Win, if strict { -plies } else { 0 })
                } else {
                    (Wdl::CursedWin, -plies)
                }
            }
            d => {
                let plies = d + clock;
                if rule50 && plies > 100 {
                    (Wdl::BlessedLoss, plies)
                } else {
                    (Wdl::Loss, plies)
                }
            }
        })
    }

    /// The result of the move that led to `child` from the WDL tables alone, for when DTZ is not
    /// available: exact after a capture or pawn move, and the best estimate elsewhere.
    fn rank_by_wdl(&self, child: &Board, rule50: bool) -> Option<(Wdl, i32)> {
        let pos = child.position();
        if pos.in_check() && count_legal_moves(pos) == 0 {
            return Some((Wdl::Win, i32::MAX));
        }
        if child.is_repetition(0) || (rule50 && pos.halfmove_clock() >= 100) {
            return Some((Wdl::Draw, 0));
        }
        let ours = match self.probe_wdl(pos)? {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss if rule50 => Wdl::CursedWin,
            Wdl::BlessedLoss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin if rule50 => Wdl::BlessedLoss,
            Wdl::CursedWin => Wdl::Loss,
            Wdl::Win => Wdl::Loss,
        };
        Some((ours, 0))
    }
}
