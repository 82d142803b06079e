//! Borrowed decoding of serialized `tf.train.Example` and `SequenceExample` records.
//!
//! The parse kernels read the protobuf wire format in place, as TF's
//! `example_proto_fast_parsing` does, instead of decoding whole messages with prost:
//! a record becomes a list of `(key, feature)` pairs pointing into its bytes, and
//! only the requested features' values are ever decoded, straight into the output
//! columns. No allocation per feature, key or value list.
//!
//! Semantics are protobuf's: repeated `features` fields merge, a map key seen twice
//! keeps its last value, a `Feature` whose oneof is set twice keeps the last kind,
//! and numeric lists may be packed or not. Malformed bytes are `None` (the kernels'
//! "Could not parse example input").

/// A field's payload by wire type.
enum Wire<'a> {
    Varint(u64),
    Fixed64,
    Len(&'a [u8]),
    Fixed32(&'a [u8]),
}

fn varint(buf: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = buf.split_first()?;
        *buf = rest;
        value |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(value);
        }
    }
    None
}

fn take<'a>(buf: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if buf.len() < n {
        return None;
    }
    let (head, rest) = buf.split_at(n);
    *buf = rest;
    Some(head)
}

/// The next `(field number, payload)` of a message, `Some(None)` at its end.
fn field<'a>(buf: &mut &'a [u8]) -> Option<Option<(u64, Wire<'a>)>> {
    if buf.is_empty() {
        return Some(None);
    }
    let tag = varint(buf)?;
    let wire = match tag & 7 {
        0 => Wire::Varint(varint(buf)?),
        1 => {
            take(buf, 8)?;
            Wire::Fixed64
        }
        2 => {
            let n = usize::try_from(varint(buf)?).ok()?;
            Wire::Len(take(buf, n)?)
        }
        5 => Wire::Fixed32(take(buf, 4)?),
        _ => return None, // groups (3, 4) and invalid wire types
    };
    Some(Some((tag >> 3, wire)))
}

/// Calls `f` on each field of a message; `None` if the bytes are malformed.
fn fields<'a>(mut buf: &'a [u8], mut f: impl FnMut(u64, Wire<'a>) -> Option<()>) -> Option<()> {
    while let Some((number, wire)) = field(&mut buf)? {
        f(number, wire)?;
    }
    Some(())
}

/// A feature's value list: its kind and the bytes of its `BytesList`, `FloatList` or
/// `Int64List` message.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Values<'a> {
    Bytes(&'a [u8]),
    Float(&'a [u8]),
    Int64(&'a [u8]),
}

/// The value list of a serialized `Feature`; `Some(None)` when no kind is set.
fn feature(buf: &[u8]) -> Option<Option<Values<'_>>> {
    let mut out = None;
    fields(buf, |number, wire| {
        if let Wire::Len(body) = wire {
            match number {
                1 => out = Some(Values::Bytes(body)),
                2 => out = Some(Values::Float(body)),
                3 => out = Some(Values::Int64(body)),
                _ => {}
            }
        }
        Some(())
    })?;
    Some(out)
}

/// The entries of a serialized `map<string, M>` field body: `(key, value bytes)`.
fn map_entry(buf: &[u8]) -> Option<(&[u8], &[u8])> {
    let (mut key, mut value): (&[u8], &[u8]) = (&[], &[]);
    fields(buf, |number, wire| {
        if let Wire::Len(b) = wire {
            match number {
                1 => key = b,
                2 => value = b,
                _ => {}
            }
        }
        Some(())
    })?;
    Some((key, value))
}

/// The features of a serialized `Features` message, appended to `out` in order.
fn features<'a>(buf: &'a [u8], out: &mut Vec<(&'a [u8], Option<Values<'a>>)>) -> Option<()> {
    fields(buf, |number, wire| {
        if let (1, Wire::Len(entry)) = (number, wire) {
            let (key, value) = map_entry(entry)?;
            out.push((key, feature(value)?));
        }
        Some(())
    })
}

/// A parsed `Features` map: a key seen more than once keeps its last value.
#[derive(Default)]
pub(crate) struct FeatureMap<'a>(Vec<(&'a [u8], Option<Values<'a>>)>);

