//! What the input thread hands to the session: each line read once into a typed command
//! (`crate::command`), which the desk, the session, the cluster and the relay all consume.

use crate::command::{parse_line, ParseError, Parsed};

/// What the reader hands to the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Boxed: a parsed `go` or `position` is large, and the inbox holds many inputs.
    Line(Box<Line>),
    /// A line longer than the limit was dropped: its length and the limit, in bytes.
    TooLong(u64, usize),
    /// Not input: a search has given its answer (options set during it can now apply).
    SearchEnded,
}

/// An input line and the command it is, parsed once where it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub parsed: Result<Parsed, ParseError>,
}

impl Input {
    /// The line `text`, parsed.
    pub fn line(text: impl Into<String>) -> Input {
        let text = text.into();
        let parsed = parse_line(&text);
        Input::Line(Box::new(Line { text, parsed }))
    }
}

impl Line {
    /// The command, if the line is a well-formed one.
    pub fn command(&self) -> Option<&crate::command::Command> {
        self.parsed.as_ref().ok().map(|p| &p.command)
    }
}
