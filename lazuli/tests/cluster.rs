//! The cluster build under `mpirun` (`cargo test --features cluster`, with MPICH installed):
//! the leader speaks UCI for every rank, one legal `bestmove` per `go`, and `stop` and `quit`
//! reach every rank.
#![cfg(feature = "cluster")]

mod common;

use common::Engine;
use engine::board::Position;
use engine::movegen::legal_moves;
use std::process::Command;
use std::time::{Duration, Instant};

const TEN_S: Duration = Duration::from_secs(10);

/// `ranks` processes of the engine under `mpirun` on this machine (oversubscribed if need be).
fn cluster(ranks: usize) -> Engine {
    cluster_tagged(ranks, "")
}

/// `cluster`, with `tag` in every rank's environment (to find its processes).
fn cluster_tagged(ranks: usize, tag: &str) -> Engine {
    let mut command = Command::new("mpirun");
    command.args(["-np", &ranks.to_string(), env!("CARGO_BIN_EXE_lazuli")]);
    command.env_remove("LAZULI_LOG").env("LAZULI_TEST_TAG", tag);
    let mut engine = Engine::spawn(command);
    engine.send("uci");
    engine.read_until("uciok", TEN_S);
    engine
}

/// Ends the cluster with `quit` and says whether every rank was gone within `wait`.
fn quit(engine: &mut Engine, wait: Duration) -> bool {
    engine.send("quit");
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = engine.child.try_wait() {
            return status.success();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Ask mpirun to end its ranks rather than leaving them behind a killed launcher.
    let _ = Command::new("kill").args(["-TERM", &engine.child.id().to_string()]).status();
    false
}

fn is_legal(fen: &str, moves: &[String], answer: &str) -> bool {
    let mut position = Position::from_fen(fen).expect("the test's position");
    for mv in moves {
        let found = legal_moves(&position).iter().copied().find(|m| m.to_uci(false) == *mv);
        position.make_move(found.expect("the game's moves are legal"));
    }
    legal_moves(&position).iter().any(|m| m.to_uci(false) == answer)
}

fn bestmove_of(lines: &[String]) -> String {
    let last = lines.last().expect("a line");
    last.split_whitespace().nth(1).expect("a move").to_string()
}

#[test]
fn two_ranks_play_a_game_through_the_leader_one_legal_move_per_go() {
    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let mut engine = cluster(2);
    engine.send("setoption name Hash value 16");
    engine.send("ucinewgame");
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..12 {
        engine.send(&format!("position fen {START} moves {}", moves.join(" ")));
        // Both kinds of search: a clock, and a fixed time.
        if ply % 2 == 0 {
            engine.send("go wtime 3000 btime 3000 winc 50 binc 50");
        } else {
            engine.send("go movetime 80");
        }
        let lines = engine.read_until("bestmove", TEN_S);
        assert_eq!(lines.iter().filter(|l| l.starts_with("bestmove")).count(), 1);
        let answer = bestmove_of(&lines);
        assert!(is_legal(START, &moves, &answer), "{answer} after {moves:?}: {lines:?}");
        moves.push(answer);
        // Nothing follows the answer.
        let after = engine.drain(Duration::from_millis(50));
        assert!(after.is_empty(), "after bestmove: {after:?}");
    }
    assert!(quit(&mut engine, TEN_S), "every rank ends on quit");
}

#[test]
fn stop_ends_the_search_of_every_rank_and_three_ranks_share_two_cores() {
    let mut engine = cluster(3);
    engine.send("position startpos moves e2e4 c7c5");
    engine.send("go infinite");
    engine.wait_for_depth(6);
    let asked = Instant::now();
    engine.send("stop");
    let lines = engine.read_until("bestmove", TEN_S);
    let answered = asked.elapsed();
    assert!(answered < Duration::from_millis(500), "stop answered in {answered:?}");
    assert_ne!(bestmove_of(&lines), "0000");
    // The next search is a fresh one on every rank (the followers were stopped too).
    engine.send("go movetime 100");
    let lines = engine.read_until("bestmove", TEN_S);
    assert!(is_legal(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["e2e4".into(), "c7c5".into()],
        &bestmove_of(&lines)
    ));
    assert!(quit(&mut engine, TEN_S), "every rank ends on quit");
}

#[test]
fn bad_input_gets_the_single_machine_answers() {
    let mut engine = cluster(2);
    engine.send("position fen not/a/fen w - - 0 1");
    engine.send("setoption name Hash value -5");
    engine.send("frobnicate");
    let lines = engine.sync();
    let notes = lines.iter().filter(|l| l.starts_with("info string")).count();
    assert!(notes >= 3, "each bad line answered once, by the leader only: {lines:?}");
    assert!(notes <= 3, "each bad line answered once, by the leader only: {lines:?}");
    // No position after a refused one: the leader says so, and answers `0000` as one machine does.
    engine.send("go depth 6");
    let lines = engine.read_until("bestmove", TEN_S);
    assert_eq!(bestmove_of(&lines), "0000", "{lines:?}");
    engine.send("position startpos");
    engine.send("go depth 6");
    let lines = engine.read_until("bestmove", TEN_S);
    assert_ne!(bestmove_of(&lines), "0000");
    assert!(quit(&mut engine, TEN_S), "every rank ends on quit");
}

/// The first number of `line` (a bench's total: `N nodes M nps`).
fn nodes_of(line: &str) -> u64 {
    line.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line:?}"))
}

