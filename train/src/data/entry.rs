//! One training position in 32 bytes: the occupied squares, a nibble per piece, and the score
//! and result from the side to move's point of view.

use crate::chess::{feature_index, Colour, Piece, PieceType, MAX_PIECES};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Bit `s` set when square `s` holds a piece.
    occupancy: u64,
    /// The pieces in square order, two to a byte: colour << 3 | type.
    pieces: [u8; 16],
    /// The search score in centipawns, side to move's view.
    score: i16,
    /// 0 loss, 1 draw, 2 win for the side to move.
    result: u8,
    /// 0 White, 1 Black.
    stm: u8,
}

impl Entry {
    /// Packs a position. `score` and `result` are from White's point of view (result 0 = White
    /// lost, 1 = draw, 2 = White won), as both data formats store them. The pieces must pass
    /// `chess::check_pieces`; the caller checks, since a bad position is a data error there.
    pub fn new(pieces: &[Piece], stm: Colour, score_white: i16, result_white: u8) -> Entry {
        debug_assert!(pieces.len() <= MAX_PIECES && result_white <= 2);
        let (occupancy, packed) = pack(pieces.iter().copied());
        let (score, result) = match stm {
            Colour::White => (score_white, result_white),
            Colour::Black => (score_white.saturating_neg(), 2 - result_white),
        };
        Entry { occupancy, pieces: packed, score, result, stm: stm.index() as u8 }
    }

    /// The same position with the files reversed (a↔h). The 768 inputs carry no castling
    /// rights, so for the network the two are the same position with the same value: training
    /// on either doubles what a position teaches without new games.
    pub fn mirrored(&self) -> Entry {
        let (occupancy, pieces) = pack(self.pieces().map(|p| Piece { square: p.square ^ 7, ..p }));
        Entry { occupancy, pieces, ..*self }
    }

    pub fn side_to_move(&self) -> Colour {
        if self.stm == 0 {
            Colour::White
        } else {
            Colour::Black
        }
    }

    /// Centipawns, side to move's view.
    pub fn score(&self) -> i16 {
        self.score
    }

    /// 1 for a win, 0.5 for a draw, 0 for a loss of the side to move.
    pub fn result(&self) -> f32 {
        f32::from(self.result) * 0.5
    }

    /// The pieces, in square order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        let mut bits = self.occupancy;
        let mut i = 0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let square = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            let code = (self.pieces[i / 2] >> (4 * (i % 2))) & 0xf;
            i += 1;
            let colour = if code >> 3 == 0 { Colour::White } else { Colour::Black };
            let kind = PieceType::from_index(usize::from(code & 7)).unwrap_or(PieceType::Pawn);
            Some(Piece { colour, kind, square })
        })
    }

    /// Writes the active features of the side to move (`us`) and of the other side (`them`),
    /// and returns how many there are in each.
    #[inline]
    pub fn features(&self, us: &mut [u16; MAX_PIECES], them: &mut [u16; MAX_PIECES]) -> usize {
        let stm = self.side_to_move();
        let mut n = 0;
        for p in self.pieces() {
            us[n] = feature_index(stm, p.colour, p.kind, p.square) as u16;
            them[n] = feature_index(stm.flip(), p.colour, p.kind, p.square) as u16;
            n += 1;
        }
        n
    }
}

/// The occupied squares, and the pieces' codes (colour << 3 | type) in square order, two to a
/// byte.
fn pack(pieces: impl Iterator<Item = Piece>) -> (u64, [u8; 16]) {
    let mut by_square = [0u8; 64];
    let mut occupancy = 0u64;
    for p in pieces {
        occupancy |= 1 << p.square;
        by_square[p.square as usize] = (p.colour.index() as u8) << 3 | p.kind.index() as u8;
    }
    let mut packed = [0u8; 16];
    let mut bits = occupancy;
    let mut i = 0;
    while bits != 0 {
        packed[i / 2] |= by_square[bits.trailing_zeros() as usize] << (4 * (i % 2));
        bits &= bits - 1;
        i += 1;
    }
    (occupancy, packed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::parse_fen;

    #[test]
    fn packs_and_unpacks_a_position() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1";
        let (pieces, stm) = parse_fen(fen).unwrap();
        let entry = Entry::new(&pieces, stm, 120, 2);
        assert_eq!(std::mem::size_of::<Entry>(), 32);
        assert_eq!(entry.side_to_move(), Colour::Black);
        assert_eq!(entry.score(), -120);
        assert_eq!(entry.result(), 0.0);
        let mut back: Vec<Piece> = entry.pieces().collect();
        let mut want = pieces.clone();
        back.sort_by_key(|p| p.square);
        want.sort_by_key(|p| p.square);
        assert_eq!(back, want);
        let (mut us, mut them) = ([0; 32], [0; 32]);
        assert_eq!(entry.features(&mut us, &mut them), pieces.len());
    }

    #[test]
    fn mirroring_reverses_the_files_and_keeps_the_rest() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1";
        let mirror = "r2k3r/1bpqpp1p/1pnp2nb/3NP3/3P2p1/p1Q2N2/PPPBBPPP/R2K3R b - - 0 1";
        let (pieces, stm) = parse_fen(fen).unwrap();
        let (mirror_pieces, _) = parse_fen(mirror).unwrap();
        let entry = Entry::new(&pieces, stm, 120, 2);
        assert_eq!(entry.mirrored(), Entry::new(&mirror_pieces, stm, 120, 2));
        assert_eq!(entry.mirrored().mirrored(), entry);
    }
}
