//! The network file (`docs/network-format.md`): a header naming the architecture and the hash
//! of the content, then the quantised weights, all little-endian. Version 1 has one output
//! bucket; version 2 adds a field for the bucket count. Reading refuses every file that is not
//! exactly a network of this engine's architecture, with an error that names the problem; no
//! input makes it panic.

use super::simd::OUTPUT_WEIGHT_LIMIT;
use super::{
    Column, Network, ACTIVATION_SCRELU, HIDDEN, INPUTS, MAX_OUTPUT_BUCKETS, QA, QB, QB_CHOICES, SCALE,
};
use std::fmt;
use std::io::Read;
use std::path::Path;

use nnue_format::{fnv1a, BUCKETS_OFFSET};
pub use nnue_format::{FORMAT_VERSION, HEADER_LEN, HEADER_LEN_V2, MAGIC};

/// The length of everything after the header, for `buckets` output buckets.
pub(super) const fn body_len(buckets: usize) -> usize {
    2 * (INPUTS * HIDDEN + HIDDEN) + buckets * (2 * 2 * HIDDEN + 4)
}
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

    /// The value this engine reads (for QB, the one it writes; `QB_CHOICES` are all read).
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
        header: usize,
    },
    /// Longer than any network is.
    TooLarge {
        limit: usize,
    },
    /// A version 2 header with an output bucket count this engine cannot use.
    OutputBuckets {
        found: u32,
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
            LoadError::TooShort { len, header } => {
                write!(f, "the file is {len} bytes, shorter than the {header}-byte header")
            }
            LoadError::TooLarge { limit } => write!(f, "the file is larger than {limit} bytes, too large for a network"),
            LoadError::Magic { found } => write!(
                f,
                "wrong magic '{}' (a network file starts with '{}')",
                found.escape_ascii(),
                MAGIC.escape_ascii()
            ),
            LoadError::Field { field: HeaderField::Version, found, .. } => {
                write!(f, "format version is {found}, this engine reads 1 to {FORMAT_VERSION}")
            }
            LoadError::OutputBuckets { found } => {
                write!(f, "the network has {found} output buckets, this engine reads 1 to {MAX_OUTPUT_BUCKETS}")
            }
            LoadError::Field { field: HeaderField::Qb, found, .. } => {
                write!(f, "QB is {found}, this engine reads {} or {}", QB_CHOICES[0], QB_CHOICES[1])
            }
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

fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[offset..offset + 4]);
    u32::from_le_bytes(word)
}

/// What a valid header says: its length, the number of output buckets and the output scale.
struct Header {
    len: usize,
    buckets: usize,
    qb: i32,
}

