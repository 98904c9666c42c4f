//! NDN TLV primitives (NDN packet format v0.3, §1.1–1.2): VAR-NUMBER types and lengths, and
//! NonNegativeInteger values. Lengths are computed without encoding, so wire sizes cost no
//! allocation; `TlvWriter` appends the same bytes to a buffer.

/// Bytes a VAR-NUMBER takes: 1 below 253, else a marker byte and 2, 4 or 8 bytes.
pub const fn var_number_len(n: u64) -> usize {
    if n < 253 {
        1
    } else if n <= 0xffff {
        3
    } else if n <= 0xffff_ffff {
        5
    } else {
        9
    }
}

/// Which of the four NonNegativeInteger widths `n` takes: 0 for 1 byte, 1 for 2, 2 for 4, 3 for
/// 8. An index for what is kept per width (the encoded sizes of a name's segments).
pub const fn nonneg_width_class(n: u64) -> usize {
    nonneg_len(n).trailing_zeros() as usize
}

/// Bytes a NonNegativeInteger value takes: the shortest of 1, 2, 4 or 8.
pub const fn nonneg_len(n: u64) -> usize {
    if n <= 0xff {
        1
    } else if n <= 0xffff {
        2
    } else if n <= 0xffff_ffff {
        4
    } else {
        8
    }
}

/// Bytes a whole TLV takes (type, length and a value of `value_len` bytes).
pub const fn tlv_len(typ: u64, value_len: usize) -> usize {
    var_number_len(typ) + var_number_len(value_len as u64) + value_len
}

/// Appends TLV elements to a byte buffer; the caller writes nested elements by giving the
/// value length first (computed with `tlv_len`) and then the value's elements.
pub struct TlvWriter<'a> {
    pub buf: &'a mut Vec<u8>,
}

impl TlvWriter<'_> {
    pub fn var_number(&mut self, n: u64) {
        let b = n.to_be_bytes();
        match var_number_len(n) {
            1 => self.buf.push(b[7]),
            3 => {
                self.buf.push(253);
                self.buf.extend_from_slice(&b[6..]);
            }
            5 => {
                self.buf.push(254);
                self.buf.extend_from_slice(&b[4..]);
            }
            _ => {
                self.buf.push(255);
                self.buf.extend_from_slice(&b);
            }
        }
    }
    /// The type and length of an element whose value of `value_len` bytes follows.
    pub fn header(&mut self, typ: u64, value_len: usize) {
        self.var_number(typ);
        self.var_number(value_len as u64);
    }
    /// An element holding a NonNegativeInteger.
    pub fn nonneg(&mut self, typ: u64, v: u64) {
        let len = nonneg_len(v);
        self.header(typ, len);
        self.buf.extend_from_slice(&v.to_be_bytes()[8 - len..]);
    }
    /// An element holding a fixed-width 8-byte unsigned integer (NDNLPv2 Sequence, Ack,
    /// TxSequence).
    pub fn fixed_u64(&mut self, typ: u64, v: u64) {
        self.header(typ, 8);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    pub fn bytes(&mut self, typ: u64, value: &[u8]) {
        self.header(typ, value.len());
        self.buf.extend_from_slice(value);
    }
    /// An element of `len` zero bytes (simulated content).
    pub fn zeros(&mut self, typ: u64, len: usize) {
        self.header(typ, len);
        self.buf.resize(self.buf.len() + len, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(f: impl FnOnce(&mut TlvWriter)) -> Vec<u8> {
        let mut buf = Vec::new();
        f(&mut TlvWriter { buf: &mut buf });
        buf
    }

    #[test]
    fn var_numbers_use_the_shortest_form() {
        assert_eq!(encode(|w| w.var_number(252)), [252]);
        assert_eq!(encode(|w| w.var_number(253)), [253, 0, 253]);
        assert_eq!(encode(|w| w.var_number(0x0340)), [253, 3, 0x40]);
        assert_eq!(encode(|w| w.var_number(0x1_0000)), [254, 0, 1, 0, 0]);
        assert_eq!(encode(|w| w.var_number(1 << 32)), [255, 0, 0, 0, 1, 0, 0, 0, 0]);
        for n in [0, 252, 253, 0xffff, 0x1_0000, 0xffff_ffff, 1 << 32, u64::MAX] {
            assert_eq!(encode(|w| w.var_number(n)).len(), var_number_len(n), "{n}");
        }
    }

    #[test]
    fn nonneg_integers_take_1_2_4_or_8_bytes() {
        assert_eq!(encode(|w| w.nonneg(0x32, 7)), [0x32, 1, 7]);
        assert_eq!(encode(|w| w.nonneg(0x32, 256)), [0x32, 2, 1, 0]);
        assert_eq!(encode(|w| w.nonneg(0x32, 0x1_0000)), [0x32, 4, 0, 1, 0, 0]);
        assert_eq!(encode(|w| w.nonneg(0x32, 1 << 32)).len(), 10);
        for v in [0, 255, 256, 65_535, 65_536, u64::MAX] {
            assert_eq!(encode(|w| w.nonneg(8, v)).len(), tlv_len(8, nonneg_len(v)), "{v}");
        }
    }

    #[test]
    fn each_width_has_its_own_class() {
        let classes: Vec<usize> =
            [0, 0xff, 0x100, 0xffff, 0x1_0000, 0xffff_ffff, 1 << 32, u64::MAX].map(nonneg_width_class).to_vec();
        assert_eq!(classes, [0, 0, 1, 1, 2, 2, 3, 3]);
    }
}
