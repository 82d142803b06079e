//! Tensors on the wire without an intermediate `TensorProto`: `RecvTensor`'s response,
//! and the named tensors of `RunStep` (feeds, fetched values) and `RunGraph` (sends,
//! received values), requests and responses.
//!
//! Through prost, a tensor crossing tasks is copied four times: into the proto's
//! `tensor_content`, into the gRPC buffer, out of the received buffer into a new
//! `tensor_content`, and from there into an aligned tensor. Here the sender writes the
//! tensor's bytes straight into the gRPC buffer and the receiver copies them once, from
//! the received buffer into the tensor (TF's own `grpc_tensor_coding` saves the same
//! copies). The bytes are the messages' protobuf encoding, so TF's
//! masters, workers and clients read what this sends and this reads what they send, in any field order and
//! with values in `tensor_content` or in the typed `*_val` lists.
use std::marker::PhantomData;

use ferroflow_core::dtype::DType;
use ferroflow_core::shape::PartialShape;
use ferroflow_core::tensor::{Tensor, shape_from_proto, shape_to_proto};
use ferroflow_proto as pb;
use prost::Message;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{DecodeContext, WireType, decode_key, decode_varint, encode_key, encode_varint, skip_field};
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

use crate::status::to_status;

/// `RecvTensorResponse` with its tensor decoded (fields 4 and 5, `transport_options`
/// and `require_ack`, are neither sent nor kept: TF sets them only for RDMA).
pub struct TensorResponse {
    /// The value (field 1).
    pub tensor: Tensor,
    /// The producer's output was dead (field 2).
    pub is_dead: bool,
    /// When the sender started sending, in microseconds since the epoch (field 3).
    pub send_start_micros: i64,
}

// RecvTensorResponse's and TensorProto's field numbers (worker.proto, tensor.proto).
const RESPONSE_TENSOR: u32 = 1;
const RESPONSE_IS_DEAD: u32 = 2;
const RESPONSE_SEND_START_MICROS: u32 = 3;
const TENSOR_DTYPE: u32 = 1;
const TENSOR_SHAPE: u32 = 2;
const TENSOR_CONTENT: u32 = 4;

/// A message as one gRPC method sends and receives it.
pub trait Wire: Sized + Send + 'static {
    /// The length of its protobuf encoding.
    fn wire_len(&self) -> usize;
    /// Appends its protobuf encoding (`wire_len` bytes).
    fn write(&self, buf: &mut impl BufMut);
    /// Reads one message: the whole of `buf`.
    fn read(buf: &mut impl Buf) -> Result<Self, Status>;
}

/// Messages without tensors to save copies of: prost's encoding as is.
macro_rules! prost_wire {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn wire_len(&self) -> usize {
                self.encoded_len()
            }
            fn write(&self, buf: &mut impl BufMut) {
                self.encode_raw(buf);
            }
            fn read(buf: &mut impl Buf) -> Result<Self, Status> {
                Self::decode(buf).map_err(|e| Status::internal(e.to_string()))
            }
        }
    )*};
}

prost_wire!(pb::RecvTensorRequest);

fn len_field_len(tag: u32, len: usize) -> usize {
    prost::encoding::key_len(tag) + prost::encoding::encoded_len_varint(len as u64) + len
}

/// A tensor as a `TensorProto` on the wire: the header (dtype, shape; strings in
/// `string_val`) through prost, the dense values written as `tensor_content` straight
/// from the tensor's buffer.
struct TensorWire<'a> {
    header: pb::TensorProto,
    content: &'a [u8],
    /// The length of the whole `TensorProto` encoding.
    len: usize,
}

impl<'a> TensorWire<'a> {
    fn of(tensor: &'a Tensor) -> Self {
        let (header, content) = match tensor.as_bytes() {
            Ok(bytes) => (
                pb::TensorProto {
                    dtype: tensor.dtype() as i32,
                    tensor_shape: Some(shape_to_proto(&PartialShape::known(tensor.shape()))),
                    ..Default::default()
                },
                bytes,
            ),
            Err(_) => (tensor.to_proto(), &[][..]),
        };
        let content_len = if content.is_empty() { 0 } else { len_field_len(TENSOR_CONTENT, content.len()) };
        let len = header.encoded_len() + content_len;
        TensorWire { header, content, len }
    }

