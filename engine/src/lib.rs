//! Lazuli's chess core: the board and legal move generation, static exchange evaluation, the
//! network's evaluation, the search of one thread, the shared transposition table and the
//! tablebase probes. It starts no threads of its own (only a
//! table clear splits its work over scoped ones): the `smp` crate runs searches on many.
//!
//! `unsafe` is denied here except in the two modules whose measured speed needs it: the table's
//! memory (`tt::memory`) and the network's SIMD kernels (`nnue::simd`).
#![deny(unsafe_code)]

pub mod bench;
pub mod board;
pub mod files;
pub mod movegen;
pub mod nnue;
pub mod search;
pub mod see;
pub mod tb;
pub mod tt;

/// The repository's test data (`tests/data`), for the unit tests that read it.
#[cfg(test)]
pub(crate) fn test_data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data")
}
