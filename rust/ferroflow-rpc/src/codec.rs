//! `RecvTensor`'s response on the wire without an intermediate `TensorProto`.
//!
//! Through prost, a tensor crossing tasks is copied four times: into the proto's
//! `tensor_content`, into the gRPC buffer, out of the received buffer into a new
//! `tensor_content`, and from there into an aligned tensor. Here the sender writes the
//! tensor's bytes straight into the gRPC buffer and the receiver copies them once, from
//! the received buffer into the tensor (TF's own `grpc_tensor_coding` saves the same
//! copies). The bytes are exactly `RecvTensorResponse`'s protobuf encoding, so TF's
//! workers read what this sends and this reads what they send, in any field order and
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

impl TensorResponse {
    /// The tensor's proto without its dense values, the values, and the length of the
    /// whole `tensor` field's payload.
    fn parts(&self) -> (pb::TensorProto, &[u8], usize) {
        // Dense values follow the header as `tensor_content`; strings stay in the
        // header's `string_val`.
        let (header, content) = match self.tensor.as_bytes() {
            Ok(bytes) => (
                pb::TensorProto {
                    dtype: self.tensor.dtype() as i32,
                    tensor_shape: Some(shape_to_proto(&PartialShape::known(self.tensor.shape()))),
                    ..Default::default()
                },
                bytes,
            ),
            Err(_) => (self.tensor.to_proto(), &[][..]),
        };
        let content_len = if content.is_empty() { 0 } else { len_field_len(TENSOR_CONTENT, content.len()) };
        let tensor_len = header.encoded_len() + content_len;
        (header, content, tensor_len)
    }
}

impl Wire for TensorResponse {
    fn wire_len(&self) -> usize {
        let (_, _, tensor_len) = self.parts();
        let varint = |v: u64| 1 + prost::encoding::encoded_len_varint(v);
        #[allow(clippy::cast_sign_loss)] // protobuf's int64: two's complement
        let micros = if self.send_start_micros == 0 { 0 } else { varint(self.send_start_micros as u64) };
        len_field_len(RESPONSE_TENSOR, tensor_len) + if self.is_dead { 2 } else { 0 } + micros
    }

    fn write(&self, buf: &mut impl BufMut) {
        let (header, content, tensor_len) = self.parts();
        encode_key(RESPONSE_TENSOR, WireType::LengthDelimited, buf);
        encode_varint(tensor_len as u64, buf);
        header.encode_raw(buf);
        if !content.is_empty() {
            encode_key(TENSOR_CONTENT, WireType::LengthDelimited, buf);
            encode_varint(content.len() as u64, buf);
            buf.put_slice(content);
        }
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
        let bad = |e: prost::DecodeError| Status::internal(format!("Invalid RecvTensorResponse: {e}"));
        let mut tensor = None;
        let mut is_dead = false;
        let mut send_start_micros = 0;
        while buf.has_remaining() {
            let (tag, wire_type) = decode_key(buf).map_err(bad)?;
            match (tag, wire_type) {
                (RESPONSE_TENSOR, WireType::LengthDelimited) => {
                    let len = length(buf)?;
                    let mut sub = buf.take(len);
                    tensor = Some(decode_tensor(&mut sub)?);
                    if sub.has_remaining() {
                        return Err(Status::internal("Invalid RecvTensorResponse: tensor field overruns"));
                    }
                }
                (RESPONSE_IS_DEAD, WireType::Varint) => is_dead = decode_varint(buf).map_err(bad)? != 0,
                (RESPONSE_SEND_START_MICROS, WireType::Varint) => {
                    #[allow(clippy::cast_possible_wrap)] // protobuf's int64: two's complement
                    let micros = decode_varint(buf).map_err(bad)? as i64;
                    send_start_micros = micros;
                }
                _ => skip_field(wire_type, tag, buf, DecodeContext::default()).map_err(bad)?,
            }
        }
        // A missing tensor is an empty proto (TF's default): a float scalar of zero.
        let tensor = match tensor {
            Some(t) => t,
            None => Tensor::from_proto(&pb::TensorProto::default()).map_err(|e| to_status(&e))?,
        };
        Ok(TensorResponse { tensor, is_dead, send_start_micros })
    }
}

/// A length prefix that fits in what is left of `buf`.
fn length(buf: &mut impl Buf) -> Result<usize, Status> {
    let len = decode_varint(buf).map_err(|e| Status::internal(format!("Invalid RecvTensorResponse: {e}")))?;
    match usize::try_from(len) {
        Ok(n) if n <= buf.remaining() => Ok(n),
        _ => Err(Status::internal("Invalid RecvTensorResponse: a field overruns the message")),
    }
}

/// A `TensorProto` read from `buf` (all of it). Its `tensor_content`, once the dtype and
/// shape are known (TF writes them first), is copied straight into the tensor.
fn decode_tensor(buf: &mut impl Buf) -> Result<Tensor, Status> {
    let bad = |e: prost::DecodeError| Status::internal(format!("Invalid TensorProto in RecvTensorResponse: {e}"));
    let mut proto = pb::TensorProto::default();
    let (mut has_dtype, mut has_shape) = (false, false);
    let mut dense = None;
    while buf.has_remaining() {
        let (tag, wire_type) = decode_key(buf).map_err(bad)?;
        let fast = has_dtype && has_shape && proto.dtype != DType::String as i32 && dense.is_none();
        if tag == TENSOR_CONTENT && wire_type == WireType::LengthDelimited && fast {
            let len = length(buf)?;
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
        Some(_) => Err(Status::internal("Invalid TensorProto in RecvTensorResponse: dtype changed after content")),
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
}
