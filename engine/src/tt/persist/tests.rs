use super::super::{TranspositionTable, BOUND_EXACT, BOUND_LOWER};
use super::*;
use crate::board::{Move, Square};
use crate::search::history::Histories;
use crate::search::{Bound, RootRecord};
use std::io::Cursor;
use support::rng::Rng;

/// The evaluation the tests' files say their scores come from.
const EVALUATION: u64 = 0x0123_4567_89ab_cdef;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazuli-hashfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// A 1 MB table with a few thousand entries of every kind.
fn filled_table() -> (TranspositionTable, Vec<u64>) {
    let tt = TranspositionTable::new(1);
    tt.new_search();
    tt.new_search();
    let mut rng = Rng::new(0x1234_5678_9abc_def0);
    let mut keys = Vec::new();
    for i in 0..5_000i32 {
        let key = rng.next_u64();
        let mv = Move::new(Square::new((i % 64) as u8), Square::new(((i * 7 + 1) % 64) as u8), 0);
        let bound = if i % 2 == 0 { BOUND_EXACT } else { BOUND_LOWER };
        tt.store(key, 0, mv, i % 900 - 450, i % 300 - 150, i % 30, bound, i % 3 == 0);
        keys.push(key);
    }
    (tt, keys)
}

/// Histories with something learned in every table.
fn learned() -> SharedHistories {
    let histories = SharedHistories::new();
    let mut bytes = histories.to_bytes();
    for (i, b) in bytes.iter_mut().enumerate() {
        // Small values in both tables: the low byte of every other i16 and of every i32.
        *b = if i % 4 == 0 { (i / 4 % 200) as u8 } else { 0 };
    }
    histories.load_bytes(&bytes).expect("in range");
    histories
}

/// A search memory with something in every part: the shared histories, two threads' own, and
/// two roots.
fn memory() -> SearchMemory {
    let mut searcher = crate::search::Searcher::new();
    let mut own = searcher.own_histories();
    own[6] = 77;
    searcher.load_own_histories(&own).expect("in range");
    let pv = vec![Move::from_raw(0x0310), Move::from_raw(0x0d34)];
    let root = |key, depth| RootRecord { key, depth, score: 41, bound: Bound::Exact, pv: pv.clone() };
    SearchMemory {
        shared: learned().to_bytes(),
        threads: vec![searcher.own_histories(), own],
        roots: vec![root(0x1234_5678_9abc_def0, 24), root(7, 9)],
    }
}

fn raw(tt: &TranspositionTable) -> Vec<u8> {
    let mut out = vec![0; tt.buckets.len() * BUCKET_BYTES];
    for (bucket, bytes) in tt.buckets.iter().zip(out.chunks_exact_mut(BUCKET_BYTES)) {
        encode_bucket(bucket, bytes);
    }
    out
}

fn saved_bytes(tt: &TranspositionTable) -> Vec<u8> {
    let mut file = Cursor::new(Vec::new());
    tt.save_to(&mut file, &memory().to_bytes(), EVALUATION).expect("in memory");
    file.into_inner()
}

