//! The network file (`docs/network-format.md`): a 40-byte header naming the architecture and
//! the hash of the content, then the quantised weights, all little-endian. Reading refuses every
//! file that is not exactly a network of this engine's architecture, with an error that names
//! the problem; no input makes it panic.

use super::simd::OUTPUT_WEIGHT_LIMIT;
use super::{Column, Network, ACTIVATION_SCRELU, HIDDEN, INPUTS, QA, QB, SCALE};
use std::fmt;
use std::io::Read;
use std::path::Path;

pub const MAGIC: [u8; 4] = *b"LZNN";
pub const FORMAT_VERSION: u32 = 1;
/// Magic, seven u32 fields and the u64 hash.
pub const HEADER_LEN: usize = 40;
const HASH_OFFSET: usize = 32;
/// The exact length of a file for this engine's architecture.
pub(super) const FILE_LEN: usize = HEADER_LEN + 2 * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN) + 4;
/// Files longer than this are not read to the end: no network of any sensible size is so large.
const READ_LIMIT: usize = 64 << 20;

/// The u32 fields of the header, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderField {
    Version,
    Inputs,
    HiddenSize,
    Activation,
    Qa,
    Qb,
    Scale,
}

impl HeaderField {
    pub const ALL: [HeaderField; 7] = [
        HeaderField::Version,
        HeaderField::Inputs,
        HeaderField::HiddenSize,
        HeaderField::Activation,
        HeaderField::Qa,
        HeaderField::Qb,
        HeaderField::Scale,
    ];

    /// Where the field starts in the file.
    pub const fn offset(self) -> usize {
        4 + 4 * self as usize
    }

    /// The value this engine reads.
    pub const fn expected(self) -> u32 {
        match self {
            HeaderField::Version => FORMAT_VERSION,
            HeaderField::Inputs => INPUTS as u32,
            HeaderField::HiddenSize => HIDDEN as u32,
            HeaderField::Activation => ACTIVATION_SCRELU,
            HeaderField::Qa => QA as u32,
            HeaderField::Qb => QB as u32,
            HeaderField::Scale => SCALE as u32,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            HeaderField::Version => "format version",
            HeaderField::Inputs => "input count",
            HeaderField::HiddenSize => "hidden size",
            HeaderField::Activation => "activation",
            HeaderField::Qa => "QA",
            HeaderField::Qb => "QB",
            HeaderField::Scale => "SCALE",
        }
    }
}

/// Why a network was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The file could not be read (missing, a directory, no permission...).
    Io(String),
    /// Shorter than the header.
    TooShort {
        len: usize,
    },
    /// Longer than any network is.
    TooLarge {
        limit: usize,
    },
    Magic {
        found: [u8; 4],
    },
    Field {
        field: HeaderField,
        found: u32,
        expected: u32,
    },
    Length {
        found: usize,
        expected: usize,
    },
    Hash {
        stored: u64,
        computed: u64,
    },
    /// An output weight the integer evaluation cannot compute exactly (the trainer's clipping
    /// keeps every weight well inside the limit).
    OutputWeight {
        index: usize,
        value: i16,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "cannot read the file: {e}"),
            LoadError::TooShort { len } => {
                write!(f, "the file is {len} bytes, shorter than the {HEADER_LEN}-byte header")
            }
            LoadError::TooLarge { limit } => write!(f, "the file is larger than {limit} bytes, too large for a network"),
            LoadError::Magic { found } => write!(
                f,
                "wrong magic '{}' (a network file starts with '{}')",
                found.escape_ascii(),
                MAGIC.escape_ascii()
            ),
            LoadError::Field { field: HeaderField::HiddenSize, found, expected } => {
                write!(f, "the network's hidden size is {found}, but this engine is built for {expected}")
            }
            LoadError::Field { field, found, expected } => {
                write!(f, "{} is {found}, this engine reads {expected}", field.name())
            }
            LoadError::Length { found, expected } => {
                write!(f, "the file is {found} bytes, but this architecture takes exactly {expected}")
            }
            LoadError::Hash { stored, computed } => write!(
                f,
                "content hash mismatch: the header says {stored:#018x}, the content hashes to {computed:#018x}"
            ),
            LoadError::OutputWeight { index, value } => write!(
                f,
                "output weight {index} is {value}, beyond the ±{OUTPUT_WEIGHT_LIMIT} the evaluation allows"
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[offset..offset + 4]);
    u32::from_le_bytes(word)
}

