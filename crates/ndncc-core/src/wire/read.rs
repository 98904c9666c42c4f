//! Reading NDN TLV (NDN packet format v0.3, §1.1–1.3): the inverse of `tlv.rs`. Every read is
//! checked against the bytes there are, so no input can make it panic or read past its end.

use std::fmt;

/// Why bytes are not a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError(pub String);

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WireError {}

pub(crate) fn bad<T>(why: impl Into<String>) -> Result<T, WireError> {
    Err(WireError(why.into()))
}

/// A VAR-NUMBER at the start of `b`: its value and the bytes it took; `None` when `b` ends
/// inside it.
pub fn var_number(b: &[u8]) -> Option<(u64, usize)> {
    let first = *b.first()?;
    let width = match first {
        253 => 2,
        254 => 4,
        255 => 8,
        x => return Some((u64::from(x), 1)),
    };
    let bytes = b.get(1..1 + width)?;
    let mut be = [0u8; 8];
    be[8 - width..].copy_from_slice(bytes);
    Some((u64::from_be_bytes(be), 1 + width))
}

/// The type and length of the TLV at the start of `b`, and the bytes they took (so the value
/// starts there); `None` when `b` ends inside them. The value may still be incomplete.
pub fn header(b: &[u8]) -> Option<(u64, u64, usize)> {
    let (typ, n) = var_number(b)?;
    let (len, m) = var_number(b.get(n..)?)?;
    Some((typ, len, n + m))
}

/// A NonNegativeInteger value (1, 2, 4 or 8 bytes).
pub fn nonneg(value: &[u8]) -> Result<u64, WireError> {
    if ![1, 2, 4, 8].contains(&value.len()) {
        return bad(format!("a NonNegativeInteger of {} bytes", value.len()));
    }
    let mut be = [0u8; 8];
    be[8 - value.len()..].copy_from_slice(value);
    Ok(u64::from_be_bytes(be))
}

/// A TLV-TYPE a reader that does not know it must refuse rather than skip: below 32, or odd
/// (NDN packet format v0.3, §1.3).
pub fn is_critical(typ: u64) -> bool {
    typ < 32 || typ % 2 == 1
}

/// One element: its type, its value, and its whole bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element<'a> {
    pub typ: u64,
    pub value: &'a [u8],
    pub whole: &'a [u8],
}

/// The elements of a TLV value, one after another.
pub struct Elements<'a> {
    rest: &'a [u8],
}

impl<'a> Elements<'a> {
    pub fn new(value: &'a [u8]) -> Elements<'a> {
        Elements { rest: value }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Result<Element<'a>, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let b = self.rest;
        let item = element(b).map(|(e, used)| {
            self.rest = &b[used..];
            e
        });
        if item.is_err() {
            self.rest = &[];
        }
        Some(item)
    }
}

/// The element at the start of `b` and the bytes it takes.
pub fn element(b: &[u8]) -> Result<(Element<'_>, usize), WireError> {
    let Some((typ, len, at)) = header(b) else { return bad("a TLV cut short in its type or length") };
    let end = usize::try_from(len).ok().and_then(|l| at.checked_add(l)).filter(|&e| e <= b.len());
    let Some(end) = end else { return bad(format!("a TLV of type {typ} longer than the bytes holding it")) };
    Ok((Element { typ, value: &b[at..end], whole: &b[..end] }, end))
}

/// The single element `b` holds, which must fill it exactly.
pub fn whole(b: &[u8]) -> Result<Element<'_>, WireError> {
    let (e, used) = element(b)?;
    if used != b.len() {
        return bad(format!("{} bytes after a packet of type {}", b.len() - used, e.typ));
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::tlv::TlvWriter;
    use proptest::prelude::*;

    proptest! {
        /// Reading undoes writing, for every number.
        #[test]
        fn var_numbers_read_back(n in any::<u64>()) {
            let mut buf = Vec::new();
            TlvWriter { buf: &mut buf }.var_number(n);
            prop_assert_eq!(var_number(&buf), Some((n, buf.len())));
            prop_assert_eq!(var_number(&buf[..buf.len() - 1]), None);
        }

        #[test]
        fn no_bytes_make_the_reader_panic(b in proptest::collection::vec(any::<u8>(), 0..64)) {
            for e in Elements::new(&b) {
                if e.is_err() { break; }
            }
            let _ = whole(&b);
        }
    }

    #[test]
    fn lengths_past_the_end_are_refused() {
        assert!(element(&[7, 5, 1, 2]).is_err());
        assert!(element(&[7, 255, 255, 255, 255, 255, 255, 255, 255, 255]).is_err());
        assert_eq!(element(&[7, 2, 1, 2, 9]).map(|(e, n)| (e.value.to_vec(), n)), Ok((vec![1, 2], 4)));
        assert!(whole(&[7, 2, 1, 2, 9]).is_err());
    }

    #[test]
    fn nonneg_integers_take_only_their_four_widths() {
        assert_eq!(nonneg(&[1, 0]), Ok(256));
        assert!(nonneg(&[1, 0, 0]).is_err());
        assert!(nonneg(&[]).is_err());
    }
}
