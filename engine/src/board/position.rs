//! The position: bitboards plus a mailbox, side to move, castling, en passant, clocks, and the
//! Zobrist keys kept up to date move by move.
//!
//! Moves are applied with copy-make: `make_move` changes `self`, and callers that need to go back
//! keep the previous copy (see `Board`). A `Position` is small and `Copy`, so that is both the
//! simplest way to restore a position exactly and, with bulk counting, fast.

use super::chess_move::Move;
use super::types::{Color, Piece, PieceType, Square};
use super::{zobrist, Bitboard};
use crate::movegen::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};

/// Castling right bits: White king side, White queen side, Black king side, Black queen side.
pub const WHITE_KING_SIDE: u8 = 1;
pub const WHITE_QUEEN_SIDE: u8 = 2;
pub const BLACK_KING_SIDE: u8 = 4;
pub const BLACK_QUEEN_SIDE: u8 = 8;

/// Index (0..4) of a castling right: `color * 2 + (0 king side | 1 queen side)`.
#[inline]
pub const fn castling_index(color: Color, king_side: bool) -> usize {
    color as usize * 2 + if king_side { 0 } else { 1 }
}

const NO_PIECE: u8 = 12;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Position {
    pub(super) pieces: [Bitboard; 6],
    pub(super) colors: [Bitboard; 2],
    pub(super) mailbox: [u8; 64],
    pub(super) key: u64,
    pub(super) pawn_key: u64,
    /// Per colour, the key of its pieces other than pawns (king included).
    pub(super) non_pawn_keys: [u64; 2],
    /// Enemy pieces giving check to the side to move.
    pub(super) checkers: Bitboard,
    /// Pieces of the side to move pinned to their own king.
    pub(super) pinned: Bitboard,
    pub(super) stm: Color,
    /// Bit set of `WHITE_KING_SIDE` ... `BLACK_QUEEN_SIDE`.
    pub(super) castling: u8,
    /// The rook square of each castling right (by `castling_index`); Chess960 allows any file.
    pub(super) castle_rooks: [Square; 4],
    /// Set only when an en-passant capture is legal, so equal positions have equal keys.
    pub(super) ep: Option<Square>,
    pub(super) halfmove: u16,
    pub(super) fullmove: u16,
}

impl Position {
    pub(super) fn empty() -> Position {
        Position {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            mailbox: [NO_PIECE; 64],
            key: 0,
            pawn_key: 0,
            non_pawn_keys: [0; 2],
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            stm: Color::White,
            castling: 0,
            castle_rooks: [Square::new(0); 4],
            ep: None,
            halfmove: 0,
            fullmove: 1,
        }
    }

