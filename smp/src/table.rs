//! The engine's table as its user sizes, saves and loads it: a new size, a table file written
//! with the search's histories and the roots it searched, and one read back. Each says what it
//! did, or why it changed nothing, in values its front end puts into words.

use crate::facade::Engine;
use engine::search::{evaluation_fingerprint, SearchMemory};
use engine::tt::{TableFile, TranspositionTable};
use std::path::Path;
use std::sync::Arc;

/// Why a table operation changed nothing (the table is kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableRefusal {
    /// A table of `mb` MB is more than the machine has free: `room_mb` with the current one.
    NoRoom { mb: u64, room_mb: usize },
    /// The system refused `mb` MB.
    NoMemory { mb: u64 },
    /// A table file of `mb` MB is more than `Hash` allows (`max_mb`).
    AboveMax { mb: u64, max_mb: usize },
    /// The file could not be written, read or checked, in the table file's own words.
    File(String),
}

/// A table file written: the table's size, the roots it remembers, the file's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Saved {
    pub mb: usize,
    pub roots: usize,
    pub bytes: u64,
}

/// A table file read back: the table's size now and before, and what came with the entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loaded {
    pub mb: usize,
    pub was_mb: usize,
    pub memory: LoadedMemory,
}

/// What a table file brought besides the entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadedMemory {
    /// The histories and the roots searched (a file of the current version).
    Histories { roots: usize },
    /// The shared histories alone (a version 2 file).
    SharedHistories,
    /// Nothing besides the entries.
    Nothing,
    /// Histories the file held that did not fit this build (left as they were).
    Refused,
}

impl Engine {
    /// Resizes the table (after a running search). Same size: no-op, contents kept. A size the
    /// machine cannot back is refused, and the old table kept.
    pub fn set_hash(&mut self, mb: usize) -> Result<(), TableRefusal> {
        if mb == self.tt.size_mb() {
            return Ok(());
        }
        self.pool.wait();
        let old_mb = self.tt.size_mb();
        if let Some(room_mb) = self.room_for_table_mb().filter(|&room| mb > room) {
            return Err(TableRefusal::NoRoom { mb: mb as u64, room_mb });
        }
        // Free the old table first when possible, so resizing needs no room for both.
        self.pages = None;
        self.roots.lock().clear();
        self.tt = Arc::new(TranspositionTable::new(1));
        let result = match TranspositionTable::try_new(mb) {
            Some(table) => {
                self.tt = Arc::new(table);
                Ok(())
            }
            None => {
                let old = TranspositionTable::try_new(old_mb).unwrap_or_else(|| TranspositionTable::new(1));
                self.tt = Arc::new(old);
                Err(TableRefusal::NoMemory { mb: mb as u64 })
            }
        };
        self.touch_pages();
        result
    }

    /// The largest table the machine could back now, in MB: what the system (or, in a container,
    /// its memory cgroup) has free, and the current table's memory, which a new one replaces.
    fn room_for_table_mb(&self) -> Option<usize> {
        crate::memory::available_mb().map(|free| free + self.tt.size_mb())
    }

    /// Saves the table, with the search's histories and the roots it searched, to `path`
    /// (after a running search).
    pub fn save_hash(&mut self, path: &Path) -> Result<Saved, TableRefusal> {
        self.pool.wait();
        let memory = SearchMemory {
            shared: self.learned.to_bytes(),
            threads: self.own_histories(),
            roots: self.roots.lock().clone(),
        };
        let bytes = self
            .tt
            .save(path, &memory.to_bytes(), evaluation_fingerprint(self.network().hash()))
            .map_err(TableRefusal::File)?;
        Ok(Saved { mb: self.tt.size_mb(), roots: memory.roots.len(), bytes })
    }

    /// Loads a table saved by `save_hash`, taking the file's size (the new table is allocated
    /// before the old one is freed, so a failure keeps the old one). A bad file, or one larger
    /// than `max_mb` (the `Hash` option's maximum), changes nothing.
    pub fn load_hash(&mut self, path: &Path, max_mb: usize) -> Result<Loaded, TableRefusal> {
        self.pool.wait();
        let file = TranspositionTable::check_file(path, evaluation_fingerprint(self.network().hash()))
            .map_err(TableRefusal::File)?;
        // A load writes every entry (or clears the table when it fails).
        self.pages = None;
        let loaded = self.load_checked(path, &file, max_mb);
        self.touch_pages();
        loaded
    }

    fn load_checked(&mut self, path: &Path, file: &TableFile, max_mb: usize) -> Result<Loaded, TableRefusal> {
        let mb = file.size_mb();
        if mb > max_mb as u64 {
            return Err(TableRefusal::AboveMax { mb, max_mb });
        }
        let was_mb = self.tt.size_mb();
        if let Some(room_mb) = self.room_for_table_mb().filter(|&room| mb > room as u64) {
            return Err(TableRefusal::NoRoom { mb, room_mb });
        }
        let histories = if file.buckets != self.tt.bucket_count() as u64 {
            let table =
                TranspositionTable::try_with_buckets(file.buckets).ok_or(TableRefusal::NoMemory { mb })?;
            let histories = table.load(path, file).map_err(TableRefusal::File)?;
            self.tt = Arc::new(table);
            histories
        } else {
            self.tt.load(path, file).map_err(TableRefusal::File)?
        };
        // Checked with the file: loading them cannot fail.
        let memory = match histories {
            Some(memory) => {
                let learned = memory.shared.is_empty() || self.learned.load_bytes(&memory.shared).is_ok();
                let roots = memory.roots.len();
                self.set_own_histories(memory.threads);
                *self.roots.lock() = memory.roots;
                match (learned, file.version) {
                    (true, 2) => LoadedMemory::SharedHistories,
                    (true, _) => LoadedMemory::Histories { roots },
                    (false, _) => LoadedMemory::Refused,
                }
            }
            None => {
                self.roots.lock().clear();
                LoadedMemory::Nothing
            }
        };
        Ok(Loaded { mb: self.tt.size_mb(), was_mb, memory })
    }
}
