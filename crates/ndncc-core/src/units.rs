//! Human units in scenario files: `"5Mbps"`, `"10ms"`, `"10MB"`, `"1%"`.
//!
//! Each type deserialises from a string with a unit, and serialises back to a canonical string,
//! so a resolved scenario written to `manifest.json` reads like the file it came from. Bare
//! numbers are accepted only where the unit is unambiguous (packets, fractions).

use std::fmt;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::time::SimDuration;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "e" may start a unit only if what follows is not a digit; keep it simple: units here never start with e.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    Some((v, unit.trim()))
}

/// A time span: `"10ms"`, `"1.5s"`, `"250us"`, `"100ns"`, `"2min"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub SimDuration);

impl Duration {
    pub fn parse(s: &str) -> Result<Duration, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("'{s}' is not a duration (e.g. \"10ms\", \"1.5s\")"))?;
        if !v.is_finite() {
            return Err(format!("'{s}' is not a finite duration"));
        }
        if v < 0.0 {
            return Err(format!("duration '{s}' is negative"));
        }
        let ns_per = match unit {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "min" => 60e9,
            "h" => 3600e9,
            "" => return Err(format!("duration '{s}' has no unit (write e.g. \"{s}ms\" or \"{s}s\")")),
            u => return Err(format!("unknown time unit '{u}' in '{s}' (expected ns, us, ms, s, min, h)")),
        };
        let ns = (v * ns_per).round();
        // The clock counts u64 nanoseconds (584 years); a longer time cannot be represented.
        if ns >= u64::MAX as f64 {
            return Err(format!("duration '{s}' is too long (the clock ends after 584 years)"));
        }
        Ok(Duration(SimDuration(ns as u64)))
    }
    pub fn from_millis(ms: u64) -> Duration {
        Duration(SimDuration::from_millis(ms))
    }
    pub fn from_secs(s: u64) -> Duration {
        Duration(SimDuration::from_secs(s))
    }
    pub fn get(self) -> SimDuration {
        self.0
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0 .0;
        if ns == 0 {
            write!(f, "0s")
        } else if ns.is_multiple_of(1_000_000_000) {
            write!(f, "{}s", ns / 1_000_000_000)
        } else if ns.is_multiple_of(1_000_000) {
            write!(f, "{}ms", ns / 1_000_000)
        } else if ns.is_multiple_of(1_000) {
            write!(f, "{}us", ns / 1_000)
        } else {
            write!(f, "{ns}ns")
        }
    }
}

/// A bit rate: `"5Mbps"`, `"1.5Gbps"`, `"600kbps"`, `"9600bps"`. "M" is 10^6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bandwidth(pub u64);

/// The largest link rate a scenario may give [bit/s] (10 Tbps).
pub const MAX_BANDWIDTH_BPS: u64 = 10_000_000_000_000;

impl Bandwidth {
    pub fn parse(s: &str) -> Result<Bandwidth, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("'{s}' is not a bandwidth (e.g. \"10Mbps\")"))?;
        // Case matters: "MBps" would be megabytes per second, which we do not guess at.
        let mult = match unit {
            // ns-3 and ndnSIM topology files write "10Mb/s".
            "bps" | "bit/s" | "b/s" => 1.0,
            "kbps" | "Kbps" | "kbit/s" | "Kbit/s" | "kb/s" | "Kb/s" => 1e3,
            "Mbps" | "mbps" | "Mbit/s" | "Mb/s" => 1e6,
            "Gbps" | "gbps" | "Gbit/s" | "Gb/s" => 1e9,
            "" => return Err(format!("bandwidth '{s}' has no unit (write e.g. \"{s}Mbps\")")),
            _ => return Err(format!("unknown bandwidth unit '{unit}' in '{s}' (expected bps, kbps, Mbps, Gbps)")),
        };
        Bandwidth::from_bits_per_second(s, v * mult)
    }

    /// A rate as ns-3's `DataRate` spells it (ndnSIM topology files use these): a number, then a
    /// prefix `k` or `K` (10^3), `Ki` (2^10), `M` (10^6), `Mi` (2^20), `G` (10^9) or `Gi` (2^30)
    /// or none, then `bps` or `b/s` (bits) or `Bps` or `B/s` (bytes of 8 bits): `"10Mb/s"`,
    /// `"1Gbps"`, `"500kb/s"`, `"8Kib/s"`, `"1MB/s"`. The spellings of [`Bandwidth::parse`]
    /// (`"10Mbit/s"`) are accepted too.
    pub fn parse_ns3(s: &str) -> Result<Bandwidth, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("'{s}' is not a data rate (e.g. \"10Mb/s\")"))?;
        match ns3_bits_per_unit(unit) {
            Some(bits) => Bandwidth::from_bits_per_second(s, v * bits),
            None if unit.is_empty() => Err(format!("data rate '{s}' has no unit (write e.g. \"{s}Mb/s\")")),
            None => Bandwidth::parse(s).map_err(|_| {
                format!(
                    "unknown data rate unit '{unit}' in '{s}' (expected ns-3's bps, b/s, Bps or B/s, after a \
                     prefix k, K, Ki, M, Mi, G or Gi or none)"
                )
            }),
        }
    }

    /// `bps` (from a parsed number) as a link rate, range-checked; `s` is the text it came from.
    fn from_bits_per_second(s: &str, bps: f64) -> Result<Bandwidth, String> {
        let bps = bps.round();
        if !bps.is_finite() || bps < 1.0 {
            return Err(format!("bandwidth '{s}' must be a positive number"));
        }
        if bps > MAX_BANDWIDTH_BPS as f64 {
            return Err(format!("bandwidth '{s}' is above the largest link rate, 10 Tbps"));
        }
        Ok(Bandwidth(bps as u64))
    }
    pub fn bps(self) -> u64 {
        self.0
    }
    pub fn mbps(m: u64) -> Bandwidth {
        Bandwidth(m * 1_000_000)
    }
}

