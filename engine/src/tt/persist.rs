//! Saving the table to a file and loading it back, for analysis that outlives the process.
//!
//! # File format (little-endian)
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic `LZTT` |
//! | 4 | 4 | u32 version, 3 (2: only the shared histories; 1: without the fingerprints and the histories) |
//! | 8 | 4 | u32 bytes per bucket, 64 |
//! | 12 | 4 | u32 entries per bucket, 6 |
//! | 16 | 8 | u64 bucket count |
//! | 24 | 1 | u8 generation, then 7 zero bytes |
//! | 32 | 8 | u64 checksum of everything after the header |
//! | 40 | 8 | u64 fingerprint of what an entry means: the Zobrist keys, the score constants, the move and entry encodings (version 2 on) |
//! | 48 | 8 | u64 the evaluation the scores come from: the network's hash (version 2 on; a file saved under the hand-crafted evaluation of version 0.2 or earlier holds `RETIRED_HAND_CRAFTED`, and is refused as such) |
//! | 56 (40 in version 1) | 64 per bucket | the six entry words (u64), the six evaluations (u16), 4 zero bytes |
//! | after the buckets | 8 | u64 length of the search's memory (version 2 on) |
//! | then | that length | version 3: `SearchMemory::to_bytes` (the shared histories, each thread's own, and each recent root's last completed iteration; its own module gives the layout); version 2: the shared histories alone (`SharedHistories::to_bytes`) or nothing |
//!
//! The checksum covers the buckets and, from version 2, the memory's length and bytes. A file
//! whose fingerprint or evaluation differs from this engine's is refused: its keys would find
//! nothing or the wrong entries, its scores would come from another evaluation. A version 2 file
//! still loads its table and shared histories; a version 1 file, which has no fingerprints, is
//! refused.
//!
//! A save goes to a temporary file beside the target that is renamed over it only once it is
//! complete, so an interrupted save never leaves a damaged file under the real name. A load
//! reads the whole file and checks it before it touches the table (the checksum, and every entry
//! for fields no search stores: a score beyond a mate, an evaluation in the mate range, a depth
//! beyond the ply limit), so a bad file leaves the table as it was.

use super::{Bucket, TranspositionTable, TtEntry, ENTRIES_PER_BUCKET};
use crate::board::Move;
use crate::search::score::{INFINITY, MATE, MATE_BOUND, MAX_PLY, PLY_DEPENDENT_BOUND, TB_WIN};
use crate::search::{SearchMemory, SharedHistories};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

const MAGIC: &[u8; 4] = b"LZTT";
const VERSION: u32 = 3;
/// More than any search memory a build writes (each thread's own histories take 27 KB): a
/// larger section is a damaged file, not something to allocate.
const MAX_MEMORY_BYTES: u64 = 256 << 20;
/// The header of version 1, which version 2 extends by the two fingerprints.
const HEADER_BYTES_V1: u64 = 40;
const HEADER_BYTES: u64 = 56;
/// Where the checksum is, in every version.
const CHECKSUM_AT: u64 = 32;
const BUCKET_BYTES: usize = 64;
/// Buckets per read or write.
const CHUNK_BUCKETS: usize = 16_384;
/// The evaluation a table entry stores for a node in check (the search's `EVAL_NONE`).
const EVAL_NONE: i32 = -INFINITY;

/// What a file's header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableFile {
    pub buckets: u64,
    pub generation: u8,
    checksum: u64,
    pub version: u32,
    /// Bytes of the search memory's section (0 in version 1).
    pub history_bytes: u64,
    /// The entry fingerprint and the evaluation (version 2).
    meaning: Option<(u64, u64)>,
}

/// The length of a header of `version`.
const fn header_len(version: u32) -> u64 {
    if version >= 2 {
        HEADER_BYTES
    } else {
        HEADER_BYTES_V1
    }
}