    /// Appends the `TensorProto` encoding (`len` bytes, without a key or length).
    fn write(&self, buf: &mut impl BufMut) {
        self.header.encode_raw(buf);
        if !self.content.is_empty() {
            encode_key(TENSOR_CONTENT, WireType::LengthDelimited, buf);
            encode_varint(self.content.len() as u64, buf);
            buf.put_slice(self.content);
        }
    }
}

impl Wire for TensorResponse {
    fn wire_len(&self) -> usize {
        let tensor_len = TensorWire::of(&self.tensor).len;
        let varint = |v: u64| 1 + prost::encoding::encoded_len_varint(v);
        #[allow(clippy::cast_sign_loss)] // protobuf's int64: two's complement
        let micros = if self.send_start_micros == 0 { 0 } else { varint(self.send_start_micros as u64) };
        len_field_len(RESPONSE_TENSOR, tensor_len) + if self.is_dead { 2 } else { 0 } + micros
    }

    fn write(&self, buf: &mut impl BufMut) {
        let tensor = TensorWire::of(&self.tensor);
        encode_key(RESPONSE_TENSOR, WireType::LengthDelimited, buf);
        encode_varint(tensor.len as u64, buf);
        tensor.write(buf);
        if self.is_dead {
            encode_key(RESPONSE_IS_DEAD, WireType::Varint, buf);
            encode_varint(1, buf);
        }
        if self.send_start_micros != 0 {
            encode_key(RESPONSE_SEND_START_MICROS, WireType::Varint, buf);
            #[allow(clippy::cast_sign_loss)] // protobuf's int64: two's complement
            encode_varint(self.send_start_micros as u64, buf);
        }
    }

    fn read(buf: &mut impl Buf) -> Result<Self, Status> {
        const WHAT: &str = "RecvTensorResponse";
        let bad = |e: prost::DecodeError| Status::internal(format!("Invalid {WHAT}: {e}"));
        let mut tensor = None;
        let mut is_dead = false;
        let mut send_start_micros = 0;
        while buf.has_remaining() {
            let (tag, wire_type) = decode_key(buf).map_err(bad)?;
            match (tag, wire_type) {
                (RESPONSE_TENSOR, WireType::LengthDelimited) => tensor = Some(decode_tensor_field(buf, WHAT)?),
                (RESPONSE_IS_DEAD, WireType::Varint) => is_dead = decode_varint(buf).map_err(bad)? != 0,
                (RESPONSE_SEND_START_MICROS, WireType::Varint) => {
                    #[allow(clippy::cast_possible_wrap)] // protobuf's int64: two's complement
                    let micros = decode_varint(buf).map_err(bad)? as i64;
                    send_start_micros = micros;
                }
                _ => skip_field(wire_type, tag, buf, DecodeContext::default()).map_err(bad)?,
            }
        }
        Ok(TensorResponse { tensor: tensor_or_default(tensor)?, is_dead, send_start_micros })
    }
}

/// A missing tensor is an empty proto (TF's default), which has no dtype: an error, as
/// in TF's `Tensor::FromProto`.
fn tensor_or_default(tensor: Option<Tensor>) -> Result<Tensor, Status> {
    match tensor {
        Some(t) => Ok(t),
        None => Tensor::from_proto(&pb::TensorProto::default()).map_err(|e| to_status(&e)),
    }
}

/// One of TF's messages whose repeated `NamedTensorProto` field carries tensors
/// (`RunStep`'s feeds and fetched values, `RunGraph`'s sends and received values).
pub trait TensorField: Message + Default + Send + 'static {
    /// The number of the `repeated NamedTensorProto` field.
    const FIELD: u32;
    /// The message's name, for errors.
    const NAME: &'static str;
}