/// Bits per unit of an ns-3 `DataRate` unit (`"Mb/s"` → 10^6, `"KiB/s"` → 8·2^10), or `None`.
fn ns3_bits_per_unit(unit: &str) -> Option<f64> {
    let (bits, prefix) = if let Some(p) = unit.strip_suffix("bps").or_else(|| unit.strip_suffix("b/s")) {
        (1.0, p)
    } else if let Some(p) = unit.strip_suffix("Bps").or_else(|| unit.strip_suffix("B/s")) {
        (8.0, p)
    } else {
        return None;
    };
    let scale = match prefix {
        "" => 1.0,
        "k" | "K" => 1e3,
        "Ki" => 1024.0,
        "M" => 1e6,
        "Mi" => 1_048_576.0,
        "G" => 1e9,
        "Gi" => 1_073_741_824.0,
        _ => return None,
    };
    Some(bits * scale)
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b.is_multiple_of(1_000_000_000) {
            write!(f, "{}Gbps", b / 1_000_000_000)
        } else if b.is_multiple_of(1_000_000) {
            write!(f, "{}Mbps", b / 1_000_000)
        } else if b.is_multiple_of(1_000) {
            write!(f, "{}kbps", b / 1_000)
        } else {
            write!(f, "{b}bps")
        }
    }
}

/// A size in bytes: `"10MB"` (10^6), `"10MiB"` (2^20), `"1024B"`, `"64KiB"`, or a bare integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Bytes {
    pub fn parse(s: &str) -> Result<Bytes, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("'{s}' is not a size (e.g. \"1024B\", \"10MB\")"))?;
        let mult = match unit {
            "" | "B" => 1.0,
            "kB" | "KB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "KiB" => 1024.0,
            "MiB" => 1048576.0,
            "GiB" => 1073741824.0,
            _ => return Err(format!("unknown size unit '{unit}' in '{s}' (expected B, kB, MB, GB, KiB, MiB, GiB)")),
        };
        if !v.is_finite() || v < 0.0 {
            return Err(format!("size '{s}' must be a finite number of bytes >= 0"));
        }
        let b = (v * mult).round();
        if b >= 1e18 {
            return Err(format!("size '{s}' is too large"));
        }
        Ok(Bytes(b as u64))
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

/// A probability or share: `"1%"`, `"0.01"`, or a bare number in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
pub struct Fraction(pub f64);

impl Fraction {
    pub fn parse(s: &str) -> Result<Fraction, String> {
        let t = s.trim();
        let v = if let Some(p) = t.strip_suffix('%') {
            p.trim().parse::<f64>().map_err(|_| format!("'{s}' is not a percentage"))? / 100.0
        } else {
            t.parse::<f64>().map_err(|_| format!("'{s}' is not a fraction (e.g. \"1%\" or 0.01)"))?
        };
        Fraction::checked(v).ok_or_else(|| format!("'{s}' is outside [0, 1]"))
    }
    fn checked(v: f64) -> Option<Fraction> {
        (0.0..=1.0).contains(&v).then_some(Fraction(v))
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", self.0 * 100.0)
    }
}

