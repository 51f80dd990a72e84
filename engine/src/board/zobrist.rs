//! Zobrist keys, generated at compile time from a fixed seed (SplitMix64), so keys and hence
//! `bench` node counts are the same on every machine.

use super::types::{Color, Piece, Square};
use support::rng::Rng;

const KEY_COUNT: usize = 12 * 64 + 16 + 8 + 1;

const fn generate() -> [u64; KEY_COUNT] {
    let mut keys = [0u64; KEY_COUNT];
    let mut rng = Rng::new(0x4c61_7a75_6c69_2121); // "Lazuli!!"
    let mut i = 0;
    while i < KEY_COUNT {
        keys[i] = rng.next_u64();
        i += 1;
    }
    keys
}

static KEYS: [u64; KEY_COUNT] = generate();

/// Every key, in a fixed order: what a saved table's fingerprint covers.
pub fn all_keys() -> &'static [u64] {
    &KEYS
}
const CASTLING_BASE: usize = 12 * 64;
const EN_PASSANT_BASE: usize = CASTLING_BASE + 16;
const SIDE_INDEX: usize = EN_PASSANT_BASE + 8;

#[inline]
pub fn piece_square(piece: Piece, sq: Square) -> u64 {
    KEYS[piece.index() * 64 + sq.index()]
}

/// Key of a whole castling-rights set (4 bits).
#[inline]
pub fn castling(rights: u8) -> u64 {
    KEYS[CASTLING_BASE + (rights & 15) as usize]
}

#[inline]
pub fn en_passant_file(file: u8) -> u64 {
    KEYS[EN_PASSANT_BASE + (file & 7) as usize]
}

/// Toggled when Black is to move.
#[inline]
pub fn side() -> u64 {
    KEYS[SIDE_INDEX]
}

#[inline]
pub fn side_to_move(color: Color) -> u64 {
    match color {
        Color::White => 0,
        Color::Black => side(),
    }
}