/// Magic and architecture fields, in file order: the first disagreement is the error.
fn check_header(bytes: &[u8]) -> Result<(), LoadError> {
    if bytes.len() < HEADER_LEN {
        return Err(LoadError::TooShort { len: bytes.len() });
    }
    let mut magic = [0; 4];
    magic.copy_from_slice(&bytes[..4]);
    if magic != MAGIC {
        return Err(LoadError::Magic { found: magic });
    }
    for field in HeaderField::ALL {
        let found = u32_at(bytes, field.offset());
        if found != field.expected() {
            return Err(LoadError::Field { field, found, expected: field.expected() });
        }
    }
    Ok(())
}

/// Fills `columns` in order from `values`.
fn fill(columns: &mut [Column], values: &mut impl Iterator<Item = i16>) {
    for (slot, value) in columns.iter_mut().flat_map(|c| c.0.iter_mut()).zip(values) {
        *slot = value;
    }
}

impl Network {
    /// Read a network from the bytes of a file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, LoadError> {
        check_header(bytes)?;
        if bytes.len() != FILE_LEN {
            return Err(LoadError::Length { found: bytes.len(), expected: FILE_LEN });
        }
        let mut stored = [0; 8];
        stored.copy_from_slice(&bytes[HASH_OFFSET..HEADER_LEN]);
        let stored = u64::from_le_bytes(stored);
        let computed = fnv1a(&bytes[HEADER_LEN..]);
        if stored != computed {
            return Err(LoadError::Hash { stored, computed });
        }

        let (weights, bias) = bytes[HEADER_LEN..].split_at(FILE_LEN - HEADER_LEN - 4);
        let mut values = weights.chunks_exact(2).map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut feature_weights = vec![Column::ZERO; INPUTS].into_boxed_slice();
        let mut feature_bias = [Column::ZERO];
        let mut output_weights = [Column::ZERO; 2];
        fill(&mut feature_weights, &mut values);
        fill(&mut feature_bias, &mut values);
        fill(&mut output_weights, &mut values);
        let output_bias = i32::from_le_bytes([bias[0], bias[1], bias[2], bias[3]]);

        let out_of_range = output_weights
            .iter()
            .flat_map(|c| c.0.iter())
            .position(|w| w.unsigned_abs() > OUTPUT_WEIGHT_LIMIT as u16);
        if let Some(index) = out_of_range {
            let value = output_weights[index / HIDDEN].0[index % HIDDEN];
            return Err(LoadError::OutputWeight { index, value });
        }
        Ok(Network::from_parts(feature_weights, feature_bias[0], output_weights, output_bias, computed))
    }

    /// Read a network file.
    pub fn load_file(path: &Path) -> Result<Network, LoadError> {
        let io = |e: std::io::Error| LoadError::Io(e.to_string());
        let file = std::fs::File::open(path).map_err(io)?;
        let mut bytes = Vec::new();
        file.take(READ_LIMIT as u64 + 1).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() > READ_LIMIT {
            // A wrong header is the likelier story (another kind of file): say that first.
            check_header(&bytes)?;
            return Err(LoadError::TooLarge { limit: READ_LIMIT });
        }
        Network::from_bytes(&bytes)
    }

    /// The network as a file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(FILE_LEN - HEADER_LEN);
        let columns = self.feature_weights().iter().chain([self.feature_bias()]).chain(self.output_weights());
        for value in columns.flat_map(|c| c.0.iter()) {
            payload.extend_from_slice(&value.to_le_bytes());
        }
        payload.extend_from_slice(&self.output_bias().to_le_bytes());

        let mut bytes = Vec::with_capacity(FILE_LEN);
        bytes.extend_from_slice(&MAGIC);
        for field in HeaderField::ALL {
            bytes.extend_from_slice(&field.expected().to_le_bytes());
        }
        bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }
}