impl TensorField for pb::RunStepRequest {
    const FIELD: u32 = 2; // feed
    const NAME: &'static str = "RunStepRequest";
}

impl TensorField for pb::RunStepResponse {
    const FIELD: u32 = 1; // tensor
    const NAME: &'static str = "RunStepResponse";
}

impl TensorField for pb::RunGraphRequest {
    const FIELD: u32 = 3; // send
    const NAME: &'static str = "RunGraphRequest";
}

impl TensorField for pb::RunGraphResponse {
    const FIELD: u32 = 1; // recv
    const NAME: &'static str = "RunGraphResponse";
}

/// A message `M` with its named tensors as tensors: `message`'s tensor field stays
/// empty, and `tensors` go on the wire in its place, their values written straight
/// from their buffers and read straight into new tensors (the same single copy each
/// way as `RecvTensor`'s, where `TensorProto`s took four). Other fields go through
/// prost; fields arrive in any order, unknown ones are skipped.
pub struct WithTensors<M> {
    /// The message without its tensors.
    pub message: M,
    /// The tensor field's entries: name and value, in order.
    pub tensors: Vec<(String, Tensor)>,
}

impl<M> WithTensors<M> {
    /// `message` carrying `tensors`.
    pub fn new(message: M, tensors: Vec<(String, Tensor)>) -> Self {
        WithTensors { message, tensors }
    }
}

/// `RunStep`'s request: the feeds as tensors.
pub type RunStepRequest = WithTensors<pb::RunStepRequest>;
/// `RunStep`'s response: the fetched values as tensors.
pub type RunStepResponse = WithTensors<pb::RunStepResponse>;
/// `RunGraph`'s request: the `send` values as tensors.
pub type RunGraphRequest = WithTensors<pb::RunGraphRequest>;
/// `RunGraph`'s response: the `recv` values as tensors.
pub type RunGraphResponse = WithTensors<pb::RunGraphResponse>;

// NamedTensorProto's field numbers (named_tensor.proto).
const NAMED_NAME: u32 = 1;
const NAMED_TENSOR: u32 = 2;

/// The length of a `NamedTensorProto`'s encoding (prost leaves out an empty name).
fn named_len(name: &str, tensor: &TensorWire<'_>) -> usize {
    let name_len = if name.is_empty() { 0 } else { len_field_len(NAMED_NAME, name.len()) };
    name_len + len_field_len(NAMED_TENSOR, tensor.len)
}

impl<M: TensorField> Wire for WithTensors<M> {
    fn wire_len(&self) -> usize {
        let tensors: usize =
            self.tensors.iter().map(|(name, t)| len_field_len(M::FIELD, named_len(name, &TensorWire::of(t)))).sum();
        self.message.encoded_len() + tensors
    }

    fn write(&self, buf: &mut impl BufMut) {
        self.message.encode_raw(buf);
        for (name, t) in &self.tensors {
            let tensor = TensorWire::of(t);
            encode_key(M::FIELD, WireType::LengthDelimited, buf);
            encode_varint(named_len(name, &tensor) as u64, buf);
            if !name.is_empty() {
                prost::encoding::string::encode(NAMED_NAME, name, buf);
            }
            encode_key(NAMED_TENSOR, WireType::LengthDelimited, buf);
            encode_varint(tensor.len as u64, buf);
            tensor.write(buf);
        }
    }

    fn read(buf: &mut impl Buf) -> Result<Self, Status> {
        let bad = |e: prost::DecodeError| Status::internal(format!("Invalid {}: {e}", M::NAME));
        let mut message = M::default();
        let mut tensors = Vec::new();
        while buf.has_remaining() {
            let (tag, wire_type) = decode_key(buf).map_err(bad)?;
            if tag == M::FIELD && wire_type == WireType::LengthDelimited {
                let len = length(buf, M::NAME)?;
                let mut sub = buf.take(len);
                tensors.push(decode_named(&mut sub, M::NAME)?);
                if sub.has_remaining() {
                    return Err(Status::internal(format!("Invalid {}: a named tensor overruns", M::NAME)));
                }
            } else {
                message.merge_field(tag, wire_type, buf, DecodeContext::default()).map_err(bad)?;
            }
        }
        Ok(WithTensors { message, tensors })
    }
}

