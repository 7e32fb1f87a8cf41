//! Tier payloads: fixed-width records in rank order, grouped in checksummed blocks.
//!
//! A record is the remoteness (1 or 2 bytes, little-endian), followed by the nim-value
//! (0, 1 or 2 bytes) when the solve has them. The outcome is not stored: it follows from the
//! remoteness's parity and the convention. Records are grouped in blocks of
//! [`BLOCK_RECORDS`]; each block has a CRC-32, so a lookup reads and verifies one block
//! (a few kilobytes) and never the whole tier.
//!
//! Since schema version 5 every checksum is *bound* to the tier's identity: the CRC-32 runs
//! over the identity text ([`identity_text`]: the solve key, the tier and the record layout)
//! before the bytes it checks, and a block's CRC also covers the block's index. A payload
//! moved to another tier, another solve or another block position fails its checksums.

use nimdb_core::index::TierId;

use super::key::SolveKey;

/// Records per checksummed block.
pub const BLOCK_RECORDS: usize = nimdb_core::footprint::BLOCK_RECORDS as usize;

/// Why stored tier bytes cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The record layout columns are out of range.
    #[error(
        "its record layout is invalid ({remoteness_bytes} remoteness bytes, {nim_value_bytes} nim-value bytes, {block_records} records a block)"
    )]
    Layout {
        /// Stored remoteness width.
        remoteness_bytes: i64,
        /// Stored nim-value width.
        nim_value_bytes: i64,
        /// Stored records per block.
        block_records: i64,
    },
    /// The payload is not as long as its positions need.
    #[error("its payload has {found} bytes, expected {expected}")]
    Length {
        /// Bytes found.
        found: usize,
        /// Bytes the positions need.
        expected: usize,
    },
    /// A block fails its checksum.
    #[error("block {0} fails its checksum")]
    Block(usize),
    /// The whole payload fails its checksum.
    #[error("the payload fails its checksum")]
    Payload,
    /// The checksums were never bound to the tier's identity.
    #[error(
        "its checksums are not bound to its identity (it failed its checksums when the database was upgraded)"
    )]
    Unbound,
    /// The row names a checksum scheme this nimdb does not know (a newer one's, or damage).
    #[error("its checksum scheme {0} is not one this nimdb knows (1 or 2)")]
    UnknownScheme(i64),
}

/// The layout of one tier's records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordLayout {
    /// Bytes of remoteness per record (1 or 2).
    pub remoteness_bytes: usize,
    /// Bytes of nim-value per record (0, 1 or 2).
    pub nim_value_bytes: usize,
    /// Records per block.
    pub block_records: usize,
}

impl RecordLayout {
    /// The layout stored in a tier row's columns, refused unless the widths are 1–2 and
    /// 0–2 bytes and blocks hold between 1 and 2^20 records.
    pub fn from_columns(
        remoteness_bytes: i64,
        nim_value_bytes: i64,
        block_records: i64,
    ) -> Result<RecordLayout, CodecError> {
        if !(1..=2).contains(&remoteness_bytes)
            || !(0..=2).contains(&nim_value_bytes)
            || !(1..=1 << 20).contains(&block_records)
        {
            return Err(CodecError::Layout { remoteness_bytes, nim_value_bytes, block_records });
        }
        Ok(RecordLayout {
            remoteness_bytes: remoteness_bytes as usize,
            nim_value_bytes: nim_value_bytes as usize,
            block_records: block_records as usize,
        })
    }

    /// Bytes per record.
    pub fn width(&self) -> usize {
        self.remoteness_bytes + self.nim_value_bytes
    }

    /// Bytes per full block.
    pub fn block_bytes(&self) -> usize {
        self.width() * self.block_records
    }

    /// Decodes the record at byte `offset` of `bytes`; `None` when the record does not lie
    /// wholly inside `bytes`.
    pub fn decode(&self, bytes: &[u8], offset: usize) -> Option<Record> {
        let record = bytes.get(offset..offset.checked_add(self.width())?)?;
        let read = |field: &[u8]| match *field {
            [b] => b as u16,
            [lo, hi] => u16::from_le_bytes([lo, hi]),
            _ => 0,
        };
        let (r, v) = record.split_at(self.remoteness_bytes.min(record.len()));
        Some(Record { remoteness: read(r), nim_value: (self.nim_value_bytes > 0).then(|| read(v)) })
    }
}

