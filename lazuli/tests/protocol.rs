//! Drives the real `lazuli` binary over UCI: handshake, bad input, terminal positions, stop,
//! reproducible searches. Where a test depends on a search having started or having reached a
//! depth, it waits for the engine's own `info` lines, not for a fixed time.

use engine::board::Position;
use engine::movegen::legal_moves;
use engine::search::score::MAX_PLY;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{info_field, Engine};

fn corpus(name: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus").join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// The legal moves after `moves` from the start position, in UCI notation.
fn legal_after(moves: &str) -> Vec<String> {
    let mut pos = Position::startpos();
    for text in moves.split_whitespace() {
        let mv = legal_moves(&pos).iter().copied().find(|m| m.to_uci(false) == text).expect("a legal move");
        pos.make_move(mv);
    }
    legal_moves(&pos).iter().map(|m| m.to_uci(false)).collect()
}

fn bestmove(lines: &[String]) -> String {
    lines.last().expect("lines").split_whitespace().nth(1).expect("a move").to_string()
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The `bestmove` that ends `lines` is legal in `fen` after `moves` (not only not `0000`).
fn assert_legal(lines: &[String], fen: &str, moves: &[&str], what: &str) {
    let mut pos = Position::from_fen(fen).expect("a test position");
    for text in moves {
        pos.make_move(uci::session::find_move(&pos, text, false).expect("a legal test move"));
    }
    let mv = bestmove(lines);
    assert!(
        uci::session::find_move(&pos, &mv, false).is_some(),
        "{what}: bestmove {mv} is illegal: {lines:?}"
    );
}

#[test]
fn handshake_lists_options() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.read_until("uciok", Duration::from_secs(5));
    assert!(lines.iter().any(|l| l.starts_with("id name Lazuli")));
    for option in [
        "Hash",
        "Threads",
        "MultiPV",
        "Move Overhead",
        "Contempt",
        "Ponder",
        "UCI_Chess960",
        "Clear Hash",
        "UCI_ShowWDL",
        "Debug Log File",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("option name {option} type"))), "{option}");
    }
}

#[test]
fn bad_input_is_answered_and_changes_nothing() {
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4");
    let before = engine.fen();
    for line in corpus("bad_input.txt") {
        engine.send(&line);
        let reply = engine.sync();
        let strings = reply.iter().filter(|l| l.starts_with("info string")).count();
        let expected = usize::from(!line.trim().is_empty());
        assert_eq!(strings, expected, "'{line}' answered {reply:?}");
        assert!(!reply.iter().any(|l| l.starts_with("bestmove")), "'{line}' started a search: {reply:?}");
        // Every bad `position` leaves the previous position in place.
        assert_eq!(engine.fen(), before, "after '{line}'");
    }
    // Binary garbage and a very long line.
    let garbage: Vec<u8> = (0..=255u8).cycle().take(4096).filter(|&b| b != b'\n').collect();
    engine.stdin.write_all(&garbage).expect("write");
    engine.stdin.write_all(b"\n").expect("write");
    let reply = engine.sync();
    assert_eq!(reply.iter().filter(|l| l.starts_with("info string")).count(), 1, "{reply:?}");
    // A line far beyond the limit, sent in pieces: dropped, reported once, memory stays bounded.
    let piece = vec![b'x'; 1 << 20];
    for _ in 0..24 {
        engine.stdin.write_all(&piece).expect("write");
    }
    engine.stdin.write_all(b"\n").expect("write");
    let reply = engine.sync();
    assert_eq!(reply.len(), 2, "{reply:?}");
    assert!(reply[0].starts_with("info string input line of 25165824 bytes"), "{reply:?}");
    // The last `position` of the corpus was refused: `go` searches no stale position.
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", Duration::from_secs(20));
    assert_eq!(bestmove(&lines), "0000", "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info string") && l.contains("refused")), "{lines:?}");
    engine.send("position startpos moves e2e4");
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", Duration::from_secs(20));
    let mv = bestmove(&lines);
    assert!(legal_after("e2e4").contains(&mv), "bestmove {mv}");
    assert_eq!(engine.fen(), before);
}

#[test]
fn a_ponderhit_reaches_its_search_whatever_is_held_before_it() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go movetime 200");
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go ponder wtime 2000 btime 2000");
    engine.send("setoption name MultiPV value 1");
    engine.send("ponderhit");
    let first = engine.read_until("bestmove", Duration::from_secs(5));
    assert!(legal_after("").contains(&bestmove(&first)), "{first:?}");
    // After the hit the 2 s clock runs: the move comes well within it, with no `stop`.
    let second = engine.read_until("bestmove", Duration::from_secs(3));
    assert!(legal_after("e2e4 e7e5").contains(&bestmove(&second)), "{second:?}");
}

#[test]
fn a_position_without_moves_reports_no_depth_of_an_earlier_search() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go depth 8");
    engine.read_until("bestmove", Duration::from_secs(20));
    // Fool's mate: White is mated.
    engine.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    engine.send("go depth 8");
    let lines = engine.read_until("bestmove", Duration::from_secs(20));
    let info = lines.iter().find(|l| l.starts_with("info depth")).expect("an info line");
    assert_eq!(info_field(info, "seldepth"), 0, "{info}");
    assert_eq!(bestmove(&lines), "0000");
}