impl<'a> FeatureMap<'a> {
    /// The value list of `key`: `None` when absent, `Some(None)` when its kind is unset.
    pub(crate) fn get(&self, key: &[u8]) -> Option<Option<Values<'a>>> {
        self.0.iter().rev().find(|(k, _)| *k == key).map(|&(_, v)| v)
    }
}

/// The features of a serialized `tf.train.Example`.
pub(crate) fn example(buf: &[u8]) -> Option<FeatureMap<'_>> {
    let mut map = FeatureMap::default();
    fields(buf, |number, wire| {
        if let (1, Wire::Len(body)) = (number, wire) {
            features(body, &mut map.0)?;
        }
        Some(())
    })?;
    Some(map)
}

/// A serialized `tf.train.SequenceExample`: its context features and its feature
/// lists (each the serialized `Feature`s of one `FeatureList`, in order).
#[derive(Default)]
pub(crate) struct SequenceExample<'a> {
    pub(crate) context: FeatureMap<'a>,
    lists: Vec<(&'a [u8], Vec<Option<Values<'a>>>)>,
}

impl<'a> SequenceExample<'a> {
    /// The steps of feature list `key`, `None` when absent (the last one wins).
    pub(crate) fn feature_list(&self, key: &[u8]) -> Option<&[Option<Values<'a>>]> {
        self.lists.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| v.as_slice())
    }
}

/// The context and feature lists of a serialized `tf.train.SequenceExample`.
pub(crate) fn sequence_example(buf: &[u8]) -> Option<SequenceExample<'_>> {
    let mut out = SequenceExample::default();
    fields(buf, |number, wire| {
        match (number, wire) {
            (1, Wire::Len(body)) => features(body, &mut out.context.0)?,
            (2, Wire::Len(body)) => fields(body, |n, w| {
                if let (1, Wire::Len(entry)) = (n, w) {
                    let (key, list) = map_entry(entry)?;
                    let mut steps = Vec::new();
                    fields(list, |n, w| {
                        if let (1, Wire::Len(f)) = (n, w) {
                            steps.push(feature(f)?);
                        }
                        Some(())
                    })?;
                    out.lists.push((key, steps));
                }
                Some(())
            })?,
            _ => {}
        }
        Some(())
    })?;
    Some(out)
}

impl<'a> Values<'a> {
    /// The number of values; `None` if the list is malformed.
    pub(crate) fn len(&self) -> Option<usize> {
        let mut n = 0usize;
        match *self {
            Values::Bytes(body) => fields(body, |number, wire| {
                if let (1, Wire::Len(_)) = (number, wire) {
                    n += 1;
                }
                Some(())
            })?,
            Values::Float(body) => fields(body, |number, wire| {
                match (number, wire) {
                    (1, Wire::Len(packed)) if packed.len() % 4 == 0 => n += packed.len() / 4,
                    (1, Wire::Len(_)) => return None,
                    (1, Wire::Fixed32(_)) => n += 1,
                    _ => {}
                }
                Some(())
            })?,
            Values::Int64(body) => fields(body, |number, wire| {
                match (number, wire) {
                    (1, Wire::Len(packed)) => {
                        // A packed varint ends at each byte below 0x80.
                        if packed.last().is_some_and(|&b| b >= 0x80) {
                            return None;
                        }
                        n += packed.iter().filter(|&&b| b < 0x80).count();
                    }
                    (1, Wire::Varint(_)) => n += 1,
                    _ => {}
                }
                Some(())
            })?,
        }
        Some(n)
    }

