//! Parsing of UCI input lines into typed commands. Parsing never panics and never guesses: a
//! malformed command is an error naming the problem, and the caller keeps its state.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    UciNewGame,
    /// `fen: None` is the start position.
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
    /// Extensions: `d`, `eval`, `bench [depth]`, `go perft N` (in `GoParams`).
    Display,
    Eval,
    Bench(Option<i32>),
}

/// `go` parameters. Times are in milliseconds; negative clock times (some GUIs send them when
/// a clock has run out) are kept and treated as no time left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<i64>,
    pub depth: Option<i64>,
    pub nodes: Option<i64>,
    pub mate: Option<i64>,
    pub movetime: Option<i64>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    pub perft: Option<u32>,
    /// Parameters whose value did not fit in 64 bits and was saturated, as `name value`.
    pub saturated: Vec<String>,
    /// What was wrong with the command and how it was read instead, for an `info string`.
    pub problems: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    Empty,
    UnknownCommand(String),
    MissingValue(&'static str),
    BadNumber { what: String, value: String },
    BadDebug(String),
    BadPosition(String),
    BadSetOption(String),
    UnknownGoToken(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => write!(f, "empty command"),
            ParseError::UnknownCommand(c) => write!(f, "unknown command '{}'", shorten(c)),
            ParseError::MissingValue(what) => write!(f, "'{what}' needs a value"),
            ParseError::BadNumber { what, value } => {
                write!(f, "'{}' needs a number, found '{}'", shorten(what), shorten(value))
            }
            ParseError::BadDebug(v) => write!(f, "debug takes 'on' or 'off', found '{}'", shorten(v)),
            ParseError::BadPosition(why) => write!(f, "bad position command: {why}"),
            ParseError::BadSetOption(why) => write!(f, "bad setoption command: {why}"),
            ParseError::UnknownGoToken(t) => write!(f, "unknown go parameter '{}'", shorten(t)),
        }
    }
}

/// Echo user input safely: printable, and not too long.
pub fn shorten(text: &str) -> String {
    let clean: String = text.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
    if clean.chars().count() > 60 {
        format!("{}...", clean.chars().take(60).collect::<String>())
    } else {
        clean
    }
}

/// A parsed command and the text it ignored (words after a command that takes none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub command: Command,
    pub ignored: Option<String>,
}

/// Parse one line into a command, dropping any note about ignored text.
pub fn parse(line: &str) -> Result<Command, ParseError> {
    parse_line(line).map(|p| p.command)
}

/// Parse one line. Extra words after a command that takes no arguments (`isready now`) do not
/// make it an error: the command runs and `ignored` holds the extra text for a warning.
pub fn parse_line(line: &str) -> Result<Parsed, ParseError> {
    let tokens = tokenize(line);
    let Some(&(_, first)) = tokens.first() else { return Err(ParseError::Empty) };
    let rest: Vec<&str> = tokens[1..].iter().map(|&(_, t)| t).collect();
    // Text from the `n`-th argument to the end of the line.
    let tail = |n: usize| tokens.get(n + 1).map(|&(at, _)| line[at..].trim_end().to_string());
    let bare = |command: Command| Ok(Parsed { command, ignored: tail(0) });
    match first {
        "uci" => bare(Command::Uci),
        "isready" => bare(Command::IsReady),
        "ucinewgame" => bare(Command::UciNewGame),
        "stop" => bare(Command::Stop),
        "ponderhit" => bare(Command::PonderHit),
        "quit" => bare(Command::Quit),
        "d" => bare(Command::Display),
        "eval" => bare(Command::Eval),
        "debug" => match rest.first() {
            Some(&"on") => Ok(Parsed { command: Command::Debug(true), ignored: tail(1) }),
            Some(&"off") => Ok(Parsed { command: Command::Debug(false), ignored: tail(1) }),
            Some(other) => Err(ParseError::BadDebug(other.to_string())),
            None => Err(ParseError::MissingValue("debug")),
        },
        "bench" => match rest.first() {
            None => bare(Command::Bench(None)),
            Some(d) => {
                let depth = parse_number::<i32>("bench", d)?;
                Ok(Parsed { command: Command::Bench(Some(depth)), ignored: tail(1) })
            }
        },
        "setoption" => parse_setoption(line, &tokens[1..]).map(|command| Parsed { command, ignored: None }),
        "position" => parse_position(&rest).map(|command| Parsed { command, ignored: None }),
        "go" => parse_go(&rest).map(|go| Parsed { command: Command::Go(go), ignored: None }),
        other => Err(ParseError::UnknownCommand(other.to_string())),
    }
}

