//! NDN names between their wire form (typed components of arbitrary bytes) and the text form
//! ndncc's engine keys them by (a `NameTable` prefix of `/`-separated strings and a segment
//! number).
//!
//! The text of a component follows the NDN URI scheme closely enough to read: a
//! GenericNameComponent is its bytes with everything outside `A-Z a-z 0-9 - . _ ~`
//! percent-escaped (so `/` and `=` never appear raw), and a component of only periods (or none
//! at all) gets three more, so that no component is empty (the engine drops empty components).
//! Any other type is `TYPE=VALUE`, the number in decimal and the value escaped the same way.
//! The mapping is one to one, so the engine's exact-name tables (PIT, Content Store) and its
//! longest-prefix match over components behave on text exactly as they would on bytes.
//!
//! A name whose last component is a SegmentNameComponent holding a shortest-form integer
//! becomes the engine's (prefix, segment) pair, as simulated names are; any other name is all
//! prefix with the segment [`NO_SEGMENT`].

use super::ndn::types;
use super::tlv::{nonneg_len, tlv_len, TlvWriter};

/// The segment of a name that has no segment component. A name that really ends in segment
/// `u64::MAX` keeps that component in its prefix, so the two never meet.
pub const NO_SEGMENT: u64 = u64::MAX;

/// One name component as on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Component {
    pub typ: u64,
    pub value: Vec<u8>,
}

impl Component {
    pub fn generic(value: &[u8]) -> Component {
        Component { typ: types::GENERIC_NAME_COMPONENT, value: value.to_vec() }
    }

    /// A SegmentNameComponent holding `seg` in its shortest form.
    pub fn segment(seg: u64) -> Component {
        let len = nonneg_len(seg);
        Component { typ: types::SEGMENT_NAME_COMPONENT, value: seg.to_be_bytes()[8 - len..].to_vec() }
    }

    /// The segment number, when this is a SegmentNameComponent in shortest form below
    /// [`NO_SEGMENT`].
    pub fn as_segment(&self) -> Option<u64> {
        if self.typ != types::SEGMENT_NAME_COMPONENT || ![1, 2, 4, 8].contains(&self.value.len()) {
            return None;
        }
        let mut be = [0u8; 8];
        be[8 - self.value.len()..].copy_from_slice(&self.value);
        let seg = u64::from_be_bytes(be);
        (nonneg_len(seg) == self.value.len() && seg != NO_SEGMENT).then_some(seg)
    }