/// A `NamedTensorProto` read from `buf` (all of it).
fn decode_named(buf: &mut impl Buf, what: &str) -> Result<(String, Tensor), Status> {
    let bad = |e: prost::DecodeError| Status::internal(format!("Invalid NamedTensorProto in {what}: {e}"));
    let mut name = String::new();
    let mut tensor = None;
    while buf.has_remaining() {
        let (tag, wire_type) = decode_key(buf).map_err(bad)?;
        match (tag, wire_type) {
            (NAMED_NAME, WireType::LengthDelimited) => {
                prost::encoding::string::merge(wire_type, &mut name, buf, DecodeContext::default()).map_err(bad)?;
            }
            (NAMED_TENSOR, WireType::LengthDelimited) => tensor = Some(decode_tensor_field(buf, what)?),
            _ => skip_field(wire_type, tag, buf, DecodeContext::default()).map_err(bad)?,
        }
    }
    Ok((name, tensor_or_default(tensor)?))
}

/// A length-delimited `TensorProto` field's payload (its key already read).
fn decode_tensor_field(buf: &mut impl Buf, what: &str) -> Result<Tensor, Status> {
    let len = length(buf, what)?;
    let mut sub = buf.take(len);
    let tensor = decode_tensor(&mut sub, what)?;
    if sub.has_remaining() {
        return Err(Status::internal(format!("Invalid {what}: tensor field overruns")));
    }
    Ok(tensor)
}

/// A length prefix that fits in what is left of `buf`.
fn length(buf: &mut impl Buf, what: &str) -> Result<usize, Status> {
    let len = decode_varint(buf).map_err(|e| Status::internal(format!("Invalid {what}: {e}")))?;
    match usize::try_from(len) {
        Ok(n) if n <= buf.remaining() => Ok(n),
        _ => Err(Status::internal(format!("Invalid {what}: a field overruns the message"))),
    }
}

/// A `TensorProto` read from `buf` (all of it). Its `tensor_content`, once the dtype and
/// shape are known (TF writes them first), is copied straight into the tensor.
fn decode_tensor(buf: &mut impl Buf, what: &str) -> Result<Tensor, Status> {
    let bad = |e: prost::DecodeError| Status::internal(format!("Invalid TensorProto in {what}: {e}"));
    let mut proto = pb::TensorProto::default();
    let (mut has_dtype, mut has_shape) = (false, false);
    let mut dense = None;
    while buf.has_remaining() {
        let (tag, wire_type) = decode_key(buf).map_err(bad)?;
        let fast = has_dtype && has_shape && proto.dtype != DType::String as i32 && dense.is_none();
        if tag == TENSOR_CONTENT && wire_type == WireType::LengthDelimited && fast {
            let len = length(buf, what)?;
            // The received message is one contiguous buffer; a split one takes prost's way.
            if buf.chunk().len() >= len {
                let t = dense_tensor(&proto, &buf.chunk()[..len])?;
                buf.advance(len);
                dense = Some(t);
            } else {
                proto.tensor_content = buf.copy_to_bytes(len).to_vec();
            }
            continue;
        }
        has_dtype |= tag == TENSOR_DTYPE;
        has_shape |= tag == TENSOR_SHAPE;
        proto.merge_field(tag, wire_type, buf, DecodeContext::default()).map_err(bad)?;
    }
    match dense {
        // A later dtype or shape field (protobuf's last-one-wins) must still agree.
        Some(t) if t.dtype() as i32 == proto.dtype => Ok(t),
        Some(_) => Err(Status::internal(format!("Invalid TensorProto in {what}: dtype changed after content"))),
        None => Tensor::from_proto(&proto).map_err(|e| to_status(&e)),
    }
}