/// One position's stored values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Remoteness (the outcome follows from its parity and the convention).
    pub remoteness: u16,
    /// Nim-value, when the solve has them.
    pub nim_value: Option<u16>,
}

/// What a tier's checksums cover besides its bytes.
#[derive(Clone, Debug)]
pub enum Binding {
    /// Plain CRC-32s of the bytes (schema versions 1–4).
    Plain,
    /// CRC-32s that start with the tier's identity (schema version 5 on): the hasher holds
    /// the identity text already fed in.
    Bound(crc32fast::Hasher),
}

/// The identity text a bound checksum starts with: `nimdb-tier` and, each followed by
/// U+001F, the game, the convention, the heap cap and the heap-count cap (empty when
/// none), whether nim-values are stored (`0`/`1`), the tier's total and heap count, the
/// remoteness and nim-value widths and the records per block; then U+001E.
pub fn identity_text(key: &SolveKey, tier: TierId, layout: &RecordLayout) -> String {
    let cap = |c: Option<u32>| c.map_or(String::new(), |c| c.to_string());
    format!(
        "nimdb-tier\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1e}",
        key.game,
        key.convention.as_str(),
        cap(key.max_heap),
        cap(key.max_heaps),
        u8::from(key.nim_values),
        tier.total,
        tier.heaps,
        layout.remoteness_bytes,
        layout.nim_value_bytes,
        layout.block_records,
    )
}

impl Binding {
    /// The binding of `tier` of the solve `key`, stored with `layout`.
    pub fn bound(key: &SolveKey, tier: TierId, layout: &RecordLayout) -> Binding {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(identity_text(key, tier, layout).as_bytes());
        Binding::Bound(hasher)
    }

    /// The checksum of block number `index`, holding `bytes`. Bound: the CRC-32 of the
    /// identity text, the index as a little-endian `u32`, then the bytes.
    pub fn block(&self, index: usize, bytes: &[u8]) -> u32 {
        match self {
            Binding::Plain => crc32fast::hash(bytes),
            Binding::Bound(h) => {
                let mut h = h.clone();
                h.update(&(index as u32).to_le_bytes());
                h.update(bytes);
                h.finalize()
            }
        }
    }

    /// The checksum of a whole payload. Bound: the CRC-32 of the identity text, then the
    /// payload.
    pub fn payload(&self, payload: &[u8]) -> u32 {
        match self {
            Binding::Plain => crc32fast::hash(payload),
            Binding::Bound(h) => {
                let mut h = h.clone();
                h.update(payload);
                h.finalize()
            }
        }
    }

    /// A hasher that gives [`Binding::payload`] once fed the whole payload, in any pieces.
    pub fn payload_hasher(&self) -> crc32fast::Hasher {
        match self {
            Binding::Plain => crc32fast::Hasher::new(),
            Binding::Bound(h) => h.clone(),
        }
    }

    /// The packed block checksums of `payload` laid out as `layout`.
    pub fn block_checksums(&self, layout: &RecordLayout, payload: &[u8]) -> Vec<u8> {
        payload
            .chunks(layout.block_bytes().max(1))
            .enumerate()
            .flat_map(|(i, b)| self.block(i, b).to_le_bytes())
            .collect()
    }

    /// Checks block number `index` (holding `bytes`) against the packed checksums.
    pub fn check_block(&self, block_checksums: &[u8], index: usize, bytes: &[u8]) -> Result<(), CodecError> {
        if block_checksum(block_checksums, index) == Some(self.block(index, bytes)) {
            Ok(())
        } else {
            Err(CodecError::Block(index))
        }
    }
}

/// An encoded tier: payload, per-block checksums and whole-payload checksum.
pub struct EncodedTier {
    /// The record layout.
    pub layout: RecordLayout,
    /// The records.
    pub payload: Vec<u8>,
    /// CRC-32 of each block, little-endian, back to back.
    pub block_checksums: Vec<u8>,
    /// CRC-32 of the whole payload.
    pub checksum: u32,
}

pub(crate) fn width_for(max: u16) -> usize {
    if max <= u8::MAX as u16 { 1 } else { 2 }
}

