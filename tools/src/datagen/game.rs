//! One self-play game: both sides search with the same node budget, one thread and a table of
//! their own; every move is kept with its search score, so filters can be chosen at training time.

use super::openings::{game_rng, random_start};
use super::DatagenConfig;
use engine::board::{Board, Color, Move, Position};
use engine::movegen::count_legal_moves;
use engine::search::score::{is_mate_score, MATE_BOUND};
use engine::search::{Limits, Searcher};
use engine::tb::{Tablebases, Wdl};
use engine::tt::TranspositionTable;

/// How a game ended, from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    Draw,
    BlackWins,
}

/// A finished game: where it started, each move with the score of the position it was played
/// from (centipawns, White's point of view), and the result.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub start: Position,
    pub chess960: bool,
    pub moves: Vec<(Move, i16)>,
    pub outcome: Outcome,
}

/// Tries of a random start before the game takes the last one drawn regardless of its score.
const START_TRIES: usize = 64;
/// A game longer than this is a draw: it only shuffles.
const MAX_PLIES: usize = 600;
/// Plies in a row with a decided score, for each side twice, before a win is adjudicated.
pub(super) const DECIDED_PLIES: u32 = 8;

fn win_for(color: Color) -> Outcome {
    if color == Color::White {
        Outcome::WhiteWins
    } else {
        Outcome::BlackWins
    }
}

/// Plays game `index` of the run.
pub fn play_game(
    config: &DatagenConfig,
    index: u64,
    searcher: &mut Searcher,
    tt: &TranspositionTable,
    tablebases: Option<&Tablebases>,
) -> GameRecord {
    let mut rng = game_rng(config.seed, index);
    let search = |searcher: &mut Searcher, board: &Board| {
        let limits = Limits {
            soft_nodes: Some(config.soft_nodes),
            nodes: Some(config.hard_nodes),
            ..Limits::default()
        };
        searcher.search_alone(board, &limits, tt, None)
    };
    searcher.clear();
    tt.clear(1);
    let mut start = None;
    for _ in 0..START_TRIES {
        let plies = config.random_plies + rng.below(2) as usize;
        let Some((board, chess960)) = random_start(&mut rng, plies, config.dfrc_percent) else { continue };
        let balanced = search(searcher, &board).score.abs() <= config.start_balance;
        start = Some((board, chess960));
        if balanced {
            break;
        }
    }
    let (mut board, chess960) = start.unwrap_or_else(|| (Board::new(Position::startpos()), false));
    board.truncate_history();
    searcher.clear();
    tt.clear(1);

    let start = *board.position();
    let mut moves = Vec::new();
    let mut decided_plies = 0;
    let outcome = loop {
        let pos = *board.position();
        if let Some(outcome) = verdict(&board, tablebases) {
            break outcome;
        }
        let searched = search(searcher, &board);
        if searched.best_move.is_null() {
            break Outcome::Draw;
        }
        let white_score = searched.score * pos.side_to_move().sign();
        moves.push((searched.best_move, white_score.clamp(-i16::MAX as i32, i16::MAX as i32) as i16));
        if searched.score.abs() >= config.decided_score {
            decided_plies += 1;
            let mate_found = is_mate_score(searched.score) && searched.score.abs() >= MATE_BOUND;
            if decided_plies >= DECIDED_PLIES || mate_found {
                break if white_score > 0 { Outcome::WhiteWins } else { Outcome::BlackWins };
            }
        } else {
            decided_plies = 0;
        }
        board.make_move(searched.best_move);
    };
    GameRecord { start, chess960, moves, outcome }
}

/// How the game stands decided before the side to move searches, if it is: mate, stalemate,
/// the fifty-move rule, a repetition, bare material, the length cap, or the tablebases.
pub(super) fn verdict(board: &Board, tablebases: Option<&Tablebases>) -> Option<Outcome> {
    let pos = board.position();
    if count_legal_moves(pos) == 0 {
        return Some(if pos.in_check() { win_for(!pos.side_to_move()) } else { Outcome::Draw });
    }
    if pos.halfmove_clock() >= 100 || board.repetitions(0) >= 2 || pos.is_insufficient_material() {
        return Some(Outcome::Draw);
    }
    if board.plies() >= MAX_PLIES {
        return Some(Outcome::Draw);
    }
    tablebases.and_then(|tb| probe(tb, pos)).map(|wdl| match wdl {
        Wdl::Win => win_for(pos.side_to_move()),
        Wdl::Loss => win_for(!pos.side_to_move()),
        _ => Outcome::Draw,
    })
}

/// A tablebase verdict for positions the tables cover (no castling rights, few enough pieces).
fn probe(tablebases: &Tablebases, pos: &Position) -> Option<Wdl> {
    if pos.castling_rights() != 0 || pos.occupied().count() as usize > tablebases.max_pieces() {
        return None;
    }
    tablebases.probe_wdl(pos)
}