/// The tensor of `proto`'s dtype and shape over a copy of `content` (`from_proto`'s
/// checks: a known dtype, a full shape, and exactly its number of bytes).
fn dense_tensor(proto: &pb::TensorProto, content: &[u8]) -> Result<Tensor, Status> {
    let dtype = DType::from_code(proto.dtype).map_err(|e| Status::invalid_argument(e.message))?;
    let shape = shape_from_proto(proto.tensor_shape.as_ref().unwrap_or(&pb::TensorShapeProto::default()))
        .to_shape()
        .ok_or_else(|| Status::invalid_argument("TensorProto shape is not fully defined"))?;
    Tensor::from_bytes(dtype, &shape, content).map_err(|e| to_status(&e))
}

/// The codec of a method whose messages are [`Wire`]: `E` sent, `D` received.
pub struct WireCodec<E, D>(PhantomData<fn() -> (E, D)>);

impl<E, D> Default for WireCodec<E, D> {
    fn default() -> Self {
        WireCodec(PhantomData)
    }
}

/// Encodes `E`.
pub struct WireEncoder<E>(PhantomData<fn() -> E>);

/// Decodes `D`.
pub struct WireDecoder<D>(PhantomData<fn() -> D>);

impl<E: Wire> Encoder for WireEncoder<E> {
    type Item = E;
    type Error = Status;

    fn encode(&mut self, item: E, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        // One allocation for the whole message (a large tensor would otherwise grow
        // the buffer, copying it, several times).
        dst.reserve(item.wire_len());
        item.write(dst);
        Ok(())
    }
}

impl<D: Wire> Decoder for WireDecoder<D> {
    type Item = D;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<D>, Status> {
        D::read(src).map(Some)
    }
}

impl<E: Wire, D: Wire> Codec for WireCodec<E, D> {
    type Encode = E;
    type Decode = D;
    type Encoder = WireEncoder<E>;
    type Decoder = WireDecoder<D>;

    fn encoder(&mut self) -> WireEncoder<E> {
        WireEncoder(PhantomData)
    }

