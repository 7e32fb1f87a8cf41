//! Tier payloads: fixed-width records in rank order, grouped in checksummed blocks.
//!
//! A record is the remoteness (1 or 2 bytes, little-endian), followed by the nim-value
//! (0, 1 or 2 bytes) when the solve has them. The outcome is not stored: it follows from the
//! remoteness's parity and the convention. Records are grouped in blocks of
//! [`BLOCK_RECORDS`]; each block has a CRC-32, so a lookup reads and verifies one block
//! (a few kilobytes) and never the whole tier.

/// Records per checksummed block.
pub const BLOCK_RECORDS: usize = 4096;

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
    /// Bytes per record.
    pub fn width(&self) -> usize {
        self.remoteness_bytes + self.nim_value_bytes
    }

    /// Bytes per full block.
    pub fn block_bytes(&self) -> usize {
        self.width() * self.block_records
    }

    /// Decodes the record at byte `offset` of `bytes`.
    pub fn decode(&self, bytes: &[u8], offset: usize) -> Record {
        let read = |at: usize, width: usize| match width {
            1 => bytes[at] as u16,
            2 => u16::from_le_bytes([bytes[at], bytes[at + 1]]),
            _ => 0,
        };
        Record {
            remoteness: read(offset, self.remoteness_bytes),
            nim_value: (self.nim_value_bytes > 0)
                .then(|| read(offset + self.remoteness_bytes, self.nim_value_bytes)),
        }
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

fn width_for(max: u16) -> usize {
    if max <= u8::MAX as u16 { 1 } else { 2 }
}

/// Encodes one tier's values: `remoteness` by rank and, when the solve has them,
/// `nim_values` by rank (the same length).
pub fn encode(remoteness: &[u16], nim_values: Option<&[u16]>) -> EncodedTier {
    let layout = RecordLayout {
        remoteness_bytes: width_for(remoteness.iter().copied().max().unwrap_or(0)),
        nim_value_bytes: nim_values.map_or(0, |v| width_for(v.iter().copied().max().unwrap_or(0))),
        block_records: BLOCK_RECORDS,
    };
    let mut payload = Vec::with_capacity(remoteness.len() * layout.width());
    let mut push = |v: u16, width: usize| match width {
        1 => payload.push(v as u8),
        2 => payload.extend_from_slice(&v.to_le_bytes()),
        _ => {}
    };
    for (i, &r) in remoteness.iter().enumerate() {
        push(r, layout.remoteness_bytes);
        if let Some(values) = nim_values {
            push(values[i], layout.nim_value_bytes);
        }
    }
    let block_checksums =
        payload.chunks(layout.block_bytes()).flat_map(|b| crc32fast::hash(b).to_le_bytes()).collect();
    let checksum = crc32fast::hash(&payload);
    EncodedTier { layout, payload, block_checksums, checksum }
}

/// Decodes a whole payload back into remoteness and nim-value arrays.
pub fn decode_all(layout: &RecordLayout, payload: &[u8]) -> (Vec<u16>, Option<Vec<u16>>) {
    let n = payload.len() / layout.width().max(1);
    let mut remoteness = Vec::with_capacity(n);
    let mut values = (layout.nim_value_bytes > 0).then(|| Vec::with_capacity(n));
    for i in 0..n {
        let rec = layout.decode(payload, i * layout.width());
        remoteness.push(rec.remoteness);
        if let (Some(v), Some(g)) = (values.as_mut(), rec.nim_value) {
            v.push(g);
        }
    }
    (remoteness, values)
}

/// The checksum stored for block `block`, from the packed list.
pub fn block_checksum(block_checksums: &[u8], block: usize) -> Option<u32> {
    let b = block_checksums.get(block * 4..block * 4 + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_width() {
        for (max_r, values) in [(200u16, None), (300, None), (9, Some(7u16)), (300, Some(400))] {
            let n: usize = 10_000;
            let remoteness: Vec<u16> = (0..n).map(|i| ((i * 7) % (max_r as usize + 1)) as u16).collect();
            let nim_values =
                values.map(|m| (0..n).map(|i| ((i * 3) % (m as usize + 1)) as u16).collect::<Vec<_>>());
            let enc = encode(&remoteness, nim_values.as_deref());
            assert_eq!(enc.block_checksums.len(), 4 * n.div_ceil(BLOCK_RECORDS));
            let (r, v) = decode_all(&enc.layout, &enc.payload);
            assert_eq!(r, remoteness);
            assert_eq!(v, nim_values);
        }
    }
}
