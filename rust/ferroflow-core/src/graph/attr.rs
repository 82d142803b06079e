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
