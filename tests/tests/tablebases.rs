//! Syzygy tablebases: probe values against the reference data, root ranking, conversion of won
//! endgames, and probing from several threads.

use engine::board::{Board, Color, Position};
use engine::movegen::{count_legal_moves, legal_moves};
use engine::search::score::{MATE_BOUND, TB_WIN};
use engine::search::{Limits, SearchResult, Searcher, TbContext};
use engine::tb::{Tablebases, Wdl};
use engine::tt::TranspositionTable;
use lazuli_tests::{data_dir, read_epd};
use std::sync::atomic::{AtomicU64, Ordering};

fn tables() -> Tablebases {
    let dir = data_dir().join("syzygy");
    let (tb, warnings) = Tablebases::open(dir.to_str().expect("utf-8 path"));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(tb.files(), 70);
    assert_eq!(tb.max_pieces(), 4);
    tb
}

fn expected_wdl(n: i32) -> Wdl {
    match n {
        -2 => Wdl::Loss,
        -1 => Wdl::BlessedLoss,
        0 => Wdl::Draw,
        1 => Wdl::CursedWin,
        _ => Wdl::Win,
    }
}

#[test]
fn wdl_and_dtz_match_the_reference_values() {
    let tb = tables();
    let entries = read_epd("syzygy/positions.epd");
    assert!(entries.len() >= 70);
    for e in &entries {
        let pos = Position::from_fen(&e.fen).expect("valid FEN");
        let wdl: i32 = e.op("wdl").expect("wdl").parse().expect("number");
        let dtz: i32 = e.op("dtz").expect("dtz").parse().expect("number");
        assert_eq!(tb.probe_wdl(&pos), Some(expected_wdl(wdl)), "{}", e.fen);
        if count_legal_moves(&pos) > 0 {
            let got = tb.probe_dtz(&pos).expect("dtz tables present");
            assert_eq!(got, dtz, "{}: dtz", e.fen);
        }
    }
}

#[test]
fn missing_directories_are_reported_and_skipped() {
    let good = data_dir().join("syzygy");
    let paths = format!("/no/such/dir{}{}", engine::tb::PATH_SEPARATOR, good.display());
    let (tb, warnings) = Tablebases::open(&paths);
    assert_eq!(warnings.len(), 1);
    assert_eq!(tb.max_pieces(), 4);
    let (empty, warnings) = Tablebases::open("/no/such/dir");
    assert_eq!((empty.max_pieces(), warnings.len()), (0, 1));
    // Too many pieces for the tables: no probe.
    assert_eq!(tb.probe_wdl(&Position::startpos()), None);
}