/// Encodes one tier's values: `remoteness` by rank and, when the solve has them,
/// `nim_values` by rank (the same length), with checksums bound to `tier` of the solve
/// `key`.
pub fn encode(key: &SolveKey, tier: TierId, remoteness: &[u16], nim_values: Option<&[u16]>) -> EncodedTier {
    let (layout, payload) = encode_records(remoteness, nim_values);
    let binding = Binding::bound(key, tier, &layout);
    let block_checksums = binding.block_checksums(&layout, &payload);
    let checksum = binding.payload(&payload);
    EncodedTier { layout, payload, block_checksums, checksum }
}

/// The layout and the records of one tier's values, without checksums.
pub fn encode_records(remoteness: &[u16], nim_values: Option<&[u16]>) -> (RecordLayout, Vec<u8>) {
    let layout = RecordLayout {
        remoteness_bytes: width_for(remoteness.iter().copied().max().unwrap_or(0)),
        nim_value_bytes: nim_values.map_or(0, |v| width_for(v.iter().copied().max().unwrap_or(0))),
        block_records: BLOCK_RECORDS,
    };
    let Some(values) = nim_values else {
        // Remoteness alone: a plain narrowing (or little-endian) copy, which the compiler
        // turns into vector code; the general loop below, a record at a time, took a
        // quarter of the tier writer's own work on Nim 8×32.
        let payload = match layout.remoteness_bytes {
            1 => remoteness.iter().map(|&r| r as u8).collect(),
            _ => {
                let mut payload = vec![0u8; 2 * remoteness.len()];
                for (bytes, &r) in payload.chunks_exact_mut(2).zip(remoteness) {
                    bytes.copy_from_slice(&r.to_le_bytes());
                }
                payload
            }
        };
        return (layout, payload);
    };
    let mut payload = Vec::with_capacity(remoteness.len() * layout.width());
    let mut push = |v: u16, width: usize| match width {
        1 => payload.push(v as u8),
        2 => payload.extend_from_slice(&v.to_le_bytes()),
        _ => {}
    };
    for (i, &r) in remoteness.iter().enumerate() {
        push(r, layout.remoteness_bytes);
        push(values.get(i).copied().unwrap_or(0), layout.nim_value_bytes);
    }
    (layout, payload)
}

/// A tier's records encoded as its values arrive in parts, in rank order, for a writer
/// that never holds the whole tier: each [`PartEncoder::push`] returns the whole blocks
/// completed so far, and [`PartEncoder::finish`] the last (partial) block with the
/// checksums. The bytes and checksums are [`encode`]'s for the same values, however they
/// are split. Remoteness only (a solve with nim-values is encoded whole).
pub struct PartEncoder {
    layout: RecordLayout,
    binding: Binding,
    most: u16,
    /// Encoded records not yet in a whole block.
    carry: Vec<u8>,
    /// Whole blocks handed out so far.
    blocks: usize,
    /// Records pushed so far.
    records: u64,
    block_checksums: Vec<u8>,
    payload: crc32fast::Hasher,
}

/// What [`PartEncoder::finish`] leaves: the last bytes and the tier's checksums.
pub struct EncodedTail {
    /// The last, partial block's bytes (empty when the records fill whole blocks).
    pub bytes: Vec<u8>,
    /// CRC-32 of each block, little-endian, back to back.
    pub block_checksums: Vec<u8>,
    /// CRC-32 of the whole payload.
    pub checksum: u32,
    /// Records encoded in all.
    pub records: u64,
}

impl PartEncoder {
    /// An encoder of `tier` of the solve `key`, whose greatest remoteness is `most` (which
    /// fixes the record width, as [`encode`] would from the whole tier).
    pub fn new(key: &SolveKey, tier: TierId, most: u16) -> PartEncoder {
        let layout = RecordLayout {
            remoteness_bytes: width_for(most),
            nim_value_bytes: 0,
            block_records: BLOCK_RECORDS,
        };
        let binding = Binding::bound(key, tier, &layout);
        let payload = binding.payload_hasher();
        PartEncoder {
            layout,
            binding,
            most,
            carry: Vec::with_capacity(layout.block_bytes()),
            blocks: 0,
            records: 0,
            block_checksums: Vec::new(),
            payload,
        }
    }

    /// The layout the records take.
    pub fn layout(&self) -> RecordLayout {
        self.layout
    }

    /// Bytes handed out so far (by `push`): where the next bytes go in the payload.
    pub fn offset(&self) -> usize {
        self.blocks * self.layout.block_bytes()
    }

