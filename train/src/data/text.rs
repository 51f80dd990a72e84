//! The text format that `lazuli datagen` writes: one position per line,
//! `<FEN> | <score, centipawns, White's view> | <result for White: 1.0, 0.5 or 0.0>`.
//!
//! The positions are already filtered when written. A game's positions are consecutive lines, so
//! the validation split holds out whole blocks of `TEXT_BLOCK_LINES` lines rather than single
//! positions, which would leak near-copies of the training positions into the validation set.

use super::{held_out, DataError, Dataset, Entry, Filter};
use crate::chess::parse_fen;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Lines per validation block: several games' worth.
pub const TEXT_BLOCK_LINES: u64 = 1024;

pub(super) fn load(file: &Path, filter: Filter, data: &mut Dataset) -> Result<(), DataError> {
    let f = std::fs::File::open(file).map_err(|e| DataError::new(file, "", e.to_string()))?;
    let mut reader = BufReader::with_capacity(1 << 20, f);
    let first_unit = data.units;
    let mut line = Vec::with_capacity(128);
    let mut number = 0u64;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| DataError::new(file, format!("line {}", number + 1), e.to_string()))?;
        if n == 0 {
            break;
        }
        number += 1;
        let at = || format!("line {number}");
        if line.last() != Some(&b'\n') {
            return Err(DataError::new(file, at(), "truncated: the last line has no newline"));
        }
        let text = std::str::from_utf8(&line).map_err(|_| DataError::new(file, at(), "not UTF-8"))?;
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            continue;
        }
        let (entry, score) = parse_line(text).map_err(|m| DataError::new(file, at(), m))?;
        if score.abs() >= filter.max_score {
            data.filtered += 1;
            continue;
        }
        let unit = first_unit + (number - 1) / TEXT_BLOCK_LINES;
        if held_out(unit) {
            data.valid.push(entry);
        } else {
            data.train.push(entry);
        }
    }
    data.units = first_unit + number.div_ceil(TEXT_BLOCK_LINES);
    Ok(())
}

/// One line as an entry, and its score from White's view (the entry's score saturates at the
/// bounds of an i16; such scores are mates, which the filter drops).
pub(crate) fn parse_line(text: &str) -> Result<(Entry, i32), String> {
    let mut parts = text.split('|');
    let (Some(fen), Some(score), Some(result), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("expected '<FEN> | <score> | <result>'".into());
    };
    let (pieces, stm) = parse_fen(fen.trim()).map_err(|e| e.to_string())?;
    let score: i32 = score.trim().parse().map_err(|_| format!("bad score '{}'", score.trim()))?;
    let result = match result.trim() {
        "1.0" | "1" => 2,
        "0.5" => 1,
        "0.0" | "0" => 0,
        other => return Err(format!("bad result '{other}'")),
    };
    let clamped = score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16;
    Ok((Entry::new(&pieces, stm, clamped, result), score))
}

#[cfg(test)]
mod tests {
    use super::super::{load as load_all, Format};
    use super::*;
    use crate::chess::Colour;
    use std::path::PathBuf;

    fn write_temp(name: &str, bytes: &[u8]) -> PathBuf {
        let path = std::env::temp_dir().join(format!("lazuli-train-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    const LINES: &str = "\
r1bqkbnr/pp1pppp1/2p5/2n4p/6P1/4PN2/PPPPBP1P/RNBQK2R w KQkq - 3 5 | 35 | 1.0
r1bqkbnr/pp1pppp1/2p5/2n3Pp/8/4PN2/PPPPBP1P/RNBQK2R b KQkq - 0 5 | 19 | 0.5
r1bqkbnr/pp2ppp1/2p5/2np2Pp/8/4PN2/PPPPBP1P/RNBQK2R w KQkq - 0 6 | -12 | 0.0
8/8/8/4k3/8/8/8/4K2Q w - - 0 60 | 31000 | 1.0
";

    #[test]
    fn reads_lines_into_side_to_move_entries() {
        let path = write_temp("good.txt", LINES.as_bytes());
        let data = load_all(std::slice::from_ref(&path), Format::Auto, Filter::default()).unwrap();
        std::fs::remove_file(&path).ok();
        let all: Vec<Entry> = data.train.iter().chain(&data.valid).copied().collect();
        assert_eq!(all.len(), 3, "the mate score is filtered");
        assert_eq!(data.filtered, 1);
        assert_eq!(data.units, 1);
        assert_eq!((all[0].side_to_move(), all[0].score(), all[0].result()), (Colour::White, 35, 1.0));
        assert_eq!((all[1].side_to_move(), all[1].score(), all[1].result()), (Colour::Black, -19, 0.5));
        assert_eq!((all[2].side_to_move(), all[2].score(), all[2].result()), (Colour::White, -12, 0.0));
        assert_eq!(all[0].pieces().count(), 32);
    }

    #[test]
    fn whole_blocks_are_held_out() {
        // Enough blocks that the hash holds out at least one, and a part block at the end.
        let first = (0..).find(|&u| held_out(u)).unwrap();
        let blocks = first + 3;
        let lines = (blocks * TEXT_BLOCK_LINES + 100) as usize;
        let line = LINES.lines().next().unwrap();
        let text: String = std::iter::repeat_n(format!("{line}\n"), lines).collect();
        let path = write_temp("blocks.txt", text.as_bytes());
        let data = load_all(std::slice::from_ref(&path), Format::Text, Filter::default()).unwrap();
        std::fs::remove_file(&path).ok();
        let held = (0..=blocks)
            .filter(|&u| held_out(u))
            .map(|u| if u == blocks { 100 } else { 1024 })
            .sum::<usize>();
        assert_eq!(data.units, blocks + 1);
        assert_eq!(data.valid.len(), held);
        assert_eq!(data.train.len() + data.valid.len(), lines);
    }

    #[test]
    fn about_two_percent_of_units_are_held_out() {
        let held = (0..100_000).filter(|&u| held_out(u)).count();
        assert!((1_600..2_400).contains(&held), "{held}");
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        let cases: [(&[u8], &str); 6] = [
            (
                b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 10 | 0.5\nxyz | 1 | 0.5\n",
                "line 2",
            ),
            (b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 1e | 0.5\n", "bad score"),
            (b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 10 | 0.7\n", "bad result"),
            (b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 10\n", "expected"),
            (b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 10 | 0.", "truncated"),
            (b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 10 | 0.5\n\xff\xfe\n", "not UTF-8"),
        ];
        for (i, (bytes, want)) in cases.iter().enumerate() {
            let path = write_temp(&format!("bad{i}.txt"), bytes);
            let err = load_all(std::slice::from_ref(&path), Format::Text, Filter::default())
                .err()
                .expect("an error");
            std::fs::remove_file(&path).ok();
            let message = err.to_string();
            assert!(message.contains(&*path.to_string_lossy()), "{message}");
            assert!(message.contains(want), "{message} lacks {want}");
        }
    }
}
