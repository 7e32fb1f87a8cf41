//! A quotient packed as bytes, as the database keeps it: the multiplication table as the
//! action of a few generators, from which every product is rebuilt.
//!
//! Every element of a quotient is a product of heap images, so a handful of them generate
//! the monoid (the atlas's largest partial quotients, of 300 to 700 elements, need 7 to 13).
//! With generators g₁…g_k the table is determined by the action x ↦ x·gⱼ: the element
//! reached first as y = x·gⱼ by a breadth-first walk from the identity has row
//! z·y = (z·x)·gⱼ. So the bytes hold |Q|·k numbers instead of |Q|², and the option images of
//! each heap, which follow from the code, are not stored at all.
//!
//! The layout (all integers little-endian; an element is a `u16` when |Q| ≤ 65,536, else a
//! `u32`; see docs/FORMAT.md):
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | `NQP1` |
//! | 1 | bytes per element: 2 or 4 |
//! | 1 | flags: 1 tame, 2 a period certificate follows, 4 an apparent period follows |
//! | 1 + c | the code's length c, then the code as written (`0.77`) |
//! | 4 | \|Q\| |
//! | 8 | states walked by the closure check |
//! | 21 | certificate (flag 2): rule (0 Plambeck–Siegel, 1 window), k, period, from, to, needs |
//! | 8 | apparent period and preperiod (flag 4) |
//! | 4 + (n+1)·e | n + 1, then Φ(H₀) … Φ(Hₙ) |
//! | ⌈\|Q\|/8⌉ | the P marks, element x in bit x mod 8 of byte x div 8 |
//! | 4 + k·e | k, then the generators |
//! | \|Q\|·k·e | x·gⱼ for each element x, then each j |
//!
//! Nothing more may follow. The bytes carry no checksum of their own: the row that holds
//! them is checksummed whole.

use super::certify::{ClosureCheck, PeriodCertificate, PeriodRule};
use super::monoid::BipartiteMonoid;
use super::{Quotient, QuotientData};

/// The first bytes of a packed quotient (and the format's version).
pub const PACKED_MAGIC: &[u8; 4] = b"NQP1";

/// Why bytes are not a packed quotient.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum PackedError {
    /// The bytes do not start with [`PACKED_MAGIC`].
    #[error("not a packed quotient (no NQP1 header)")]
    Magic,
    /// The bytes end before the layout does, or go on after it.
    #[error("the packed quotient is {0}")]
    Length(&'static str),
    /// The numbers do not make a quotient.
    #[error("the packed quotient does not hold together: {0}")]
    Invalid(String),
}

const TAME: u8 = 1;
const CERTIFIED: u8 = 2;
const APPARENT: u8 = 4;