#[test]
fn a_go_during_an_infinite_search_gets_its_own_bestmove() {
    for first in ["go infinite", "go ponder wtime 60000 btime 60000"] {
        let mut engine = Engine::start();
        engine.send("position startpos moves e2e4");
        engine.send(first);
        engine.wait_for_depth(2);
        engine.send("position startpos moves e2e4 e7e5");
        engine.send("go depth 3");
        // The running search answers for its own position, then the new one for its own.
        let lines = engine.read_until("bestmove", Duration::from_secs(5));
        assert!(legal_after("e2e4").contains(&bestmove(&lines)), "{first}: {lines:?}");
        let lines = engine.read_until("bestmove", Duration::from_secs(20));
        assert!(legal_after("e2e4 e7e5").contains(&bestmove(&lines)), "{first}: {lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("info depth 3 ")), "{first}: {lines:?}");
    }
}

#[test]
fn a_refused_position_gets_no_move_for_another_one() {
    // After each of these, the position asked about does not stand: `go` must not answer with
    // a move for the one before (a Black move with White to move, here).
    for bad in [
        "position fen r1bqkbnr/pppppppp/2n5/8/8/2N5/PPPPPPPP/R1BQKBN1 w KQkq - 2 2 moves e1g1",
        "position startpos moves e2e4 e7e5 e1g1",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
    ] {
        let mut engine = Engine::start();
        engine.send("position startpos moves e2e4");
        engine.send("ucinewgame");
        engine.send(bad);
        engine.send("go depth 4");
        let lines = engine.read_until("bestmove", Duration::from_secs(20));
        assert_eq!(bestmove(&lines), "0000", "{bad}: {lines:?}");
        engine.send("go ponder depth 2");
        let lines = engine.read_until("bestmove", Duration::from_secs(20));
        assert_eq!(bestmove(&lines), "0000", "{bad}: {lines:?}");
    }
    // `ucinewgame` alone leaves the start position (and says so at `go`), not the last game's.
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4");
    engine.send("ucinewgame");
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", Duration::from_secs(20));
    assert!(legal_after("").contains(&bestmove(&lines)), "{lines:?}");
}

#[test]
fn sloppy_positions_are_read_as_a_gui_meant_them() {
    for (line, fen) in [
        // A castling right without its rook, or without its king.
        (
            "position fen r1bqkbnr/pppppppp/2n5/8/8/2N5/PPPPPPPP/R1BQKBN1 w KQkq - 2 2",
            "r1bqkbnr/pppppppp/2n5/8/8/2N5/PPPPPPPP/R1BQKBN1 w Qkq - 2 2",
        ),
        ("position fen 4k3/8/8/8/8/8/8/4K2R w Qk - 0 1", "4k3/8/8/8/8/8/8/4K2R w - - 0 1"),
        // An en-passant square no double push can have made.
        ("position fen 4k3/8/8/8/8/8/8/4K2R w K e3 0 1", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"),
        // Promotion and other letters in upper case.
        ("position fen 8/P7/8/8/8/8/8/k6K w - - 0 1 moves a7a8Q", "Q7/8/8/8/8/8/8/k6K b - - 0 1"),
        ("position startpos moves E2E4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        // A null move ends the list.
        (
            "position startpos moves e2e4 0000 e7e5",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ),
    ] {
        let mut engine = Engine::start();
        engine.send(line);
        let reply = engine.sync();
        let notes = reply.iter().filter(|l| l.starts_with("info string")).count();
        assert!(notes <= 1, "{line}: {reply:?}");
        assert_eq!(engine.fen(), fen, "{line}");
        engine.send("go depth 2");
        let lines = engine.read_until("bestmove", Duration::from_secs(20));
        assert_legal(&lines, fen, &[], line);
    }
}

#[test]
fn absurd_go_parameters_still_give_a_legal_move() {
    let mut engine = Engine::start();
    let legal = legal_after("e2e4 e7e5");
    for line in corpus("absurd_go.txt") {
        engine.send("position startpos moves e2e4 e7e5");
        engine.send(&line);
        // Some of these set no usable limit: the search then runs until `stop`.
        let lines = engine.stop_once_started();
        let mv = bestmove(&lines);
        assert!(legal.contains(&mv), "'{line}' gave {mv}, not a legal move: {lines:?}");
        assert_eq!(engine.sync(), vec!["readyok".to_string()], "after '{line}'");
    }
}

#[test]
fn huge_depth_runs_until_stopped() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go depth 99999");
    // Depth 10 is far beyond what the start position needs to find a move: a search that
    // treated the depth as absurd and ended would have answered by then.
    engine.wait_for_depth(10);
    engine.send("stop");
    let lines = engine.read_until("bestmove", Duration::from_secs(5));
    assert!(legal_after("").contains(&bestmove(&lines)), "{lines:?}");
}

#[test]
fn no_legal_move_answers_null_move() {
    let mut engine = Engine::start();
    for fen in
        ["rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"]
    {
        engine.send(&format!("position fen {fen}"));
        engine.send("go depth 5");
        let lines = engine.read_until("bestmove", Duration::from_secs(10));
        assert_eq!(lines.last().map(String::as_str), Some("bestmove 0000"));
    }
}

#[test]
fn stop_ends_infinite_search_quickly() {
    let mut engine = Engine::start();
    engine.send("setoption name Threads value 2");
    engine.send("position startpos");
    engine.send("go infinite");
    engine.wait_for_depth(8);
    engine.sync();
    let start = Instant::now();
    engine.send("stop");
    let lines = engine.read_until("bestmove", Duration::from_secs(5));
    assert!(start.elapsed() < Duration::from_millis(500), "stop took {:?}", start.elapsed());
    assert_legal(&lines, START, &[], "go infinite, stopped");
}

#[test]
fn infinite_search_waits_for_stop_even_when_finished() {
    let mut engine = Engine::start();
    // Mate in one: the search completes every depth almost at once.
    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    engine.send("go infinite");
    // The last iteration there is: the search has nothing left to do but wait.
    engine.wait_for_depth(MAX_PLY as i64 - 1);
    let early = engine.drain(Duration::from_millis(100));
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop: {early:?}");
    engine.send("stop");
    let lines = engine.read_until("bestmove", Duration::from_secs(5));
    assert_eq!(bestmove(&lines), "a1a8");
}

#[test]
fn go_perft_prints_the_divide() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go perft 3");
    let lines = engine.read_until("Nodes searched", Duration::from_secs(10));
    assert_eq!(lines.last().map(String::as_str), Some("Nodes searched: 8902"));
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 20 + 1);
}

