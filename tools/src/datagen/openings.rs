//! Starting positions for self-play: the standard start or a double Chess960 start (each side's
//! back rank drawn on its own), followed by a few uniformly random legal moves.
//!
//! Everything is drawn from a seeded generator, so a game's start depends only on the run's seed
//! and the game's index.

use engine::board::{Board, Position};
use engine::movegen::legal_moves;
use support::rng::Rng;

/// The generator for game `index` of a run seeded with `seed`.
pub fn game_rng(seed: u64, index: u64) -> Rng {
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0xd6e8_feb8_6659_fd93));
    rng.next_u64();
    rng
}

/// The back rank of Chess960 start number `index` (0..960, Scharnagl's numbering; 518 is the
/// standard RNBQKBNR), as piece letters from the a-file to the h-file.
pub fn chess960_back_rank(index: u32) -> [u8; 8] {
    let mut rank = [0u8; 8];
    let mut n = index % 960;
    rank[(2 * (n % 4) + 1) as usize] = b'B';
    n /= 4;
    rank[(2 * (n % 4)) as usize] = b'B';
    n /= 4;
    let place_nth_empty = |rank: &mut [u8; 8], nth: u32, piece: u8| {
        let square = (0..8).filter(|&f| rank[f] == 0).nth(nth as usize).expect("enough empty files");
        rank[square] = piece;
    };
    place_nth_empty(&mut rank, n % 6, b'Q');
    n /= 6;
    const KNIGHTS: [(u32, u32); 10] =
        [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (first, second) = KNIGHTS[n as usize];
    // The second knight's index counts the empty files left after placing the first.
    place_nth_empty(&mut rank, first, b'N');
    place_nth_empty(&mut rank, second - 1, b'N');
    for piece in [b'R', b'K', b'R'] {
        place_nth_empty(&mut rank, 0, piece);
    }
    rank
}

/// The FEN of a double Chess960 start: White's back rank from `white`, Black's from `black`, all
/// four castling rights in Shredder notation (rook files).
pub fn double_chess960_fen(white: u32, black: u32) -> String {
    let (w, b) = (chess960_back_rank(white), chess960_back_rank(black));
    let rook_files = |rank: &[u8; 8]| -> String {
        rank.iter().enumerate().filter(|(_, &p)| p == b'R').map(|(f, _)| char::from(b'a' + f as u8)).collect()
    };
    let white_rooks: String = rook_files(&w).chars().rev().collect::<String>().to_uppercase();
    let black_rooks: String = rook_files(&b).chars().rev().collect();
    let black_rank: String = b.iter().map(|&p| char::from(p.to_ascii_lowercase())).collect();
    let white_rank = String::from_utf8(w.to_vec()).expect("ASCII letters");
    format!("{black_rank}/pppppppp/8/8/8/8/PPPPPPPP/{white_rank} w {white_rooks}{black_rooks} - 0 1")
}

/// A start for one game: the standard position or (with probability `dfrc_percent`) a double
/// Chess960 one, then `plies` random legal moves. `None` when the random moves end the game.
pub fn random_start(rng: &mut Rng, plies: usize, dfrc_percent: u32) -> Option<(Board, bool)> {
    let chess960 = rng.below(100) < u64::from(dfrc_percent);
    let root = if chess960 {
        let fen = double_chess960_fen(rng.below(960) as u32, rng.below(960) as u32);
        Position::from_fen(&fen).expect("generated Chess960 starts are valid")
    } else {
        Position::startpos()
    };
    Some((random_plies(Board::new(root), rng, plies)?, chess960))
}

/// `plies` uniformly random legal moves from `board`. `None` when they end the game.
pub fn random_plies(mut board: Board, rng: &mut Rng, plies: usize) -> Option<Board> {
    for _ in 0..plies {
        let moves = legal_moves(board.position());
        if moves.is_empty() {
            return None;
        }
        board.make_move(moves.as_slice()[rng.below(moves.len() as u64) as usize]);
    }
    (!legal_moves(board.position()).is_empty()).then_some(board)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::movegen::count_legal_moves;

    #[test]
    fn scharnagl_numbering_matches_known_starts() {
        assert_eq!(&chess960_back_rank(518), b"RNBQKBNR");
        assert_eq!(&chess960_back_rank(0), b"BBQNNRKR");
        assert_eq!(&chess960_back_rank(959), b"RKRNNQBB");
    }

    #[test]
    fn every_chess960_start_is_legal_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for index in 0..960 {
            let rank = chess960_back_rank(index);
            assert!(seen.insert(rank), "start {index} repeats");
            let king = rank.iter().position(|&p| p == b'K').unwrap();
            let rooks: Vec<usize> = (0..8).filter(|&f| rank[f] == b'R').collect();
            assert!(rooks[0] < king && king < rooks[1], "start {index}: king between the rooks");
            let bishops: Vec<usize> = (0..8).filter(|&f| rank[f] == b'B').collect();
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "start {index}: bishops on both colours");
        }
        for (white, black) in [(0, 959), (518, 518), (17, 400)] {
            let pos = Position::from_fen(&double_chess960_fen(white, black)).expect("valid FEN");
            assert_eq!(pos.castling_rights(), 15);
            assert!(count_legal_moves(&pos) > 0);
        }
        let standard = Position::from_fen(&double_chess960_fen(518, 518)).unwrap();
        assert_eq!(standard.key(), Position::startpos().key());
    }

    #[test]
    fn starts_depend_only_on_seed_and_index() {
        let fen = |seed, index| {
            let (board, _) = random_start(&mut game_rng(seed, index), 8, 50).expect("a start");
            board.position().to_fen()
        };
        assert_eq!(fen(1, 7), fen(1, 7));
        assert_ne!(fen(1, 7), fen(1, 8));
        assert_ne!(fen(1, 7), fen(2, 7));
    }
}