impl Quotient {
    /// The quotient as bytes ([`packed`](self)): generators chosen among the heap images in
    /// heap order (then among the other elements, should any be left out), each only when
    /// the earlier ones do not generate it.
    pub fn pack(&self) -> Vec<u8> {
        let m = &self.monoid;
        let size = m.size();
        let gens = generators(m, &self.heap_images);
        let wide = size > 1 << 16;
        let mut out = Vec::with_capacity(64 + (self.heap_images.len() + size * gens.len()) * 4);
        out.extend_from_slice(PACKED_MAGIC);
        out.push(if wide { 4 } else { 2 });
        let flags = if self.tame { TAME } else { 0 }
            | if self.certificate.is_some() { CERTIFIED } else { 0 }
            | if self.apparent.is_some() { APPARENT } else { 0 };
        out.push(flags);
        let code = self.code.to_string();
        out.push(u8::try_from(code.len()).expect("an octal code is short"));
        out.extend_from_slice(code.as_bytes());
        out.extend_from_slice(&(size as u32).to_le_bytes());
        out.extend_from_slice(&(self.check.states as u64).to_le_bytes());
        if let Some(c) = self.certificate {
            let (rule, k) = match c.rule {
                PeriodRule::PlambeckSiegel { k } => (0u8, k),
                PeriodRule::Window { k } => (1, k),
            };
            out.push(rule);
            for v in [k, c.period, c.from, c.to, c.needs] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        if let Some((period, from)) = self.apparent {
            out.extend_from_slice(&period.to_le_bytes());
            out.extend_from_slice(&from.to_le_bytes());
        }
        let element = |out: &mut Vec<u8>, x: u32| {
            if wide {
                out.extend_from_slice(&x.to_le_bytes());
            } else {
                out.extend_from_slice(&(x as u16).to_le_bytes());
            }
        };
        out.extend_from_slice(&(self.heap_images.len() as u32).to_le_bytes());
        for &x in &self.heap_images {
            element(&mut out, x);
        }
        let mut marks = vec![0u8; size.div_ceil(8)];
        for (x, &p) in m.p_marks().iter().enumerate() {
            if p {
                marks[x / 8] |= 1 << (x % 8);
            }
        }
        out.extend_from_slice(&marks);
        out.extend_from_slice(&(gens.len() as u32).to_le_bytes());
        for &g in &gens {
            element(&mut out, g);
        }
        for x in 0..size as u32 {
            for &g in &gens {
                element(&mut out, m.mul(x, g));
            }
        }
        out
    }

    /// Reads back [`Quotient::pack`]'s bytes: the table rebuilt from the generators' action
    /// (checked against it, and for an identity and commutativity), the option images
    /// re-derived from the code. The closure check is not run again.
    pub fn unpack(bytes: &[u8]) -> Result<Quotient, PackedError> {
        let mut r = Bytes { rest: bytes };
        if r.take(4)? != PACKED_MAGIC {
            return Err(PackedError::Magic);
        }
        let width = r.u8()?;
        if width != 2 && width != 4 {
            return Err(PackedError::Invalid(format!("{width} bytes per element")));
        }
        let flags = r.u8()?;
        if flags & !(TAME | CERTIFIED | APPARENT) != 0 {
            return Err(PackedError::Invalid(format!("unknown flags {flags:#x}")));
        }
        let len = r.u8()? as usize;
        let code = std::str::from_utf8(r.take(len)?)
            .map_err(|_| PackedError::Invalid("the code is not text".into()))?
            .to_string();
        let size = r.u32()? as usize;
        if size == 0 || (width == 2 && size > 1 << 16) {
            return Err(PackedError::Invalid(format!("{size} elements in {width} bytes each")));
        }
        let check_states = r.u64()? as usize;
        let certificate = if flags & CERTIFIED != 0 {
            let rule = r.u8()?;
            let [k, period, from, to, needs] = [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
            let rule = match rule {
                0 => PeriodRule::PlambeckSiegel { k },
                1 => PeriodRule::Window { k },
                other => return Err(PackedError::Invalid(format!("period rule {other}"))),
            };
            Some(PeriodCertificate { rule, period, from, to, needs })
        } else {
            None
        };
        let apparent = if flags & APPARENT != 0 { Some((r.u32()?, r.u32()?)) } else { None };
        let element = |r: &mut Bytes<'_>| -> Result<u32, PackedError> {
            let x = if width == 2 { r.u16()? as u32 } else { r.u32()? };
            if x as usize >= size {
                return Err(PackedError::Invalid(format!("element {x} of a quotient of {size}")));
            }
            Ok(x)
        };
        let heaps = r.u32()? as usize;
        if heaps == 0 || heaps > r.rest.len() / width as usize {
            return Err(PackedError::Length("shorter than its heap images"));
        }
        let heap_images = (0..heaps).map(|_| element(&mut r)).collect::<Result<Vec<_>, _>>()?;
        let marks = r.take(size.div_ceil(8))?;
        let p: Vec<bool> = (0..size).map(|x| marks[x / 8] & (1 << (x % 8)) != 0).collect();
        let k = r.u32()? as usize;
        if k > size || r.rest.len() != (k + size * k) * width as usize {
            return Err(PackedError::Length("not the length its generators and elements make"));
        }
        let gens = (0..k).map(|_| element(&mut r)).collect::<Result<Vec<_>, _>>()?;
        let action = (0..size * k).map(|_| element(&mut r)).collect::<Result<Vec<_>, _>>()?;
        let table = rebuild(size, &gens, &action)?;
        let data = QuotientData {
            code,
            size,
            table,
            p,
            heap_options: vec![Vec::new(); heap_images.len()],
            heap_images,
            certificate,
            apparent,
            check_states,
            tame: flags & TAME != 0,
        };
        let mut q = Quotient::from_data(data).map_err(|e| PackedError::Invalid(e.to_string()))?;
        q.heap_options = super::compute::option_images(&q.code, &q.monoid, &q.heap_images);
        q.check = ClosureCheck { states: check_states };
        Ok(q)
    }
}

/// Generators of `m`: heap images in heap order, then any other element, each taken when
/// the ones before do not generate it.
fn generators(m: &BipartiteMonoid, heap_images: &[u32]) -> Vec<u32> {
    let size = m.size();
    let mut inside = vec![false; size];
    inside[0] = true;
    let mut members = vec![0u32];
    let mut gens: Vec<u32> = Vec::new();
    for x in heap_images.iter().copied().chain(0..size as u32) {
        if inside[x as usize] {
            continue;
        }
        gens.push(x);
        // The closure of the members under every generator so far.
        let mut i = 0;
        while i < members.len() {
            let y = members[i];
            for &g in &gens {
                let z = m.mul(y, g);
                if !inside[z as usize] {
                    inside[z as usize] = true;
                    members.push(z);
                }
            }
            i += 1;
        }
    }
    gens
}

/// The table of the monoid whose generators `gens` act by `action` (row x: x·g₁ … x·g_k):
/// each element's column from the column of the element it was first reached from.
fn rebuild(size: usize, gens: &[u32], action: &[u32]) -> Result<Vec<u32>, PackedError> {
    let k = gens.len();
    let mut parent: Vec<Option<(u32, usize)>> = vec![None; size];
    let mut order = vec![0u32];
    let mut reached = vec![false; size];
    reached[0] = true;
    let mut i = 0;
    while i < order.len() {
        let x = order[i];
        for j in 0..k {
            let y = action[x as usize * k + j];
            if !reached[y as usize] {
                reached[y as usize] = true;
                parent[y as usize] = Some((x, j));
                order.push(y);
            }
        }
        i += 1;
    }
    if order.len() != size {
        return Err(PackedError::Invalid(format!(
            "the generators reach {} of the {size} elements",
            order.len()
        )));
    }
    let mut table = vec![0u32; size * size];
    for (z, cell) in table.iter_mut().step_by(size).enumerate() {
        *cell = z as u32;
    }
    for &y in &order[1..] {
        let (x, j) = parent[y as usize].expect("every element but the identity has a parent");
        for z in 0..size {
            let zx = table[z * size + x as usize];
            table[z * size + y as usize] = action[zx as usize * k + j];
        }
    }
    // Every product with a generator, including those the walk did not use, read from the
    // rebuilt rows: gⱼ·z must be z·gⱼ.
    for (j, &g) in gens.iter().enumerate() {
        if (0..size).any(|z| table[g as usize * size + z] != action[z * k + j]) {
            return Err(PackedError::Invalid(format!("the table does not give generator {g}'s action")));
        }
    }
    Ok(table)
}

/// A cursor over the bytes.
struct Bytes<'a> {
    rest: &'a [u8],
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], PackedError> {
        if self.rest.len() < n {
            return Err(PackedError::Length("cut short"));
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, PackedError> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, PackedError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("two bytes")))
    }

    fn u32(&mut self) -> Result<u32, PackedError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("four bytes")))
    }

    fn u64(&mut self) -> Result<u64, PackedError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("eight bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quotient::{Limits, QuotientBuilder, QuotientOptions, compute_quotient};

    fn code(s: &str) -> crate::game::TakeBreakCode {
        let spec: crate::game::GameSpec = format!("octal:{s}").parse().unwrap();
        spec.octal().unwrap().clone()
    }

    /// Certified quotients (Kayles, 0.75, 0.123, 0.3) and partial ones (Dawson's Kayles to
    /// heaps 25 and 33: 144 and 638 elements) read back as they were, option images and all.
    #[test]
    fn quotients_read_back_as_they_were() {
        let mut qs: Vec<Quotient> = ["0.77", "0.75", "0.123", "0.3"]
            .iter()
            .map(|c| compute_quotient(&code(c), QuotientOptions::default(), &mut |_, _| true).unwrap())
            .collect();
        for heaps in [25, 33] {
            let mut b = QuotientBuilder::new(&code("0.07"), Limits::default());
            while b.max_heap() < heaps {
                b.add_heap().unwrap();
            }
            qs.push(crate::quotient::reached(&b));
        }
        for q in &qs {
            let bytes = q.pack();
            let back = Quotient::unpack(&bytes).unwrap();
            assert_eq!(back.to_data(), q.to_data(), "{}", q.code);
            assert_eq!(back.max_heap, q.max_heap);
            // Far fewer bytes than the table's |Q|² entries.
            assert!(
                bytes.len() < 64 + 2 * q.heap_images.len() + 2 * q.size() * 16,
                "{}: {}",
                q.code,
                bytes.len()
            );
        }
        let dawson = qs.last().unwrap();
        assert_eq!(dawson.size(), 638);
    }

    #[test]
    fn damaged_bytes_are_refused() {
        let q = compute_quotient(&code("0.77"), QuotientOptions::default(), &mut |_, _| true).unwrap();
        let bytes = q.pack();
        assert_eq!(Quotient::unpack(b"JSON").unwrap_err(), PackedError::Magic);
        for cut in [5, 20, bytes.len() - 1] {
            assert!(matches!(Quotient::unpack(&bytes[..cut]), Err(PackedError::Length(_))), "{cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(Quotient::unpack(&longer), Err(PackedError::Length(_))));
        // The last action entry (x·g_k of the last element) pointed elsewhere: the table no
        // longer matches the generators' action, or loses commutativity.
        let mut moved = bytes.clone();
        let n = moved.len();
        moved[n - 2] ^= 1;
        assert!(
            matches!(Quotient::unpack(&moved), Err(PackedError::Invalid(_))),
            "{:?}",
            Quotient::unpack(&moved)
        );
        // An element past |Q|.
        let mut big = bytes.clone();
        big[n - 1] = 0xff;
        assert!(matches!(Quotient::unpack(&big), Err(PackedError::Invalid(_))));
    }
}
