//! A pcapng writer (IETF draft "PCAP Next Generation Dump File Format"): one section header,
//! interface description blocks, enhanced packet blocks. Little-endian, nanosecond timestamps
//! (`if_tsresol` = 9), Ethernet link type. Blocks are written straight into the output with no
//! allocation per packet.

use std::io::{self, Write};

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 0x0000_0001;
const EPB: u32 = 0x0000_0006;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
const LINKTYPE_ETHERNET: u16 = 1;
const OPT_ENDOFOPT: u16 = 0;
const OPT_COMMENT: u16 = 1;
const SHB_USERAPPL: u16 = 4;
const IF_NAME: u16 = 2;
const IF_DESCRIPTION: u16 = 3;
const IF_TSRESOL: u16 = 9;
const EPB_FLAGS: u16 = 2;
/// epb_flags: outbound direction.
const FLAG_OUTBOUND: u32 = 0b10;

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// Bytes an option with a value of `len` bytes takes.
fn option_len(len: usize) -> usize {
    4 + len + pad4(len)
}

fn u32_len(n: usize) -> io::Result<u32> {
    u32::try_from(n).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "pcapng block too large"))
}

pub struct PcapNgWriter<W: Write> {
    out: W,
    interfaces: u32,
}

impl<W: Write> PcapNgWriter<W> {
    /// Start a file: the section header names the writing application and carries `comment`.
    pub fn new(mut out: W, application: &str, comment: &str) -> io::Result<Self> {
        let body = 16 + option_len(application.len()) + option_len(comment.len()) + 4;
        let total = u32_len(body + 12)?;
        out.write_all(&SHB.to_le_bytes())?;
        out.write_all(&total.to_le_bytes())?;
        out.write_all(&BYTE_ORDER_MAGIC.to_le_bytes())?;
        out.write_all(&1u16.to_le_bytes())?; // version 1.0
        out.write_all(&0u16.to_le_bytes())?;
        out.write_all(&(-1i64).to_le_bytes())?; // section length: unknown
        write_option(&mut out, SHB_USERAPPL, application.as_bytes())?;
        write_option(&mut out, OPT_COMMENT, comment.as_bytes())?;
        write_option(&mut out, OPT_ENDOFOPT, &[])?;
        out.write_all(&total.to_le_bytes())?;
        Ok(PcapNgWriter { out, interfaces: 0 })
    }

    /// Describe the next interface; returns its id (0, 1, …).
    pub fn interface(&mut self, name: &str, description: &str, snaplen: u32) -> io::Result<u32> {
        let body = 8 + option_len(name.len()) + option_len(description.len()) + option_len(1) + 4;
        let total = u32_len(body + 12)?;
        let out = &mut self.out;
        out.write_all(&IDB.to_le_bytes())?;
        out.write_all(&total.to_le_bytes())?;
        out.write_all(&LINKTYPE_ETHERNET.to_le_bytes())?;
        out.write_all(&0u16.to_le_bytes())?;
        out.write_all(&snaplen.to_le_bytes())?;
        write_option(out, IF_NAME, name.as_bytes())?;
        write_option(out, IF_DESCRIPTION, description.as_bytes())?;
        write_option(out, IF_TSRESOL, &[9])?;
        write_option(out, OPT_ENDOFOPT, &[])?;
        out.write_all(&total.to_le_bytes())?;
        let id = self.interfaces;
        self.interfaces += 1;
        Ok(id)
    }

    /// One packet sent on `interface` at `t_ns`: `captured` is what the snap length kept of a
    /// frame of `original_len` bytes. A `comment` (a drop's cause) is attached as an option.
    pub fn packet(
        &mut self,
        interface: u32,
        t_ns: u64,
        captured: &[u8],
        original_len: u32,
        comment: Option<&str>,
    ) -> io::Result<()> {
        let options = match comment {
            Some(c) => option_len(c.len()) + option_len(4) + 4,
            None => 0,
        };
        let body = 20 + captured.len() + pad4(captured.len()) + options;
        let total = u32_len(body + 12)?;
        let out = &mut self.out;
        let mut head = [0u8; 28];
        head[0..4].copy_from_slice(&EPB.to_le_bytes());
        head[4..8].copy_from_slice(&total.to_le_bytes());
        head[8..12].copy_from_slice(&interface.to_le_bytes());
        head[12..16].copy_from_slice(&u32::try_from(t_ns >> 32).unwrap_or(u32::MAX).to_le_bytes());
        head[16..20].copy_from_slice(&u32::try_from(t_ns & 0xffff_ffff).unwrap_or(0).to_le_bytes());
        head[20..24].copy_from_slice(&u32_len(captured.len())?.to_le_bytes());
        head[24..28].copy_from_slice(&original_len.to_le_bytes());
        out.write_all(&head)?;
        out.write_all(captured)?;
        out.write_all(&[0u8; 3][..pad4(captured.len())])?;
        if let Some(c) = comment {
            write_option(out, OPT_COMMENT, c.as_bytes())?;
            write_option(out, EPB_FLAGS, &FLAG_OUTBOUND.to_le_bytes())?;
            write_option(out, OPT_ENDOFOPT, &[])?;
        }
        out.write_all(&total.to_le_bytes())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

fn write_option(out: &mut impl Write, code: u16, value: &[u8]) -> io::Result<()> {
    let len = u16::try_from(value.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "pcapng option too long"))?;
    out.write_all(&code.to_le_bytes())?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(value)?;
    out.write_all(&[0u8; 3][..pad4(value.len())])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn blocks_are_well_formed_and_lengths_repeat() {
        let mut w = PcapNgWriter::new(Vec::new(), "ndncc test", "seed 1").unwrap();
        assert_eq!(w.interface("R1->R2", "link", 128).unwrap(), 0);
        assert_eq!(w.interface("R2->R1", "link", 128).unwrap(), 1);
        w.packet(1, (5 << 32) + 7, &[1, 2, 3, 4, 5], 900, None).unwrap();
        w.packet(0, 9, &[9; 8], 8, Some("dropped: queue")).unwrap();
        let b = w.into_inner();
        let mut at = 0;
        let mut kinds = Vec::new();
        while at < b.len() {
            let (kind, len) = (u32_at(&b, at), usize::try_from(u32_at(&b, at + 4)).unwrap());
            assert_eq!(len % 4, 0);
            assert_eq!(u32_at(&b, at + len - 4), u32_at(&b, at + 4), "trailing length repeats");
            kinds.push(kind);
            if kind == EPB && kinds.len() == 4 {
                assert_eq!(u32_at(&b, at + 8), 1, "interface id");
                assert_eq!((u32_at(&b, at + 12), u32_at(&b, at + 16)), (5, 7), "timestamp high, low");
                assert_eq!((u32_at(&b, at + 20), u32_at(&b, at + 24)), (5, 900), "captured, original");
                assert_eq!(&b[at + 28..at + 33], [1, 2, 3, 4, 5]);
            }
            at += len;
        }
        assert_eq!(at, b.len());
        assert_eq!(kinds, [SHB, IDB, IDB, EPB, EPB]);
        assert!(b.windows(14).any(|w| w == b"dropped: queue"));
    }
}
