//! Property tests of the input side: random and mutated command lines never panic the parser or
//! the session, the parser reads words and not the spaces between them, well-formed commands are
//! accepted as what they say, and after any sequence of lines the session still answers
//! `isready`.

use proptest::prelude::*;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uci::command::{parse, parse_line, Command, Parsed, MAX_LISTED};
use uci::host::Host;
use uci::input::Input;
use uci::output::Output;
use uci::session::Session;

/// Whether `thread` ends within `limit`.
fn join_within(thread: std::thread::JoinHandle<()>, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while !thread.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    thread.is_finished() && thread.join().is_ok()
}

/// An output sink the test can read back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("no poisoned lock")).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("no poisoned lock").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const WORDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "stop",
    "ponderhit",
    "d",
    "eval",
    "debug",
    "on",
    "off",
    "go",
    "position",
    "startpos",
    "fen",
    "moves",
    "setoption",
    "name",
    "value",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "e2e4",
    "e7e5",
    "g1f3",
    "0000",
    "a1a1",
    "e1g1",
    "-1",
    "0",
    "1",
    "3",
    "999999999999999999999",
    "MultiPV",
    "UCI_ShowWDL",
    "UCI_Chess960",
    "Move",
    "Overhead",
    "true",
    "false",
    "\u{0}",
    "é",
];

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "K7/8/8/8/8/8/8/7R w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
];

const MOVES: &[&str] =
    &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1", "e1h1", "a1a1", "zz", "0000"];

/// A plausible command: the grammar of the protocol with small, cheap values.
fn command() -> impl Strategy<Value = String> {
    let number = prop_oneof![Just("-5".to_string()), (0i64..40).prop_map(|n| n.to_string()), "[0-9]{1,25}"];
    let moves = prop::collection::vec(prop::sample::select(MOVES), 0..6).prop_map(|m| m.join(" "));
    let position = (prop::option::of(prop::sample::select(FENS)), moves.clone()).prop_map(|(fen, moves)| {
        let setup = fen.map_or("startpos".to_string(), |f| format!("fen {f}"));
        if moves.is_empty() {
            format!("position {setup}")
        } else {
            format!("position {setup} moves {moves}")
        }
    });
    let go_param = prop_oneof![
        (1i64..5).prop_map(|d| format!("depth {d}")),
        (1i64..3000).prop_map(|n| format!("nodes {n}")),
        (1i64..4).prop_map(|m| format!("mate {m}")),
        (-5i64..30).prop_map(|t| format!("movetime {t}")),
        (-100i64..300).prop_map(|t| format!("wtime {t} btime {t}")),
        (0i64..50).prop_map(|t| format!("winc {t} binc {t}")),
        (0i64..5).prop_map(|m| format!("movestogo {m}")),
        Just("infinite".to_string()),
        Just("ponder".to_string()),
        moves.prop_map(|m| format!("searchmoves {m}")),
        (0u32..4).prop_map(|d| format!("perft {d}")),
        number.clone().prop_map(|n| format!("depth {n}")),
    ];
    let go = prop::collection::vec(go_param, 0..4).prop_map(|p| format!("go {}", p.join(" ")));
    let option = prop_oneof![
        prop::sample::select(&[1, 2, 8, 16][..]).prop_map(|mb| format!("Hash value {mb}")),
        prop::sample::select(&[1, 2][..]).prop_map(|n| format!("Threads value {n}")),
        number.clone().prop_map(|n| format!("MultiPV value {n}")),
        number.prop_map(|n| format!("Move Overhead value {n}")),
        prop::sample::select(&["true", "false", "maybe"][..]).prop_map(|v| format!("UCI_Chess960 value {v}")),
        prop::sample::select(&["true", "false", ""][..]).prop_map(|v| format!("UCI_ShowWDL value {v}")),
        Just("Ponder value true".to_string()),
        Just("Clear Hash".to_string()),
        Just("No Such Option value 3".to_string()),
        Just("Hash value 0".to_string()),
    ]
    .prop_map(|o| format!("setoption name {o}"));
    let simple = prop::sample::select(
        &["uci", "isready", "ucinewgame", "stop", "ponderhit", "d", "eval", "debug on", "debug off"][..],
    )
    .prop_map(str::to_string);
    prop_oneof![3 => go, 3 => position, 2 => option, 2 => simple]
}

/// A random edit of a line.
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, char),
    Delete(usize),
    Word(usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<char>()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<usize>(), prop::sample::select(&[' ', '\t', '\r', '-', '9', '\u{0}'][..]))
            .prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<usize>().prop_map(Edit::Delete),
        any::<usize>().prop_map(Edit::Word),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(line: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = line.chars().collect();
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
        match *e {
            Edit::Insert(i, c) => chars.insert(at(i, chars.len()), c),
            Edit::Delete(i) if !chars.is_empty() => {
                chars.remove(i % chars.len());
            }
            Edit::Delete(_) => {}
            Edit::Word(i) => {
                let word = WORDS[i % WORDS.len()];
                let pos = at(i / WORDS.len(), chars.len());
                for (k, c) in format!(" {word} ").chars().enumerate() {
                    chars.insert(pos + k, c);
                }
            }
            Edit::Truncate(i) => chars.truncate(at(i, chars.len())),
        }
    }
    chars.into_iter().collect()
}

