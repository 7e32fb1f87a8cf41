//! Offers and child requests as they travel between the members of a partitioned solve:
//! packed in one word each ([`pack`]), sorted ([`sort_words`], [`sort_pairs`]) so that each
//! cell is sent once, and coded as deltas ([`encode_words`]) in about 2–3 bytes a word.

/// The most positions a member's block may hold: offers and requests address a cell of
/// a block in 32 bits.
pub const MAX_BLOCK: u64 = u32::MAX as u64;

/// Packs an offer or a request: a tag (16 bits), a cell of the owner's block (32 bits) and
/// a value (16 bits).
#[inline]
pub(crate) fn pack(tag: u32, cell: u64, value: u16) -> u64 {
    debug_assert!(tag <= u16::MAX as u32 && cell <= MAX_BLOCK);
    (tag as u64) << 48 | cell << 16 | value as u64
}

#[inline]
pub(crate) fn unpack(x: u64) -> (u32, usize, u16) {
    ((x >> 48) as u32, ((x >> 16) & MAX_BLOCK) as usize, x as u16)
}

/// The address part of a packed offer or request (tag and cell, 48 bits).
const ADDRESS: u64 = (1 << 48) - 1;

/// Appends `x` to `out` as a LEB128 varint: 7 bits a byte, low bits first.
#[inline]
fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Reads a varint of at most `bits` bits from `bytes` at `*at`.
#[inline]
fn get_varint(bytes: &[u8], at: &mut usize, bits: u32) -> Result<u64, String> {
    let mut x = 0u64;
    let mut shift = 0;
    loop {
        let &byte = bytes.get(*at).ok_or("a batch of offers ends inside a number")?;
        *at += 1;
        x |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift >= bits {
            return Err("a number in a batch of offers is too long".into());
        }
    }
    if bits < 64 && x >> bits != 0 {
        return Err("a number in a batch of offers is too large".into());
    }
    Ok(x)
}

/// Encodes packed offers or requests for the wire: each word's address (its tag and cell,
/// 48 bits) as the varint of its difference from the previous word's (modulo 2⁴⁸), then
/// its value as a varint. Any order decodes; sorted words (as the solver sends them) cost
/// about 2–3 bytes each instead of 8, since neighbouring addresses are close and values
/// small.
pub fn encode_words(words: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(words.len() * 3);
    let mut last = 0u64;
    for &x in words {
        let address = x >> 16;
        put_varint(&mut out, address.wrapping_sub(last) & ADDRESS);
        put_varint(&mut out, x & 0xffff);
        last = address;
    }
    out
}

/// Decodes what [`encode_words`] made.
pub fn decode_words(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let mut words = Vec::with_capacity(bytes.len() / 2);
    let (mut at, mut last) = (0, 0u64);
    while at < bytes.len() {
        let address = (last + get_varint(bytes, &mut at, 48)?) & ADDRESS;
        let value = get_varint(bytes, &mut at, 16)?;
        words.push(address << 16 | value);
        last = address;
    }
    Ok(words)
}

/// Sorts `words` in increasing order: a least-significant-digit radix sort, a byte a pass,
/// that skips the bytes on which every word agrees (in a batch of offers the tags, the high
/// bytes of the cells and of the values mostly do), so a batch costs a few linear passes
/// instead of a comparison sort's `log n`.
pub fn sort_words(words: &mut Vec<u64>) {
    radix_sort(words, |&w| w);
}

/// Sorts `pairs` by their first element (the order among equal first elements is kept).
pub fn sort_pairs(pairs: &mut Vec<(u64, u32)>) {
    radix_sort(pairs, |&(w, _)| w);
}

/// Below this many items a comparison sort is as quick.
const RADIX_FROM: usize = 256;

fn radix_sort<T: Copy + Default>(items: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    if items.len() < RADIX_FROM {
        items.sort_by_key(&key);
        return;
    }
    // Every byte's histogram in one pass.
    let mut counts = vec![[0usize; 256]; 8];
    for item in items.iter() {
        let k = key(item);
        for (byte, count) in counts.iter_mut().enumerate() {
            count[(k >> (8 * byte)) as usize & 0xff] += 1;
        }
    }
    let mut scratch = vec![T::default(); items.len()];
    for (byte, count) in counts.iter().enumerate() {
        if count.contains(&items.len()) {
            // Every item has the same byte here: this pass would not move anything.
            continue;
        }
        let mut at = [0usize; 256];
        let mut sum = 0;
        for (slot, &c) in at.iter_mut().zip(count.iter()) {
            *slot = sum;
            sum += c;
        }
        for item in items.iter() {
            let b = (key(item) >> (8 * byte)) as usize & 0xff;
            scratch[at[b]] = *item;
            at[b] += 1;
        }
        std::mem::swap(items, &mut scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_encode_and_decode_in_any_order() {
        let extreme = [u64::MAX, 0, pack(65_535, MAX_BLOCK, 0), 1, u64::MAX - 1, pack(3, 17, 9)];
        let mut sorted: Vec<u64> =
            (0..5000u64).map(|i| pack((i / 1000) as u32, i * 7 % 1000, (i % 100) as u16)).collect();
        sorted.sort_unstable();
        for words in [&extreme[..], &sorted[..], &[][..]] {
            assert_eq!(decode_words(&encode_words(words)).unwrap(), words);
        }
        // Sorted, close addresses and small values: two bytes a word.
        assert!(encode_words(&sorted).len() < 2 * sorted.len() + 64);
        // A truncated batch is refused, not misread.
        let bytes = encode_words(&extreme);
        assert!(decode_words(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_words(&[0x80; 12]).is_err());
    }

    #[test]
    fn offers_pack_and_unpack() {
        for (tag, cell, value) in [(0, 0, 0), (65_535, MAX_BLOCK, u16::MAX), (7, 123_456_789, 300)] {
            assert_eq!(unpack(pack(tag, cell, value)), (tag, cell as usize, value));
        }
    }

    #[test]
    fn radix_sorts_agree_with_the_standard_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (n, mask) in [
            (0usize, u64::MAX),
            (5, u64::MAX),
            (300, 0xff),
            (5000, u64::MAX),
            (20_000, 0x00ff_0000_ffff_00ff),
        ] {
            let words: Vec<u64> = (0..n).map(|_| next() & mask).collect();
            let mut radix = words.clone();
            sort_words(&mut radix);
            let mut plain = words.clone();
            plain.sort_unstable();
            assert_eq!(radix, plain, "{n} words under {mask:x}");
            let pairs: Vec<(u64, u32)> =
                words.iter().enumerate().map(|(i, &w)| (w & 0xffff, i as u32)).collect();
            let mut radix = pairs.clone();
            sort_pairs(&mut radix);
            let mut stable = pairs.clone();
            stable.sort_by_key(|p| p.0);
            assert_eq!(radix, stable, "{n} pairs");
        }
    }
}
