//! NFD's management protocol on the wire, as much of it as prefix registration takes: the
//! ControlParameters a command Interest carries in its name, and the ControlResponse its Data
//! answers with (NFD Management protocol, "Control Command").
//!
//! A command's name is `/localhost/nfd/<module>/<verb>/<ControlParameters>/…`, the fifth
//! component holding a ControlParameters TLV; what follows it (a signed Interest's signature
//! components, or the ParametersSha256Digest of one signed the v0.3 way) is not read.

use super::decode::name as decode_name;
use super::name::{name_value_len, write_name, Component};
use super::ndn::types;
use super::read::{bad, nonneg, whole, Elements, WireError};
use super::tlv::{nonneg_len, tlv_len, TlvWriter};

/// TLV-TYPE numbers of the management protocol.
pub mod types_mgmt {
    pub const CONTROL_RESPONSE: u64 = 101;
    pub const STATUS_CODE: u64 = 102;
    pub const STATUS_TEXT: u64 = 103;
    pub const CONTROL_PARAMETERS: u64 = 104;
    pub const FACE_ID: u64 = 105;
    pub const COST: u64 = 106;
    pub const FLAGS: u64 = 108;
    pub const EXPIRATION_PERIOD: u64 = 109;
    pub const ORIGIN: u64 = 111;
}
use types_mgmt::*;

/// Status codes of a ControlResponse, which follow HTTP's.
pub mod status {
    pub const OK: u64 = 200;
    /// The ControlParameters are missing a field the command needs, or are malformed.
    pub const BAD_PARAMETERS: u64 = 400;
    /// The face named by FaceId does not exist.
    pub const FACE_NOT_FOUND: u64 = 410;
    /// No such management module, or no such verb in it.
    pub const UNSUPPORTED: u64 = 501;
}

/// Route flag ChildInherit, which NFD sets when a registration gives no Flags.
pub const ROUTE_FLAG_CHILD_INHERIT: u64 = 1;

/// The fields of a ControlParameters that prefix registration reads (others are skipped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlParameters {
    pub name: Option<Vec<Component>>,
    pub face_id: Option<u64>,
    pub origin: Option<u64>,
    pub cost: Option<u64>,
    pub flags: Option<u64>,
    /// [ms]
    pub expiration_ms: Option<u64>,
}

impl ControlParameters {
    /// Read a ControlParameters TLV (the whole of `b`).
    pub fn decode(b: &[u8]) -> Result<ControlParameters, WireError> {
        let e = whole(b)?;
        if e.typ != CONTROL_PARAMETERS {
            return bad(format!("a command component of type {}, not ControlParameters", e.typ));
        }
        let mut p = ControlParameters::default();
        for f in Elements::new(e.value) {
            let f = f?;
            match f.typ {
                types::NAME => p.name = Some(decode_name(f.value)?),
                FACE_ID => p.face_id = Some(nonneg(f.value)?),
                ORIGIN => p.origin = Some(nonneg(f.value)?),
                COST => p.cost = Some(nonneg(f.value)?),
                FLAGS => p.flags = Some(nonneg(f.value)?),
                EXPIRATION_PERIOD => p.expiration_ms = Some(nonneg(f.value)?),
                _ => {}
            }
        }
        Ok(p)
    }

    fn value_len(&self) -> usize {
        let num = |t: u64, v: Option<u64>| v.map_or(0, |v| tlv_len(t, nonneg_len(v)));
        self.name.as_ref().map_or(0, |n| tlv_len(types::NAME, name_value_len(n)))
            + num(FACE_ID, self.face_id)
            + num(ORIGIN, self.origin)
            + num(COST, self.cost)
            + num(FLAGS, self.flags)
            + num(EXPIRATION_PERIOD, self.expiration_ms)
    }