macro_rules! string_unit_serde {
    ($t:ty, $expecting:literal, $allow_int:expr, $allow_float:expr) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                        <$t>::parse(v).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$t, E> {
                        if $allow_int {
                            <$t>::parse(&v.to_string()).map_err(E::custom)
                        } else {
                            Err(E::custom(format!("{v} has no unit: {}", $expecting)))
                        }
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$t, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$t, E> {
                        if $allow_float {
                            <$t>::parse(&v.to_string()).map_err(E::custom)
                        } else {
                            Err(E::custom(format!("{v} has no unit: {}", $expecting)))
                        }
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

string_unit_serde!(Duration, "a duration with a unit, e.g. \"10ms\"", false, false);
string_unit_serde!(Bandwidth, "a bandwidth with a unit, e.g. \"10Mbps\"", false, false);
string_unit_serde!(Bytes, "a size, e.g. \"1024B\" or \"10MB\"", true, false);
string_unit_serde!(Fraction, "a fraction, e.g. \"1%\" or 0.01", true, true);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_every_unit() {
        assert_eq!(Duration::parse("10ms").unwrap().0 .0, 10_000_000);
        assert_eq!(Duration::parse("1.5s").unwrap().0 .0, 1_500_000_000);
        assert_eq!(Duration::parse("250us").unwrap().0 .0, 250_000);
        assert_eq!(Duration::parse("2min").unwrap().0 .0, 120_000_000_000);
        assert!(Duration::parse("10").unwrap_err().contains("no unit"));
        assert!(Duration::parse("10mss").unwrap_err().contains("unknown time unit 'mss'"));
    }

    #[test]
    fn bandwidths_use_decimal_prefixes() {
        assert_eq!(Bandwidth::parse("5Mbps").unwrap().0, 5_000_000);
        assert_eq!(Bandwidth::parse("1.5Gbps").unwrap().0, 1_500_000_000);
        assert_eq!(Bandwidth::parse("600kbps").unwrap().0, 600_000);
        assert!(Bandwidth::parse("5MB").is_err());
        assert!(Bandwidth::parse("10MBps").is_err(), "megabytes per second must not pass as megabits");
        assert_eq!(Bandwidth::parse("20Kbps").unwrap().0, 20_000);
    }

    #[test]
    fn ns3_data_rates_parse_with_every_prefix_and_unit() {
        let rate = |s: &str| Bandwidth::parse_ns3(s).unwrap().bps();
        assert_eq!(rate("10Mb/s"), 10_000_000);
        assert_eq!(rate("1Gb/s"), 1_000_000_000);
        assert_eq!(rate("500kb/s"), 500_000);
        assert_eq!(rate("56kbps"), 56_000);
        assert_eq!(rate("20Kbps"), 20_000);
        assert_eq!(rate("128 kb/s"), 128_000);
        assert_eq!(rate("9600bps"), 9_600);
        assert_eq!(rate("8Kib/s"), 8_192);
        assert_eq!(rate("2Mibps"), 2_097_152);
        assert_eq!(rate("1Gib/s"), 1_073_741_824);
        // B is a byte of 8 bits.
        assert_eq!(rate("1kB/s"), 8_000);
        assert_eq!(rate("1KiB/s"), 8_192);
        assert_eq!(rate("1MBps"), 8_000_000);
        assert_eq!(rate("100B/s"), 800);
        // ndncc's own spellings still read.
        assert_eq!(rate("5Mbit/s"), 5_000_000);
        assert_eq!(rate("5mbps"), 5_000_000);
    }

    #[test]
    fn ns3_data_rates_reject_unknown_units_and_bad_values() {
        assert!(Bandwidth::parse_ns3("10").unwrap_err().contains("no unit"));
        let e = Bandwidth::parse_ns3("10Tb/s").unwrap_err();
        assert!(e.contains("unknown data rate unit 'Tb/s'") && e.contains("Ki"), "{e}");
        assert!(Bandwidth::parse_ns3("10mb/s").is_err(), "ns-3 has no prefix m");
        assert!(Bandwidth::parse_ns3("0Mb/s").unwrap_err().contains("positive"));
        assert!(Bandwidth::parse_ns3("20000GB/s").unwrap_err().contains("10 Tbps"));
        assert!(Bandwidth::parse_ns3("fast").is_err());
    }

    #[test]
    fn scenario_files_keep_their_strict_units() {
        assert!(Bandwidth::parse("1MB/s").is_err(), "bytes per second stay an ns-3 import spelling");
        assert!(Bandwidth::parse("8Kib/s").is_err());
    }

    #[test]
    fn sizes_distinguish_mb_from_mib() {
        assert_eq!(Bytes::parse("10MB").unwrap().0, 10_000_000);
        assert_eq!(Bytes::parse("10MiB").unwrap().0, 10_485_760);
        assert_eq!(Bytes::parse("1024").unwrap().0, 1024);
    }

    #[test]
    fn fractions_accept_percentages_and_reject_out_of_range() {
        assert_eq!(Fraction::parse("1%").unwrap().0, 0.01);
        assert_eq!(Fraction::parse("0.25").unwrap().0, 0.25);
        assert!(Fraction::parse("120%").is_err());
    }

    #[test]
    fn display_round_trips() {
        for s in ["10ms", "1500ms", "2s", "250us"] {
            assert_eq!(Duration::parse(s).unwrap().to_string(), Duration::parse(s).unwrap().to_string());
        }
        assert_eq!(Bandwidth::parse("12Mbps").unwrap().to_string(), "12Mbps");
        assert_eq!(Duration::parse("1.5s").unwrap().to_string(), "1500ms");
    }
}