#[test]
fn root_ranking_keeps_the_result() {
    let tb = tables();
    let mut lost_roots = 0;
    for e in read_epd("syzygy/positions.epd") {
        let pos = Position::from_fen(&e.fen).expect("valid FEN");
        if count_legal_moves(&pos) == 0 {
            continue;
        }
        let wdl = expected_wdl(e.op("wdl").expect("wdl").parse().expect("number"));
        let ranking = tb.root_ranking(&Board::new(pos), true).expect("root is covered");
        assert!(ranking.by_dtz);
        let (keep, root) = (&ranking.best().moves, ranking.best().wdl);
        assert_eq!(root, wdl, "{}", e.fen);
        assert!(!keep.is_empty());
        // Every legal move is in exactly one group, and the groups' results never improve.
        let mut all: Vec<_> = ranking.groups.iter().flat_map(|g| g.moves.iter().copied()).collect();
        all.sort_by_key(|m| m.to_string());
        let mut legal: Vec<_> = legal_moves(&pos).iter().copied().collect();
        legal.sort_by_key(|m| m.to_string());
        assert_eq!(all, legal, "{}", e.fen);
        assert!(ranking.groups.windows(2).all(|w| w[0].wdl >= w[1].wdl), "{}", e.fen);
        // A lost root keeps the moves that resist longest: the opponent's largest DTZ.
        let longest = legal_moves(&pos)
            .iter()
            .map(|&mv| {
                let mut child = pos;
                child.make_move(mv);
                tb.probe_dtz(&child).expect("covered")
            })
            .max()
            .expect("the root has moves");
        for &mv in keep.iter() {
            let mut child = pos;
            child.make_move(mv);
            let mated = child.in_check() && count_legal_moves(&child) == 0;
            if mated {
                assert!(matches!(wdl, Wdl::Win | Wdl::CursedWin), "{}: {mv} mates from a {wdl:?}", e.fen);
                continue;
            }
            let child_dtz = tb.probe_dtz(&child).expect("covered");
            let child_wdl = tb.probe_wdl(&child).expect("covered");
            match wdl {
                Wdl::Win => assert!(child_dtz < 0, "{}: {mv} gives away the win", e.fen),
                Wdl::Draw => assert_eq!(child_dtz, 0, "{}: {mv} changes the draw", e.fen),
                Wdl::Loss => {
                    lost_roots += 1;
                    assert!(child_dtz > 0, "{}: {mv} leaves the opponent no win?", e.fen);
                    assert_eq!(child_dtz, longest, "{}: {mv} loses sooner than another move", e.fen);
                }
                Wdl::CursedWin => {
                    assert_eq!(child_wdl, Wdl::BlessedLoss, "{}: {mv} gives away the cursed win", e.fen)
                }
                Wdl::BlessedLoss => assert_eq!(child_wdl, Wdl::CursedWin, "{}: {mv} loses outright", e.fen),
            }
        }
    }
    assert!(lost_roots >= 10, "only {lost_roots} kept moves of lost roots checked");
}

fn search_with_tb(
    searcher: &mut Searcher,
    tt: &TranspositionTable,
    tb: &Tablebases,
    board: &Board,
    nodes: u64,
) -> (SearchResult, u64) {
    let hits = AtomicU64::new(0);
    let tb = TbContext { tables: tb, probe_depth: 1, probe_limit: 7, rule50: true, hits: &hits, root: None };
    let limits = Limits { nodes: Some(nodes), ..Limits::default() };
    let result = searcher.search_alone(board, &limits, tt, Some(tb));
    (result, hits.load(Ordering::Relaxed))
}

#[test]
fn won_endgames_are_converted_to_mate() {
    let tb = tables();
    // KQvK and KRvK with the kings far from the edge the loser needs to be driven to.
    for fen in
        ["8/8/8/3k4/8/8/8/Q3K3 w - - 0 1", "8/8/3k4/8/8/8/8/R3K3 w - - 0 1", "8/8/8/4k3/8/8/8/1K5R b - - 0 1"]
    {
        let tt = TranspositionTable::new(16);
        let mut searcher = Searcher::new();
        let mut board = Board::new(Position::from_fen(fen).expect("valid"));
        // The side with the heavy piece wins.
        let winner = if board.position().non_pawn_material(Color::White).nonempty() {
            Color::White
        } else {
            Color::Black
        };
        let mut plies = 0;
        loop {
            let pos = *board.position();
            if count_legal_moves(&pos) == 0 {
                assert!(pos.in_check(), "{fen}: stalemate after {plies} plies");
                assert_ne!(pos.side_to_move(), winner, "{fen}: the wrong side is mated");
                println!("{fen}: mate after {plies} plies");
                break;
            }
            assert!(pos.halfmove_clock() < 100, "{fen}: fifty-move draw");
            assert!(plies < 200, "{fen}: no mate after {plies} plies");
            let (result, _) = search_with_tb(&mut searcher, &tt, &tb, &board, 20_000);
            if pos.side_to_move() == winner {
                assert!(result.score >= TB_WIN - 200, "{fen}: winning side scored {}", result.score);
            }
            assert!(legal_moves(&pos).contains(result.best_move));
            board.make_move(result.best_move);
            plies += 1;
        }
    }
}

