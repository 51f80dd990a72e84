//! Checkpoints: the float network, the optimiser's state, the epochs done and the shuffling
//! generator, so that `--resume` continues a run exactly where it stopped.
//!
//! Format (little-endian):
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic `LZCK` |
//! | 4 | 4 | u32 format version, 1 |
//! | 8 | 4 | u32 hidden size H |
//! | 12 | 4 | u32 epochs completed |
//! | 16 | 8 | u64 optimiser steps taken |
//! | 24 | 8 | u64 generator state |
//! | 32 | 4 | f32 weight decay |
//! | 36 | 4 | u32 parameter count P = 769·H + B·(2H + 1), B the output buckets |
//! | 40 | 4·P | f32 parameters, in the network's layout (see `network`) |
//! | … | 4·P | f32 Adam first moments |
//! | … | 4·P | f32 Adam second moments |
//! | … | 8 | u64 FNV-1a of every byte before it |

use crate::network::Network;
use crate::nnue::{fnv1a, read_limited, write_atomically, MAX_HIDDEN, MAX_OUTPUT_BUCKETS};
use crate::optimiser::AdamW;
use crate::trainer::State;
use std::path::Path;
use support::rng::Rng;

const MAGIC: &[u8; 4] = b"LZCK";
const VERSION: u32 = 1;
const HEADER: usize = 40;

pub fn to_bytes(state: &State) -> Vec<u8> {
    let p = state.net.params.len();
    let mut out = Vec::with_capacity(HEADER + 12 * p + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(state.net.hidden as u32).to_le_bytes());
    out.extend_from_slice(&state.epoch.to_le_bytes());
    out.extend_from_slice(&state.optimiser.steps.to_le_bytes());
    out.extend_from_slice(&state.rng.state.to_le_bytes());
    out.extend_from_slice(&state.optimiser.weight_decay.to_le_bytes());
    out.extend_from_slice(&(p as u32).to_le_bytes());
    for values in [&state.net.params, &state.optimiser.momentum, &state.optimiser.velocity] {
        for v in values.iter() {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    let hash = fnv1a(&out);
    out.extend_from_slice(&hash.to_le_bytes());
    out
}

pub fn from_bytes(bytes: &[u8]) -> Result<State, String> {
    if bytes.len() < HEADER + 8 {
        return Err(format!("length: {} bytes, shorter than a checkpoint's header", bytes.len()));
    }
    if &bytes[0..4] != MAGIC {
        return Err("magic: not a checkpoint (expected \"LZCK\")".into());
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("four bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("eight bytes"));
    if u32_at(4) != VERSION {
        return Err(format!("version: {}, expected {VERSION}", u32_at(4)));
    }
    let hidden = u32_at(8) as usize;
    if hidden == 0 || hidden > MAX_HIDDEN {
        return Err(format!("hidden: {hidden}, expected 1 to {MAX_HIDDEN}"));
    }
    // The output buckets follow from the parameter count (so one-bucket checkpoints written
    // before buckets existed still read).
    let output_params = (u32_at(36) as usize).checked_sub(Network::param_count(hidden, 0));
    let buckets = match output_params {
        Some(n) if n % (2 * hidden + 1) == 0 && (1..=MAX_OUTPUT_BUCKETS).contains(&(n / (2 * hidden + 1))) => {
            n / (2 * hidden + 1)
        }
        _ => {
            return Err(format!(
            "parameter count: {}, not that of hidden size {hidden} with 1 to {MAX_OUTPUT_BUCKETS} output buckets",
            u32_at(36)
        ))
        }
    };
    let p = Network::param_count(hidden, buckets);
    let want = HEADER + 12 * p + 8;
    if bytes.len() != want {
        return Err(format!("length: {} bytes, expected {want}", bytes.len()));
    }
    let (body, hash) = bytes.split_at(want - 8);
    if fnv1a(body) != u64::from_le_bytes(hash.try_into().expect("eight bytes")) {
        return Err("hash: the contents do not match their hash (damaged file)".into());
    }
    let floats = |k: usize| -> Vec<f32> {
        body[HEADER + 4 * p * k..HEADER + 4 * p * (k + 1)]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let weight_decay = f32::from_le_bytes(bytes[32..36].try_into().expect("four bytes"));
    Ok(State {
        net: Network { hidden, buckets, params: floats(0) },
        optimiser: AdamW { weight_decay, steps: u64_at(16), momentum: floats(1), velocity: floats(2) },
        epoch: u32_at(12),
        rng: Rng { state: u64_at(24) },
    })
}

pub fn write(path: &Path, state: &State) -> Result<(), String> {
    write_atomically(path, &to_bytes(state))
}

pub fn read(path: &Path) -> Result<State, String> {
    let bytes = read_limited(path)?;
    from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let mut state = State::new(8, 3, 0.01, 3);
        state.epoch = 4;
        state.optimiser.steps = 99;
        state.optimiser.momentum[5] = 0.25;
        state.optimiser.velocity[7] = 0.5;
        state.rng.next_u64();
        let bytes = to_bytes(&state);
        assert_eq!(from_bytes(&bytes).unwrap(), state);

        let mut flipped = bytes.clone();
        flipped[HEADER + 17] ^= 1;
        assert!(from_bytes(&flipped).unwrap_err().contains("hash"));
        assert!(from_bytes(&bytes[..bytes.len() - 3]).unwrap_err().contains("length"));
        assert!(from_bytes(&bytes[..10]).unwrap_err().contains("length"));
        let mut wrong = bytes.clone();
        wrong[0] = b'X';
        assert!(from_bytes(&wrong).unwrap_err().contains("magic"));
        let mut huge = bytes;
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(from_bytes(&huge).unwrap_err().contains("hidden"));
    }

    #[test]
    fn one_bucket_checkpoints_keep_their_layout() {
        let state = State::new(8, 1, 0.01, 3);
        let bytes = to_bytes(&state);
        assert_eq!(u32::from_le_bytes(bytes[36..40].try_into().unwrap()), 771 * 8 + 1);
        assert_eq!(from_bytes(&bytes).unwrap().net.buckets, 1);

        let mut odd = bytes;
        odd[36..40].copy_from_slice(&(771 * 8 + 2u32).to_le_bytes());
        assert!(from_bytes(&odd).unwrap_err().contains("parameter count"));
    }
}
