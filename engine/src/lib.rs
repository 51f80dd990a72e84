//! Lazuli's chess core: board representation, legal move generation, static exchange
//! evaluation. Single-threaded code only: the `smp` crate runs it on many threads.

pub mod bench;
pub mod board;
pub mod eval;
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