/// A fingerprint of everything that gives a stored entry its meaning in this build: the keys it
/// is found by, the score constants, and how moves and entries are packed.
fn entry_fingerprint() -> u64 {
    use crate::board::{zobrist, PieceType, Square};
    let mut bytes: Vec<u8> = zobrist::all_keys().iter().flat_map(|k| k.to_le_bytes()).collect();
    for constant in [MATE, INFINITY, MATE_BOUND, TB_WIN, PLY_DEPENDENT_BOUND, MAX_PLY as i32, EVAL_NONE] {
        bytes.extend_from_slice(&constant.to_le_bytes());
    }
    let (e7, e8, d8) = (Square::new(52), Square::new(60), Square::new(59));
    let moves = [
        Move::new(Square::new(12), Square::new(28), Move::DOUBLE_PUSH),
        Move::new(Square::new(4), Square::new(7), Move::CASTLE),
        Move::new(Square::new(36), Square::new(43), Move::EN_PASSANT),
        Move::promotion_move(e7, e8, PieceType::Queen, false),
        Move::promotion_move(e7, d8, PieceType::Knight, true),
    ];
    let entry =
        TtEntry { mv: moves[3], score: -1234, eval: 567, depth: 21, bound: 2, pv: true, generation: 5 };
    let (word, eval) = entry.pack(super::key_check(0x0123_4567_89ab_cdef));
    for mv in moves {
        bytes.extend_from_slice(&mv.raw().to_le_bytes());
    }
    bytes.extend_from_slice(&word.to_le_bytes());
    bytes.extend_from_slice(&eval.to_le_bytes());
    bytes.extend_from_slice(&(ENTRIES_PER_BUCKET as u32).to_le_bytes());
    crate::nnue::fnv1a(&bytes)
}

/// The evaluation fingerprint of the files that version 0.2 or earlier saved under its
/// hand-crafted evaluation (a hash of its parameters), which no network's hash is.
const RETIRED_HAND_CRAFTED: u64 = 0x663c_21b1_6985_140a;

impl TableFile {
    /// The size of the table the file holds, in megabytes.
    pub fn size_mb(&self) -> u64 {
        (self.buckets * BUCKET_BYTES as u64) >> 20
    }
}

/// A 64-bit checksum of a sequence of 8-byte words, fast enough for tables of many gigabytes.
#[derive(Clone, Copy)]
struct Checksum(u64);

impl Checksum {
    fn new() -> Checksum {
        Checksum(0x243f_6a88_85a3_08d3)
    }

    fn add(&mut self, bytes: &[u8]) {
        for word in bytes.chunks_exact(8) {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    /// `add`, with the last partial word (if any) padded with zeros.
    fn add_tail(&mut self, bytes: &[u8]) {
        let whole = bytes.len() / 8 * 8;
        self.add(&bytes[..whole]);
        if whole < bytes.len() {
            let mut last = [0u8; 8];
            last[..bytes.len() - whole].copy_from_slice(&bytes[whole..]);
            self.add(&last);
        }
    }
}

fn encode_bucket(bucket: &Bucket, out: &mut [u8]) {
    for (i, word) in bucket.words.iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
    }
    for (i, eval) in bucket.evals.iter().enumerate() {
        let at = 8 * ENTRIES_PER_BUCKET + i * 2;
        out[at..at + 2].copy_from_slice(&eval.load(Ordering::Relaxed).to_le_bytes());
    }
    out[8 * ENTRIES_PER_BUCKET + 2 * ENTRIES_PER_BUCKET..].fill(0);
}

fn decode_bucket(bytes: &[u8], bucket: &Bucket) {
    for (i, word) in bucket.words.iter().enumerate() {
        word.store(
            u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8 bytes")),
            Ordering::Relaxed,
        );
    }
    for (i, eval) in bucket.evals.iter().enumerate() {
        let at = 8 * ENTRIES_PER_BUCKET + i * 2;
        eval.store(u16::from_le_bytes([bytes[at], bytes[at + 1]]), Ordering::Relaxed);
    }
}

/// What is wrong with an entry of a saved bucket, if anything: every field must be one that a
/// search stores (the move is checked before each use, like any entry's).
fn invalid_entry(bytes: &[u8]) -> Option<String> {
    (0..ENTRIES_PER_BUCKET).find_map(|i| {
        let word = u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        if word == 0 {
            return None;
        }
        let at = 8 * ENTRIES_PER_BUCKET + i * 2;
        let entry = TtEntry::unpack(word, u16::from_le_bytes([bytes[at], bytes[at + 1]]));
        if entry.score.abs() > MATE {
            Some(format!("score {}", entry.score))
        } else if entry.eval != EVAL_NONE && entry.eval.abs() >= MATE_BOUND {
            Some(format!("evaluation {}", entry.eval))
        } else if !(-1..=MAX_PLY as i32).contains(&entry.depth) {
            Some(format!("depth {}", entry.depth))
        } else {
            None
        }
    })
}

impl TranspositionTable {
    /// Writes the table and `histories` (`SearchMemory::to_bytes`) to `writer` in the file
    /// format above (`writer` must be at its start); `evaluation` names what its scores came
    /// from (the network's hash).
    pub fn save_to(
        &self,
        writer: &mut (impl Write + Seek),
        histories: &[u8],
        evaluation: u64,
    ) -> std::io::Result<()> {
        let mut header = Vec::with_capacity(HEADER_BYTES as usize);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(&(BUCKET_BYTES as u32).to_le_bytes());
        header.extend_from_slice(&(ENTRIES_PER_BUCKET as u32).to_le_bytes());
        header.extend_from_slice(&(self.buckets.len() as u64).to_le_bytes());
        header.push(self.generation.load(Ordering::Relaxed));
        header.extend_from_slice(&[0; 7]);
        header.extend_from_slice(&[0; 8]);
        header.extend_from_slice(&entry_fingerprint().to_le_bytes());
        header.extend_from_slice(&evaluation.to_le_bytes());
        writer.write_all(&header)?;
        let mut checksum = Checksum::new();
        let mut buffer = vec![0u8; CHUNK_BUCKETS * BUCKET_BYTES];
        for chunk in self.buckets.chunks(CHUNK_BUCKETS) {
            let bytes = &mut buffer[..chunk.len() * BUCKET_BYTES];
            for (bucket, out) in chunk.iter().zip(bytes.chunks_exact_mut(BUCKET_BYTES)) {
                encode_bucket(bucket, out);
            }
            checksum.add(bytes);
            writer.write_all(bytes)?;
        }
        let length = (histories.len() as u64).to_le_bytes();
        checksum.add(&length);
        checksum.add_tail(histories);
        writer.write_all(&length)?;
        writer.write_all(histories)?;
        writer.seek(SeekFrom::Start(CHECKSUM_AT))?;
        writer.write_all(&checksum.0.to_le_bytes())?;
        writer.flush()
    }