#[test]
fn a_stop_behind_many_queued_lines_still_stops_the_search_at_once() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go depth 60");
    engine.wait_for_depth(1);
    // Each waits behind the search: more of them than the session's inbox once held.
    for _ in 0..100 {
        engine.send("go depth 1");
    }
    engine.send("stop");
    for _ in 0..101 {
        engine.read_until("bestmove", Duration::from_secs(10));
    }
    engine.send("isready");
    engine.read_until("readyok", Duration::from_secs(5));
}

#[test]
fn a_deep_perft_ends_at_stop_and_the_engine_goes_on() {
    let mut engine = Engine::start();
    // About eight billion leaves: minutes of counting.
    engine.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    engine.send("go perft 6");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("stop");
    engine.send("isready");
    let lines = engine.read_until("readyok", Duration::from_secs(5));
    assert!(lines.iter().any(|l| l.starts_with("info string perft stopped")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("Nodes searched")), "{lines:?}");
    engine.send("position startpos");
    engine.send("go perft 2");
    let lines = engine.read_until("Nodes searched", Duration::from_secs(10));
    assert_eq!(lines.last().map(String::as_str), Some("Nodes searched: 400"));
}

#[test]
fn chess960_castling_notation_follows_the_option() {
    let mut engine = Engine::start();
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    engine.send(&format!("position fen {fen} moves e1g1"));
    assert!(engine.fen().starts_with("4k3/8/8/8/8/8/8/5RK1 b"));
    engine.send("setoption name UCI_Chess960 value true");
    engine.send(&format!("position fen {fen} moves e1h1"));
    assert!(engine.fen().starts_with("4k3/8/8/8/8/8/8/5RK1 b"));
    engine.send(&format!("position fen {fen}"));
    engine.send("go perft 1");
    let lines = engine.read_until("Nodes searched", Duration::from_secs(10));
    assert!(lines.iter().any(|l| l.starts_with("e1h1:")), "{lines:?}");
}

#[test]
fn every_bad_input_gets_one_info_string_even_mid_search() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go infinite");
    engine.wait_for_depth(1);
    for line in ["xyzzy", "setoption name Hash value 0", "position startpos moves e2e5", "bench 3"] {
        engine.send(line);
        let reply = engine.sync();
        let strings: Vec<&String> = reply.iter().filter(|l| l.starts_with("info string")).collect();
        assert_eq!(strings.len(), 1, "'{line}' answered {reply:?}");
    }
    engine.send("stop");
    let lines = engine.read_until("bestmove", Duration::from_secs(5));
    assert_legal(&lines, START, &[], "the bad input left the position");
}

#[test]
fn extra_words_after_a_bare_command_are_noted() {
    let mut engine = Engine::start();
    engine.send("isready now");
    let reply = engine.read_until("readyok", Duration::from_secs(5));
    assert_eq!(reply, vec!["info string ignored extra text 'now' after 'isready'", "readyok"]);
    engine.send("ponderhit please");
    let reply = engine.sync();
    assert_eq!(reply.len(), 2, "{reply:?}");
    assert!(reply[0].contains("'please'") && reply[0].contains("ponderhit without a ponder search"));
}

