//! Perft output in the format tools already parse for Stockfish: one `<move>: <count>` line per
//! root move, a blank line, then `Nodes searched: <total>`.

use engine::board::Position;
use engine::movegen::perft::perft_divide;
use std::io::Write;
use std::time::{Duration, Instant};

/// Writes the divide and returns the total and the time taken.
pub fn write_divide(
    out: &mut impl Write,
    pos: &Position,
    depth: u32,
    chess960: bool,
) -> std::io::Result<(u64, Duration)> {
    let start = Instant::now();
    let divide = perft_divide(pos, depth);
    let elapsed = start.elapsed();
    let mut total = 0;
    for (mv, count) in &divide {
        writeln!(out, "{}: {}", mv.to_uci(chess960), count)?;
        total += count;
    }
    if depth == 0 {
        total = 1;
    }
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    Ok((total, elapsed))
}
