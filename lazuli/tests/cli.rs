//! The command line of the `lazuli` binary: help and version are answered on standard output
//! with exit status 0, a wrong command is refused with status 2, and the version names the
//! build the same way `id name` does.

use std::io::Write;
use std::process::{Command, Output, Stdio};

mod common;

fn lazuli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lazuli")).args(args).stdin(Stdio::null()).output().expect("run lazuli")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn help_exits_0_for_every_command() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["help"],
        &["bench", "--help"],
        &["perft", "--help"],
        &["perft", "3", "-h"],
        &["spsa", "--help"],
        &["scaling", "--help"],
        &["datagen", "--help"],
        &["speedtest", "--help"],
        &["genfens", "--help"],
    ] {
        let out = lazuli(args);
        assert_eq!(out.status.code(), Some(0), "lazuli {args:?}: {out:?}");
        assert!(stdout(&out).contains("usage"), "lazuli {args:?} printed {:?}", stdout(&out));
    }
}

#[test]
fn a_wrong_command_line_exits_2_with_the_usage() {
    for args in [&["frobnicate"][..], &["bench", "x"], &["perft"]] {
        let out = lazuli(args);
        assert_eq!(out.status.code(), Some(2), "lazuli {args:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("usage"), "lazuli {args:?}: {out:?}");
    }
}

/// `Lazuli <workspace version>`, then ` (<commit>)` when built from git.
fn check_build_name(name: &str) {
    let version = format!("Lazuli {}", env!("CARGO_PKG_VERSION"));
    let rest =
        name.strip_prefix(&version).unwrap_or_else(|| panic!("'{name}' does not start with '{version}'"));
    if !rest.is_empty() {
        let commit = rest.strip_prefix(" (").and_then(|r| r.strip_suffix(')'));
        assert!(
            commit.is_some_and(|c| c.len() >= 7 && c.bytes().all(|b| b.is_ascii_hexdigit())),
            "'{name}': expected ' (<short commit>)' after the version"
        );
    }
}

#[test]
fn version_and_id_name_name_the_same_build() {
    for flag in ["--version", "-V"] {
        let out = lazuli(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        check_build_name(stdout(&out).trim_end());
    }
    let version = stdout(&lazuli(&["--version"])).trim_end().to_string();

    let mut child = Command::new(env!("CARGO_BIN_EXE_lazuli"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start lazuli");
    child.stdin.take().expect("stdin").write_all(b"uci\nquit\n").expect("write");
    let out = child.wait_with_output().expect("lazuli quits");
    let text = stdout(&out);
    let id = text.lines().find_map(|l| l.strip_prefix("id name ")).expect("an id name line");
    assert_eq!(id, version);
}

#[test]
fn datagen_names_its_evaluation_and_refuses_a_bad_network() {
    let dir = std::env::temp_dir().join(format!("lazuli-cli-datagen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let output = dir.join("games.vf");
    let output = output.to_str().expect("a UTF-8 path");
    let missing = dir.join("missing.lznn");
    let out =
        lazuli(&["datagen", "--output", output, "--games", "1", "--network", missing.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--network") && stderr.contains("missing.lznn"), "{stderr}");
    assert!(!std::path::Path::new(output).exists(), "nothing is written after a refusal");

    // `none` named the retired hand-crafted evaluation; now it is a file like any other name.
    let out = lazuli(&["datagen", "--output", output, "--games", "1", "--network", "none"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--network none"), "{stderr}");

    let other = dir.join("random.lznn");
    std::fs::write(&other, common::network_file(256, 3)).expect("a network file");
    let hash = engine::nnue::Network::load_file(&other).expect("a valid network").hash();
    let out = lazuli(&[
        "datagen",
        "--output",
        output,
        "--games",
        "1",
        "--nodes",
        "300",
        "--threads",
        "1",
        "--network",
        other.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(&format!("evaluation network {hash:016x}")), "{stderr}");

    // Resumed with the embedded network instead: refused, the file untouched.
    let before = std::fs::read(output).expect("the data file");
    let out = lazuli(&["datagen", "--output", output, "--games", "2", "--nodes", "300", "--threads", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("evaluation network {hash:016x}, now network")), "{stderr}");
    assert_eq!(std::fs::read(output).expect("the data file"), before);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn genfens_prints_balanced_starts_as_openbench_asks() {
    let fens = |spec: &str| -> Vec<String> {
        let out = lazuli(&[spec, "quit"]);
        assert_eq!(out.status.code(), Some(0), "{spec}: {out:?}");
        stdout(&out)
            .lines()
            .map(|l| l.strip_prefix("info string genfens ").expect("genfens line").to_string())
            .collect()
    };
    // Each start descends from its root by 8 or 9 random plies, and is balanced as genfens
    // judges it (a search of the same budget from a cleared table, within 300 cp).
    let check = |fens: &[String], root_fullmove: usize| {
        use engine::board::{Board, Color, Position};
        use engine::search::{Limits, Searcher};
        for fen in fens {
            let pos = Position::from_fen(fen).expect("a legal position");
            let ply = 2 * (usize::from(pos.fullmove_number()) - root_fullmove)
                + usize::from(pos.side_to_move() == Color::Black);
            assert!((8..=9).contains(&ply), "{fen}: {ply} plies from the root");
            let tt = engine::tt::TranspositionTable::new(16);
            let limits = Limits { soft_nodes: Some(5_000), nodes: Some(100_000), ..Limits::default() };
            let score = Searcher::new().search_alone(&Board::new(pos), &limits, &tt, None).score;
            assert!(score.abs() <= 300, "{fen}: unbalanced ({score} cp)");
        }
    };
    let first = fens("genfens 4 seed 7 book None");
    assert_eq!(first.len(), 4);
    check(&first, 1);
    assert_eq!(fens("genfens 4 seed 7 book None"), first, "the seed decides");
    assert_ne!(fens("genfens 4 seed 8 book None"), first);
    let dir = std::env::temp_dir().join(format!("lazuli-genfens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("book.epd");
    std::fs::write(&book, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n").unwrap();
    let from_book = fens(&format!("genfens 3 seed 1 book {}", book.display()));
    assert_eq!(from_book.len(), 3);
    check(&from_book, 3);
    std::fs::write(&book, "not a position\n").unwrap();
    for spec in [
        format!("genfens 3 seed 1 book {}", book.display()),
        "genfens 3 seed 1 book /no/such/book".to_string(),
    ] {
        assert_eq!(lazuli(&[&spec]).status.code(), Some(1), "{spec}");
    }
    assert_eq!(lazuli(&["genfens three seed 1 book None"]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_reader_that_stops_early_ends_the_tool_quietly() {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_lazuli"))
        .arg("genfens 1000000 seed 3 book None")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lazuli");
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    reader.read_line(&mut first).expect("one line");
    assert!(first.starts_with("info string genfens "), "{first}");
    drop(reader);
    let out = child.wait_with_output().expect("lazuli ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_is_an_error_with_a_message() {
    for args in [&["--version"][..], &["perft", "2"]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_lazuli"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(full)
            .output()
            .expect("run lazuli");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("cannot write to standard output"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