#[test]
fn wdl_follows_the_option() {
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4");
    engine.send("go depth 4");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(!lines.iter().any(|l| l.contains(" wdl ")), "{lines:?}");
    engine.send("setoption name UCI_ShowWDL value true");
    engine.send("go depth 4");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert!(!infos.is_empty());
    for info in infos {
        let words: Vec<&str> = info.split_whitespace().collect();
        let at = words.iter().position(|&w| w == "wdl").expect("a wdl field");
        let wdl: Vec<u32> = words[at + 1..at + 4].iter().map(|w| w.parse().expect("a number")).collect();
        assert_eq!(wdl.iter().sum::<u32>(), 1000, "{info}");
        assert_eq!(words[at - 3], "score", "wdl follows the score: {info}");
    }
    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    let last = &lines[lines.len() - 2];
    assert!(last.contains("score mate 1 wdl 1000 0 0"), "{last}");
}

#[test]
fn contempt_scores_a_dead_draw_below_zero_for_the_engine() {
    let mut engine = Engine::start();
    engine.send("setoption name Threads value 2");
    engine.send("position fen 8/8/4k3/8/8/3KN3/8/8 b - - 0 1");
    for (contempt, expected) in [(25, -25), (-40, 40), (0, 0)] {
        engine.send(&format!("setoption name Contempt value {contempt}"));
        engine.send("go depth 6");
        let lines = engine.read_until("bestmove", Duration::from_secs(10));
        let last = &lines[lines.len() - 2];
        assert_eq!(info_field(last, "cp"), expected, "{last}");
    }
}

#[test]
fn go_without_position_searches_the_start_position_and_says_so() {
    let mut engine = Engine::start();
    engine.send("go depth 2");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert_eq!(lines[0], "info string no position given; searching the start position");
    assert_legal(&lines, START, &[], "no position given");
    engine.send("position startpos");
    engine.send("go depth 2");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(!lines.iter().any(|l| l.starts_with("info string")), "{lines:?}");
}

#[test]
fn out_of_range_go_values_are_clamped_with_one_note() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go depth -3 nodes 0 movetime -5 wtime 99999999999999999999");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    let strings: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string")).collect();
    assert_eq!(strings.len(), 1, "{lines:?}");
    for word in ["depth -3", "nodes 0", "movetime -5", "wtime 99999999999999999999"] {
        assert!(strings[0].contains(word), "{word} in {}", strings[0]);
    }
    assert_legal(&lines, START, &[], "clamped go");
}

#[test]
fn a_new_go_right_after_bestmove_is_never_refused() {
    let mut engine = Engine::start();
    engine.send("position startpos moves d2d4");
    for _ in 0..30 {
        engine.send("go depth 1");
        let lines = engine.read_until("bestmove", Duration::from_secs(5));
        assert!(!lines.iter().any(|l| l.starts_with("info string")), "{lines:?}");
    }
}

#[test]
fn searchmoves_restricts_the_root_and_rejects_illegal_moves() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go depth 5 searchmoves a2a3 h2h3");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(["a2a3", "h2h3"].contains(&bestmove(&lines).as_str()), "{lines:?}");
    // A move that is not legal here is left out and named; the rest are searched.
    engine.send("go depth 5 searchmoves a2a3 e7e5");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(lines[0].starts_with("info string") && lines[0].contains("'e7e5' not legal here; left out"));
    assert_eq!(bestmove(&lines), "a2a3", "{lines:?}");
}

#[test]
fn a_malformed_go_is_noted_once_and_still_answered_with_a_legal_move() {
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4");
    let before = engine.fen();
    for line in corpus("malformed_go.txt") {
        engine.send(&line);
        // Some of these leave no limit: the search then runs until `stop`.
        let lines = engine.stop_once_started();
        let notes: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string")).collect();
        assert_eq!(notes.len(), 1, "'{line}' answered {lines:?}");
        let mv = bestmove(&lines);
        if line.contains("searchmoves e2e4 e7e5") {
            assert_eq!(mv, "e7e5", "'{line}': the one legal move named");
        }
        // Legal: playing it changes the position without a complaint.
        engine.send(&format!("position startpos moves e2e4 {mv}"));
        let reply = engine.sync();
        assert_eq!(reply, vec!["readyok".to_string()], "'{line}' gave {mv}");
        assert_ne!(engine.fen(), before, "'{line}' gave {mv}");
        engine.send("position startpos moves e2e4");
        engine.sync();
    }
}

#[test]
fn multipv_lines_are_ordered() {
    let mut engine = Engine::start();
    engine.send("setoption name MultiPV value 4");
    engine.send("position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8");
    engine.send("go depth 7");
    let lines = engine.read_until("bestmove", Duration::from_secs(20));
    let last_depth: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth 7 ")).collect();
    assert_eq!(last_depth.len(), 4, "{lines:?}");
    let scores: Vec<i64> = last_depth.iter().map(|l| info_field(l, "cp")).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let order: Vec<i64> = last_depth.iter().map(|l| info_field(l, "multipv")).collect();
    assert_eq!(order, vec![1, 2, 3, 4]);
    // The best line and bestmove agree.
    let pv1 = last_depth[0].split(" pv ").nth(1).expect("a pv");
    assert_eq!(pv1.split_whitespace().next(), Some(bestmove(&lines).as_str()));
}