    /// Records pushed so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Encodes the next `remoteness` values and returns the whole blocks they complete
    /// (possibly none), to be written at [`PartEncoder::offset`] as it was before the
    /// call. An error names a value above the greatest remoteness the encoder was given.
    pub fn push(&mut self, remoteness: &[u16]) -> Result<Vec<u8>, u16> {
        if let Some(&v) = remoteness.iter().find(|&&v| v > self.most) {
            return Err(v);
        }
        let block_bytes = self.layout.block_bytes();
        let mut out = Vec::new();
        for &r in remoteness {
            match self.layout.remoteness_bytes {
                1 => self.carry.push(r as u8),
                _ => self.carry.extend_from_slice(&r.to_le_bytes()),
            }
            if self.carry.len() == block_bytes {
                self.seal_block();
                out.extend_from_slice(&self.carry);
                self.carry.clear();
            }
        }
        self.records += remoteness.len() as u64;
        Ok(out)
    }

    /// Adds the carried block's checksum and feeds it to the payload's.
    fn seal_block(&mut self) {
        let sum = self.binding.block(self.blocks, &self.carry);
        self.block_checksums.extend_from_slice(&sum.to_le_bytes());
        self.payload.update(&self.carry);
        self.blocks += 1;
    }

    /// Ends the tier: the last partial block (to be written at [`PartEncoder::offset`])
    /// and the checksums.
    pub fn finish(mut self) -> EncodedTail {
        if !self.carry.is_empty() {
            self.seal_block();
        }
        EncodedTail {
            bytes: self.carry,
            block_checksums: self.block_checksums,
            checksum: self.payload.finalize(),
            records: self.records,
        }
    }
}

/// Decodes a whole payload back into remoteness and nim-value arrays (a trailing partial
/// record is ignored; [`decode_tier`] refuses one).
pub fn decode_all(layout: &RecordLayout, payload: &[u8]) -> (Vec<u16>, Option<Vec<u16>>) {
    let n = payload.len() / layout.width().max(1);
    let mut remoteness = Vec::with_capacity(n);
    let mut values = (layout.nim_value_bytes > 0).then(|| Vec::with_capacity(n));
    for rec in (0..n).map_while(|i| layout.decode(payload, i * layout.width())) {
        remoteness.push(rec.remoteness);
        if let (Some(v), Some(g)) = (values.as_mut(), rec.nim_value) {
            v.push(g);
        }
    }
    (remoteness, values)
}

/// A stored tier's bytes, as read from its row.
pub struct StoredBytes<'a> {
    /// The record layout.
    pub layout: RecordLayout,
    /// Positions the tier holds.
    pub positions: u64,
    /// The payload.
    pub payload: &'a [u8],
    /// The packed block checksums.
    pub block_checksums: &'a [u8],
    /// The whole-payload checksum.
    pub checksum: i64,
}

/// Checks a whole stored tier (its length, every block and the payload checksum under
/// `binding`) and decodes it.
pub fn decode_tier(
    stored: &StoredBytes<'_>,
    binding: &Binding,
) -> Result<(Vec<u16>, Option<Vec<u16>>), CodecError> {
    check_tier(stored, binding)?;
    Ok(decode_all(&stored.layout, stored.payload))
}

/// Checks a whole stored tier: its length, every block and the payload checksum.
pub fn check_tier(stored: &StoredBytes<'_>, binding: &Binding) -> Result<(), CodecError> {
    let layout = &stored.layout;
    let expected = usize::try_from(stored.positions)
        .ok()
        .and_then(|p| p.checked_mul(layout.width()))
        .unwrap_or(usize::MAX);
    if stored.payload.len() != expected {
        return Err(CodecError::Length { found: stored.payload.len(), expected });
    }
    for (b, block) in stored.payload.chunks(layout.block_bytes().max(1)).enumerate() {
        binding.check_block(stored.block_checksums, b, block)?;
    }
    if i64::from(binding.payload(stored.payload)) != stored.checksum {
        return Err(CodecError::Payload);
    }
    Ok(())
}

