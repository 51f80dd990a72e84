//! Generates the attack tables the move generator reads: leaper attacks, squares between and
//! lines through two squares, and "fancy" magic-bitboard tables for rooks and bishops.
//!
//! The magic numbers are found here by a deterministic random search (the workspace's seeded
//! generator, `support::rng`), so the generated tables are identical on every build. The output is plain Rust source with `static`
//! arrays, so the engine reads them with no run-time initialisation and no `unsafe`.

use std::fmt::Write as _;
use std::path::PathBuf;
use support::rng::Rng;

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn on_board(file: i32, rank: i32) -> bool {
    (0..8).contains(&file) && (0..8).contains(&rank)
}

fn bit(file: i32, rank: i32) -> u64 {
    1u64 << (rank * 8 + file)
}

fn leaper(sq: i32, steps: &[(i32, i32)]) -> u64 {
    let (f, r) = (sq % 8, sq / 8);
    steps
        .iter()
        .filter(|(df, dr)| on_board(f + df, r + dr))
        .fold(0, |acc, (df, dr)| acc | bit(f + df, r + dr))
}

fn slide(sq: i32, occupied: u64, dirs: &[(i32, i32)]) -> u64 {
    let (f, r) = (sq % 8, sq / 8);
    let mut attacks = 0;
    for (df, dr) in dirs {
        let (mut nf, mut nr) = (f + df, r + dr);
        while on_board(nf, nr) {
            attacks |= bit(nf, nr);
            if occupied & bit(nf, nr) != 0 {
                break;
            }
            nf += df;
            nr += dr;
        }
    }
    attacks
}

/// Relevant occupancy: the slider's rays without the last square of each ray.
fn relevant_mask(sq: i32, dirs: &[(i32, i32)]) -> u64 {
    let (f, r) = (sq % 8, sq / 8);
    let mut mask = 0;
    for (df, dr) in dirs {
        let (mut nf, mut nr) = (f + df, r + dr);
        while on_board(nf + df, nr + dr) {
            mask |= bit(nf, nr);
            nf += df;
            nr += dr;
        }
    }
    mask
}

/// A candidate magic with few bits set (each with probability 1/8): far more of these are magics
/// than of uniform numbers, so the search ends sooner.
fn sparse(rng: &mut Rng) -> u64 {
    rng.next_u64() & rng.next_u64() & rng.next_u64()
}