    /// Write the ControlParameters TLV, fields in the order the protocol lists them.
    pub fn write(&self, w: &mut TlvWriter) {
        w.header(CONTROL_PARAMETERS, self.value_len());
        if let Some(n) = &self.name {
            write_name(w, n);
        }
        for (t, v) in [(FACE_ID, self.face_id), (ORIGIN, self.origin), (COST, self.cost), (FLAGS, self.flags)] {
            if let Some(v) = v {
                w.nonneg(t, v);
            }
        }
        if let Some(v) = self.expiration_ms {
            w.nonneg(EXPIRATION_PERIOD, v);
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.write(&mut TlvWriter { buf: &mut buf });
        buf
    }
}

/// A ControlResponse: status code and text, and the parameters as applied (on success).
pub fn control_response(code: u64, text: &str, body: Option<&ControlParameters>) -> Vec<u8> {
    let body_len = body.map_or(0, |p| tlv_len(CONTROL_PARAMETERS, p.value_len()));
    let value = tlv_len(STATUS_CODE, nonneg_len(code)) + tlv_len(STATUS_TEXT, text.len()) + body_len;
    let mut buf = Vec::with_capacity(tlv_len(CONTROL_RESPONSE, value));
    let mut w = TlvWriter { buf: &mut buf };
    w.header(CONTROL_RESPONSE, value);
    w.nonneg(STATUS_CODE, code);
    w.bytes(STATUS_TEXT, text.as_bytes());
    if let Some(p) = body {
        p.write(&mut w);
    }
    buf
}

/// A management command read from an Interest's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub module: Vec<u8>,
    pub verb: Vec<u8>,
    /// `Err` when the fifth component is missing or not a ControlParameters.
    pub params: Result<ControlParameters, WireError>,
}

/// The management prefix local applications send commands under.
pub const LOCALHOST_NFD: [&[u8]; 2] = [b"localhost", b"nfd"];

/// Whether `name` is under `/localhost`, which never leaves the node.
pub fn is_localhost(name: &[Component]) -> bool {
    name.first().is_some_and(|c| c.typ == types::GENERIC_NAME_COMPONENT && c.value == LOCALHOST_NFD[0])
}

/// The command an Interest named `name` carries, if it is under `/localhost/nfd` with a module
/// and a verb.
pub fn command(name: &[Component]) -> Option<Command> {
    let generic = |i: usize| name.get(i).filter(|c| c.typ == types::GENERIC_NAME_COMPONENT);
    if generic(0)?.value != LOCALHOST_NFD[0] || generic(1)?.value != LOCALHOST_NFD[1] {
        return None;
    }
    let (module, verb) = (generic(2)?.value.clone(), generic(3)?.value.clone());
    let params = match name.get(4) {
        Some(c) => ControlParameters::decode(&c.value),
        None => Err(super::read::WireError("a command without ControlParameters".into())),
    };
    Some(Command { module, verb, params })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_response_encodes_code_text_and_body() {
        let p = ControlParameters {
            name: Some(vec![Component::generic(b"a")]),
            face_id: Some(300),
            origin: Some(0),
            cost: Some(0),
            flags: Some(1),
            expiration_ms: None,
        };
        let b = control_response(200, "OK", Some(&p));
        #[rustfmt::skip]
        let want = [101, 27, 102, 1, 200, 103, 2, b'O', b'K',
                    104, 18, 7, 3, 8, 1, b'a', 105, 2, 1, 44, 111, 1, 0, 106, 1, 0, 108, 1, 1];
        assert_eq!(b, want);
    }

    #[test]
    fn a_command_name_gives_module_verb_and_parameters() {
        let p = ControlParameters { name: Some(vec![Component::generic(b"x")]), ..Default::default() };
        let name = vec![
            Component::generic(b"localhost"),
            Component::generic(b"nfd"),
            Component::generic(b"rib"),
            Component::generic(b"register"),
            Component::generic(&p.encode()),
            Component { typ: 2, value: vec![0; 32] },
        ];
        let c = command(&name).unwrap();
        assert_eq!((c.module.as_slice(), c.verb.as_slice(), c.params), (&b"rib"[..], &b"register"[..], Ok(p)));
        assert!(command(&name[..3]).is_none());
        assert!(command(&name[..4]).unwrap().params.is_err());
        assert!(is_localhost(&name) && !is_localhost(&name[1..]));
    }

    proptest! {
        #[test]
        fn parameters_round_trip(face in proptest::option::of(any::<u64>()), cost in proptest::option::of(any::<u64>()),
                                 flags in proptest::option::of(0u64..4), exp in proptest::option::of(any::<u64>()),
                                 comps in proptest::collection::vec("[a-z]{1,5}", 0..3)) {
            let name = Some(comps.iter().map(|c| Component::generic(c.as_bytes())).collect());
            let p = ControlParameters { name, face_id: face, origin: Some(0), cost, flags, expiration_ms: exp };
            prop_assert_eq!(ControlParameters::decode(&p.encode()), Ok(p));
        }

        #[test]
        fn arbitrary_parameters_never_panic(b in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = ControlParameters::decode(&b);
        }
    }
}
