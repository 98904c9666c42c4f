//! Typed indices into the world's arenas. Components refer to each other by these, never by pointers.

macro_rules! typed_index {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

typed_index!(
    /// A node (router, consumer host, producer host).
    NodeId
);
typed_index!(
    /// A face: one end of a link on a node, or the face an application is attached by.
    FaceId
);
typed_index!(
    /// A full-duplex point-to-point link (two faces).
    LinkId
);
typed_index!(
    /// An application (producer or consumer) running on a node.
    AppId
);
typed_index!(
    /// An interned name prefix (every component except the segment number).
    NameId
);