#[cfg(unix)]
#[test]
fn a_save_never_writes_through_a_link_at_its_temporary_name() {
    let (tt, _) = filled_table();
    let path = temp("linked.lzh");
    let victim = temp("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let temporary = path.with_file_name(format!(".linked.lzh.{}.partial", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    std::os::unix::fs::symlink(&victim, &temporary).unwrap();
    tt.save(&path, &[], EVALUATION).expect("saved");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious", "the link's target is untouched");
    assert!(TranspositionTable::check_file(&path, EVALUATION).is_ok());
    for file in [path, victim, temporary] {
        let _ = std::fs::remove_file(file);
    }
}

#[test]
fn save_and_load_round_trip_bit_for_bit() {
    let (tt, keys) = filled_table();
    let path = temp("round-trip.lzh");
    let bytes = tt.save(&path, &[], EVALUATION).expect("saved");
    assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
    let header = TranspositionTable::check_file(&path, EVALUATION).expect("a good file");
    assert_eq!(header.size_mb(), 1);
    let loaded = TranspositionTable::try_with_buckets(header.buckets).expect("memory");
    loaded.load(&path, &header).expect("loaded");
    assert!(raw(&loaded) == raw(&tt), "every bucket comes back as it was");
    loaded.new_search();
    tt.new_search();
    assert_eq!(
        loaded.generation.load(Ordering::Relaxed),
        tt.generation.load(Ordering::Relaxed) - 1,
        "the next search after a load is the saved search's generation"
    );
    let mut found = 0;
    for key in keys {
        assert_eq!(loaded.probe(key, 0, 0), tt.probe(key, 0, 0));
        found += usize::from(tt.probe(key, 0, 0).is_some());
    }
    assert!(found > 3_000, "most entries are kept: {found}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn every_bad_file_is_refused_with_its_reason_and_the_table_is_kept() {
    let (tt, _) = filled_table();
    let good = saved_bytes(&tt);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", good[..good.len() - 1].to_vec(), "truncated"),
        ("longer", [good.clone(), vec![0; 64]].concat(), "truncated or damaged"),
        (
            "corrupt",
            {
                let mut b = good.clone();
                b[HEADER_BYTES as usize + 64 * 100 + 3] ^= 0x10;
                b
            },
            "checksum",
        ),
        (
            "version",
            {
                let mut b = good.clone();
                b[4] = 4;
                b
            },
            "version 4",
        ),
        (
            "layout",
            {
                let mut b = good.clone();
                b[12] = 4;
                b
            },
            "entry layout",
        ),
        ("score beyond a mate", with_entry(&good, 32_500, 10, 12), "score 32500"),
        ("evaluation beyond a mate", with_entry(&good, 10, 31_900, 12), "evaluation 31900"),
        ("depth beyond the ply limit", with_entry(&good, 10, 10, 200), "depth 200"),
        ("foreign", b"position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4".to_vec(), "wrong magic"),
        ("tiny", b"LZTT".to_vec(), "too short"),
        ("empty", Vec::new(), "too short"),
    ];
    let (target, _) = filled_table();
    let before = raw(&target);
    for (name, bytes, reason) in cases {
        let path = temp(&format!("{name}.lzh"));
        std::fs::write(&path, bytes).unwrap();
        let error = TranspositionTable::check_file(&path, EVALUATION).expect_err(name);
        assert!(error.contains(reason), "{name}: {error}");
        assert!(error.contains(&path.display().to_string()), "{name}: the message names the file");
        let _ = std::fs::remove_file(path);
    }
    let missing = TranspositionTable::check_file(&temp("no-such-file.lzh"), EVALUATION).expect_err("missing");
    assert!(missing.contains("No such file"), "{missing}");
    assert!(raw(&target) == before, "nothing touched the table");
}

/// `good` with its first bucket's first entry replaced by one of this score, evaluation and
/// depth, and the checksum made right again: a file no accident produces.
fn with_entry(good: &[u8], score: i32, eval: i32, depth: i32) -> Vec<u8> {
    let mut bytes = good.to_vec();
    let entry = TtEntry { mv: Move::NULL, score, eval, depth, bound: BOUND_EXACT, pv: false, generation: 0 };
    let (word, eval) = entry.pack(0x1234);
    let at = HEADER_BYTES as usize;
    bytes[at..at + 8].copy_from_slice(&word.to_le_bytes());
    bytes[at + 48..at + 50].copy_from_slice(&eval.to_le_bytes());
    with_checksum(bytes)
}

/// `bytes` with the checksum of a file of its version made right.
fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    let version = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    let mut checksum = Checksum::new();
    checksum.add_tail(&bytes[header_len(version) as usize..]);
    bytes[32..40].copy_from_slice(&checksum.0.to_le_bytes());
    bytes
}

/// A disk that fills up after `room` bytes.
struct FullDisk {
    written: Cursor<Vec<u8>>,
    room: usize,
}

impl Write for FullDisk {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.written.get_ref().len() + buf.len() > self.room {
            return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left on device"));
        }
        self.written.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for FullDisk {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.written.seek(pos)
    }
}

#[test]
fn a_failed_save_reports_and_leaves_the_old_file() {
    let (tt, _) = filled_table();
    let mut disk = FullDisk { written: Cursor::new(Vec::new()), room: 100_000 };
    let error = tt.save_to(&mut disk, &[], EVALUATION).expect_err("the disk is full");
    assert_eq!(error.kind(), std::io::ErrorKind::StorageFull);

    let nowhere = temp("no-such-dir").join("table.lzh");
    let error = tt.save(&nowhere, &[], EVALUATION).expect_err("no such directory");
    assert!(error.contains("cannot save the hash"), "{error}");
    let is_dir = temp("a-directory.lzh");
    std::fs::create_dir_all(&is_dir).unwrap();
    assert!(tt.save(&is_dir, &[], EVALUATION).is_err(), "a directory is not replaced");
    let _ = std::fs::remove_dir(&is_dir);

    // An existing file is replaced only by a complete save.
    let own_dir = temp("kept");
    std::fs::create_dir_all(&own_dir).unwrap();
    let path = own_dir.join("kept.lzh");
    let other = TranspositionTable::new(1);
    other.save(&path, &[], EVALUATION).expect("saved");
    tt.save(&path, &[], EVALUATION).expect("saved over it");
    assert!(TranspositionTable::check_file(&path, EVALUATION).is_ok());
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file is left behind");

    // A save that fails half-way (the disk fills after some bytes) over that complete file.
    let before = std::fs::read(&path).unwrap();
    let error = super::replace_file(&path, |file| {
        file.write_all(&vec![0xAB; 3 << 20])?;
        Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "disk full"))
    })
    .expect_err("the write failed");
    assert!(error.contains("cannot save the hash") && error.contains("disk full"), "{error}");
    assert!(std::fs::read(&path).unwrap() == before, "the old file keeps its bytes");
    assert!(TranspositionTable::check_file(&path, EVALUATION).is_ok());
    let leftovers = std::fs::read_dir(&own_dir).unwrap().filter_map(Result::ok).count();
    assert_eq!(leftovers, 1, "only the old file: the partial one is removed");
    let _ = std::fs::remove_dir_all(own_dir);
}

