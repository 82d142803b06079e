//! Node attributes (TF's `AttrValue`): typed values set when an op is created.
use ferroflow_proto as pb;

use crate::dtype::DType;
use crate::shape::PartialShape;
use crate::tensor::{Tensor, shape_from_proto, shape_to_proto};

/// One attribute value of a node.
#[derive(Clone, Debug)]
pub enum AttrValue {
    /// Bytes (`s`).
    S(Vec<u8>),
    /// Integer (`i`).
    I(i64),
    /// Float (`f`).
    F(f32),
    /// Boolean (`b`).
    B(bool),
    /// Element type (`type`).
    Type(DType),
    /// Static shape (`shape`).
    Shape(PartialShape),
    /// Constant tensor (`tensor`).
    Tensor(Tensor),
    /// List of byte strings.
    ListS(Vec<Vec<u8>>),
    /// List of integers.
    ListI(Vec<i64>),
    /// List of floats.
    ListF(Vec<f32>),
    /// List of booleans.
    ListB(Vec<bool>),
    /// List of element types.
    ListType(Vec<DType>),
    /// List of static shapes.
    ListShape(Vec<PartialShape>),
}

impl AttrValue {
    /// The AttrValue message for this value.
    pub fn to_proto(&self) -> pb::AttrValue {
        use pb::attr_value::{ListValue, Value};
        let list = |l: ListValue| Some(Value::List(l));
        let value = match self {
            AttrValue::S(s) => Some(Value::S(s.clone())),
            AttrValue::I(i) => Some(Value::I(*i)),
            AttrValue::F(f) => Some(Value::F(*f)),
            AttrValue::B(b) => Some(Value::B(*b)),
            AttrValue::Type(t) => Some(Value::Type(*t as i32)),
            AttrValue::Shape(s) => Some(Value::Shape(shape_to_proto(s))),
            AttrValue::Tensor(t) => Some(Value::Tensor(t.to_proto())),
            AttrValue::ListS(v) => list(ListValue { s: v.clone(), ..Default::default() }),
            AttrValue::ListI(v) => list(ListValue { i: v.clone(), ..Default::default() }),
            AttrValue::ListF(v) => list(ListValue { f: v.clone(), ..Default::default() }),
            AttrValue::ListB(v) => list(ListValue { b: v.clone(), ..Default::default() }),
            AttrValue::ListType(v) => {
                list(ListValue { r#type: v.iter().map(|t| *t as i32).collect(), ..Default::default() })
            }
            AttrValue::ListShape(v) => {
                list(ListValue { shape: v.iter().map(shape_to_proto).collect(), ..Default::default() })
            }
        };
        pb::AttrValue { value }
    }

    /// Decodes an AttrValue message (lists take the first non-empty kind).
    pub fn from_proto(p: &pb::AttrValue) -> Option<AttrValue> {
        use pb::attr_value::Value;
        Some(match p.value.as_ref()? {
            Value::S(s) => AttrValue::S(s.clone()),
            Value::I(i) => AttrValue::I(*i),
            Value::F(f) => AttrValue::F(*f),
            Value::B(b) => AttrValue::B(*b),
            Value::Type(t) => AttrValue::Type(DType::from_code(*t).ok()?),
            Value::Shape(s) => AttrValue::Shape(shape_from_proto(s)),
            Value::Tensor(t) => AttrValue::Tensor(Tensor::from_proto(t).ok()?),
            Value::List(l) => {
                if !l.s.is_empty() {
                    AttrValue::ListS(l.s.clone())
                } else if !l.f.is_empty() {
                    AttrValue::ListF(l.f.clone())
                } else if !l.b.is_empty() {
                    AttrValue::ListB(l.b.clone())
                } else if !l.r#type.is_empty() {
                    AttrValue::ListType(l.r#type.iter().filter_map(|t| DType::from_code(*t).ok()).collect())
                } else if !l.shape.is_empty() {
                    AttrValue::ListShape(l.shape.iter().map(shape_from_proto).collect())
                } else {
                    AttrValue::ListI(l.i.clone())
                }
            }
            _ => return None,
        })
    }
}

/// A Rust type an attr value converts to and from: the one typed way to read attrs
/// (`Node::attr::<T>`, `Node::attr_or::<T>`, and the `InferCtx` helpers, which also
/// record defaults on the node as TF does).
pub trait FromAttr: Sized {
    /// What the attr should be, in the wrong-type error ("an int", "a list of types").
    const EXPECTED: &'static str;
    /// The value, or `None` when the attr holds another kind of value.
    fn from_attr(v: &AttrValue) -> Option<Self>;
    /// The attr holding this value (a default recorded on a node).
    fn into_attr(self) -> AttrValue;
}

macro_rules! from_attr {
    ($t:ty, $variant:ident, $expected:literal) => {
        impl FromAttr for $t {
            const EXPECTED: &'static str = $expected;
            fn from_attr(v: &AttrValue) -> Option<Self> {
                match v {
                    AttrValue::$variant(x) => Some(x.clone()),
                    _ => None,
                }
            }
            fn into_attr(self) -> AttrValue {
                AttrValue::$variant(self)
            }
        }
    };
}
from_attr!(i64, I, "an int");
from_attr!(f32, F, "a float");
from_attr!(bool, B, "a bool");
from_attr!(Vec<u8>, S, "a string");
from_attr!(DType, Type, "a type");
from_attr!(PartialShape, Shape, "a shape");
from_attr!(Tensor, Tensor, "a tensor");

impl AttrValue {
    /// Whether this is a list with no elements. An empty `AttrValue.list` carries no
    /// kind on the wire (decoded, it is an empty `ListI`), so any empty list reads as an
    /// empty list of the kind asked for (an empty `Tout` of `PyFunc`).
    pub fn is_empty_list(&self) -> bool {
        match self {
            AttrValue::ListS(v) => v.is_empty(),
            AttrValue::ListI(v) => v.is_empty(),
            AttrValue::ListF(v) => v.is_empty(),
            AttrValue::ListB(v) => v.is_empty(),
            AttrValue::ListType(v) => v.is_empty(),
            AttrValue::ListShape(v) => v.is_empty(),
            _ => false,
        }
    }
}

macro_rules! from_list_attr {
    ($t:ty, $variant:ident, $expected:literal) => {
        impl FromAttr for $t {
            const EXPECTED: &'static str = $expected;
            fn from_attr(v: &AttrValue) -> Option<Self> {
                match v {
                    AttrValue::$variant(x) => Some(x.clone()),
                    other if other.is_empty_list() => Some(Vec::new()),
                    _ => None,
                }
            }
            fn into_attr(self) -> AttrValue {
                AttrValue::$variant(self)
            }
        }
    };
}
from_list_attr!(Vec<Vec<u8>>, ListS, "a list of strings");
from_list_attr!(Vec<i64>, ListI, "a list of ints");
from_list_attr!(Vec<f32>, ListF, "a list of floats");
from_list_attr!(Vec<bool>, ListB, "a list of bools");
from_list_attr!(Vec<DType>, ListType, "a list of types");
from_list_attr!(Vec<PartialShape>, ListShape, "a list of shapes");

/// A `string` attr as text (bytes that are not UTF-8 are replaced, as TF's Python
/// `compat.as_str` with `errors="replace"`).
impl FromAttr for String {
    const EXPECTED: &'static str = "a string";
    fn from_attr(v: &AttrValue) -> Option<Self> {
        match v {
            AttrValue::S(s) => Some(String::from_utf8_lossy(s).into_owned()),
            _ => None,
        }
    }
    fn into_attr(self) -> AttrValue {
        AttrValue::S(self.into_bytes())
    }
}

/// An `int` attr that must fit an `i32` (TF's `int32` attrs, as `seed`s are not).
impl FromAttr for i32 {
    const EXPECTED: &'static str = "an int32";
    fn from_attr(v: &AttrValue) -> Option<Self> {
        match v {
            AttrValue::I(i) => i32::try_from(*i).ok(),
            _ => None,
        }
    }
    fn into_attr(self) -> AttrValue {
        AttrValue::I(i64::from(self))
    }
}

/// Reads attr `name` of node `node` (op `op`) from `attrs` as a `T`: `None` when
/// absent, TF's `ValueError` text when it holds another kind of value.
pub(crate) fn read_attr<T: FromAttr>(
    attrs: &std::collections::BTreeMap<String, AttrValue>,
    node: &str,
    op: &str,
    name: &str,
) -> crate::error::Result<Option<T>> {
    match attrs.get(name) {
        None => Ok(None),
        Some(v) => T::from_attr(v).map(Some).ok_or_else(|| {
            crate::error::Error::value(format!("Attr '{name}' of '{node}' ({op}) should be {}", T::EXPECTED))
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn attrs(name: &str, v: AttrValue) -> BTreeMap<String, AttrValue> {
        BTreeMap::from([(name.to_string(), v)])
    }

    #[test]
    fn converts_each_kind() {
        assert_eq!(i64::from_attr(&AttrValue::I(-3)), Some(-3));
        assert_eq!(i32::from_attr(&AttrValue::I(7)), Some(7));
        assert_eq!(i32::from_attr(&AttrValue::I(1 << 40)), None);
        assert_eq!(bool::from_attr(&AttrValue::B(true)), Some(true));
        assert_eq!(f32::from_attr(&AttrValue::F(0.5)), Some(0.5));
        assert_eq!(String::from_attr(&AttrValue::S(b"NHWC".to_vec())).as_deref(), Some("NHWC"));
        assert_eq!(String::from_attr(&AttrValue::S(vec![0xff])).as_deref(), Some("\u{fffd}"));
        assert_eq!(Vec::<u8>::from_attr(&AttrValue::S(vec![0xff])), Some(vec![0xff]));
        assert_eq!(DType::from_attr(&AttrValue::Type(DType::Int64)), Some(DType::Int64));
        assert_eq!(Vec::<i64>::from_attr(&AttrValue::ListI(vec![1, 2])), Some(vec![1, 2]));
        assert_eq!(Vec::<DType>::from_attr(&AttrValue::ListType(vec![DType::Bool])), Some(vec![DType::Bool]));
        let s = PartialShape::from_dims(vec![Some(2), None]);
        assert_eq!(PartialShape::from_attr(&AttrValue::Shape(s.clone())), Some(s.clone()));
        assert_eq!(Vec::<PartialShape>::from_attr(&AttrValue::ListShape(vec![s.clone()])), Some(vec![s]));
        let t = Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap();
        let back = Tensor::from_attr(&AttrValue::Tensor(t)).unwrap();
        assert_eq!(back.as_slice::<f32>().unwrap(), &[1.0, 2.0]);
        // Another kind of value is not converted, lists and scalars included.
        assert_eq!(i64::from_attr(&AttrValue::ListI(vec![1])), None);
        assert_eq!(bool::from_attr(&AttrValue::I(1)), None);
        assert_eq!(Vec::<i64>::from_attr(&AttrValue::I(1)), None);
        // An empty list has no kind: it reads as an empty list of any kind.
        assert_eq!(Vec::<DType>::from_attr(&AttrValue::ListI(vec![])), Some(vec![]));
        assert_eq!(Vec::<i64>::from_attr(&AttrValue::ListType(vec![])), Some(vec![]));
        assert_eq!(Vec::<DType>::from_attr(&AttrValue::ListI(vec![1])), None);
    }

    #[test]
    fn round_trips_through_into_attr() {
        assert!(matches!(5i64.into_attr(), AttrValue::I(5)));
        assert!(matches!(5i32.into_attr(), AttrValue::I(5)));
        assert!(matches!(false.into_attr(), AttrValue::B(false)));
        assert!(matches!(String::from("x").into_attr(), AttrValue::S(s) if s == b"x"));
        assert!(matches!(DType::Float32.into_attr(), AttrValue::Type(DType::Float32)));
        assert!(matches!(vec![DType::Int32].into_attr(), AttrValue::ListType(v) if v == [DType::Int32]));
    }

    #[test]
    fn reads_absent_present_and_wrong_kind() {
        let a = attrs("axis", AttrValue::I(1));
        assert_eq!(read_attr::<i64>(&a, "n", "Pack", "axis").unwrap(), Some(1));
        assert_eq!(read_attr::<i64>(&a, "n", "Pack", "N").unwrap(), None);
        let e = read_attr::<bool>(&a, "n", "Pack", "axis").unwrap_err();
        assert_eq!(e.message, "Attr 'axis' of 'n' (Pack) should be a bool");
        assert!(matches!(e.kind, crate::error::Kind::Value));
        let e = read_attr::<Vec<DType>>(&a, "q", "FIFOQueueV2", "axis").unwrap_err();
        assert_eq!(e.message, "Attr 'axis' of 'q' (FIFOQueueV2) should be a list of types");
    }
}