    /// Saves the table and `histories` to `path` through a temporary file renamed over it
    /// when complete. Returns the bytes written. On any error the temporary file is removed and
    /// a file already at `path` is left as it was.
    pub fn save(&self, path: &Path, histories: &[u8], evaluation: u64) -> Result<u64, String> {
        replace_file(path, |file| self.save_to(file, histories, evaluation))?;
        Ok(HEADER_BYTES + (self.buckets.len() * BUCKET_BYTES) as u64 + 8 + histories.len() as u64)
    }

    /// The evaluation the scores of the file at `path` came from, read from its header alone
    /// (`None`: no file this build reads, or one of version 1, which does not say).
    pub fn saved_evaluation(path: &Path) -> Option<u64> {
        let file = crate::files::open_regular(path).ok()?;
        let length = file.metadata().ok()?.len();
        read_header(&mut BufReader::new(file), length).ok()?.meaning.map(|(_, evaluation)| evaluation)
    }

    /// Reads and checks the whole file at `path` (header, length, checksum) without touching
    /// any table; a file whose scores came from another evaluation than `evaluation` is refused.
    pub fn check_file(path: &Path, evaluation: u64) -> Result<TableFile, String> {
        let fail = |what: String| format!("cannot load the hash from '{}': {what}", path.display());
        let file = crate::files::open_regular(path).map_err(|e| fail(e.to_string()))?;
        let length = file.metadata().map_err(|e| fail(e.to_string()))?.len();
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let header = read_header(&mut reader, length).map_err(fail)?;
        // What the entries mean is settled before the whole file is read.
        let Some((entries, saved)) = header.meaning else {
            return Err(fail(
                "a version 1 file does not say which build's keys and scores or which evaluation its entries come from, so this one cannot check them".to_string(),
            ));
        };
        if entries != entry_fingerprint() {
            return Err(fail(
                "it was written by a build whose keys, scores or moves differ from this one's".to_string(),
            ));
        }
        if saved == RETIRED_HAND_CRAFTED {
            return Err(fail(
                "its scores come from the hand-crafted evaluation of an older version, which this one no longer has".to_string(),
            ));
        }
        if saved != evaluation {
            return Err(fail(format!(
                "its scores come from another evaluation ({saved:016x}, this engine uses {evaluation:016x}): set the EvalFile it was saved with"
            )));
        }
        let mut checksum = Checksum::new();
        let mut buffer = vec![0u8; CHUNK_BUCKETS * BUCKET_BYTES];
        let mut left = header.buckets;
        let mut first_bad = None;
        while left > 0 {
            let bytes = &mut buffer[..(left.min(CHUNK_BUCKETS as u64) as usize) * BUCKET_BYTES];
            reader.read_exact(bytes).map_err(|e| fail(e.to_string()))?;
            checksum.add(bytes);
            if first_bad.is_none() {
                let done = header.buckets - left;
                first_bad = bytes
                    .chunks_exact(BUCKET_BYTES)
                    .enumerate()
                    .find_map(|(i, bucket)| invalid_entry(bucket).map(|why| (done + i as u64, why)));
            }
            left -= (bytes.len() / BUCKET_BYTES) as u64;
        }
        let histories = read_histories(&mut reader, &header, &mut checksum).map_err(fail)?;
        if checksum.0 != header.checksum {
            return Err(fail("the checksum does not match: the file is corrupt".to_string()));
        }
        if let Some(histories) = &histories {
            parse_memory(histories, header.version).map_err(|e| fail(format!("{e}: the file is damaged")))?;
        }
        // The checksum finds accidents; a file written by something else can still hold
        // entries no search makes (a score beyond a mate would loop the aspiration windows).
        if let Some((bucket, why)) = first_bad {
            return Err(fail(format!("bucket {bucket} holds an entry no search writes ({why})")));
        }
        Ok(header)
    }

