//! Training data: the compact in-memory position, the two file formats that fill it and the
//! split into training and validation sets.

mod entry;
mod text;
mod viri;

pub use entry::Entry;

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// Which reader a file needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Decide from the file's first bytes: text if they read as `<FEN> | …`, viriformat otherwise.
    Auto,
    /// viriformat: binary self-play games (a packed position, then moves with scores).
    Viri,
    /// `lazuli datagen` text: one `<FEN> | <score> | <result>` line per position.
    Text,
}

/// What positions to keep from viriformat games (text files arrive already filtered; only the
/// score bound applies to them).
#[derive(Clone, Copy, Debug)]
pub struct Filter {
    /// Positions fewer plies than this into the game are dropped (counted from the game's start,
    /// by the record's move number: a random opening before the record counts).
    pub min_ply: u32,
    /// Positions whose |score| (centipawns) is at least this are dropped: mate scores.
    pub max_score: i32,
}

impl Default for Filter {
    fn default() -> Self {
        Filter { min_ply: 16, max_score: 10_000 }
    }
}

/// A file that could not be read, and where.
#[derive(Debug)]
pub struct DataError {
    pub file: PathBuf,
    /// Where in the file: "line N" or "byte offset N".
    pub at: String,
    pub message: String,
}

impl DataError {
    pub(crate) fn new(file: &Path, at: impl Into<String>, message: impl Into<String>) -> Self {
        DataError { file: file.to_path_buf(), at: at.into(), message: message.into() }
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}: {}: {}", self.file.display(), self.at, self.message)
        }
    }
}

impl std::error::Error for DataError {}

/// Positions split into the training and the validation set.
#[derive(Default)]
pub struct Dataset {
    pub train: Vec<Entry>,
    pub valid: Vec<Entry>,
    /// Games (viriformat) or text blocks read, over all files, duplicates included.
    pub units: u64,
    /// Positions dropped by the filter.
    pub filtered: u64,
    /// viriformat games passed over because the same game, byte for byte, was read before (in
    /// this file or an earlier one).
    pub duplicates: u64,
    /// Files read whole.
    pub files: usize,
    /// Files that failed their check and were left out whole, with the reason.
    pub skipped: Vec<DataError>,
    /// The hashes of the viriformat games kept.
    seen: HashSet<u64>,
}

/// About one game or text block in `VALIDATION_EVERY` goes to the validation set.
pub const VALIDATION_EVERY: u64 = 50;

/// Whether game (or text block) `unit` is held out: a fixed hash of a viriformat game's bytes
/// (so that a game lands on the same side whatever file holds it and in whatever order the
/// files come) or of a text block's number. Not the training seed, so that the split stays the
/// same across runs and resumes.
pub fn held_out(unit: u64) -> bool {
    support::rng::mix(unit ^ 0x7a6c_5f76_616c_6964).is_multiple_of(VALIDATION_EVERY)
}

/// The data files that `paths` name: a file stands for itself; a directory for its files whose
/// names end in `.vf` (viriformat) or `.txt` (text), in the order of their names. The second
/// value counts the other files passed over in the directories (datagen's `.done` and
/// `.settings`, READMEs, checksums).
pub fn expand(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, usize), DataError> {
    let (mut files, mut other) = (Vec::new(), 0);
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let listing = std::fs::read_dir(path).map_err(|e| DataError::new(path, "", e.to_string()))?;
        let mut found = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|e| DataError::new(path, "", e.to_string()))?;
            let file = entry.path();
            let data = matches!(file.extension().and_then(|e| e.to_str()), Some("vf" | "txt"));
            if data && file.is_file() {
                found.push(file);
            } else {
                other += 1;
            }
        }
        if found.is_empty() {
            return Err(DataError::new(path, "", "a directory without .vf or .txt files"));
        }
        found.sort();
        files.extend(found);
    }
    Ok((files, other))
}

/// Reads every file in order. A file that fails its check (damaged, truncated, not data) is
/// left out whole and listed in `skipped`; it is an error only when no file could be read.
pub fn load(files: &[PathBuf], format: Format, filter: Filter) -> Result<Dataset, DataError> {
    let mut data = Dataset::default();
    for file in files {
        let mut part = Dataset { units: data.units, ..Dataset::default() };
        let read = match format {
            Format::Auto => sniff(file),
            other => Ok(other),
        }
        .and_then(|format| match format {
            Format::Text => text::load(file, filter, &mut part),
            _ => viri::load(file, filter, &data.seen, &mut part),
        });
        match read {
            Ok(()) => data.absorb(part),
            Err(e) => data.skipped.push(e),
        }
    }
    if data.files == 0 && !data.skipped.is_empty() {
        return Err(data.skipped.swap_remove(0));
    }
    Ok(data)
}

impl Dataset {
    /// Adds a file read whole (its `units` count on from this set's).
    fn absorb(&mut self, part: Dataset) {
        self.train.extend(part.train);
        self.valid.extend(part.valid);
        self.units = part.units;
        self.filtered += part.filtered;
        self.duplicates += part.duplicates;
        self.seen.extend(part.seen);
        self.files += 1;
    }

    /// Whether a viriformat game with this hash was kept already.
    pub(crate) fn has_seen(&self, hash: u64) -> bool {
        self.seen.contains(&hash)
    }

    pub(crate) fn keep_game(&mut self, hash: u64) {
        self.seen.insert(hash);
    }
}

/// Text files begin with a FEN's first rank and a `|` on the first line; a viriformat file
/// begins with a bitboard, whose bytes are rarely printable.
fn sniff(file: &Path) -> Result<Format, DataError> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let mut f = std::fs::File::open(file).map_err(|e| DataError::new(file, "", e.to_string()))?;
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => return Err(DataError::new(file, "", e.to_string())),
        }
    }
    let line = head[..n].split(|&b| b == b'\n').next().unwrap_or(&[]);
    let printable = line.iter().all(|&b| b.is_ascii_graphic() || b == b' ' || b == b'\r');
    if printable && line.contains(&b'|') && line.contains(&b'/') {
        Ok(Format::Text)
    } else {
        Ok(Format::Viri)
    }
}