#[test]
fn the_last_info_reports_the_whole_search_and_agrees_with_bestmove() {
    let mut engine = Engine::start();
    engine.send("setoption name Threads value 2");
    engine.send("position startpos");
    // Move Overhead 10: the hard limit ends the search at 290 ms, inside an iteration.
    engine.send("go movetime 300");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    let infos: Vec<&String> =
        lines.iter().filter(|l| l.starts_with("info depth") && l.contains(" pv ")).collect();
    let last = infos.last().expect("info lines");
    assert!(info_field(last, "time") >= 290, "{last}");
    let most = infos.iter().map(|l| info_field(l, "nodes")).max().unwrap_or(0);
    assert_eq!(info_field(last, "nodes"), most, "{lines:?}");
    let pv = last.split(" pv ").nth(1).expect("a pv");
    assert_eq!(pv.split_whitespace().next(), Some(bestmove(&lines).as_str()));
}

fn temp_log(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("lazuli-{}-{name}.log", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn debug_log_file_records_input_and_output() {
    let path = temp_log("option");
    let mut engine = Engine::start();
    engine.send(&format!("setoption name Debug Log File value {}", path.display()));
    engine.send("position startpos");
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    engine.send("setoption name Debug Log File value <empty>");
    engine.send("xyzzy");
    engine.sync();
    let log = std::fs::read_to_string(&path).expect("the log file exists");
    assert!(log.contains("in: go depth 3"), "{log}");
    assert!(log.contains(&format!("out: {}", lines.last().expect("bestmove"))), "{log}");
    assert!(!log.contains("xyzzy"), "logging stopped when the option was cleared: {log}");
    // Nothing but protocol on stdout.
    assert!(lines.iter().all(|l| l.starts_with("info ") || l.starts_with("bestmove")), "{lines:?}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn lazuli_log_environment_variable_opens_a_log() {
    let path = temp_log("env");
    let path_text = path.display().to_string();
    let mut engine = Engine::start_with(&[("LAZULI_LOG", path_text.as_str())]);
    engine.send("uci");
    engine.read_until("uciok", Duration::from_secs(5));
    engine.send("isready");
    engine.read_until("readyok", Duration::from_secs(5));
    engine.send("quit");
    let _ = engine.child.wait();
    let log = std::fs::read_to_string(&path).expect("the log file exists");
    for expected in
        ["in: uci", "out: id name Lazuli", "out: uciok", "in: isready", "out: readyok", "in: quit"]
    {
        assert!(log.contains(expected), "'{expected}' missing from {log}");
    }
    assert!(engine.drain(Duration::from_millis(50)).is_empty());
    let _ = std::fs::remove_file(&path);
}

#[test]
fn go_right_after_stop_waits_for_the_old_search() {
    let mut engine = Engine::start();
    engine.send("setoption name Threads value 2");
    // The one line that says where the two threads run.
    let placement = engine.sync();
    assert!(placement[0].starts_with("info string 2 threads"), "{placement:?}");
    engine.send("position startpos");
    for _ in 0..10 {
        engine.send("go infinite");
        let started = engine.wait_for_depth(1);
        // No wait for the first bestmove: the second search must still start.
        engine.send("stop");
        engine.send("go depth 2");
        let mut first = started;
        first.extend(engine.read_until("bestmove", Duration::from_secs(5)));
        let second = engine.read_until("bestmove", Duration::from_secs(5));
        for lines in [&first, &second] {
            // No complaint; an analysis may say that it resumes from the table.
            let complaint = |l: &String| {
                l.starts_with("info string") && !l.starts_with("info string resuming the analysis")
            };
            assert!(!lines.iter().any(complaint), "{lines:?}");
            assert_legal(lines, START, &[], "go after stop");
        }
    }
}

#[test]
fn a_go_during_a_search_that_ends_by_itself_is_answered_after_it_in_order() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go movetime 300");
    // All of this arrives during the first search, as from a script that pipes its commands.
    engine.send("position startpos moves f2f3 e7e5 g2g4");
    engine.send("go depth 3");
    engine.send("isready");
    engine.send("position startpos moves e2e4");
    engine.send("go depth 1");
    // `isready` is answered at once, not after the search it came during.
    let first = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(first.iter().any(|l| l == "readyok"), "{first:?}");
    let second = engine.read_until("bestmove", Duration::from_secs(10));
    let third = engine.read_until("bestmove", Duration::from_secs(10));
    for lines in [&first, &second, &third] {
        assert!(!lines.iter().any(|l| l.starts_with("info string")), "{lines:?}");
    }
    assert_legal(&first, START, &[], "the first held go");
    // Each held `go` searched the position set just before it.
    assert_eq!(bestmove(&second), "d8h4", "the mate in one after 1. f3 e5 2. g4");
    let reply = bestmove(&third);
    assert!(matches!(&reply[1..2], "7" | "8"), "a move of Black's after 1. e4: {reply}");
    assert!(engine.drain(Duration::from_millis(100)).is_empty());
}

#[test]
fn ucinewgame_during_a_search_that_ends_by_itself_lets_it_finish() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go depth 11");
    engine.send("ucinewgame");
    engine.send("position startpos moves f2f3 e7e5 g2g4");
    engine.send("go depth 3");
    let first = engine.read_until("bestmove", Duration::from_secs(30));
    let last_depth = first.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
    assert_eq!(info_field(last_depth, "depth"), 11, "{first:?}");
    let second = engine.read_until("bestmove", Duration::from_secs(10));
    assert_eq!(bestmove(&second), "d8h4");
}

#[test]
fn a_ponderhit_held_behind_its_go_ponder_reaches_that_search() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go movetime 200");
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go ponder wtime 2000 btime 2000");
    engine.send("ponderhit");
    // Without its `ponderhit` the second search would ponder until `stop`.
    let first = engine.read_until("bestmove", Duration::from_secs(5));
    let second = engine.read_until("bestmove", Duration::from_secs(5));
    for lines in [&first, &second] {
        assert!(!lines.iter().any(|l| l.starts_with("info string")), "{lines:?}");
    }
    // The held search played White's move after 1. e4 e5 (the e-pawn is blocked).
    let reply = bestmove(&second);
    assert!(matches!(&reply[1..2], "1" | "2"), "a move of White's after 1. e4 e5: {reply}");
}

