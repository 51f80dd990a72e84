//! What a node that failed high teaches the move-ordering tables: killers, counter move,
//! butterfly and continuation history for quiet moves, capture history for captures (a bonus
//! for the move that cut, a malus for those tried before it).

use super::history::{history_bonus, ContKey};
use super::Searcher;
use crate::board::{Move, PieceType, Position};
use crate::movegen::MoveList;

impl Searcher {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn update_histories(
        &mut self,
        pos: &Position,
        ply: usize,
        depth: i32,
        best: Move,
        quiets: &MoveList,
        noisy: &MoveList,
        cont: [Option<ContKey>; 2],
        big_cutoff: bool,
    ) {
        let bonus = history_bonus(depth + big_cutoff as i32);
        let stm = pos.side_to_move();
        let piece_of = |mv: Move| pos.piece_on(mv.from()).expect("searched moves start on a piece");
        let victim_of = |mv: Move| pos.piece_on(mv.to()).map_or(PieceType::Pawn, |p| p.kind());
        if best.is_quiet() {
            let entry = self.ss_mut(ply);
            if entry.killers[0] != best {
                entry.killers[1] = entry.killers[0];
                entry.killers[0] = best;
            }
            self.hist.set_counter_move(cont[0], best);
            for (&mv, sign) in std::iter::once(&best).map(|m| (m, 1)).chain(quiets.iter().map(|m| (m, -1))) {
                let piece = piece_of(mv);
                self.hist.update_butterfly(stm, mv, sign * bonus);
                self.hist.update_continuation(cont[0], piece, mv, sign * bonus);
                self.hist.update_continuation(cont[1], piece, mv, sign * bonus);
            }
        } else {
            self.hist.update_capture(piece_of(best), best, victim_of(best), bonus);
        }
        for &mv in noisy.iter() {
            self.hist.update_capture(piece_of(mv), mv, victim_of(mv), -bonus);
        }
    }
}