#[test]
fn search_reports_tablebase_scores_and_hits() {
    let tb = tables();
    let tt = TranspositionTable::new(16);
    let mut searcher = Searcher::new();
    // KQvKR, White to win: every capture lands in the 3-piece tables.
    let board = Board::new(Position::from_fen("8/8/4k3/8/2r5/8/3Q4/3K4 w - - 0 1").expect("valid"));
    let (result, hits) = search_with_tb(&mut searcher, &tt, &tb, &board, 200_000);
    assert!(result.score >= TB_WIN - 200 || result.score >= MATE_BOUND, "score {}", result.score);
    assert!(hits > 0);
}

#[test]
fn probing_from_several_threads_agrees() {
    let tb = tables();
    let entries = read_epd("syzygy/positions.epd");
    let positions: Vec<Position> =
        entries.iter().map(|e| Position::from_fen(&e.fen).expect("valid")).collect();
    let reference: Vec<Option<Wdl>> = positions.iter().map(|p| tb.probe_wdl(p)).collect();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..20 {
                    for (pos, want) in positions.iter().zip(&reference) {
                        assert_eq!(tb.probe_wdl(pos), *want);
                    }
                }
            });
        }
    });
}

/// Prints probe throughput (a measurement, run with `--ignored --nocapture`).
#[test]
#[ignore]
fn probe_speed() {
    let tb = tables();
    let positions: Vec<Position> =
        read_epd("syzygy/positions.epd").iter().map(|e| Position::from_fen(&e.fen).expect("valid")).collect();
    let start = std::time::Instant::now();
    let mut probes = 0u64;
    while start.elapsed().as_secs_f64() < 2.0 {
        for pos in &positions {
            assert!(tb.probe_wdl(pos).is_some());
            probes += 1;
        }
    }
    println!("WDL probes: {:.0} per second", probes as f64 / start.elapsed().as_secs_f64());
}

/// Plays `fen` out: the winner searches `nodes` per move with the tables, the loser defends
/// perfectly (the tables' longest resistance). Returns how the game ended.
fn play_out_against_perfect_defence(tb: &Tablebases, fen: &str, nodes: u64) -> Result<usize, String> {
    let tt = TranspositionTable::new(16);
    let mut searcher = Searcher::new();
    let mut board = Board::new(Position::from_fen(fen).expect("valid"));
    let winner = board.position().side_to_move();
    for plies in 0.. {
        let pos = *board.position();
        if count_legal_moves(&pos) == 0 {
            return if pos.in_check() && pos.side_to_move() != winner {
                Ok(plies)
            } else {
                Err(format!("{fen}: no mate: {} after {plies} plies", pos.to_fen()))
            };
        }
        if pos.halfmove_clock() >= 100 || board.is_repetition(0) || pos.is_insufficient_material() {
            return Err(format!("{fen}: drawn at {} after {plies} plies", pos.to_fen()));
        }
        let mv = if pos.side_to_move() == winner {
            let (result, _) = search_with_tb(&mut searcher, &tt, tb, &board, nodes);
            result.best_move
        } else {
            tb.root_ranking(&board, true).expect("covered").best().moves[0]
        };
        assert!(legal_moves(&pos).contains(mv), "{fen}: illegal {mv}");
        board.make_move(mv);
    }
    unreachable!()
}

#[test]
fn bishop_and_knight_and_two_bishops_mate_a_perfect_defender_within_fifty_moves() {
    let tb = tables();
    for fen in [
        "8/8/8/3k4/8/8/8/1N2KB2 w - - 0 1",
        "K7/8/2k5/8/8/8/8/1N1B4 w - - 0 1",
        "8/8/8/8/1B6/1k6/4N3/K7 w - - 0 1",
        // One spare ply before the fifty-move rule.
        "8/8/8/3k4/8/8/8/1N2KB2 w - - 40 1",
        "8/8/8/3k4/8/8/8/2B1KB2 w - - 0 1",
        "7k/8/8/8/8/8/8/2B1KB2 w - - 60 1",
    ] {
        for nodes in [2_000, 20_000] {
            if let Err(why) = play_out_against_perfect_defence(&tb, fen, nodes) {
                panic!("{nodes} nodes a move: {why}");
            }
        }
    }
}