struct MagicEntry {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

/// Finds a magic for every square and fills `table` (appending) with the attack sets.
fn build_magics(dirs: &[(i32, i32)], rng: &mut Rng, table: &mut Vec<u64>) -> Vec<MagicEntry> {
    let mut entries = Vec::with_capacity(64);
    for sq in 0..64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        let size = 1usize << bits;
        // Enumerate every subset of the mask (Carry-Rippler).
        let mut occupancies = Vec::with_capacity(size);
        let mut subset = 0u64;
        loop {
            occupancies.push((subset, slide(sq, subset, dirs)));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        let shift = 64 - bits;
        let mut slots = vec![0u64; size];
        let mut used = vec![0u32; size];
        let mut attempt = 0u32;
        let magic = loop {
            let candidate = sparse(rng);
            if (mask.wrapping_mul(candidate) >> 56).count_ones() < 6 {
                continue;
            }
            attempt += 1;
            let ok = occupancies.iter().all(|&(occ, attacks)| {
                let index = (occ.wrapping_mul(candidate) >> shift) as usize;
                if used[index] != attempt {
                    used[index] = attempt;
                    slots[index] = attacks;
                    true
                } else {
                    slots[index] == attacks
                }
            });
            if ok {
                break candidate;
            }
        };
        entries.push(MagicEntry { mask, magic, shift, offset: table.len() });
        table.extend_from_slice(&slots);
    }
    entries
}

fn write_array(out: &mut String, name: &str, ty: &str, values: &[u64]) {
    writeln!(out, "pub static {name}: [{ty}; {}] = [", values.len()).unwrap();
    for chunk in values.chunks(8) {
        let line: Vec<String> = chunk.iter().map(|v| format!("{v:#x}")).collect();
        writeln!(out, "    {},", line.join(", ")).unwrap();
    }
    writeln!(out, "];").unwrap();
}

fn write_magics(out: &mut String, name: &str, entries: &[MagicEntry]) {
    writeln!(out, "pub static {name}: [Magic; 64] = [").unwrap();
    for e in entries {
        writeln!(
            out,
            "    Magic {{ mask: {:#x}, magic: {:#x}, shift: {}, offset: {} }},",
            e.mask, e.magic, e.shift, e.offset
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
}

/// The AVX-512 intrinsics and `#[target_feature(enable = "avx512bw")]` were stabilised in Rust
/// 1.89 (the workspace declares 1.95, which has them); the AVX-512 kernels compile only where the compiler
/// accepts both (asked of the compiler itself rather than of its version number, so that a
/// nightly from before the stabilisation is answered right).
fn probe_avx512_intrinsics() {
    println!("cargo:rustc-check-cfg=cfg(has_avx512_intrinsics)");
    let probe = r#"
        #![allow(warnings)]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub unsafe fn sum(v: core::arch::x86_64::__m512i) -> i32 {
            core::arch::x86_64::_mm512_reduce_add_epi32(core::arch::x86_64::_mm512_add_epi16(v, v))
        }
    "#;
    if autocfg::new().probe_raw(probe).is_ok() {
        println!("cargo:rustc-cfg=has_avx512_intrinsics");
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    probe_avx512_intrinsics();
    let mut out = String::new();
    out.push_str("// Generated by engine/build.rs. Do not edit.\n");

    let knight: Vec<u64> = (0..64)
        .map(|sq| leaper(sq, &[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]))
        .collect();
    let king: Vec<u64> = (0..64)
        .map(|sq| leaper(sq, &[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]))
        .collect();
    let white_pawn: Vec<u64> = (0..64).map(|sq| leaper(sq, &[(-1, 1), (1, 1)])).collect();
    let black_pawn: Vec<u64> = (0..64).map(|sq| leaper(sq, &[(-1, -1), (1, -1)])).collect();
    write_array(&mut out, "KNIGHT_ATTACKS", "u64", &knight);
    write_array(&mut out, "KING_ATTACKS", "u64", &king);
    write_array(&mut out, "PAWN_ATTACKS_WHITE", "u64", &white_pawn);
    write_array(&mut out, "PAWN_ATTACKS_BLACK", "u64", &black_pawn);

    let mut between = vec![0u64; 64 * 64];
    let mut line = vec![0u64; 64 * 64];
    for a in 0..64 {
        for (dirs, _) in [(&ROOK_DIRS, 0), (&BISHOP_DIRS, 1)] {
            let empty_attacks = slide(a, 0, dirs);
            for b in 0..64 {
                if a == b || empty_attacks & (1 << b) == 0 {
                    continue;
                }
                let idx = (a * 64 + b) as usize;
                between[idx] = slide(a, 1 << b, dirs) & slide(b, 1 << a, dirs);
                line[idx] = (empty_attacks & slide(b, 0, dirs)) | (1 << a) | (1 << b);
            }
        }
    }
    write_array(&mut out, "BETWEEN", "u64", &between);
    write_array(&mut out, "LINE", "u64", &line);

    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut table = Vec::new();
    let rook = build_magics(&ROOK_DIRS, &mut rng, &mut table);
    let bishop = build_magics(&BISHOP_DIRS, &mut rng, &mut table);
    write_magics(&mut out, "ROOK_MAGICS", &rook);
    write_magics(&mut out, "BISHOP_MAGICS", &bishop);
    write_array(&mut out, "SLIDER_ATTACKS", "u64", &table);

    let path = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("attack_tables.rs");
    std::fs::write(path, out).expect("write generated attack tables");
}