/// Mutated lines that could start something slow (deep perft, a long bench, a huge table, many threads,
/// a log file) are left out of the mutated set: they are valid requests, not robustness bugs.
fn cheap(line: String) -> String {
    let lower = line.to_lowercase();
    if ["perft", "bench", "hash", "thread", "log"].iter().any(|w| lower.contains(w)) {
        String::new()
    } else {
        line
    }
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => command(),
        4 => (command(), prop::collection::vec(edit(), 1..4)).prop_map(|(l, e)| cheap(apply(&l, &e))),
        1 => "\\PC{0,40}",
        1 => prop::collection::vec(prop::sample::select(WORDS), 0..8).prop_map(|w| w.join(" ")),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

/// Text the engine may echo in an `info string`: one printable line of bounded length.
fn printable(text: &str) -> bool {
    !text.chars().any(char::is_control) && text.len() < 400
}

/// The command with a `setoption` value's inner spacing made single (the value is the raw rest
/// of the line, so that a file path keeps its spaces; everything else is read word by word).
fn spacing_free(command: Command) -> Command {
    match command {
        Command::SetOption { name, value } => Command::SetOption {
            name,
            value: value.map(|v| v.split_whitespace().collect::<Vec<_>>().join(" ")),
        },
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Any line is read as a command or refused with a reason, without a panic; whatever the
    /// engine would echo from it is printable and bounded, and the spaces between words do not
    /// change what is read.
    #[test]
    fn parser_never_panics(line in line()) {
        match parse_line(&line) {
            Ok(parsed) => {
                if let Some(ignored) = &parsed.ignored {
                    // The words after a bare command, as they stand in the line.
                    prop_assert!(!ignored.is_empty() && ignored.trim() == ignored.as_str(), "{ignored:?}");
                    prop_assert!(line.contains(ignored.as_str()), "{ignored:?} not in {line:?}");
                }
                if let Command::Go(go) = &parsed.command {
                    prop_assert!(go.problems.len() <= MAX_LISTED + 1, "{:?}", go.problems);
                    for note in go.problems.iter().chain(&go.saturated) {
                        prop_assert!(printable(note), "{note:?}");
                    }
                }
            }
            Err(e) => prop_assert!(printable(&e.to_string()), "{e}"),
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let respaced = format!(" \t{}  ", words.join(" \t  "));
        prop_assert_eq!(
            parse(&respaced).map(spacing_free),
            parse(&line).map(spacing_free),
            "{:?} read otherwise as {:?}", line, respaced
        );
    }

    /// A line from the protocol's grammar is accepted as the command its first word names, and
    /// a `go` built from known parameters with numbers has no problem to report.
    #[test]
    fn well_formed_commands_are_read_as_written(line in command()) {
        let parsed = parse_line(&line);
        prop_assert!(parsed.is_ok(), "{line:?} refused: {parsed:?}");
        let Ok(parsed) = parsed else { unreachable!() };
        prop_assert_eq!(parsed.ignored, None);
        let first = line.split_whitespace().next().unwrap_or_default();
        let kind = match &parsed.command {
            Command::Go(go) => {
                prop_assert!(go.problems.is_empty(), "{line:?}: {:?}", go.problems);
                "go"
            }
            Command::Position { .. } => "position",
            Command::SetOption { .. } => "setoption",
            Command::Uci => "uci",
            Command::IsReady => "isready",
            Command::UciNewGame => "ucinewgame",
            Command::Stop => "stop",
            Command::PonderHit => "ponderhit",
            Command::Display => "d",
            Command::Eval => "eval",
            Command::Debug(_) => "debug",
            other => {
                prop_assert!(false, "{line:?} read as {other:?}");
                ""
            }
        };
        prop_assert_eq!(kind, first);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn session_survives_any_input(lines in prop::collection::vec(line(), 1..24)) {
        let sink = Captured::default();
        let out = Output::new(Box::new(sink.clone()));
        // The way the engine reads its input: a desk that answers what cannot wait, and the
        // session on its own thread taking every other line in order.
        let host = Host::new(Session::new(out.clone()), out);
        let inlet = host.inlet();
        let running = std::thread::spawn(move || host.serve());
        let send = |line: &str| {
            inlet.deliver(Input::line(line.to_string()));
        };
        // A `quit` among them ends the session: what comes after it is not read.
        let quits = |line: &String| matches!(parse_line(line), Ok(Parsed { command: Command::Quit, .. }));
        for line in lines.iter().take_while(|line| !quits(line)) {
            send(line);
        }
        // `isready` is answered at once during a search, and in order otherwise, so behind a
        // `go` that waits for a long search it waits too: a GUI then stops the search.
        send("isready");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !sink.text().contains("readyok\n") && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            send("stop");
        }
        prop_assert!(sink.text().contains("readyok\n"), "no readyok after {lines:?}");
        send("quit");
        prop_assert!(join_within(running, Duration::from_secs(20)), "no end after quit: {lines:?}");
        // Once every search has ended, all output is whole lines of printable text.
        let all = sink.text();
        prop_assert!(all.ends_with('\n'));
        prop_assert!(!all.chars().any(|c| c.is_control() && c != '\n'), "control character in {all:?}");
    }
}