    /// Loads a file that `check_file` accepted into this table, which must have the file's
    /// bucket count, and returns the search memory it holds (none in a version 1 file or an
    /// empty section). If the file changed since it was checked, the table is cleared and the
    /// error says so.
    pub fn load(&self, path: &Path, expected: &TableFile) -> Result<Option<SearchMemory>, String> {
        let fail = |what: String| format!("cannot load the hash from '{}': {what}", path.display());
        if expected.buckets != self.buckets.len() as u64 {
            return Err(fail(format!(
                "it holds {} buckets, the table {}",
                expected.buckets,
                self.buckets.len()
            )));
        }
        let loaded = (|| -> Result<Option<SearchMemory>, String> {
            let file = crate::files::open_regular(path).map_err(|e| e.to_string())?;
            let length = file.metadata().map_err(|e| e.to_string())?.len();
            let mut reader = BufReader::with_capacity(1 << 20, file);
            if read_header(&mut reader, length)? != *expected {
                return Err("the file changed while it was loaded".to_string());
            }
            let mut checksum = Checksum::new();
            let mut buffer = vec![0u8; CHUNK_BUCKETS * BUCKET_BYTES];
            for chunk in self.buckets.chunks(CHUNK_BUCKETS) {
                let bytes = &mut buffer[..chunk.len() * BUCKET_BYTES];
                reader.read_exact(bytes).map_err(|e| e.to_string())?;
                checksum.add(bytes);
                for (bucket, data) in chunk.iter().zip(bytes.chunks_exact(BUCKET_BYTES)) {
                    decode_bucket(data, bucket);
                }
            }
            let histories = read_histories(&mut reader, expected, &mut checksum)?;
            if checksum.0 != expected.checksum {
                return Err("the file changed while it was loaded".to_string());
            }
            // One generation behind the saved one: the next search (`new_search`) is then the
            // saved search's own generation, so its entries count as this search's and are not
            // overwritten by the shallow results of the first iterations.
            let behind = (expected.generation + super::GENERATION_CYCLE - 1) % super::GENERATION_CYCLE;
            self.generation.store(behind, Ordering::Relaxed);
            histories.map(|bytes| parse_memory(&bytes, expected.version)).transpose()
        })();
        loaded.map_err(|e| {
            self.clear(1);
            fail(format!("{e}; the table was cleared"))
        })
    }

