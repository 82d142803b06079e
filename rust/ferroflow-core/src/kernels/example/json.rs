//! `DecodeJSONExample`: `tf.train.Example`s in protobuf's JSON mapping (what
//! `json_format.MessageToJson` writes) to their binary serialization. Field names are
//! accepted in both spellings (`floatList` and `float_list`); bytes are base64, int64
//! values numbers or decimal strings, floats numbers or `"NaN"`/`"Infinity"` strings,
//! and `null` is the field's default, as protobuf's JSON parser does. Unknown fields
//! are an error, as in TF.
use std::collections::HashMap;

use base64::Engine;
use ferroflow_proto::{BytesList, Example, Feature, Features, FloatList, Int64List, feature};
use prost::Message;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};
use crate::tensor::Tensor;

/// The kernel: one binary `Example` per JSON string, same shape.
pub(crate) fn decode_json_example_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(decode_json_examples)
}

fn decode_json_examples(ctx: &mut OpContext<'_>) -> Result<()> {
    let input = ctx.input(0)?;
    let mut out = crate::buffer::try_vec(input.num_elements())?;
    for json in input.as_strings()? {
        let example = parse_example(json).map_err(|m| {
            Error::invalid_argument(format!(
                "Error while parsing JSON: {m}\n\tfor input: {}",
                String::from_utf8_lossy(json)
            ))
        })?;
        out.push(example.encode_to_vec());
    }
    ctx.set_output(0, Tensor::from_strings(input.shape(), out)?);
    Ok(())
}

type Parsed<T> = std::result::Result<T, String>;

fn parse_example(json: &[u8]) -> Parsed<Example> {
    let value: Value = serde_json::from_slice(json).map_err(|e| e.to_string())?;
    let mut example = Example::default();
    for (key, v) in object(&value, "Example")?.iter() {
        match key.as_str() {
            "features" => example.features = parse_features(v)?,
            _ => return Err(unknown(key, "tensorflow.Example")),
        }
    }
    Ok(example)
}

fn unknown(key: &str, message: &str) -> String {
    format!("Cannot find field: {key} in message {message}")
}

/// `value` as a JSON object; an empty one for `null`.
fn object<'a>(value: &'a Value, what: &str) -> Parsed<std::borrow::Cow<'a, Map<String, Value>>> {
    match value {
        Value::Object(m) => Ok(std::borrow::Cow::Borrowed(m)),
        Value::Null => Ok(std::borrow::Cow::Owned(Map::new())),
        other => Err(format!("Expected an object for {what}, got {other}")),
    }
}

fn parse_features(value: &Value) -> Parsed<Option<Features>> {
    if value.is_null() {
        return Ok(None);
    }
    let mut feature: HashMap<String, Feature> = HashMap::new();
    for (key, v) in object(value, "Features")?.iter() {
        match key.as_str() {
            "feature" => {
                for (name, f) in object(v, "map feature")?.iter() {
                    feature.insert(name.clone(), parse_feature(f)?);
                }
            }
            _ => return Err(unknown(key, "tensorflow.Features")),
        }
    }
    Ok(Some(Features { feature: feature.into_iter().collect() }))
}

fn parse_feature(value: &Value) -> Parsed<Feature> {
    let mut kind = None;
    for (key, v) in object(value, "Feature")?.iter() {
        if v.is_null() {
            continue;
        }
        if kind.is_some() {
            return Err("Feature: more than one field of the oneof 'kind' is set".into());
        }
        let values = list_values(v)?;
        kind = Some(match key.as_str() {
            "bytesList" | "bytes_list" => {
                feature::Kind::BytesList(BytesList { value: values.iter().map(bytes_value).collect::<Parsed<_>>()? })
            }
            "floatList" | "float_list" => {
                feature::Kind::FloatList(FloatList { value: values.iter().map(float_value).collect::<Parsed<_>>()? })
            }
            "int64List" | "int64_list" => {
                feature::Kind::Int64List(Int64List { value: values.iter().map(int64_value).collect::<Parsed<_>>()? })
            }
            _ => return Err(unknown(key, "tensorflow.Feature")),
        });
    }
    Ok(Feature { kind })
}

/// The `value` array of a `*List` message.
fn list_values(value: &Value) -> Parsed<Vec<Value>> {
    let mut out = Vec::new();
    for (key, v) in object(value, "list")?.iter() {
        match (key.as_str(), v) {
            ("value", Value::Array(items)) => out.clone_from(items),
            ("value", Value::Null) => {}
            ("value", other) => return Err(format!("Expected an array for value, got {other}")),
            _ => return Err(unknown(key, "a feature list")),
        }
    }
    Ok(out)
}

fn bytes_value(v: &Value) -> Parsed<Vec<u8>> {
    let s = v.as_str().ok_or_else(|| format!("Expected a base64 string, got {v}"))?;
    // Protobuf's parser takes both the standard and the URL-safe alphabets.
    let standard = base64::engine::general_purpose::STANDARD_NO_PAD;
    let url = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let trimmed = s.trim_end_matches('=');
    standard.decode(trimmed).or_else(|_| url.decode(trimmed)).map_err(|e| format!("Invalid base64 '{s}': {e}"))
}

fn float_value(v: &Value) -> Parsed<f32> {
    match v {
        Value::Number(n) => n.as_f64().map(|f| f as f32).ok_or_else(|| format!("Invalid float {n}")),
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f32::NAN),
            "Infinity" => Ok(f32::INFINITY),
            "-Infinity" => Ok(f32::NEG_INFINITY),
            _ => s.parse::<f32>().map_err(|_| format!("Invalid float '{s}'")),
        },
        other => Err(format!("Expected a number, got {other}")),
    }
}

fn int64_value(v: &Value) -> Parsed<i64> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18).map(|f| f as i64))
            .ok_or_else(|| format!("Invalid int64 {n}")),
        Value::String(s) => s.parse::<i64>().map_err(|_| format!("Invalid int64 '{s}'")),
        other => Err(format!("Expected an integer, got {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_base64_and_string_ints() {
        let json = br#"{"features": {"feature": {
            "a": {"floatList": {"value": [1, 2.5, "NaN"]}},
            "b": {"int64_list": {"value": ["-3", 4]}},
            "c": {"bytesList": {"value": ["aGk=", "_-8"]}}}}}"#;
        let e = parse_example(json).unwrap();
        let f = &e.features.unwrap().feature;
        let Some(feature::Kind::FloatList(a)) = &f["a"].kind else { panic!() };
        assert_eq!(&a.value[..2], &[1.0, 2.5]);
        assert!(a.value[2].is_nan());
        let Some(feature::Kind::Int64List(b)) = &f["b"].kind else { panic!() };
        assert_eq!(b.value, vec![-3, 4]);
        let Some(feature::Kind::BytesList(c)) = &f["c"].kind else { panic!() };
        assert_eq!(c.value, vec![b"hi".to_vec(), vec![0xff, 0xef]]);
        assert!(parse_example(b"{]").is_err());
        assert!(parse_example(br#"{"featurez": {}}"#).is_err());
        assert_eq!(parse_example(b"{}").unwrap(), Example::default());
    }
}
