//! Shared helpers for the integration tests: locating and reading the test data in
//! `tests/data`.

#![forbid(unsafe_code)]

use std::path::PathBuf;

/// The test data: `tests/data` in the repository.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// One EPD line: a FEN and its `;KEY VALUE` operations.
#[derive(Clone, Debug)]
pub struct EpdEntry {
    pub fen: String,
    pub ops: Vec<(String, String)>,
    pub line: usize,
}

impl EpdEntry {
    pub fn op(&self, key: &str) -> Option<&str> {
        self.ops.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The perft counts `;D1 n ;D2 n ...` as (depth, count).
    pub fn perft_counts(&self) -> Vec<(u32, u64)> {
        self.ops
            .iter()
            .filter_map(|(k, v)| {
                let depth = k.strip_prefix('D')?.parse().ok()?;
                Some((depth, v.parse().ok()?))
            })
            .collect()
    }
}

/// Reads an EPD file from the data directory.
pub fn read_epd(name: &str) -> Vec<EpdEntry> {
    let path = data_dir().join(name);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap_or_default().trim().to_string();
            let ops = parts
                .filter_map(|op| {
                    let op = op.trim();
                    let (k, v) = op.split_once(' ')?;
                    Some((k.to_string(), v.trim().trim_matches('"').to_string()))
                })
                .collect();
            EpdEntry { fen, ops, line: i + 1 }
        })
        .collect()
}
