//! What the input thread hands to the session.

/// What the reader hands to the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Line(String),
    /// A line longer than the limit was dropped: its length and the limit, in bytes.
    TooLong(u64, usize),
    /// Not input: a search has given its answer (options set during it can now apply).
    SearchEnded,
}
