//! The quantised network: its file (`docs/network-format.md`), quantisation from the float
//! network, and the integer evaluation that the engine's inference must reproduce exactly.

use crate::chess::{feature_index, Colour, Piece, INPUTS};
use crate::network::Network;
use std::fmt;
use std::path::Path;

pub use nnue_format::{
    fnv1a, output_bucket, ACTIVATION_SCRELU, FORMAT_VERSION, HEADER_LEN, HEADER_LEN_V2, MAGIC,
    MAX_OUTPUT_BUCKETS, OUTPUT_WEIGHT_LIMIT, QA, QB, QB_CHOICES,
};

/// Files longer than this are not read: no network or checkpoint of a sensible size is so large.
pub const READ_LIMIT: u64 = 1 << 30;
/// The largest hidden size a reader accepts: far above any useful network, it keeps a corrupt
/// header from asking for an absurd allocation.
pub const MAX_HIDDEN: usize = 1 << 16;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNetwork {
    pub hidden: usize,
    pub buckets: usize,
    /// 768 · H, feature-major.
    pub feature_weights: Vec<i16>,
    pub feature_biases: Vec<i16>,
    /// Bucket after bucket, the side to move's H, then the other side's H.
    pub output_weights: Vec<i16>,
    /// One per bucket, at scale QA · QB.
    pub output_biases: Vec<i32>,
    /// The output layer's scale, one of `QB_CHOICES`.
    pub qb: i32,
}

/// Why a network file was refused; names the field at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkError(pub String);

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NetworkError {}

fn quantise(w: f32, scale: i32) -> i16 {
    (w * scale as f32).round().clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
}

impl QuantisedNetwork {
    /// The integer network of `net`, its output layer at QB 128 when every output weight fits
    /// there (as training's clip makes it), at 64 otherwise (networks trained before).
    pub fn from_float(net: &Network) -> QuantisedNetwork {
        let fits = |qb: i32| {
            net.output_weights().iter().all(|&w| i32::from(quantise(w, qb)).abs() <= OUTPUT_WEIGHT_LIMIT)
        };
        let qb = if fits(QB) { QB } else { QB_CHOICES[0] };
        QuantisedNetwork {
            hidden: net.hidden,
            buckets: net.buckets,
            feature_weights: net.feature_weights().iter().map(|&w| quantise(w, QA)).collect(),
            feature_biases: net.feature_biases().iter().map(|&w| quantise(w, QA)).collect(),
            output_weights: net.output_weights().iter().map(|&w| quantise(w, qb)).collect(),
            output_biases: net
                .output_biases()
                .iter()
                .map(|&b| (b * (QA * qb) as f32).round() as i32)
                .collect(),
            qb,
        }
    }

    /// The float network that quantises to this one, with `buckets` output buckets, for a run
    /// that starts from a trained network (`train --init`). A one-bucket network's output layer
    /// is copied to every bucket, so that a bucketed network can start from it; any other
    /// difference in bucket count is refused.
    pub fn to_float(&self, buckets: usize) -> Result<Network, String> {
        if buckets != self.buckets && self.buckets != 1 {
            return Err(format!(
                "the network has {} output buckets; it can start a run with {} or with any number if it has one",
                self.buckets, self.buckets
            ));
        }
        let (h, qa, qb) = (self.hidden, QA as f32, self.qb as f32);
        let mut net = Network::zeroed(h, buckets);
        let feature_end = INPUTS * h + h;
        let weights = self.feature_weights.iter().chain(&self.feature_biases);
        for (p, &w) in net.params[..feature_end].iter_mut().zip(weights) {
            *p = f32::from(w) / qa;
        }
        let (outputs, biases) = net.params[feature_end..].split_at_mut(buckets * 2 * h);
        for (b, layer) in outputs.chunks_exact_mut(2 * h).enumerate() {
            let source = if self.buckets == 1 { 0 } else { b };
            let stored = &self.output_weights[source * 2 * h..(source + 1) * 2 * h];
            for (p, &w) in layer.iter_mut().zip(stored) {
                *p = f32::from(w) / qb;
            }
            biases[b] = self.output_biases[source] as f32 / (qa * qb);
        }
        Ok(net)
    }