    // ---- Accessors ----------------------------------------------------------------------

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.stm
    }

    #[inline]
    pub fn pieces(&self, kind: PieceType) -> Bitboard {
        self.pieces[kind.index()]
    }

    #[inline]
    pub fn colored(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    #[inline]
    pub fn pieces_of(&self, color: Color, kind: PieceType) -> Bitboard {
        self.pieces[kind.index()] & self.colors[color.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    #[inline]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        let code = self.mailbox[sq.index()];
        (code < NO_PIECE)
            .then(|| Piece::new(Color::ALL[(code / 6) as usize], PieceType::ALL[(code % 6) as usize]))
    }

    #[inline]
    pub fn king_square(&self, color: Color) -> Square {
        self.pieces_of(color, PieceType::King).lsb()
    }

    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline]
    pub fn in_check(&self) -> bool {
        self.checkers.nonempty()
    }

    #[inline]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    #[inline]
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }

    /// The rook square of a castling right (meaningful only while the right is held).
    #[inline]
    pub fn castle_rook(&self, color: Color, king_side: bool) -> Square {
        self.castle_rooks[castling_index(color, king_side)]
    }

    #[inline]
    pub fn en_passant(&self) -> Option<Square> {
        self.ep
    }

    #[inline]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    #[inline]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    #[inline]
    pub fn pawn_key(&self) -> u64 {
        self.pawn_key
    }

    /// The key of `color`'s pieces other than pawns, king included.
    #[inline]
    pub fn non_pawn_key(&self, color: Color) -> u64 {
        self.non_pawn_keys[color.index()]
    }

    /// Knights, bishops, rooks and queens of `color`.
    #[inline]
    pub fn non_pawn_material(&self, color: Color) -> Bitboard {
        self.colored(color) & !(self.pieces(PieceType::Pawn) | self.pieces(PieceType::King))
    }

    /// Neither side can possibly mate: bare kings, or a single knight or bishop against a king,
    /// or bishops of one square colour only.
    pub fn is_insufficient_material(&self) -> bool {
        let heavy =
            self.pieces(PieceType::Pawn) | self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen);
        if heavy.nonempty() {
            return false;
        }
        let knights = self.pieces(PieceType::Knight);
        let bishops = self.pieces(PieceType::Bishop);
        if (knights | bishops).count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::LIGHT_SQUARES).is_empty()
                || (bishops & !Bitboard::LIGHT_SQUARES).is_empty())
    }

    // ---- Attacks --------------------------------------------------------------------------

    /// Pieces of both colours attacking `sq` given the occupancy `occ`.
    #[inline]
    pub fn attackers_to(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let rooks = self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen);
        let bishops = self.pieces(PieceType::Bishop) | self.pieces(PieceType::Queen);
        (pawn_attacks(Color::White, sq) & self.pieces_of(Color::Black, PieceType::Pawn))
            | (pawn_attacks(Color::Black, sq) & self.pieces_of(Color::White, PieceType::Pawn))
            | (knight_attacks(sq) & self.pieces(PieceType::Knight))
            | (king_attacks(sq) & self.pieces(PieceType::King))
            | (rook_attacks(sq, occ) & rooks)
            | (bishop_attacks(sq, occ) & bishops)
    }

    /// Whether `by` attacks `sq` given the occupancy `occ`.
    #[inline]
    pub fn is_attacked_by(&self, by: Color, sq: Square, occ: Bitboard) -> bool {
        let theirs = self.colored(by);
        if (pawn_attacks(!by, sq) & self.pieces(PieceType::Pawn) & theirs).nonempty()
            || (knight_attacks(sq) & self.pieces(PieceType::Knight) & theirs).nonempty()
            || (king_attacks(sq) & self.pieces(PieceType::King) & theirs).nonempty()
        {
            return true;
        }
        let queens = self.pieces(PieceType::Queen);
        (rook_attacks(sq, occ) & (self.pieces(PieceType::Rook) | queens) & theirs).nonempty()
            || (bishop_attacks(sq, occ) & (self.pieces(PieceType::Bishop) | queens) & theirs).nonempty()
    }

    /// Pieces of `color` standing alone between their king and an enemy slider aimed at it.
    pub fn blockers_for_king(&self, color: Color) -> Bitboard {
        self.pins(color).0
    }

    /// `(blockers, pinners)`: pieces (of either colour) alone between `color`'s king and an
    /// enemy slider aimed at it, and those sliders.
    pub fn pins(&self, color: Color) -> (Bitboard, Bitboard) {
        let ksq = self.king_square(color);
        let them = self.colored(!color);
        let queens = self.pieces(PieceType::Queen);
        let snipers = ((rook_attacks(ksq, Bitboard::EMPTY) & (self.pieces(PieceType::Rook) | queens))
            | (bishop_attacks(ksq, Bitboard::EMPTY) & (self.pieces(PieceType::Bishop) | queens)))
            & them;
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        let mut pinners = Bitboard::EMPTY;
        for sniper in snipers {
            let between = between(ksq, sniper) & occ;
            if between.nonempty() && !between.several() {
                blockers |= between;
                pinners |= Bitboard::from_square(sniper);
            }
        }
        (blockers, pinners)
    }

    /// Recompute checkers and pins for the side to move.
    pub(super) fn update_check_info(&mut self) {
        let ksq = self.king_square(self.stm);
        self.checkers = self.attackers_to(ksq, self.occupied()) & self.colored(!self.stm);
        self.pinned = self.blockers_for_king(self.stm) & self.colored(self.stm);
    }

    // ---- Piece placement ------------------------------------------------------------------

    #[inline]
    pub(super) fn put_piece(&mut self, piece: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.pieces[piece.kind().index()] |= bb;
        self.colors[piece.color().index()] |= bb;
        self.mailbox[sq.index()] = piece.index() as u8;
        let k = zobrist::piece_square(piece, sq);
        self.key ^= k;
        if piece.kind() == PieceType::Pawn {
            self.pawn_key ^= k;
        } else {
            self.non_pawn_keys[piece.color().index()] ^= k;
        }
    }

    #[inline]
    fn remove_piece(&mut self, piece: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.pieces[piece.kind().index()] ^= bb;
        self.colors[piece.color().index()] ^= bb;
        self.mailbox[sq.index()] = NO_PIECE;
        let k = zobrist::piece_square(piece, sq);
        self.key ^= k;
        if piece.kind() == PieceType::Pawn {
            self.pawn_key ^= k;
        } else {
            self.non_pawn_keys[piece.color().index()] ^= k;
        }
    }

    #[inline]
    fn move_piece(&mut self, piece: Piece, from: Square, to: Square) {
        self.remove_piece(piece, from);
        self.put_piece(piece, to);
    }

    // ---- Making moves ---------------------------------------------------------------------

    /// Play a legal move (as produced by the generator or accepted by `is_legal`).
    pub fn make_move(&mut self, mv: Move) {
        let us = self.stm;
        let them = !us;
        let from = mv.from();
        let to = mv.to();
        let piece = self.piece_on(from).expect("a legal move starts on one of our pieces");

        self.key ^= zobrist::side();
        if let Some(ep) = self.ep.take() {
            self.key ^= zobrist::en_passant_file(ep.file());
        }
        self.halfmove = self.halfmove.saturating_add(1);
        let mut ep_candidate = None;

        if mv.is_castle() {
            let rook = Piece::new(us, PieceType::Rook);
            self.remove_piece(piece, from);
            self.remove_piece(rook, to);
            self.put_piece(piece, mv.castle_king_target());
            self.put_piece(rook, mv.castle_rook_target());
        } else {
            if mv.is_en_passant() {
                let captured_sq = Square::from_file_rank(to.file(), from.rank());
                self.remove_piece(Piece::new(them, PieceType::Pawn), captured_sq);
                self.halfmove = 0;
            } else if mv.is_capture() {
                let captured = self.piece_on(to).expect("a capture lands on an enemy piece");
                self.remove_piece(captured, to);
                self.halfmove = 0;
            }
            match mv.promotion() {
                Some(kind) => {
                    self.remove_piece(piece, from);
                    self.put_piece(Piece::new(us, kind), to);
                }
                None => self.move_piece(piece, from, to),
            }
            if piece.kind() == PieceType::Pawn {
                self.halfmove = 0;
                if mv.is_double_push() {
                    let ep = Square::new(((from.index() + to.index()) / 2) as u8);
                    if (pawn_attacks(us, ep) & self.pieces_of(them, PieceType::Pawn)).nonempty() {
                        ep_candidate = Some(ep);
                    }
                }
            }
        }

        if self.castling != 0 {
            let old = self.castling;
            self.castling &= !self.castling_lost(piece, from, to);
            if old != self.castling {
                self.key ^= zobrist::castling(old) ^ zobrist::castling(self.castling);
                // A lost right forgets its rook square, as a parsed FEN never had one: positions
                // reached by different move orders (or read from FEN) then compare equal.
                let held = self.castling;
                for (i, rook) in self.castle_rooks.iter_mut().enumerate() {
                    if held & (1 << i) == 0 {
                        *rook = Square::new(0);
                    }
                }
            }
        }

        self.stm = them;
        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.update_check_info();
        if let Some(ep) = ep_candidate {
            self.set_en_passant_if_legal(ep);
        }
    }

    /// Castling rights lost when `piece` moves from `from` to `to`.
    #[inline]
    fn castling_lost(&self, piece: Piece, from: Square, to: Square) -> u8 {
        let mut lost = 0;
        if piece.kind() == PieceType::King {
            lost |= match piece.color() {
                Color::White => WHITE_KING_SIDE | WHITE_QUEEN_SIDE,
                Color::Black => BLACK_KING_SIDE | BLACK_QUEEN_SIDE,
            };
        }
        for (i, rook) in self.castle_rooks.iter().enumerate() {
            if *rook == from || *rook == to {
                lost |= 1 << i;
            }
        }
        lost & self.castling
    }

    /// Record `ep` as the en-passant square if the side to move has a legal capture there.
    pub(super) fn set_en_passant_if_legal(&mut self, ep: Square) {
        let us = self.stm;
        let capturers = pawn_attacks(!us, ep) & self.pieces_of(us, PieceType::Pawn);
        if capturers.into_iter().any(|from| self.en_passant_is_legal(from, ep)) {
            self.ep = Some(ep);
            self.key ^= zobrist::en_passant_file(ep.file());
        }
    }

    /// Whether our pawn on `from` may capture en passant onto `ep` without leaving the king in
    /// check (covers the rank pin through both pawns and checks by the double-pushed pawn).
    #[inline]
    pub(crate) fn en_passant_is_legal(&self, from: Square, ep: Square) -> bool {
        let us = self.stm;
        let captured = Square::from_file_rank(ep.file(), from.rank());
        let occ = (self.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(captured))
            | Bitboard::from_square(ep);
        let ksq = self.king_square(us);
        let attackers = self.attackers_to(ksq, occ) & self.colored(!us) & !Bitboard::from_square(captured);
        attackers.is_empty()
    }

    /// Pass the move to the opponent (null-move pruning). Not allowed in check.
    pub fn make_null_move(&mut self) {
        debug_assert!(!self.in_check());
        self.key ^= zobrist::side();
        if let Some(ep) = self.ep.take() {
            self.key ^= zobrist::en_passant_file(ep.file());
        }
        self.halfmove = self.halfmove.saturating_add(1);
        if self.stm == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.stm = !self.stm;
        self.update_check_info();
    }

    /// The key that a position with `self`'s contents has, computed from scratch.
    pub fn compute_key(&self) -> u64 {
        let mut key = zobrist::side_to_move(self.stm) ^ zobrist::castling(self.castling);
        if let Some(ep) = self.ep {
            key ^= zobrist::en_passant_file(ep.file());
        }
        key ^ self.pieces_key(self.occupied())
    }

    /// The pawn-structure key computed from scratch.
    pub fn compute_pawn_key(&self) -> u64 {
        self.pieces_key(self.pieces(PieceType::Pawn))
    }

    /// The key of `color`'s pieces other than pawns computed from scratch.
    pub fn compute_non_pawn_key(&self, color: Color) -> u64 {
        self.pieces_key(self.colored(color) & !self.pieces(PieceType::Pawn))
    }

    /// The piece-square keys of the pieces on `squares` (all occupied) XOR-ed together.
    fn pieces_key(&self, squares: Bitboard) -> u64 {
        squares.fold(0, |key, sq| {
            let piece = self.piece_on(sq).expect("occupied square holds a piece");
            key ^ zobrist::piece_square(piece, sq)
        })
    }

    /// Key of the position after `mv`, for prefetching the table before making it. Exact for
    /// ordinary moves; castling, en passant and promotions may differ (prefetch only).
    #[inline]
    pub fn key_after(&self, mv: Move) -> u64 {
        let mut key = self.key ^ zobrist::side();
        if let Some(piece) = self.piece_on(mv.from()) {
            key ^= zobrist::piece_square(piece, mv.from()) ^ zobrist::piece_square(piece, mv.to());
        }
        if let Some(captured) = self.piece_on(mv.to()) {
            key ^= zobrist::piece_square(captured, mv.to());
        }
        key
    }

    /// Checks the internal invariants (bitboards agree with the mailbox, keys, check info).
    /// For tests and debug assertions.
    pub fn is_consistent(&self) -> bool {
        let mut ok = (self.colors[0] & self.colors[1]).is_empty();
        for sq in Square::all() {
            let bb_piece = PieceType::ALL
                .iter()
                .find(|k| self.pieces[k.index()].has(sq))
                .map(|&k| Piece::new(if self.colors[1].has(sq) { Color::Black } else { Color::White }, k));
            ok &= bb_piece == self.piece_on(sq);
            ok &= self.piece_on(sq).is_some() == self.occupied().has(sq);
        }
        let mut copy = *self;
        copy.update_check_info();
        ok && copy.checkers == self.checkers
            && copy.pinned == self.pinned
            && self.key == self.compute_key()
            && self.pawn_key == self.compute_pawn_key()
            && Color::ALL.iter().all(|&c| self.non_pawn_key(c) == self.compute_non_pawn_key(c))
    }
}