/// Whitespace-separated tokens with their byte offsets in the line (each token is a slice of
/// `line`, so its offset is how far its start lies from the line's).
fn tokenize(line: &str) -> Vec<(usize, &str)> {
    line.split_whitespace().map(|token| (token.as_ptr() as usize - line.as_ptr() as usize, token)).collect()
}

fn parse_number<T: std::str::FromStr>(what: &str, value: &str) -> Result<T, ParseError> {
    value.parse().map_err(|_| ParseError::BadNumber { what: what.to_string(), value: value.to_string() })
}

/// Integers that may be absurdly large are saturated rather than rejected; `saturated` records it.
fn parse_i64(what: &str, value: &str, saturated: &mut Vec<String>) -> Result<i64, ParseError> {
    match value.parse::<i64>() {
        Ok(v) => Ok(v),
        Err(_) if is_integer(value) => {
            saturated.push(format!("{what} {}", shorten(value)));
            Ok(if value.starts_with('-') { i64::MIN } else { i64::MAX })
        }
        Err(_) => Err(ParseError::BadNumber { what: what.to_string(), value: value.to_string() }),
    }
}

/// An optional sign and at least one digit.
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `setoption name <name words> [value <text>]`. The name's words are joined by single spaces;
/// the value is the raw rest of the line (a file path keeps its inner spaces).
fn parse_setoption(line: &str, rest: &[(usize, &str)]) -> Result<Command, ParseError> {
    if rest.first().map(|&(_, t)| t) != Some("name") {
        return Err(ParseError::BadSetOption("expected 'name'".into()));
    }
    let value_at = rest.iter().position(|&(_, t)| t == "value");
    let name_end = value_at.unwrap_or(rest.len());
    let name = rest[1..name_end].iter().map(|&(_, t)| t).collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err(ParseError::BadSetOption("missing option name".into()));
    }
    let value = value_at.map(|i| match rest.get(i + 1) {
        Some(&(at, _)) => line[at..].trim_end().to_string(),
        None => String::new(),
    });
    Ok(Command::SetOption { name, value })
}

fn parse_position(rest: &[&str]) -> Result<Command, ParseError> {
    let moves_at = rest.iter().position(|&t| t == "moves");
    let setup = &rest[..moves_at.unwrap_or(rest.len())];
    let moves = moves_at.map(|i| rest[i + 1..].iter().map(|s| s.to_string()).collect()).unwrap_or_default();
    let fen = match setup.first() {
        Some(&"startpos") if setup.len() == 1 => None,
        Some(&"startpos") => return Err(ParseError::BadPosition("unexpected text after 'startpos'".into())),
        Some(&"fen") if setup.len() > 1 => Some(setup[1..].join(" ")),
        Some(&"fen") => return Err(ParseError::BadPosition("'fen' needs a FEN".into())),
        Some(other) => {
            return Err(ParseError::BadPosition(format!(
                "expected 'startpos' or 'fen', found '{}'",
                shorten(other)
            )))
        }
        None => return Err(ParseError::BadPosition("expected 'startpos' or 'fen'".into())),
    };
    Ok(Command::Position { fen, moves })
}

const GO_KEYWORDS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