    /// The length of everything after the header.
    pub fn body_len(hidden: usize, buckets: usize) -> usize {
        INPUTS * hidden * 2 + hidden * 2 + buckets * (2 * hidden * 2 + 4)
    }

    /// The header's length: a one-bucket network is written as version 1, which every reader
    /// of the format knows.
    fn header_len(&self) -> usize {
        if self.buckets == 1 {
            HEADER_LEN
        } else {
            HEADER_LEN_V2
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(Self::body_len(self.hidden, self.buckets));
        for v in self.feature_weights.iter().chain(&self.feature_biases).chain(&self.output_weights) {
            body.extend_from_slice(&v.to_le_bytes());
        }
        for b in &self.output_biases {
            body.extend_from_slice(&b.to_le_bytes());
        }
        let version = if self.buckets == 1 { 1 } else { FORMAT_VERSION };
        let mut fields =
            vec![version, INPUTS as u32, self.hidden as u32, ACTIVATION_SCRELU, QA as u32, self.qb as u32];
        fields.push(nnue_format::SCALE as u32);
        if version >= 2 {
            fields.push(self.buckets as u32);
        }
        let mut out = Vec::with_capacity(self.header_len() + body.len());
        out.extend_from_slice(&MAGIC);
        for field in fields {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(&fnv1a(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// The content hash that names the network (the header's hash field).
    pub fn hash(&self) -> u64 {
        let bytes = self.to_bytes();
        fnv1a(&bytes[self.header_len()..])
    }

    /// Reads a network file's bytes, refusing any field that disagrees with the format.
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantisedNetwork, NetworkError> {
        let bad = |m: String| Err(NetworkError(m));
        if bytes.len() < HEADER_LEN {
            return bad(format!("length: {} bytes, shorter than the {HEADER_LEN}-byte header", bytes.len()));
        }
        if bytes[0..4] != MAGIC {
            return bad(format!("magic: {:?}, expected \"LZNN\"", String::from_utf8_lossy(&bytes[0..4])));
        }
        let field =
            |i: usize| u32::from_le_bytes(bytes[4 + 4 * i..8 + 4 * i].try_into().expect("four bytes"));
        let version = field(0);
        let header_len = match version {
            1 => HEADER_LEN,
            2 if bytes.len() >= HEADER_LEN_V2 => HEADER_LEN_V2,
            2 => {
                return bad(format!(
                    "length: {} bytes, shorter than the {HEADER_LEN_V2}-byte header",
                    bytes.len()
                ))
            }
            _ => return bad(format!("version: {version}, expected 1 or {FORMAT_VERSION}")),
        };
        let expect = [
            ("version", version),
            ("inputs", INPUTS as u32),
            ("hidden", 0),
            ("activation", ACTIVATION_SCRELU),
            ("QA", QA as u32),
            ("QB", 0),
            ("SCALE", nnue_format::SCALE as u32),
        ];
        for (i, (name, want)) in expect.iter().enumerate() {
            let got = field(i);
            if *name != "hidden" && *name != "QB" && got != *want {
                return bad(format!("{name}: {got}, expected {want}"));
            }
        }
        let qb = field(5) as i32;
        if !QB_CHOICES.contains(&qb) {
            return bad(format!("QB: {qb}, expected {} or {}", QB_CHOICES[0], QB_CHOICES[1]));
        }
        let hidden = field(2) as usize;
        if hidden == 0 || hidden > MAX_HIDDEN {
            return bad(format!("hidden: {hidden}, expected 1 to {MAX_HIDDEN}"));
        }
        let buckets = if version == 1 { 1 } else { field(7) as usize };
        if buckets == 0 || buckets > MAX_OUTPUT_BUCKETS {
            return bad(format!("output buckets: {buckets}, expected 1 to {MAX_OUTPUT_BUCKETS}"));
        }
        let want_len = header_len + Self::body_len(hidden, buckets);
        if bytes.len() != want_len {
            return bad(format!(
                "length: {} bytes, expected {want_len} for hidden size {hidden} and {buckets} output buckets",
                bytes.len()
            ));
        }
        let stored = u64::from_le_bytes(bytes[header_len - 8..header_len].try_into().expect("eight bytes"));
        let body = &bytes[header_len..];
        if fnv1a(body) != stored {
            return bad(format!("hash: stored {stored:#018x}, the contents hash to {:#018x}", fnv1a(body)));
        }
        let (weights, biases) = body.split_at(body.len() - 4 * buckets);
        let mut words = weights.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| words.by_ref().take(n).collect::<Vec<i16>>();
        let feature_weights = take(INPUTS * hidden);
        let feature_biases = take(hidden);
        let output_weights = take(buckets * 2 * hidden);
        let output_biases =
            biases.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        Ok(QuantisedNetwork {
            hidden,
            buckets,
            feature_weights,
            feature_biases,
            output_weights,
            output_biases,
            qb,
        })
    }

    pub fn read(path: &Path) -> Result<QuantisedNetwork, String> {
        let bytes = read_limited(path)?;
        Self::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn write(&self, path: &Path) -> Result<(), String> {
        write_atomically(path, &self.to_bytes())
    }

    /// The accumulator of one perspective: bias plus the columns of the active features. i16
    /// addition wraps, as the engine's vector adds do; with at most 32 pieces and weights within
    /// ±505 it cannot overflow.
    pub fn accumulator(&self, pieces: &[Piece], perspective: Colour) -> Vec<i16> {
        let h = self.hidden;
        let mut acc = self.feature_biases.clone();
        for p in pieces {
            let f = feature_index(perspective, p.colour, p.kind, p.square);
            for (a, w) in acc.iter_mut().zip(&self.feature_weights[f * h..(f + 1) * h]) {
                *a = a.wrapping_add(*w);
            }
        }
        acc
    }

    /// Centipawns for the side to move, exactly as docs/network-format.md defines it. The i32
    /// sums wrap on overflow (as vector multiply-adds do), which keeps the result independent of
    /// the order of summation; the bias and the scaling are in i64, as in the engine, so that no
    /// bias overflows.
    pub fn evaluate(&self, pieces: &[Piece], stm: Colour) -> i32 {
        let h = self.hidden;
        let bucket = output_bucket(pieces.len(), self.buckets);
        let out = &self.output_weights[bucket * 2 * h..(bucket + 1) * 2 * h];
        let us = self.accumulator(pieces, stm);
        let them = self.accumulator(pieces, stm.flip());
        let mut sum = 0i32;
        for (acc, weights) in [(&us, &out[..h]), (&them, &out[h..])] {
            for (&a, &w) in acc.iter().zip(weights) {
                let c = i32::from(a).clamp(0, QA);
                sum = sum.wrapping_add((c * c).wrapping_mul(i32::from(w)));
            }
        }
        let hidden = i64::from(sum / QA) + i64::from(self.output_biases[bucket]);
        (hidden * i64::from(nnue_format::SCALE) / i64::from(QA * self.qb)) as i32
    }
}

/// The bytes of a file of at most `READ_LIMIT` bytes; a longer one is refused unread.
pub fn read_limited(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(READ_LIMIT + 1).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > READ_LIMIT {
        return Err(format!(
            "{}: larger than {READ_LIMIT} bytes, too large to be a network or checkpoint",
            path.display()
        ));
    }
    Ok(bytes)
}

/// Writes through a temporary file and a rename, so that an interrupted run never leaves a
/// half-written network or checkpoint under the final name.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