/// The checksum stored for block `block`, from the packed list.
pub fn block_checksum(block_checksums: &[u8], block: usize) -> Option<u32> {
    let start = block.checked_mul(4)?;
    let b = block_checksums.get(start..start.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nimdb_core::game::Convention;

    fn key() -> SolveKey {
        SolveKey {
            game: "kayles".into(),
            convention: Convention::Misere,
            max_heap: None,
            max_heaps: Some(3),
            nim_values: false,
        }
    }

    #[test]
    fn round_trips_every_width() {
        let tier = TierId { total: 9, heaps: 2 };
        for (max_r, values) in [(200u16, None), (300, None), (9, Some(7u16)), (300, Some(400))] {
            let n: usize = 10_000;
            let remoteness: Vec<u16> = (0..n).map(|i| ((i * 7) % (max_r as usize + 1)) as u16).collect();
            let nim_values =
                values.map(|m| (0..n).map(|i| ((i * 3) % (m as usize + 1)) as u16).collect::<Vec<_>>());
            let enc = encode(&key(), tier, &remoteness, nim_values.as_deref());
            assert_eq!(enc.block_checksums.len(), 4 * n.div_ceil(BLOCK_RECORDS));
            let stored = StoredBytes {
                layout: enc.layout,
                positions: n as u64,
                payload: &enc.payload,
                block_checksums: &enc.block_checksums,
                checksum: enc.checksum as i64,
            };
            let binding = Binding::bound(&key(), tier, &enc.layout);
            let (r, v) = decode_tier(&stored, &binding).unwrap();
            assert_eq!(r, remoteness);
            assert_eq!(v, nim_values);
            // Another tier, another key or plain CRCs: every block fails.
            let other = Binding::bound(&key(), TierId { total: 9, heaps: 3 }, &enc.layout);
            assert_eq!(decode_tier(&stored, &other), Err(CodecError::Block(0)));
            let other_key = SolveKey { convention: Convention::Normal, ..key() };
            let other = Binding::bound(&other_key, tier, &enc.layout);
            assert_eq!(decode_tier(&stored, &other), Err(CodecError::Block(0)));
            assert_eq!(decode_tier(&stored, &Binding::Plain), Err(CodecError::Block(0)));
        }
    }

    #[test]
    fn a_tier_encoded_in_parts_is_the_tier_encoded_whole() {
        let tier = TierId { total: 12, heaps: 3 };
        for (n, max_r) in
            [(0usize, 0u16), (1, 3), (4095, 200), (4096, 255), (3 * 4096 + 17, 256), (20_000, 700)]
        {
            let remoteness: Vec<u16> =
                (0..n).map(|i| ((i * 13 + i / 7) % (max_r as usize + 1)) as u16).collect();
            let whole = encode(&key(), tier, &remoteness, None);
            for part in [1usize, 7, 4096, 5000, n.max(1)] {
                let mut enc = PartEncoder::new(&key(), tier, max_r);
                assert_eq!(enc.layout(), whole.layout);
                let mut payload = Vec::new();
                for chunk in remoteness.chunks(part) {
                    assert_eq!(enc.offset(), payload.len());
                    payload.extend(enc.push(chunk).unwrap());
                }
                assert_eq!(enc.offset(), payload.len());
                let tail = enc.finish();
                payload.extend(tail.bytes);
                assert_eq!(payload, whole.payload, "{n} values in parts of {part}");
                assert_eq!(tail.block_checksums, whole.block_checksums);
                assert_eq!(tail.checksum, whole.checksum);
                assert_eq!(tail.records, n as u64);
            }
        }
        // A value above the greatest given is refused, not cut to a byte.
        let mut enc = PartEncoder::new(&key(), tier, 255);
        assert_eq!(enc.push(&[1, 256, 2]), Err(256));
    }

    #[test]
    fn swapped_blocks_fail() {
        let tier = TierId { total: 30, heaps: 4 };
        let remoteness: Vec<u16> = (0..2 * BLOCK_RECORDS as u16).map(|i| i % 4).collect();
        let enc = encode(&key(), tier, &remoteness, None);
        let binding = Binding::bound(&key(), tier, &enc.layout);
        let (a, b) = enc.payload.split_at(BLOCK_RECORDS);
        assert_eq!(a, b, "two equal blocks");
        // Equal bytes in two places still have different checksums: the index is covered.
        assert_ne!(binding.block(0, a), binding.block(1, b));
    }

    #[test]
    fn layouts_out_of_range_are_refused() {
        assert!(RecordLayout::from_columns(1, 0, 4096).is_ok());
        for (r, v, b) in [(0, 0, 4096), (3, 0, 4096), (1, 3, 4096), (1, -1, 4096), (1, 0, 0), (2, 2, 1 << 21)]
        {
            assert!(RecordLayout::from_columns(r, v, b).is_err(), "{r} {v} {b}");
        }
    }
}