#[test]
fn a_file_of_another_size_is_loaded_only_into_a_table_of_its_size() {
    let (tt, _) = filled_table();
    let path = temp("sizes.lzh");
    tt.save(&path, &[], EVALUATION).unwrap();
    let header = TranspositionTable::check_file(&path, EVALUATION).unwrap();
    let bigger = TranspositionTable::new(2);
    let error = bigger.load(&path, &header).expect_err("sizes differ");
    assert!(error.contains("buckets"), "{error}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn the_search_memory_comes_back_with_the_table_and_older_files_load_what_they_hold() {
    let (tt, _) = filled_table();
    let memory = memory();
    let path = temp("histories.lzh");
    tt.save(&path, &memory.to_bytes(), EVALUATION).expect("saved");
    let header = TranspositionTable::check_file(&path, EVALUATION).expect("a good file");
    assert_eq!((header.version, header.history_bytes), (3, memory.to_bytes().len() as u64));
    let loaded = TranspositionTable::try_with_buckets(header.buckets).unwrap();
    let back = loaded.load(&path, &header).expect("loaded").expect("the memory");
    assert_eq!(back, memory);
    let fresh = SharedHistories::new();
    fresh.load_bytes(&back.shared).unwrap();
    assert!(fresh.continuation.learned() > 1000 && fresh.correction.learned() > 1000);
    let good = std::fs::read(&path).unwrap();
    let buckets_end = good.len() - 8 - memory.to_bytes().len();

    // Version 2 wrote the shared histories alone: they load, with no threads' own or roots.
    let mut v2 =
        [&good[..buckets_end], &(SharedHistories::BYTES as u64).to_le_bytes(), &memory.shared[..]].concat();
    v2[4] = 2;
    std::fs::write(&path, with_checksum(v2)).unwrap();
    let header = TranspositionTable::check_file(&path, EVALUATION).expect("a version 2 file");
    assert_eq!((header.version, header.history_bytes), (2, SharedHistories::BYTES as u64));
    let old = TranspositionTable::try_with_buckets(header.buckets).unwrap();
    let back = old.load(&path, &header).expect("loaded").expect("the shared histories");
    assert_eq!(back, SearchMemory { shared: memory.shared.clone(), ..SearchMemory::default() });

    // Version 1 (no fingerprints, no histories): what its entries mean cannot be checked.
    let mut v1 = [&good[..HEADER_BYTES_V1 as usize], &good[HEADER_BYTES as usize..buckets_end]].concat();
    v1[4] = 1;
    std::fs::write(&path, with_checksum(v1)).unwrap();
    let refused = TranspositionTable::check_file(&path, EVALUATION).expect_err("a version 1 file");
    assert!(refused.contains("a version 1 file"), "{refused}");

    // Histories no search writes are refused, with the table kept: shared, then a thread's own.
    for (at, what) in [
        (buckets_end + 16, "continuation history value 20000"),
        (good.len() - 2 * 22 - 4 - Histories::OWN_BYTES + 10, "a thread's history value 20000"),
    ] {
        let mut bad = good.clone();
        bad[at..at + 2].copy_from_slice(&20_000i16.to_le_bytes());
        std::fs::write(&path, with_checksum(bad)).unwrap();
        let error = TranspositionTable::check_file(&path, EVALUATION).expect_err("a value out of range");
        assert!(error.contains(what), "{error}");
    }
    let _ = std::fs::remove_file(path);
}

/// A file is refused when what its entries mean differs: another build's keys, scores or move
/// encoding (the entry fingerprint), or another evaluation (the network's hash). The header is
/// outside the checksum, so each flip below leaves an otherwise valid file.
#[test]
fn a_file_of_another_build_or_evaluation_is_refused() {
    let (tt, _) = filled_table();
    let good = saved_bytes(&tt);
    assert_eq!(u64::from_le_bytes(good[40..48].try_into().unwrap()), entry_fingerprint());
    assert_eq!(u64::from_le_bytes(good[48..56].try_into().unwrap()), EVALUATION);
    let path = temp("fingerprints.lzh");
    std::fs::write(&path, &good).unwrap();
    TranspositionTable::check_file(&path, EVALUATION).expect("this build's file");
    for (at, reason) in [(40, "keys, scores or moves"), (48, "another evaluation")] {
        let mut bytes = good.clone();
        bytes[at + 2] ^= 0x01;
        std::fs::write(&path, &bytes).unwrap();
        let error = TranspositionTable::check_file(&path, EVALUATION).expect_err(reason);
        assert!(error.contains(reason), "{error}");
    }
    // A file an older version saved under its hand-crafted evaluation is named as such.
    let mut bytes = good.clone();
    bytes[48..56].copy_from_slice(&RETIRED_HAND_CRAFTED.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let error = TranspositionTable::check_file(&path, EVALUATION).expect_err("the retired evaluation");
    assert!(error.contains("hand-crafted evaluation of an older version"), "{error}");
    let _ = std::fs::remove_file(path);
}