/// Magic and architecture fields, in file order: the first disagreement is the error.
fn check_header(bytes: &[u8]) -> Result<Header, LoadError> {
    if bytes.len() < HEADER_LEN {
        return Err(LoadError::TooShort { len: bytes.len(), header: HEADER_LEN });
    }
    let mut magic = [0; 4];
    magic.copy_from_slice(&bytes[..4]);
    if magic != MAGIC {
        return Err(LoadError::Magic { found: magic });
    }
    let version = u32_at(bytes, HeaderField::Version.offset());
    for field in HeaderField::ALL {
        let found = u32_at(bytes, field.offset());
        let valid = match field {
            HeaderField::Version => (1..=FORMAT_VERSION).contains(&found),
            HeaderField::Qb => QB_CHOICES.iter().any(|&qb| qb as u32 == found),
            _ => found == field.expected(),
        };
        if !valid {
            return Err(LoadError::Field { field, found, expected: field.expected() });
        }
    }
    let qb = u32_at(bytes, HeaderField::Qb.offset()) as i32;
    if version == 1 {
        return Ok(Header { len: HEADER_LEN, buckets: 1, qb });
    }
    if bytes.len() < HEADER_LEN_V2 {
        return Err(LoadError::TooShort { len: bytes.len(), header: HEADER_LEN_V2 });
    }
    let buckets = u32_at(bytes, BUCKETS_OFFSET);
    if !(1..=MAX_OUTPUT_BUCKETS as u32).contains(&buckets) {
        return Err(LoadError::OutputBuckets { found: buckets });
    }
    Ok(Header { len: HEADER_LEN_V2, buckets: buckets as usize, qb })
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
        let header = check_header(bytes)?;
        let expected = header.len + body_len(header.buckets);
        if bytes.len() != expected {
            return Err(LoadError::Length { found: bytes.len(), expected });
        }
        let mut stored = [0; 8];
        stored.copy_from_slice(&bytes[header.len - 8..header.len]);
        let stored = u64::from_le_bytes(stored);
        let computed = fnv1a(&bytes[header.len..]);
        if stored != computed {
            return Err(LoadError::Hash { stored, computed });
        }

        let (weights, biases) = bytes[header.len..].split_at(expected - header.len - 4 * header.buckets);
        let mut values = weights.chunks_exact(2).map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut feature_weights = vec![Column::ZERO; INPUTS].into_boxed_slice();
        let mut feature_bias = [Column::ZERO];
        let mut output_weights = vec![[Column::ZERO; 2]; header.buckets].into_boxed_slice();
        fill(&mut feature_weights, &mut values);
        fill(&mut feature_bias, &mut values);
        fill(output_weights.as_flattened_mut(), &mut values);
        let output_biases = biases
            .chunks_exact(4)
            .map(|word| i32::from_le_bytes([word[0], word[1], word[2], word[3]]))
            .collect();

        let outputs = output_weights.as_flattened();
        let out_of_range = outputs
            .iter()
            .flat_map(|c| c.0.iter())
            .position(|w| w.unsigned_abs() > OUTPUT_WEIGHT_LIMIT as u16);
        if let Some(index) = out_of_range {
            let value = outputs[index / HIDDEN].0[index % HIDDEN];
            return Err(LoadError::OutputWeight { index, value });
        }
        Ok(Network::from_parts(
            feature_weights,
            feature_bias[0],
            output_weights,
            output_biases,
            header.qb,
            computed,
        ))
    }

    /// Read a network file.
    pub fn load_file(path: &Path) -> Result<Network, LoadError> {
        let io = |e: std::io::Error| LoadError::Io(e.to_string());
        let file = crate::files::open_regular(path).map_err(io)?;
        let mut bytes = Vec::new();
        file.take(READ_LIMIT as u64 + 1).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() > READ_LIMIT {
            // A wrong header is the likelier story (another kind of file): say that first.
            check_header(&bytes)?;
            return Err(LoadError::TooLarge { limit: READ_LIMIT });
        }
        Network::from_bytes(&bytes)
    }

    /// The network as a file: version 1 when it has one output bucket (so that every reader of
    /// the format takes it), version 2 otherwise.
    pub fn to_bytes(&self) -> Vec<u8> {
        let buckets = self.buckets();
        let payload = self.payload();
        let version = if buckets == 1 { 1 } else { FORMAT_VERSION };
        let mut bytes = Vec::with_capacity(HEADER_LEN_V2 + payload.len());
        bytes.extend_from_slice(&MAGIC);
        for field in HeaderField::ALL {
            let value = match field {
                HeaderField::Version => version,
                HeaderField::Qb => self.qb() as u32,
                _ => field.expected(),
            };
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        if version >= 2 {
            bytes.extend_from_slice(&(buckets as u32).to_le_bytes());
        }
        bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// Everything after the header: the weights and biases in file order, which the header's
    /// hash covers.
    pub(super) fn payload(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(body_len(self.buckets()));
        let columns = self
            .feature_weights()
            .iter()
            .chain([self.feature_bias()])
            .chain(self.output_weights().as_flattened());
        for value in columns.flat_map(|c| c.0.iter()) {
            payload.extend_from_slice(&value.to_le_bytes());
        }
        for bias in self.output_biases() {
            payload.extend_from_slice(&bias.to_le_bytes());
        }
        payload
    }
}
