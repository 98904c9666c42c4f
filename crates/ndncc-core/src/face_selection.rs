//! Which faces a run records or traces, by name: `faces = "all" | "none" | ["R1->R2", …]`.

use std::fmt;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// `faces = "all" | "none" | ["R1->R2", …]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FaceSelection {
    #[default]
    All,
    None,
    /// Face names `"A->B"`: the face of node A toward its neighbour B.
    List(Vec<String>),
}

impl FaceSelection {
    /// Is the face of `node` toward `neighbour` selected?
    pub fn includes(&self, node: &str, neighbour: &str) -> bool {
        match self {
            FaceSelection::All => true,
            FaceSelection::None => false,
            FaceSelection::List(l) => l.iter().any(|f| split_face(f) == Some((node, neighbour))),
        }
    }
}

/// `"A->B"` → `("A", "B")`.
pub fn split_face(face: &str) -> Option<(&str, &str)> {
    let (a, b) = face.split_once("->")?;
    let (a, b) = (a.trim(), b.trim());
    (!a.is_empty() && !b.is_empty()).then_some((a, b))
}

impl Serialize for FaceSelection {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FaceSelection::All => s.serialize_str("all"),
            FaceSelection::None => s.serialize_str("none"),
            FaceSelection::List(l) => l.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for FaceSelection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = FaceSelection;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"all\", \"none\" or a list of face names like \"R1->R2\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FaceSelection, E> {
                match v {
                    "all" => Ok(FaceSelection::All),
                    "none" => Ok(FaceSelection::None),
                    _ => Err(E::custom(format!(
                        "'{v}' is not a face selection: expected \"all\", \"none\" or a list like [\"R1->R2\"]"
                    ))),
                }
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<FaceSelection, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(s);
                }
                Ok(FaceSelection::List(out))
            }
        }
        d.deserialize_any(V)
    }
}
