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
    pub nodes: Option<u64>,
    pub mate: Option<i64>,
    pub movetime: Option<i64>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    pub perft: Option<u32>,
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

pub fn parse(line: &str) -> Result<Command, ParseError> {
    let mut tokens = line.split_whitespace();
    let Some(first) = tokens.next() else { return Err(ParseError::Empty) };
    let rest: Vec<&str> = tokens.collect();
    match first {
        "uci" => Ok(Command::Uci),
        "isready" => Ok(Command::IsReady),
        "ucinewgame" => Ok(Command::UciNewGame),
        "stop" => Ok(Command::Stop),
        "ponderhit" => Ok(Command::PonderHit),
        "quit" => Ok(Command::Quit),
        "d" => Ok(Command::Display),
        "eval" => Ok(Command::Eval),
        "debug" => match rest.first() {
            Some(&"on") => Ok(Command::Debug(true)),
            Some(&"off") => Ok(Command::Debug(false)),
            Some(other) => Err(ParseError::BadDebug(other.to_string())),
            None => Err(ParseError::MissingValue("debug")),
        },
        "bench" => match rest.first() {
            None => Ok(Command::Bench(None)),
            Some(d) => parse_number::<i32>("bench", d).map(|d| Command::Bench(Some(d))),
        },
        "setoption" => parse_setoption(&rest),
        "position" => parse_position(&rest),
        "go" => parse_go(&rest).map(Command::Go),
        other => Err(ParseError::UnknownCommand(other.to_string())),
    }
}

fn parse_number<T: std::str::FromStr>(what: &str, value: &str) -> Result<T, ParseError> {
    value.parse().map_err(|_| ParseError::BadNumber { what: what.to_string(), value: value.to_string() })
}

/// Integers that may be absurdly large are saturated rather than rejected.
fn parse_i64(what: &str, value: &str) -> Result<i64, ParseError> {
    match value.parse::<i64>() {
        Ok(v) => Ok(v),
        Err(_) if !value.is_empty() && value.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()) => {
            Ok(if value.starts_with('-') { i64::MIN } else { i64::MAX })
        }
        Err(_) => Err(ParseError::BadNumber { what: what.to_string(), value: value.to_string() }),
    }
}

fn parse_setoption(rest: &[&str]) -> Result<Command, ParseError> {
    if rest.first() != Some(&"name") {
        return Err(ParseError::BadSetOption("expected 'name'".into()));
    }
    let value_at = rest.iter().position(|&t| t == "value");
    let name_end = value_at.unwrap_or(rest.len());
    let name = rest[1..name_end].join(" ");
    if name.is_empty() {
        return Err(ParseError::BadSetOption("missing option name".into()));
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
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

fn parse_go(rest: &[&str]) -> Result<GoParams, ParseError> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < rest.len() {
        let token = rest[i];
        i += 1;
        let mut value = |what: &'static str| -> Result<&str, ParseError> {
            let v = rest.get(i).copied().ok_or(ParseError::MissingValue(what))?;
            i += 1;
            Ok(v)
        };
        match token {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "wtime" => go.wtime = Some(parse_i64("wtime", value("wtime")?)?),
            "btime" => go.btime = Some(parse_i64("btime", value("btime")?)?),
            "winc" => go.winc = Some(parse_i64("winc", value("winc")?)?),
            "binc" => go.binc = Some(parse_i64("binc", value("binc")?)?),
            "movestogo" => go.movestogo = Some(parse_i64("movestogo", value("movestogo")?)?),
            "depth" => go.depth = Some(parse_i64("depth", value("depth")?)?),
            "mate" => go.mate = Some(parse_i64("mate", value("mate")?)?),
            "movetime" => go.movetime = Some(parse_i64("movetime", value("movetime")?)?),
            "nodes" => {
                let v = parse_i64("nodes", value("nodes")?)?;
                go.nodes = Some(v.max(0) as u64);
            }
            "perft" => go.perft = Some(parse_number("perft", value("perft")?)?),
            "searchmoves" => {
                while i < rest.len() && !GO_KEYWORDS.contains(&rest[i]) {
                    go.searchmoves.push(rest[i].to_string());
                    i += 1;
                }
            }
            other => return Err(ParseError::UnknownGoToken(other.to_string())),
        }
    }
    Ok(go)
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
    fn rejects_malformed_commands() {
        assert!(matches!(parse("go depth"), Err(ParseError::MissingValue("depth"))));
        assert!(matches!(parse("go depth x"), Err(ParseError::BadNumber { .. })));
        assert!(matches!(parse("go sideways"), Err(ParseError::UnknownGoToken(_))));
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
        assert_eq!(go.nodes, Some(i64::MAX as u64));
    }
}