    fn decoder(&mut self) -> WireDecoder<D> {
        WireDecoder(PhantomData)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prost_bytes(r: &pb::RecvTensorResponse) -> Vec<u8> {
        r.encode_to_vec()
    }

    fn written(r: &TensorResponse) -> Vec<u8> {
        let mut out = Vec::new();
        r.write(&mut out);
        assert_eq!(out.len(), r.wire_len());
        out
    }

    fn read(bytes: &[u8]) -> Result<TensorResponse, Status> {
        TensorResponse::read(&mut &bytes[..])
    }

    #[test]
    fn writes_exactly_what_prost_writes() {
        let values: Vec<f32> = (0..300).map(|i| i as f32 * 0.5).collect();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let dense = Tensor::from_bytes(DType::Float32, &[3, 100], &bytes).unwrap();
        let strings = Tensor::from_strings(&[2], vec![b"ab".to_vec(), Vec::new()]).unwrap();
        let empty = Tensor::zeros(DType::Int64, &[0, 4]).unwrap();
        for (t, dead, micros) in [(dense, false, 1_700_000_000_000_000), (strings, true, 0), (empty, false, -5)] {
            let ours = TensorResponse { tensor: t.clone(), is_dead: dead, send_start_micros: micros };
            let theirs = pb::RecvTensorResponse {
                tensor: Some(t.to_proto()),
                is_dead: dead,
                send_start_micros: micros,
                ..Default::default()
            };
            assert_eq!(written(&ours), prost_bytes(&theirs));
            let back = read(&written(&ours)).unwrap();
            assert_eq!(back.tensor.to_proto(), t.to_proto());
            assert_eq!((back.is_dead, back.send_start_micros), (dead, micros));
        }
    }

    #[test]
    fn reads_typed_values_any_field_order_and_unknown_fields() {
        // TF sends small tensors in float_val; fields may come in any order.
        let proto = pb::TensorProto {
            dtype: DType::Float32 as i32,
            tensor_shape: Some(shape_to_proto(&PartialShape::known(&[4]))),
            float_val: vec![2.5],
            ..Default::default()
        };
        let mut bytes = Vec::new();
        encode_key(RESPONSE_IS_DEAD, WireType::Varint, &mut bytes);
        encode_varint(0, &mut bytes);
        encode_key(9, WireType::LengthDelimited, &mut bytes); // unknown to us
        encode_varint(2, &mut bytes);
        bytes.extend_from_slice(b"xy");
        encode_key(RESPONSE_TENSOR, WireType::LengthDelimited, &mut bytes);
        encode_varint(proto.encoded_len() as u64, &mut bytes);
        proto.encode_raw(&mut bytes);
        let got = read(&bytes).unwrap();
        assert_eq!(got.tensor.as_slice::<f32>().unwrap(), &[2.5; 4]);
    }

    #[test]
    fn content_before_its_shape_takes_the_slow_way() {
        let mut tensor = Vec::new();
        encode_key(TENSOR_CONTENT, WireType::LengthDelimited, &mut tensor);
        encode_varint(8, &mut tensor);
        tensor.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
        pb::TensorProto {
            dtype: DType::Int32 as i32,
            tensor_shape: Some(shape_to_proto(&PartialShape::known(&[2]))),
            ..Default::default()
        }
        .encode_raw(&mut tensor);
        let mut bytes = Vec::new();
        encode_key(RESPONSE_TENSOR, WireType::LengthDelimited, &mut bytes);
        encode_varint(tensor.len() as u64, &mut bytes);
        bytes.extend_from_slice(&tensor);
        assert_eq!(read(&bytes).unwrap().tensor.as_slice::<i32>().unwrap(), &[1, 2]);
    }

    #[test]
    fn bad_messages_are_errors_not_panics() {
        let t = Tensor::from_bytes(DType::Float32, &[2], &[0; 8]).unwrap();
        let good = written(&TensorResponse { tensor: t, is_dead: false, send_start_micros: 0 });
        // Every truncation, and a content length that disagrees with the shape.
        for cut in 0..good.len() {
            let _ = read(&good[..cut]);
        }
        let mut wrong = good.clone();
        let at = wrong.iter().rposition(|&b| b == 8).unwrap(); // content's length
        wrong[at] = 4;
        wrong.truncate(wrong.len() - 4);
        wrong[1] -= 4; // the tensor field's length
        let e = read(&wrong).err().expect("a mismatched content length is an error");
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
        // A length beyond the message.
        assert!(read(&[0x0a, 0x7f, 0x08]).is_err());
    }

    fn sample_tensors() -> Vec<(String, Tensor)> {
        let values: Vec<f32> = (0..300).map(|i| i as f32 * 0.25).collect();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        vec![
            ("x:0".into(), Tensor::from_bytes(DType::Float32, &[3, 100], &bytes).unwrap()),
            (String::new(), Tensor::from_strings(&[2], vec![b"ab".to_vec(), Vec::new()]).unwrap()),
            ("empty".into(), Tensor::zeros(DType::Int64, &[0, 4]).unwrap()),
        ]
    }

    fn named_protos(tensors: &[(String, Tensor)]) -> Vec<pb::NamedTensorProto> {
        tensors.iter().map(|(n, t)| pb::NamedTensorProto { name: n.clone(), tensor: Some(t.to_proto()) }).collect()
    }

    /// Ours written, parsed by prost, equals `theirs`; `theirs` written by prost, read
    /// by us, gives back the same tensors and other fields.
    fn both_ways<M: TensorField + PartialEq + std::fmt::Debug>(ours: WithTensors<M>, theirs: M) {
        let mut bytes = Vec::new();
        ours.write(&mut bytes);
        assert_eq!(bytes.len(), ours.wire_len());
        assert_eq!(M::decode(&bytes[..]).unwrap(), theirs);
        let back = WithTensors::<M>::read(&mut &theirs.encode_to_vec()[..]).unwrap();
        assert_eq!(back.message, ours.message);
        assert_eq!(back.tensors.len(), ours.tensors.len());
        for ((n1, t1), (n2, t2)) in back.tensors.iter().zip(&ours.tensors) {
            assert_eq!((n1, t1.to_proto()), (n2, t2.to_proto()));
        }
    }

    #[test]
    fn run_step_and_run_graph_messages_are_protobufs_both_ways() {
        let tensors = sample_tensors();
        let protos = named_protos(&tensors);
        let step = pb::RunStepRequest {
            session_handle: "abc".into(),
            fetch: vec!["y:0".into()],
            target: vec!["train".into()],
            store_errors_in_response_body: true,
            request_id: 77,
            ..Default::default()
        };
        both_ways(WithTensors::new(step.clone(), tensors.clone()), pb::RunStepRequest { feed: protos.clone(), ..step });
        let resp = pb::RunStepResponse { status_code: 3, status_error_message: "bad".into(), ..Default::default() };
        both_ways(
            WithTensors::new(resp.clone(), tensors.clone()),
            pb::RunStepResponse { tensor: protos.clone(), ..resp },
        );
        let graph = pb::RunGraphRequest {
            session_handle: "s".into(),
            graph_handle: "0000000000000001".into(),
            step_id: 1 << 50,
            recv_key: vec!["k".into()],
            create_worker_session_called: true,
            request_id: -3,
            ..Default::default()
        };
        both_ways(
            WithTensors::new(graph.clone(), tensors.clone()),
            pb::RunGraphRequest { send: protos.clone(), ..graph },
        );
        both_ways(
            WithTensors::new(pb::RunGraphResponse::default(), tensors),
            pb::RunGraphResponse { recv: protos, ..Default::default() },
        );
    }

    #[test]
    fn named_tensors_in_typed_values_are_read_and_without_a_tensor_refused() {
        // TF's clients may send small values in float_val; a NamedTensorProto with no
        // tensor is TF's default TensorProto, of no dtype.
        let proto = pb::TensorProto {
            dtype: DType::Float32 as i32,
            tensor_shape: Some(shape_to_proto(&PartialShape::known(&[3]))),
            float_val: vec![1.5],
            ..Default::default()
        };
        let req = pb::RunStepRequest {
            feed: vec![pb::NamedTensorProto { name: "a:0".into(), tensor: Some(proto) }],
            ..Default::default()
        };
        let got = RunStepRequest::read(&mut &req.encode_to_vec()[..]).unwrap();
        assert_eq!(got.tensors[0].1.as_slice::<f32>().unwrap(), &[1.5; 3]);
        let missing = pb::RunStepRequest {
            feed: vec![pb::NamedTensorProto { name: "b:0".into(), tensor: None }],
            ..Default::default()
        };
        let e = RunStepRequest::read(&mut &missing.encode_to_vec()[..]).err().expect("no dtype");
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
    }

    #[test]
    fn bad_run_graph_messages_are_errors_not_panics() {
        let good = {
            let mut b = Vec::new();
            WithTensors::new(pb::RunGraphRequest { step_id: 9, ..Default::default() }, sample_tensors()).write(&mut b);
            b
        };
        for cut in 0..good.len() {
            let _ = RunGraphRequest::read(&mut &good[..cut]);
        }
        for i in 0..good.len() {
            let mut flipped = good.clone();
            flipped[i] ^= 0x5a;
            let _ = RunGraphRequest::read(&mut &flipped[..]);
        }
        // A named tensor whose declared length runs past the message.
        let e = RunGraphRequest::read(&mut &[0x1a, 0x7f, 0x0a][..]).err().expect("an overrun is an error");
        assert!(e.message().contains("RunGraphRequest"), "{e:?}");
    }
}
