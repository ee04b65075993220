//! A small MaxMind DB writer for test files made on the fly: a search tree of
//! 24-bit records over the networks given, a data section of the values given
//! (strings, numbers, maps), and the metadata the readers need. Enough for
//! hostile files (one network, millions of networks, a name of a million
//! characters); networks must not nest.

use std::collections::HashMap;

/// A value of the data section.
#[derive(Debug, Clone)]
pub enum Val {
    Str(String),
    U16(u16),
    U32(u32),
    U64(u64),
    Double(f64),
    Map(Vec<(&'static str, Val)>),
    Array(Vec<Val>),
}

/// One record of a tree node.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rec {
    Empty,
    Node(u32),
    Data(u32),
}

/// An MMDB being written.
pub struct Writer {
    ip_version: u16,
    database_type: String,
    nodes: Vec<[Rec; 2]>,
    data: Vec<u8>,
    /// Offsets of values already written, by their encoding.
    written: HashMap<Vec<u8>, u32>,
}

impl Writer {
    /// An empty database: `ip_version` 4 or 6, and its type (`City`, `Country`, `ASN`).
    pub fn new(ip_version: u16, database_type: &str) -> Writer {
        Writer {
            ip_version,
            database_type: database_type.to_owned(),
            nodes: vec![[Rec::Empty; 2]],
            data: Vec::new(),
            written: HashMap::new(),
        }
    }

    fn depth(&self) -> u32 {
        if self.ip_version == 6 { 128 } else { 32 }
    }

    /// Adds the network of the top `len` bits of `addr` (the address as an
    /// integer of the tree's family) holding `value` (one copy per distinct value).
    pub fn insert(&mut self, addr: u128, len: u32, value: &Val) {
        let mut bytes = Vec::new();
        encode(value, &mut bytes);
        let offset = match self.written.get(&bytes) {
            Some(o) => *o,
            None => {
                let o = self.data.len() as u32;
                self.data.extend_from_slice(&bytes);
                self.written.insert(bytes, o);
                o
            }
        };
        let depth = self.depth();
        let mut node = 0usize;
        for i in 0..len {
            let bit = ((addr >> (depth - 1 - i)) & 1) as usize;
            if i + 1 == len {
                self.nodes[node][bit] = Rec::Data(offset);
                return;
            }
            node = match self.nodes[node][bit] {
                Rec::Node(n) => n as usize,
                _ => {
                    self.nodes.push([Rec::Empty; 2]);
                    let n = self.nodes.len() - 1;
                    self.nodes[node][bit] = Rec::Node(n as u32);
                    n
                }
            };
        }
    }

    /// The file's bytes.
    pub fn finish(self) -> Vec<u8> {
        let count = self.nodes.len() as u32;
        let mut out = Vec::with_capacity(self.nodes.len() * 6 + self.data.len() + 200);
        for pair in &self.nodes {
            for rec in pair {
                let v = match *rec {
                    Rec::Empty => count,
                    Rec::Node(n) => n,
                    Rec::Data(o) => count + 16 + o,
                };
                assert!(v < 1 << 24, "a 24-bit record cannot hold {v}");
                out.extend_from_slice(&v.to_be_bytes()[1..]);
            }
        }
        out.extend_from_slice(&[0; 16]);
        out.extend_from_slice(&self.data);
        out.extend_from_slice(b"\xAB\xCD\xEFMaxMind.com");
        let meta = Val::Map(vec![
            ("binary_format_major_version", Val::U16(2)),
            ("binary_format_minor_version", Val::U16(0)),
            ("build_epoch", Val::U64(1_700_000_000)),
            ("database_type", Val::Str(self.database_type)),
            (
                "description",
                Val::Map(vec![("en", Val::Str("test".into()))]),
            ),
            ("ip_version", Val::U16(self.ip_version)),
            ("languages", Val::Array(vec![Val::Str("en".into())])),
            ("node_count", Val::U32(count)),
            ("record_size", Val::U16(24)),
        ]);
        encode(&meta, &mut out);
        out
    }
}

/// A country record in MaxMind's schema.
pub fn country(code: &str) -> Val {
    Val::Map(vec![(
        "country",
        Val::Map(vec![("iso_code", Val::Str(code.into()))]),
    )])
}

/// An ASN record in MaxMind's schema.
pub fn asn(number: u32, org: &str) -> Val {
    Val::Map(vec![
        ("autonomous_system_number", Val::U32(number)),
        ("autonomous_system_organization", Val::Str(org.into())),
    ])
}

/// A city record in MaxMind's schema.
pub fn city(name: &str, code: &str, lat: f64, lon: f64) -> Val {
    Val::Map(vec![
        (
            "city",
            Val::Map(vec![(
                "names",
                Val::Map(vec![("en", Val::Str(name.into()))]),
            )]),
        ),
        (
            "country",
            Val::Map(vec![("iso_code", Val::Str(code.into()))]),
        ),
        (
            "location",
            Val::Map(vec![
                ("latitude", Val::Double(lat)),
                ("longitude", Val::Double(lon)),
            ]),
        ),
    ])
}

fn control(kind: u8, size: usize, out: &mut Vec<u8>) {
    let (code, extra): (u8, Vec<u8>) = match size {
        0..29 => (size as u8, vec![]),
        29..285 => (29, vec![(size - 29) as u8]),
        285..65821 => (30, ((size - 285) as u16).to_be_bytes().to_vec()),
        _ => (31, ((size - 65821) as u32).to_be_bytes()[1..].to_vec()),
    };
    if kind <= 7 {
        out.push(kind << 5 | code);
    } else {
        out.push(code);
        out.push(kind - 7);
    }
    out.extend_from_slice(&extra);
}

fn uint(kind: u8, v: u64, out: &mut Vec<u8>) {
    let bytes = v.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count();
    control(kind, 8 - skip, out);
    out.extend_from_slice(&bytes[skip..]);
}

fn encode(v: &Val, out: &mut Vec<u8>) {
    match v {
        Val::Str(s) => {
            control(2, s.len(), out);
            out.extend_from_slice(s.as_bytes());
        }
        Val::Double(d) => {
            control(3, 8, out);
            out.extend_from_slice(&d.to_be_bytes());
        }
        Val::U16(n) => uint(5, u64::from(*n), out),
        Val::U32(n) => uint(6, u64::from(*n), out),
        Val::U64(n) => uint(9, *n, out),
        Val::Map(pairs) => {
            control(7, pairs.len(), out);
            for (k, v) in pairs {
                encode(&Val::Str((*k).into()), out);
                encode(v, out);
            }
        }
        Val::Array(items) => {
            control(11, items.len(), out);
            for item in items {
                encode(item, out);
            }
        }
    }
}