    /// A table with exactly `buckets` buckets (a loaded file's size), or `None` when the memory
    /// cannot be had.
    pub fn try_with_buckets(buckets: u64) -> Option<TranspositionTable> {
        let buckets = usize::try_from(buckets).ok()?;
        super::memory::ZeroedSlice::new(buckets).map(TranspositionTable::of_buckets)
    }
}

fn read_header(reader: &mut impl Read, length: u64) -> Result<TableFile, String> {
    let mut header = [0u8; HEADER_BYTES_V1 as usize];
    if length < HEADER_BYTES_V1 {
        return Err(format!("{length} bytes is too short for a Lazuli hash file"));
    }
    reader.read_exact(&mut header).map_err(|e| e.to_string())?;
    let u32_at = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
    if &header[0..4] != MAGIC {
        return Err("not a Lazuli hash file (wrong magic)".to_string());
    }
    let version = u32_at(4);
    if !(1..=VERSION).contains(&version) {
        return Err(format!("hash file version {version}, this build reads versions 1 to {VERSION}"));
    }
    if u32_at(8) != BUCKET_BYTES as u32 || u32_at(12) != ENTRIES_PER_BUCKET as u32 {
        return Err(format!(
            "entry layout of {} bytes per bucket and {} entries, this build uses {BUCKET_BYTES} and {ENTRIES_PER_BUCKET}",
            u32_at(8),
            u32_at(12)
        ));
    }
    let buckets = u64_at(16);
    let (generation, checksum, padding) =
        (header[24], u64_at(CHECKSUM_AT as usize), header[25..32] != [0; 7]);
    let meaning = if version >= 2 {
        if length < HEADER_BYTES {
            return Err(format!("{length} bytes is too short for a Lazuli hash file"));
        }
        let mut words = [0u8; (HEADER_BYTES - HEADER_BYTES_V1) as usize];
        reader.read_exact(&mut words).map_err(|e| e.to_string())?;
        let word = |at: usize| u64::from_le_bytes(words[at..at + 8].try_into().expect("8 bytes"));
        Some((word(0), word(8)))
    } else {
        None
    };
    let table_end = buckets.checked_mul(BUCKET_BYTES as u64).and_then(|b| b.checked_add(header_len(version)));
    // Version 2: the histories' length follows the buckets.
    let history_bytes = match (version, table_end) {
        (1, _) | (_, None) => 0,
        (_, Some(end)) => length.saturating_sub(end).saturating_sub(8),
    };
    let expected =
        table_end.and_then(|end| if version == 1 { Some(end) } else { end.checked_add(8 + history_bytes) });
    if buckets == 0
        || expected != Some(length)
        || (version > 1 && table_end.is_some_and(|end| length < end + 8))
    {
        return Err(format!(
            "the header announces {buckets} buckets ({} bytes), the file has {length} bytes: it is truncated or damaged",
            expected.map_or("too many".to_string(), |e| e.to_string())
        ));
    }
    if generation >= super::GENERATION_CYCLE || padding {
        return Err("damaged header (generation field)".to_string());
    }
    Ok(TableFile { buckets, generation, checksum, version, history_bytes, meaning })
}

/// The search memory after the buckets: its length (which must match the header's count; in
/// version 2, the shared histories' size unless empty) and bytes, added to `checksum`. `None`
/// for a version 1 file or an empty section.
fn read_histories(
    reader: &mut impl Read,
    file: &TableFile,
    checksum: &mut Checksum,
) -> Result<Option<Vec<u8>>, String> {
    if file.version < 2 {
        return Ok(None);
    }
    let mut length = [0u8; 8];
    reader.read_exact(&mut length).map_err(|e| e.to_string())?;
    checksum.add(&length);
    if u64::from_le_bytes(length) != file.history_bytes {
        return Err("the histories' length does not match the file's: it is truncated or damaged".to_string());
    }
    if file.history_bytes == 0 {
        return Ok(None);
    }
    if file.version == 2 && file.history_bytes != SharedHistories::BYTES as u64 {
        return Err(format!(
            "it holds {} bytes of histories, this build keeps {}",
            file.history_bytes,
            SharedHistories::BYTES
        ));
    }
    if file.history_bytes > MAX_MEMORY_BYTES {
        return Err(format!("it announces {} bytes of search memory: it is damaged", file.history_bytes));
    }
    let mut bytes = vec![0u8; file.history_bytes as usize];
    reader.read_exact(&mut bytes).map_err(|e| e.to_string())?;
    checksum.add_tail(&bytes);
    Ok(Some(bytes))
}

/// The search memory of a file of `version` (2: the shared histories alone).
fn parse_memory(bytes: &[u8], version: u32) -> Result<SearchMemory, String> {
    if version == 2 {
        SharedHistories::check_bytes(bytes)?;
        return Ok(SearchMemory { shared: bytes.to_vec(), ..SearchMemory::default() });
    }
    SearchMemory::from_bytes(bytes)
}

/// Writes a file at `path` through `write` into a temporary file beside it, renamed over `path`
/// only when complete and synced: on any error the temporary file is removed and a file already
/// at `path` is left as it was.
fn replace_file(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), String> {
    let name = path.file_name().ok_or_else(|| format!("'{}' is not a file name", path.display()))?;
    // Renaming over a pipe or a device would replace what the user made there.
    if let Some(what) = crate::files::not_regular(path) {
        return Err(format!(
            "cannot save the hash to '{}': it is {what}, not a regular file",
            path.display()
        ));
    }
    let mut temporary = PathBuf::from(path);
    temporary.set_file_name(format!(".{}.{}.partial", name.to_string_lossy(), std::process::id()));
    let written = (|| -> std::io::Result<()> {
        // Created afresh, never opened through a link someone left at the name: a stale
        // file or link there is removed (not followed) first.
        let _ = std::fs::remove_file(&temporary);
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temporary)?;
        let mut file = BufWriter::with_capacity(1 << 20, file);
        write(&mut file)?;
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot save the hash to '{}': {e}", path.display())
    })
}

#[cfg(test)]
mod tests;