#[test]
fn a_lost_root_takes_a_threefold_repetition() {
    let tb = tables();
    let mut board = Board::new(Position::from_fen("8/8/3k4/8/6R1/8/8/K7 b - - 0 1").expect("valid"));
    for uci in ["d6d5", "g4h4", "d5d6", "h4g4", "d6d5", "g4h4", "d5e6", "h4g4"] {
        let mv =
            legal_moves(board.position()).iter().copied().find(|m| m.to_string() == uci).expect("legal move");
        board.make_move(mv);
    }
    let ranking = tb.root_ranking(&board, true).expect("covered");
    assert_eq!(ranking.best().wdl, Wdl::Draw);
    assert_eq!(ranking.best().moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["e6d5"]);
}

#[test]
fn without_dtz_tables_the_wdl_tables_rank_the_root() {
    let only_wdl = std::env::temp_dir().join(format!("lazuli-wdl-only-{}", std::process::id()));
    std::fs::create_dir_all(&only_wdl).expect("temp dir");
    for entry in std::fs::read_dir(data_dir().join("syzygy")).expect("tables") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "rtbw") {
            std::fs::copy(&path, only_wdl.join(path.file_name().expect("name"))).expect("copy");
        }
    }
    let (tb, warnings) = Tablebases::open(only_wdl.to_str().expect("utf-8 path"));
    assert!(warnings.is_empty(), "{warnings:?}");
    let full = tables();
    let (mut checked, mut by_wdl) = (0, 0);
    for e in read_epd("syzygy/positions.epd") {
        let pos = Position::from_fen(&e.fen).expect("valid FEN");
        if count_legal_moves(&pos) == 0 || pos.halfmove_clock() != 0 {
            continue;
        }
        let board = Board::new(pos);
        let ranking = tb.root_ranking(&board, true).expect("the WDL tables still rank the root");
        // Some DTZ values follow from the WDL tables alone (a drawn child, a winning capture).
        by_wdl += usize::from(!ranking.by_dtz);
        let with_dtz = full.root_ranking(&board, true).expect("covered");
        assert_eq!(ranking.best().wdl, with_dtz.best().wdl, "{}", e.fen);
        // Every move kept by the full ranking keeps the same result here.
        for mv in &with_dtz.best().moves {
            assert!(ranking.best().moves.contains(mv), "{}: {mv} left out", e.fen);
        }
        checked += 1;
    }
    std::fs::remove_dir_all(&only_wdl).ok();
    println!("{checked} roots, {by_wdl} of them ranked by WDL alone");
    assert!(checked >= 20 && by_wdl >= 10, "only {checked} roots checked, {by_wdl} ranked by WDL");
}

#[test]
fn a_short_clock_ranks_the_root_by_wdl_and_a_root_beyond_the_probe_limit_not_at_all() {
    let tb = tables();
    let mut checked = 0;
    for e in read_epd("syzygy/positions.epd") {
        let pos = Position::from_fen(&e.fen).expect("valid FEN");
        if count_legal_moves(&pos) == 0 {
            continue;
        }
        let board = Board::new(pos);
        let pieces = pos.occupied().count() as usize;
        let hurried = tb.rank_root(&board, 7, true, &|| true).expect("covered");
        assert!(!hurried.by_dtz, "{}: a DTZ probe once the clock was short", e.fen);
        let full = tb.rank_root(&board, 7, true, &|| false).expect("covered");
        assert_eq!(hurried.best().wdl, full.best().wdl, "{}", e.fen);
        assert!(tb.rank_root(&board, pieces - 1, true, &|| false).is_none(), "{}", e.fen);
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} roots checked");
}
