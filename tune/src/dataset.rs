//! Reading `lazuli datagen inspect --text` output: `<FEN> | <score cp, White's view> | <result 1.0/0.5/0.0>`.

use engine::board::Position;
use rayon::prelude::*;
use std::fs;
use std::io;
use std::path::Path;

/// One labelled position.
#[derive(Clone, Debug)]
pub struct Labelled {
    pub position: Position,
    /// The search score in centipawns from White's point of view.
    pub score: f32,
    /// The game result for White: 1.0, 0.5 or 0.0.
    pub result: f32,
}

/// Parses one line; `None` for a malformed line.
pub fn parse_line(line: &str) -> Option<Labelled> {
    let mut fields = line.split('|').map(str::trim);
    let fen = fields.next()?;
    let score = fields.next()?.parse::<f32>().ok()?;
    let result = fields.next()?.parse::<f32>().ok()?;
    if fields.next().is_some() || !(0.0..=1.0).contains(&result) || !score.is_finite() {
        return None;
    }
    let position = Position::from_fen(fen).ok()?;
    Some(Labelled { position, score, result })
}

/// What a load found.
#[derive(Debug, Default)]
pub struct LoadReport {
    pub lines: usize,
    pub malformed: usize,
}

/// Loads up to `limit` positions from every file (in order), in parallel.
pub fn load(paths: &[impl AsRef<Path>], limit: usize) -> io::Result<(Vec<Labelled>, LoadReport)> {
    let mut out = Vec::new();
    let mut report = LoadReport::default();
    for path in paths {
        if out.len() >= limit {
            break;
        }
        let text = fs::read_to_string(path)?;
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let lines = &lines[..lines.len().min(limit - out.len())];
        let parsed: Vec<Option<Labelled>> = lines.par_iter().map(|l| parse_line(l)).collect();
        report.lines += lines.len();
        for entry in parsed {
            match entry {
                Some(e) => out.push(e),
                None => report.malformed += 1,
            }
        }
    }
    Ok((out, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_datagen_lines_and_rejects_bad_ones() {
        let good = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 0.5";
        let e = parse_line(good).expect("valid line");
        assert_eq!((e.score, e.result), (35.0, 0.5));
        for bad in [
            "",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | x | 1.0",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 2.0",
            "not a fen | 0 | 0.5",
            "8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 0.5 | 7",
        ] {
            assert!(parse_line(bad).is_none(), "accepted {bad:?}");
        }
    }
}