#[test]
fn stop_answers_at_once_every_go_held_before_it() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go movetime 60000");
    engine.send("go depth 60");
    engine.send("go depth 60");
    engine.wait_for_depth(1);
    engine.send("stop");
    for _ in 0..3 {
        let lines = engine.read_until("bestmove", Duration::from_secs(5));
        assert_legal(&lines, START, &[], "a go held before stop");
    }
    // A `go` after the `stop` is not stopped by it: it searches on past its first iterations.
    engine.send("go depth 60");
    engine.wait_for_depth(8);
    engine.send("stop");
    engine.read_until("bestmove", Duration::from_secs(5));
}

#[test]
fn threads_and_hash_change_between_searches_and_quit_is_prompt() {
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4");
    for (threads, hash) in [(1, 16), (64, 32), (3, 8)] {
        engine.send(&format!("setoption name Threads value {threads}"));
        engine.send(&format!("setoption name Hash value {hash}"));
        engine.sync();
        engine.send("go depth 6");
        let lines = engine.read_until("bestmove", Duration::from_secs(60));
        assert_legal(&lines, START, &["e2e4"], &format!("{threads} threads"));
    }
    // Quit in the middle of a 64-thread search.
    engine.send("setoption name Threads value 64");
    engine.send("go infinite");
    // The helpers start once the main thread has completed depth 1.
    engine.wait_for_depth(2);
    let start = Instant::now();
    engine.send("quit");
    loop {
        if let Some(status) = engine.child.try_wait().expect("wait for the engine") {
            assert!(status.success(), "exit status {status}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "quit took too long");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A `quit` read while a `go` waits behind a search ends that search, and the waiting `go`
/// never starts: one `bestmove`, then the process ends.
#[test]
fn a_go_waiting_behind_a_search_does_not_start_after_quit() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go depth 60");
    engine.wait_for_depth(2);
    engine.send("go depth 60");
    // The session is waiting with the second `go` when `quit` comes.
    std::thread::sleep(Duration::from_millis(200));
    engine.send("quit");
    let start = Instant::now();
    while engine.child.try_wait().expect("wait for the engine").is_none() {
        assert!(start.elapsed() < Duration::from_secs(10), "quit took too long");
        std::thread::sleep(Duration::from_millis(5));
    }
    let lines = engine.drain(Duration::from_millis(200));
    let answers = lines.iter().filter(|l| l.starts_with("bestmove")).count();
    assert_eq!(answers, 1, "{lines:?}");
}

/// Nodes of the last `info` line of a search to `depth` from `fen`.
fn nodes_to_depth(engine: &mut Engine, fen: &str, depth: u32) -> i64 {
    engine.send(&format!("position fen {fen}"));
    engine.send(&format!("go depth {depth}"));
    let lines = engine.read_until("bestmove", Duration::from_secs(60));
    let last =
        lines.iter().rev().find(|l| l.starts_with("info") && l.contains(" nodes ")).expect("an info line");
    info_field(last, "nodes")
}

#[test]
fn a_save_hash_pressed_during_a_search_is_carried_out_when_it_ends_and_at_quit() {
    let dir = std::env::temp_dir().join(format!("lazuli-hash-deferred-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for quit_at_once in [false, true] {
        let file = dir.join(format!("deferred-{quit_at_once}.lzh"));
        let _ = std::fs::remove_file(&file);
        let mut engine = Engine::start();
        engine.send("setoption name Hash value 2");
        engine.send(&format!("setoption name Hash File value {}", file.display()));
        engine.send("position startpos");
        engine.send("go depth 30");
        engine.wait_for_depth(3);
        engine.send("setoption name Save Hash");
        engine.send("stop");
        if quit_at_once {
            engine.send("quit");
            let status = engine.child.wait().expect("the engine ends");
            assert!(status.success(), "{status:?}");
        } else {
            // No other command: the search's end carries it out.
            let lines = engine.read_until("info string saved the hash", Duration::from_secs(10));
            assert!(lines.iter().any(|l| l.starts_with("bestmove")), "{lines:?}");
        }
        // The header, the table, and the search's memory with its length: the shared
        // histories, the one thread's own, and the one root searched with its moves.
        let shared = engine::search::SharedHistories::BYTES as u64;
        let own = engine::search::history::Histories::OWN_BYTES as u64;
        let before_root = 56 + 2 * (1 << 20) + 8 + (8 + shared) + (4 + own) + 4;
        let length = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        let root = length.saturating_sub(before_root);
        assert!(
            (18 + 2..=18 + 2 * 128).contains(&root) && root.is_multiple_of(2),
            "{quit_at_once}: {length} bytes"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_saved_hash_brings_an_analysis_back_in_a_new_process() {
    let dir = std::env::temp_dir().join(format!("lazuli-hash-protocol-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("analysis.lzh");
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

    let mut first = Engine::start();
    first.send("setoption name Hash value 8");
    first.send("setoption name Save Hash");
    let refused = first.sync();
    assert!(refused.iter().any(|l| l.contains("set the option Hash File")), "{refused:?}");
    let fresh = nodes_to_depth(&mut first, fen, 13);
    first.send(&format!("setoption name Hash File value {}", file.display()));
    first.send("setoption name Save Hash");
    let saved = first.sync();
    assert_eq!(saved.iter().filter(|l| l.starts_with("info string")).count(), 1, "{saved:?}");
    assert!(saved[0].contains("saved the hash (8 MB"), "{saved:?}");
    drop(first);

    let mut second = Engine::start();
    second.send(&format!("setoption name Hash File value {}", file.display()));
    second.send("setoption name Load Hash");
    let loaded = second.sync();
    assert!(loaded[0].contains("loaded the hash (8 MB)") && loaded[0].contains("was 16"), "{loaded:?}");
    // Bad files are refused with one line each and the loaded table stays.
    let foreign = dir.join("foreign.lzh");
    std::fs::write(&foreign, b"not a table at all, just some words of text").unwrap();
    let truncated = dir.join("truncated.lzh");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    for (bad, reason) in
        [(dir.join("missing.lzh"), "No such file"), (foreign, "wrong magic"), (truncated, "truncated")]
    {
        second.send(&format!("setoption name Hash File value {}", bad.display()));
        second.send("setoption name Load Hash");
        let answer = second.sync();
        let infos: Vec<&String> = answer.iter().filter(|l| l.starts_with("info string")).collect();
        assert_eq!(infos.len(), 1, "{answer:?}");
        assert!(infos[0].contains(reason), "{answer:?}");
    }
    let again = nodes_to_depth(&mut second, fen, 13);
    assert!(again * 4 < fresh * 3, "the loaded table saves work: {again} nodes against {fresh} fresh");
    drop(second);

    // The table's scores came from the embedded network: under another network it is refused.
    let network = dir.join("random.lznn");
    std::fs::write(&network, common::network_file(256, 4)).unwrap();
    let mut third = Engine::start();
    third.send(&format!("setoption name EvalFile value {}", network.display()));
    third.send(&format!("setoption name Hash File value {}", file.display()));
    third.send("setoption name Load Hash");
    let answer = third.sync();
    assert!(
        answer.iter().any(|l| l.starts_with("info string") && l.contains("another evaluation")),
        "{answer:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn never_clear_hash_keeps_the_table_across_ucinewgame() {
    let fen = "r2q1rk1/pp2bppp/2n1bn2/3p4/3P4/2NBBN2/PP3PPP/R2Q1RK1 w - - 0 11";
    let mut engine = Engine::start();
    let fresh = nodes_to_depth(&mut engine, fen, 6);
    engine.send("ucinewgame");
    let cleared = nodes_to_depth(&mut engine, fen, 6);
    assert_eq!(cleared, fresh, "ucinewgame clears everything: the search repeats itself");
    // The kept table holds results six plies deeper than the measured search needs. Deep
    // scores can make the later iterations change their mind and search more than a fresh
    // search would, so the measured search stops where the table's depth still decides.
    nodes_to_depth(&mut engine, fen, 12);
    engine.send("setoption name Never Clear Hash value true");
    engine.send("ucinewgame");
    let kept = nodes_to_depth(&mut engine, fen, 6);
    assert!(kept * 2 < fresh, "the table was kept: {kept} nodes against {fresh}");
}

fn spawn_piped() -> Child {
    Command::new(env!("CARGO_BIN_EXE_lazuli"))
        .env_remove("LAZULI_LOG")
        .env_remove("LAZULI_SIMD")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start lazuli")
}

#[test]
fn a_script_that_outpaces_the_engine_gets_every_command_answered() {
    const PAIRS: usize = 3_000;
    let mut child = spawn_piped();
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    // The writer may be held back by the pipe; it must not be refused or dropped.
    let writer = std::thread::spawn(move || {
        let mut script = String::new();
        for i in 0..PAIRS {
            script.push_str(if i % 2 == 0 {
                "position startpos\n"
            } else {
                "position startpos moves e2e4\n"
            });
            script.push_str("go nodes 1\n");
        }
        script.push_str("isready\n");
        stdin.write_all(script.as_bytes()).expect("the engine reads everything");
        stdin
    });
    let mut bestmoves = 0;
    let mut dropped = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("a line");
        if line.starts_with("bestmove") {
            bestmoves += 1;
        } else if line.starts_with("info string") {
            dropped.push(line);
        } else if line == "readyok" && bestmoves == PAIRS {
            break;
        }
        if bestmoves == PAIRS {
            break;
        }
    }
    let mut stdin = writer.join().expect("writer");
    let _ = writeln!(stdin, "quit");
    let _ = child.wait();
    assert!(dropped.is_empty(), "{:?}", &dropped[..dropped.len().min(3)]);
    assert_eq!(bestmoves, PAIRS);
}

#[test]
fn a_gui_that_closes_the_engines_output_ends_the_engine() {
    let mut child = spawn_piped();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "uci\nsetoption name Threads value 2\nposition startpos\ngo infinite").expect("input");
    stdin.flush().expect("flush");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(status.is_some_and(|s| s.success()), "still running (or failed) with nobody reading: {status:?}");
    drop(stdin);
}

/// A search's output without what depends on the clock: each `info` line less its `time` and
/// `nps` fields, and `bestmove`.
fn timeless(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            let mut words = line.split_whitespace();
            let mut kept = Vec::new();
            while let Some(word) = words.next() {
                if line.starts_with("info ") && (word == "time" || word == "nps") {
                    words.next();
                } else {
                    kept.push(word);
                }
            }
            kept.join(" ")
        })
        .collect()
}

#[test]
fn a_search_repeats_itself_after_ucinewgame() {
    // One search in each of three kinds of position: the opening, a middlegame, an endgame.
    const SEARCHES: [(&str, &str); 3] = [
        ("position startpos moves e2e4 c7c5 g1f3", "go nodes 40000"),
        ("position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8", "go nodes 60000"),
        ("position fen 8/5pk1/6p1/3R4/5P2/6K1/r7/8 b - - 0 45", "go nodes 40000"),
    ];
    let play = |engine: &mut Engine, (position, go): (&str, &str)| {
        engine.send("ucinewgame");
        engine.send(position);
        engine.send(go);
        timeless(&engine.read_until("bestmove", Duration::from_secs(30)))
    };
    let mut engine = Engine::start();
    engine.send("setoption name Threads value 1");
    let first: Vec<Vec<String>> = SEARCHES.iter().map(|&s| play(&mut engine, s)).collect();
    for (search, lines) in SEARCHES.iter().zip(&first) {
        assert!(lines.iter().filter(|l| l.starts_with("info depth")).count() >= 5, "{search:?}: {lines:?}");
    }
    // The same searches again in the same process, in another order, each after the others
    // have filled the table and the histories: `ucinewgame` must forget all of it.
    for i in [2, 0, 1] {
        assert_eq!(play(&mut engine, SEARCHES[i]), first[i], "{:?} again after ucinewgame", SEARCHES[i]);
    }
    // And in a new process.
    let mut fresh = Engine::start();
    for i in 0..SEARCHES.len() {
        assert_eq!(play(&mut fresh, SEARCHES[i]), first[i], "{:?} in a new process", SEARCHES[i]);
    }
}

#[test]
#[cfg(target_os = "linux")]
fn more_threads_than_the_address_space_holds_are_refused_and_the_engine_goes_on() {
    let script = format!("ulimit -v 1048576 && exec '{}'", env!("CARGO_BIN_EXE_lazuli"));
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .env_remove("LAZULI_LOG")
        .env_remove("LAZULI_SIMD")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start lazuli under an address-space limit");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "setoption name Threads value 1000\nisready\nposition startpos\ngo depth 5")
        .expect("input");
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines().map_while(Result::ok) {
        let done = line.starts_with("bestmove");
        lines.push(line);
        if done {
            break;
        }
    }
    let _ = writeln!(stdin, "quit");
    let status = child.wait().expect("exit");
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string")).collect();
    assert_eq!(infos.len(), 1, "{lines:?}");
    assert!(infos[0].contains("1000 threads") && infos[0].contains("kept 1"), "{lines:?}");
    let best = lines.iter().find(|l| l.starts_with("bestmove")).expect("the search still answers");
    let mv = best.split_whitespace().nth(1).expect("a move");
    assert!(legal_moves(&Position::startpos()).iter().any(|m| m.to_uci(false) == mv), "{best}");
    assert!(status.success(), "{status:?}");
}