/// `go` always becomes a search, so that a GUI waiting for `bestmove` gets one: an unknown word
/// is skipped, and a missing or malformed number reads as 0 (a clock with no time left, the
/// smallest depth, node count or move time), each noted in `problems`. Only `perft`, which
/// answers with counts rather than a move, is still refused when its depth is bad.
fn parse_go(rest: &[&str]) -> Result<GoParams, ParseError> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < rest.len() {
        let token = rest[i];
        i += 1;
        let slot = match token {
            "infinite" => {
                go.infinite = true;
                continue;
            }
            "ponder" => {
                go.ponder = true;
                continue;
            }
            "perft" => {
                let value = rest.get(i).ok_or(ParseError::MissingValue("perft"))?;
                go.perft = Some(parse_number("perft", value)?);
                i += 1;
                continue;
            }
            "searchmoves" => {
                while i < rest.len() && !GO_KEYWORDS.contains(&rest[i]) {
                    go.searchmoves.push(rest[i].to_string());
                    i += 1;
                }
                continue;
            }
            "wtime" => &mut go.wtime,
            "btime" => &mut go.btime,
            "winc" => &mut go.winc,
            "binc" => &mut go.binc,
            "movestogo" => &mut go.movestogo,
            "depth" => &mut go.depth,
            "nodes" => &mut go.nodes,
            "mate" => &mut go.mate,
            "movetime" => &mut go.movetime,
            other => {
                go.problems.push(format!("{}; ignored", ParseError::UnknownGoToken(other.to_string())));
                continue;
            }
        };
        let what = GO_KEYWORDS.iter().find(|&&k| k == token).copied().unwrap_or("go");
        let value = match rest.get(i) {
            Some(v) if !GO_KEYWORDS.contains(v) => {
                i += 1;
                match parse_i64(what, v, &mut go.saturated) {
                    Ok(n) => n,
                    Err(e) => {
                        go.problems.push(format!("{e}; read as 0"));
                        0
                    }
                }
            }
            _ => {
                go.problems.push(format!("{}; read as 0", ParseError::MissingValue(what)));
                0
            }
        };
        *slot = Some(value);
    }
    cap_list(&mut go.problems);
    Ok(go)
}

/// Items a note lists by name; beyond this they are only counted.
pub const MAX_LISTED: usize = 8;