/// The default build's bench node count: `lazuli bench` of the build that `LAZULI_DEFAULT_BIN`
/// names (scripts/test-all.sh passes its release build, which has no `cluster` feature), else
/// this process's own bench, the same search with no other rank.
fn default_bench_nodes() -> u64 {
    let Some(binary) = std::env::var_os("LAZULI_DEFAULT_BIN") else {
        return engine::bench::run_bench(engine::bench::DEFAULT_BENCH_DEPTH, |_, _, _| {}).nodes;
    };
    let output = Command::new(&binary).arg("bench").output().expect("the default build runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    nodes_of(text.lines().rev().find(|l| l.ends_with(" nps")).expect("the bench's total"))
}

#[test]
fn one_rank_gives_the_default_builds_bench_node_count() {
    let expected = default_bench_nodes();
    // Alone, and as the leader of two (whose bench is its own: no rank shares it).
    for ranks in [1, 2] {
        let mut engine = cluster(ranks);
        engine.send("bench");
        engine.send("isready");
        let lines = engine.read_until("readyok", Duration::from_secs(600));
        let total = lines.iter().find(|l| l.ends_with(" nps")).expect("bench answers");
        assert_eq!(nodes_of(total), expected, "{ranks} rank(s): {lines:?}");
        assert!(quit(&mut engine, TEN_S), "every rank ends on quit");
    }
}

/// The processes whose environment holds `LAZULI_TEST_TAG=tag`, with their MPI rank if any.
fn tagged_processes(tag: &str) -> Vec<(u32, Option<String>)> {
    let wanted = format!("LAZULI_TEST_TAG={tag}");
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        let vars: Vec<String> =
            environ.split(|&b| b == 0).map(|v| String::from_utf8_lossy(v).into_owned()).collect();
        if vars.contains(&wanted) {
            found.push((pid, vars.iter().find_map(|v| v.strip_prefix("PMI_RANK=").map(str::to_string))));
        }
    }
    found
}

#[test]
fn a_killed_rank_ends_every_other_rank_instead_of_hanging() {
    let tag = format!("kill-{}", std::process::id());
    let mut engine = cluster_tagged(2, &tag);
    engine.send("go infinite");
    engine.wait_for_depth(4);
    let follower = tagged_processes(&tag).into_iter().find(|(_, rank)| rank.as_deref() == Some("1"));
    let (pid, _) = follower.expect("rank 1 runs");
    assert!(Command::new("kill").args(["-KILL", &pid.to_string()]).status().expect("kill").success());
    let deadline = Instant::now() + TEN_S;
    let status = loop {
        if let Ok(Some(status)) = engine.child.try_wait() {
            break status;
        }
        assert!(Instant::now() < deadline, "mpirun still runs 10 s after a rank was killed");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success(), "a killed rank is a failure of the run");
    std::thread::sleep(Duration::from_millis(200));
    let left: Vec<u32> =
        tagged_processes(&tag).into_iter().filter(|(_, rank)| rank.is_some()).map(|(pid, _)| pid).collect();
    assert!(left.is_empty(), "ranks left running: {left:?}");
}

/// Runs the cluster on `lines` (a pause of 300 ms after each `go`), with the input closed at the
/// end; returns its standard output and standard error.
fn run_script(ranks: usize, lines: &[&str]) -> (String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new("mpirun")
        .args(["-np", &ranks.to_string(), env!("CARGO_BIN_EXE_lazuli")])
        .env_remove("LAZULI_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let mut input = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(input, "{line}").expect("the leader reads");
        if line.starts_with("go") {
            std::thread::sleep(Duration::from_millis(300));
        }
    }
    drop(input);
    let output = child.wait_with_output().expect("mpirun ends");
    assert!(output.status.success(), "{output:?}");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_session_ended_by_quit_mid_search_or_by_the_end_of_input_prints_nothing_on_stderr() {
    // Among what would: MPI's complaint about a message still unread when a process leaves it.
    let scripts: [&[&str]; 2] = [
        &["uci", "position startpos", "go infinite", "quit"],
        &["uci", "position startpos", "go movetime 100"],
    ];
    for script in scripts {
        let (out, err) = run_script(2, script);
        assert_eq!(out.lines().filter(|l| l.starts_with("bestmove")).count(), 1, "{script:?}: {out}");
        assert!(err.trim().is_empty(), "{script:?}: stderr {err}");
    }
}
