//! Perft output in the format tools already parse for Stockfish: one `<move>: <count>` line per
//! root move, a blank line, then `Nodes searched: <total>`.

use engine::board::Move;
use std::io::Write;

/// Writes a divide (`perft_divide`'s) and returns its total (1 at depth 0).
pub fn write_divide(
    out: &mut impl Write,
    divide: &[(Move, u64)],
    depth: u32,
    chess960: bool,
) -> std::io::Result<u64> {
    let mut total = 0;
    for (mv, count) in divide {
        writeln!(out, "{}: {}", mv.to_uci(chess960), count)?;
        total += count;
    }
    if depth == 0 {
        total = 1;
    }
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    Ok(total)
}