/// Keeps the first `MAX_LISTED` items of a list meant for an `info string` and counts the rest
/// in a last item, so that a long line of input cannot make a longer line of output.
pub fn cap_list(items: &mut Vec<String>) {
    if items.len() > MAX_LISTED {
        let more = items.len() - MAX_LISTED;
        items.truncate(MAX_LISTED);
        items.push(format!("and {more} more"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_common_commands() {
        assert_eq!(parse("uci"), Ok(Command::Uci));
        assert_eq!(parse("  isready  "), Ok(Command::IsReady));
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Ok(Command::SetOption { name: "Move Overhead".into(), value: Some("30".into()) })
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Command::SetOption { name: "Clear Hash".into(), value: None })
        );
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            Ok(Command::Position { fen: None, moves: vec!["e2e4".into(), "e7e5".into()] })
        );
        assert_eq!(
            parse("position fen 8/8/8/8/8/8/8/K6k w - - 0 1"),
            Ok(Command::Position { fen: Some("8/8/8/8/8/8/8/K6k w - - 0 1".into()), moves: vec![] })
        );
        let Ok(Command::Go(go)) =
            parse("go wtime 1000 btime -5 winc 10 binc 10 movestogo 3 searchmoves e2e4 d2d4 depth 5")
        else {
            panic!("go parses")
        };
        assert_eq!((go.wtime, go.btime, go.depth), (Some(1000), Some(-5), Some(5)));
        assert_eq!(go.searchmoves, vec!["e2e4".to_string(), "d2d4".to_string()]);
    }

    #[test]
    fn every_go_parameter_keeps_its_own_value() {
        // Distinct values, so a parameter read into another's field cannot pass.
        let Ok(Command::Go(go)) = parse(
            "go wtime 11 btime 12 winc 13 binc 14 movestogo 15 depth 16 nodes 17 mate 18 movetime 19 ponder",
        ) else {
            panic!("go parses")
        };
        let expected = GoParams {
            wtime: Some(11),
            btime: Some(12),
            winc: Some(13),
            binc: Some(14),
            movestogo: Some(15),
            depth: Some(16),
            nodes: Some(17),
            mate: Some(18),
            movetime: Some(19),
            ponder: true,
            ..GoParams::default()
        };
        assert_eq!(go, expected);
        let Ok(Command::Go(go)) = parse("go infinite searchmoves a2a3") else { panic!("go parses") };
        assert!(go.infinite && !go.ponder && go.searchmoves == ["a2a3"] && go.movetime.is_none());
        let Ok(Command::Go(go)) = parse("go perft 4") else { panic!("go perft parses") };
        assert_eq!((go.perft, go.depth), (Some(4), None));
    }

    #[test]
    fn rejects_malformed_commands() {
        assert!(matches!(parse("go perft"), Err(ParseError::MissingValue("perft"))));
        assert!(matches!(parse("go perft x"), Err(ParseError::BadNumber { .. })));
        assert!(matches!(parse("position"), Err(ParseError::BadPosition(_))));
        assert!(matches!(parse("position fen"), Err(ParseError::BadPosition(_))));
        assert!(matches!(parse("setoption value 3"), Err(ParseError::BadSetOption(_))));
        assert!(matches!(parse("debug maybe"), Err(ParseError::BadDebug(_))));
        assert!(matches!(parse("xyzzy"), Err(ParseError::UnknownCommand(_))));
        assert_eq!(parse(""), Err(ParseError::Empty));
        // Huge numbers saturate instead of failing.
        let Ok(Command::Go(go)) = parse("go wtime 99999999999999999999999 nodes 123456789012345678901")
        else {
            panic!("go parses")
        };
        assert_eq!(go.wtime, Some(i64::MAX));
        assert_eq!(go.nodes, Some(i64::MAX));
        assert_eq!(go.saturated.len(), 2);
        assert!(matches!(parse("bench 3x"), Err(ParseError::BadNumber { .. })));
    }

    #[test]
    fn a_malformed_go_is_read_as_a_search_with_its_problems_noted() {
        let go_of = |line: &str| match parse(line) {
            Ok(Command::Go(go)) => go,
            other => panic!("'{line}' gave {other:?}"),
        };
        let go = go_of("go wtime abc btime 1000");
        assert_eq!((go.wtime, go.btime), (Some(0), Some(1000)));
        assert_eq!(go.problems, vec!["'wtime' needs a number, found 'abc'; read as 0".to_string()]);
        // A keyword is never taken as the value of the one before it.
        let go = go_of("go wtime btime 1000 depth");
        assert_eq!((go.wtime, go.btime, go.depth), (Some(0), Some(1000), Some(0)));
        assert_eq!(go.problems.len(), 2);
        let go = go_of("go sideways 3 depth 5");
        assert_eq!(go.depth, Some(5));
        assert_eq!(go.problems.len(), 2);
        assert!(go.problems[0].contains("'sideways'"), "{:?}", go.problems);
        assert_eq!(go_of("go depth +").depth, Some(0));
        assert!(go_of("go depth 3 nodes 100 infinite").problems.is_empty());
        let go = go_of(&format!("go {}", "x ".repeat(1000)));
        assert_eq!(go.problems.len(), MAX_LISTED + 1);
        assert_eq!(go.problems.last().map(String::as_str), Some("and 992 more"));
    }

    #[test]
    fn extra_words_are_reported_not_fatal() {
        let parsed = parse_line("isready  now please\r\n").expect("parses");
        assert_eq!(parsed.command, Command::IsReady);
        assert_eq!(parsed.ignored.as_deref(), Some("now please"));
        assert_eq!(parse_line("debug on x").map(|p| p.ignored), Ok(Some("x".to_string())));
        assert_eq!(parse_line("bench 3 4").map(|p| p.ignored), Ok(Some("4".to_string())));
        assert_eq!(parse_line("stop").map(|p| p.ignored), Ok(None));
        assert_eq!(parse_line("\tquit\t").map(|p| p.ignored), Ok(None));
    }

    #[test]
    fn setoption_values_keep_their_inner_spaces() {
        assert_eq!(
            parse("setoption  name  Debug   Log File value /tmp/my  log.txt \r"),
            Ok(Command::SetOption { name: "Debug Log File".into(), value: Some("/tmp/my  log.txt".into()) })
        );
        assert_eq!(
            parse("setoption name Debug Log File value"),
            Ok(Command::SetOption { name: "Debug Log File".into(), value: Some(String::new()) })
        );
    }
}