    /// The component's text (see the module's notes).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.typ != types::GENERIC_NAME_COMPONENT {
            out.push_str(&self.typ.to_string());
            out.push('=');
            escape_into(&self.value, &mut out);
        } else if self.value.iter().all(|&b| b == b'.') {
            out.extend(std::iter::repeat_n('.', self.value.len() + 3));
        } else {
            escape_into(&self.value, &mut out);
        }
        out
    }

    /// The component a text stands for; `None` if it is not one this module writes (an empty
    /// text, a bad escape, a type that is not a number from 1 to 65,535).
    pub fn from_text(text: &str) -> Option<Component> {
        if text.is_empty() {
            return None;
        }
        if let Some((typ, value)) = text.split_once('=') {
            let typ: u64 = typ.parse().ok().filter(|t| (1..=0xffff).contains(t))?;
            return Some(Component { typ, value: unescape(value)? });
        }
        if text.bytes().all(|b| b == b'.') {
            // Three periods stand for none, four for one, and so on; fewer are not a component.
            let n = text.len().checked_sub(3)?;
            return Some(Component::generic(&vec![b'.'; n]));
        }
        Some(Component::generic(&unescape(text)?))
    }

    /// Bytes of the component's TLV.
    pub fn wire_len(&self) -> usize {
        tlv_len(self.typ, self.value.len())
    }
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn escape_into(bytes: &[u8], out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        if unreserved(b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
}

fn unescape(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// A name as the engine keys it: the text of its prefix (`/a/b`, `/` when empty) and its
/// segment ([`NO_SEGMENT`] when it has none).
pub fn engine_key(components: &[Component]) -> (String, u64) {
    let (prefix, seg) = match components.split_last() {
        Some((last, rest)) => match last.as_segment() {
            Some(seg) => (rest, seg),
            None => (components, NO_SEGMENT),
        },
        None => (components, NO_SEGMENT),
    };
    let mut text = String::new();
    for c in prefix {
        text.push('/');
        text.push_str(&c.to_text());
    }
    if text.is_empty() {
        text.push('/');
    }
    (text, seg)
}

/// The components of an engine name: its prefix's texts read back (a text no component has,
/// as a hand-written scenario name may hold, stays a generic component of its own bytes) and
/// the segment, if any.
pub fn from_engine(prefix: &[compact_str::CompactString], seg: u64) -> Vec<Component> {
    let mut out: Vec<Component> =
        prefix.iter().map(|t| Component::from_text(t).unwrap_or_else(|| Component::generic(t.as_bytes()))).collect();
    if seg != NO_SEGMENT {
        out.push(Component::segment(seg));
    }
    out
}

/// Bytes of the value of a Name element holding `components`.
pub fn name_value_len(components: &[Component]) -> usize {
    components.iter().map(Component::wire_len).sum()
}

/// Write a Name element.
pub fn write_name(w: &mut TlvWriter, components: &[Component]) {
    w.header(types::NAME, name_value_len(components));
    for c in components {
        w.bytes(c.typ, &c.value);
    }
}

/// The URI of a name, for messages (`/a/b/50=%01`).
pub fn to_uri(components: &[Component]) -> String {
    let (prefix, seg) = engine_key(components);
    match seg {
        NO_SEGMENT => prefix,
        seg if prefix == "/" => format!("/seg={seg}"),
        seg => format!("{prefix}/seg={seg}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_names_read_as_scenario_names_do() {
        let comps = vec![Component::generic(b"p1"), Component::generic(b"A"), Component::segment(300)];
        assert_eq!(engine_key(&comps), ("/p1/A".to_owned(), 300));
        assert_eq!(from_engine(&["p1".into(), "A".into()], 300), comps);
        assert_eq!(to_uri(&comps), "/p1/A/seg=300");
    }

    #[test]
    fn reserved_bytes_and_typed_components_are_escaped() {
        let v = Component { typ: 54, value: vec![0, 1, 0xff] };
        assert_eq!(v.to_text(), "54=%00%01%FF");
        assert_eq!(Component::generic(b"a/b=c").to_text(), "a%2Fb%3Dc");
        assert_eq!(Component::generic(b"").to_text(), "...");
        assert_eq!(Component::generic(b"..").to_text(), ".....");
        for c in [v, Component::generic(b""), Component::generic(b".."), Component::generic(b"a/b=c")] {
            assert_eq!(Component::from_text(&c.to_text()), Some(c));
        }
    }

    #[test]
    fn a_segment_in_a_longer_form_or_the_sentinel_stays_in_the_prefix() {
        let long = Component { typ: 50, value: vec![0, 5] };
        assert_eq!(engine_key(&[Component::generic(b"a"), long.clone()]), ("/a/50=%00%05".to_owned(), NO_SEGMENT));
        let max = Component::segment(u64::MAX);
        let (text, seg) = engine_key(std::slice::from_ref(&max));
        assert_eq!(seg, NO_SEGMENT);
        assert_eq!(from_engine(&[text[1..].into()], NO_SEGMENT), vec![max]);
        assert_eq!(engine_key(&[]), ("/".to_owned(), NO_SEGMENT));
    }

    #[test]
    fn texts_no_component_has_are_refused() {
        for t in ["", "..", "%", "%4", "%zz", "0=a", "65536=a", "x=a"] {
            assert_eq!(Component::from_text(t), None, "{t}");
        }
    }

    fn component() -> impl Strategy<Value = Component> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(|v| Component::generic(&v)),
            (1u64..=0xffff, proptest::collection::vec(any::<u8>(), 0..12))
                .prop_map(|(typ, value)| Component { typ, value }),
        ]
    }

    proptest! {
        /// Every name survives the trip to the engine's key and back, and two names never share
        /// a key.
        #[test]
        fn engine_keys_are_one_to_one(a in proptest::collection::vec(component(), 0..5),
                                      b in proptest::collection::vec(component(), 0..5)) {
            let (pa, sa) = engine_key(&a);
            let comps: Vec<compact_str::CompactString> = crate::names::components(&pa);
            prop_assert_eq!(from_engine(&comps, sa), a.clone());
            prop_assert_eq!(a == b, engine_key(&a) == engine_key(&b));
        }
    }
}
