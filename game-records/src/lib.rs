//! Game files in the viriformat layout, as Lazuli's data generation writes them and its trainer
//! reads them: a sequence of games, each a 32-byte packed start position (marlinformat:
//! occupancy, a 4-bit code per piece, side to move and en-passant square, clocks, and the
//! result as 0 / 1 / 2 for a Black win / draw / White win), then 4-byte records (the move in 16
//! bits, the score of the position it was played from in centipawns from White's view, both
//! little-endian), then a record of four zero bytes.
//!
//! This crate frames the bytes into games and checks and unpacks the start position into a
//! FEN. It knows no chess beyond that: each reader replays the moves with its own board (the
//! tools with Lazuli's move generator, the trainer with viriformat's), so that a damaged file is
//! an error with its offset, never a panic.

#![forbid(unsafe_code)]

mod start;

pub use start::{unpack_start, PackedStart};

use std::io::Read;

/// Bytes of a game's packed start position.
pub const START_BYTES: usize = 32;
/// Bytes of one move record (and of the terminator).
pub const RECORD_BYTES: usize = 4;

/// One move as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// viriformat's 16-bit move: from, to, promotion piece and flags.
    pub raw_move: u16,
    /// Centipawns, White's view, of the position the move was played from.
    pub score: i16,
    /// Where the record starts in the file.
    pub offset: u64,
}

/// One game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FramedGame {
    /// Its number in the file, from 0.
    pub index: u64,
    /// Where it starts in the file.
    pub offset: u64,
    pub start: [u8; START_BYTES],
    pub records: Vec<Record>,
    /// Every byte of it, start to terminator.
    pub bytes: Vec<u8>,
}

/// Why the next game could not be framed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// The file ends inside the game numbered `game`, which starts at `offset`; `at` is where
    /// the cut part began, and `in_start` whether the packed start position itself is cut.
    Truncated { game: u64, offset: u64, at: u64, in_start: bool },
    /// The reader failed at `at`.
    Io { at: u64, message: String },
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Truncated { in_start: true, .. } => {
                write!(f, "truncated: a game's packed position is cut short")
            }
            FrameError::Truncated { offset, .. } => {
                write!(f, "truncated inside the game that starts at byte offset {offset}")
            }
            FrameError::Io { message, .. } => write!(f, "read error: {message}"),
        }
    }
}

/// A file's games in order.
pub struct Frames<R: Read> {
    reader: R,
    offset: u64,
    games: u64,
}

impl<R: Read> Frames<R> {
    pub fn new(reader: R) -> Frames<R> {
        Frames { reader, offset: 0, games: 0 }
    }

    /// Bytes of complete games read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next game, `Ok(None)` at a clean end of the file.
    pub fn next_game(&mut self) -> Result<Option<FramedGame>, FrameError> {
        let (offset, index) = (self.offset, self.games);
        let mut start = [0u8; START_BYTES];
        match self.read_full(&mut start, offset)? {
            0 => return Ok(None),
            START_BYTES => {}
            _ => return Err(FrameError::Truncated { game: index, offset, at: offset, in_start: true }),
        }
        let mut bytes = start.to_vec();
        let mut records = Vec::new();
        loop {
            let at = offset + bytes.len() as u64;
            let mut record = [0u8; RECORD_BYTES];
            if self.read_full(&mut record, at)? != RECORD_BYTES {
                return Err(FrameError::Truncated { game: index, offset, at, in_start: false });
            }
            bytes.extend_from_slice(&record);
            if record == [0; RECORD_BYTES] {
                break;
            }
            records.push(Record {
                raw_move: u16::from_le_bytes([record[0], record[1]]),
                score: i16::from_le_bytes([record[2], record[3]]),
                offset: at,
            });
        }
        self.offset += bytes.len() as u64;
        self.games += 1;
        Ok(Some(FramedGame { index, offset, start, records, bytes }))
    }

    /// Fills `buf` as far as the reader goes; the bytes read (short only at the end).
    fn read_full(&mut self, buf: &mut [u8], at: u64) -> Result<usize, FrameError> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.reader.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(FrameError::Io { at, message: e.to_string() }),
            }
        }
        Ok(filled)
    }
}

#[cfg(test)]
mod tests;