    /// Appends the float values to `out`.
    pub(crate) fn floats(&self, out: &mut Vec<f32>) -> Option<()> {
        let Values::Float(body) = *self else { return None };
        fields(body, |number, wire| {
            match (number, wire) {
                (1, Wire::Len(packed)) => {
                    out.extend(packed.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])));
                }
                (1, Wire::Fixed32(c)) => out.push(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                _ => {}
            }
            Some(())
        })
    }

    /// Appends the int64 values to `out` (two's complement, as protobuf's `int64`).
    pub(crate) fn int64s(&self, out: &mut Vec<i64>) -> Option<()> {
        let Values::Int64(body) = *self else { return None };
        fields(body, |number, wire| {
            match (number, wire) {
                (1, Wire::Len(mut packed)) => {
                    while !packed.is_empty() {
                        out.push(varint(&mut packed)? as i64);
                    }
                }
                (1, Wire::Varint(v)) => out.push(v as i64),
                _ => {}
            }
            Some(())
        })
    }

    /// Appends copies of the byte strings to `out`.
    pub(crate) fn bytes(&self, out: &mut Vec<Vec<u8>>) -> Option<()> {
        let Values::Bytes(body) = *self else { return None };
        fields(body, |number, wire| {
            if let (1, Wire::Len(b)) = (number, wire) {
                out.push(b.to_vec());
            }
            Some(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferroflow_proto::{
        BytesList, Example, Feature, FeatureList, FeatureLists, Features, FloatList, Int64List, SequenceExample,
        feature,
    };
    use prost::Message;

    fn ex(features: Vec<(&str, feature::Kind)>) -> Vec<u8> {
        let feature = features.into_iter().map(|(k, kind)| (k.to_string(), Feature { kind: Some(kind) })).collect();
        Example { features: Some(Features { feature }) }.encode_to_vec()
    }

    #[test]
    fn decodes_what_prost_encodes() {
        let bytes = ex(vec![
            ("f", feature::Kind::FloatList(FloatList { value: vec![1.5, -2.0, 3.25] })),
            ("i", feature::Kind::Int64List(Int64List { value: vec![0, -1, 300, i64::MAX] })),
            ("b", feature::Kind::BytesList(BytesList { value: vec![b"x".to_vec(), Vec::new()] })),
        ]);
        let map = example(&bytes).unwrap();
        let f = map.get(b"f").unwrap().unwrap();
        let (mut floats, mut ints, mut strs) = (Vec::new(), Vec::new(), Vec::new());
        assert_eq!(f.len(), Some(3));
        f.floats(&mut floats).unwrap();
        assert_eq!(floats, [1.5, -2.0, 3.25]);
        let i = map.get(b"i").unwrap().unwrap();
        assert_eq!(i.len(), Some(4));
        i.int64s(&mut ints).unwrap();
        assert_eq!(ints, [0, -1, 300, i64::MAX]);
        let b = map.get(b"b").unwrap().unwrap();
        assert_eq!(b.len(), Some(2));
        b.bytes(&mut strs).unwrap();
        assert_eq!(strs, [b"x".to_vec(), Vec::new()]);
        assert!(map.get(b"missing").is_none());
    }

    #[test]
    fn unpacked_lists_merged_features_and_last_key_wins() {
        // FloatList with two unpacked fixed32 values; Int64List with unpacked varints.
        let float_list = [0x0d, 0, 0, 0x80, 0x3f, 0x0d, 0, 0, 0, 0x40];
        let int_list = [0x08, 0x05, 0x08, 0x07];
        let feat = |kind: u8, body: &[u8]| [&[kind << 3 | 2, body.len() as u8][..], body].concat();
        let entry = |key: &[u8], f: &[u8]| {
            let body = [&[0x0a, key.len() as u8][..], key, &[0x12, f.len() as u8], f].concat();
            [&[0x0a, body.len() as u8][..], &body].concat()
        };
        let features1 = entry(b"a", &feat(2, &float_list));
        let features2 = [entry(b"a", &feat(3, &int_list)), entry(b"b", &feat(3, &int_list))].concat();
        let bytes =
            [&[0x0a, features1.len() as u8][..], &features1, &[0x0a, features2.len() as u8], &features2].concat();
        let map = example(&bytes).unwrap();
        let mut ints = Vec::new();
        map.get(b"a").unwrap().unwrap().int64s(&mut ints).unwrap();
        assert_eq!(ints, [5, 7]);
        let only_floats = [&[0x0a, features1.len() as u8][..], &features1].concat();
        let mut floats = Vec::new();
        example(&only_floats).unwrap().get(b"a").unwrap().unwrap().floats(&mut floats).unwrap();
        assert_eq!(floats, [1.0, 2.0]);
    }

    #[test]
    fn malformed_bytes_are_rejected() {
        let good = ex(vec![("f", feature::Kind::FloatList(FloatList { value: vec![1.0; 8] }))]);
        // The record is one length-delimited `features` field: any cut runs past it.
        for cut in 1..good.len() {
            assert!(example(&good[..cut]).is_none(), "cut at {cut}");
        }
        assert!(example(&[]).unwrap().get(b"f").is_none());
        assert!(example(&[0x0b]).is_none()); // a group start
        assert!(example(&[0x0a, 0x05, 0x00]).is_none()); // length past the end
        assert!(example(&[0xff; 11]).is_none()); // a varint longer than 64 bits
    }

    fn seq(context: Vec<(&str, feature::Kind)>, lists: Vec<(&str, Vec<Option<feature::Kind>>)>) -> Vec<u8> {
        let feature: std::collections::HashMap<String, Feature> =
            context.into_iter().map(|(k, kind)| (k.to_string(), Feature { kind: Some(kind) })).collect();
        let feature_list = lists
            .into_iter()
            .map(|(k, steps)| {
                let feature = steps.into_iter().map(|kind| Feature { kind }).collect();
                (k.to_string(), FeatureList { feature })
            })
            .collect();
        SequenceExample {
            context: (!feature.is_empty()).then_some(Features { feature }),
            feature_lists: Some(FeatureLists { feature_list }),
        }
        .encode_to_vec()
    }

    #[test]
    fn sequence_examples_decode_what_prost_encodes() {
        let floats = |v: &[f32]| Some(feature::Kind::FloatList(FloatList { value: v.to_vec() }));
        let bytes = seq(
            vec![("len", feature::Kind::Int64List(Int64List { value: vec![3] }))],
            vec![
                ("f", vec![floats(&[1.0, 2.0]), None, floats(&[])]),
                ("s", vec![Some(feature::Kind::BytesList(BytesList { value: vec![b"a".to_vec()] }))]),
                ("empty", vec![]),
            ],
        );
        let s = sequence_example(&bytes).unwrap();
        let mut ints = Vec::new();
        s.context.get(b"len").unwrap().unwrap().int64s(&mut ints).unwrap();
        assert_eq!(ints, [3]);
        let f = s.feature_list(b"f").unwrap();
        assert_eq!(f.len(), 3);
        let mut got = Vec::new();
        f[0].unwrap().floats(&mut got).unwrap();
        assert_eq!(got, [1.0, 2.0]);
        assert!(f[1].is_none(), "a Feature with no kind set");
        assert_eq!(f[2].unwrap().len(), Some(0));
        let mut strs = Vec::new();
        s.feature_list(b"s").unwrap()[0].unwrap().bytes(&mut strs).unwrap();
        assert_eq!(strs, [b"a".to_vec()]);
        assert_eq!(s.feature_list(b"empty").map(<[_]>::len), Some(0));
        assert!(s.feature_list(b"len").is_none(), "context keys are not feature lists");
        assert!(s.context.get(b"f").is_none());
        assert!(sequence_example(&[]).unwrap().feature_list(b"f").is_none());
    }

    #[test]
    fn merged_sequence_examples_keep_the_last_list() {
        let ints = |v: &[i64]| Some(feature::Kind::Int64List(Int64List { value: v.to_vec() }));
        let first = seq(vec![], vec![("a", vec![ints(&[1]), ints(&[2])]), ("b", vec![ints(&[5])])]);
        let second = seq(vec![], vec![("a", vec![ints(&[7])])]);
        // Concatenated messages merge: the map's repeated key keeps its last value.
        let both = [first, second].concat();
        let s = sequence_example(&both).unwrap();
        let a = s.feature_list(b"a").unwrap();
        assert_eq!(a.len(), 1);
        let mut got = Vec::new();
        a[0].unwrap().int64s(&mut got).unwrap();
        assert_eq!(got, [7]);
        assert_eq!(s.feature_list(b"b").map(<[_]>::len), Some(1));
    }

    #[test]
    fn malformed_sequence_examples_are_rejected() {
        let floats = Some(feature::Kind::FloatList(FloatList { value: vec![1.0; 8] }));
        let good = seq(vec![], vec![("f", vec![floats.clone(), floats])]);
        // Only the `feature_lists` field is set (no context):
        // every strict prefix cuts through it.
        for cut in 1..good.len() {
            assert!(sequence_example(&good[..cut]).is_none(), "cut at {cut}");
        }
        assert!(sequence_example(&[0x12, 0x05, 0x00]).is_none()); // length past the end
        // A step whose Feature holds a group start.
        let entry = [&[0x0a, 0x01, b'f', 0x12, 0x04, 0x0a, 0x02][..], &[0x0b, 0x00]].concat();
        let lists = [&[0x0a, entry.len() as u8][..], &entry].concat();
        let record = [&[0x12, lists.len() as u8][..], &lists].concat();
        assert!(sequence_example(&record).is_none());
    }
}
