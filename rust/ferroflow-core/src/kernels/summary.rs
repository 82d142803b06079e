//! Kernels of the TF-1.x summary ops: each returns a serialized `Summary` protocol
//! buffer as a string scalar (shapes and registration in `ops/summary.rs`). The
//! encoders (histogram buckets, PNG, WAV) live in `ferroflow-io`.
use ferroflow_io::summary::{Histogram, encode_png, encode_wav, float_image_to_u8};
use ferroflow_proto::Summary;
use ferroflow_proto::summary::{Audio, Image, Value, value};
use prost::Message;

use crate::dispatch_numeric;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::array::Castable;
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

#[derive(Clone, Copy)]
enum Kind {
    Scalar,
    Histogram,
    Image,
    Audio,
    Merge,
}

/// `ScalarSummary`.
pub(crate) fn scalar_summary_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    kernel(b, Kind::Scalar)
}

/// `HistogramSummary`.
pub(crate) fn histogram_summary_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    kernel(b, Kind::Histogram)
}

/// `ImageSummary`.
pub(crate) fn image_summary_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    kernel(b, Kind::Image)
}

/// `AudioSummaryV2`.
pub(crate) fn audio_summary_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    kernel(b, Kind::Audio)
}

/// `MergeSummary`.
pub(crate) fn merge_summary_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    kernel(b, Kind::Merge)
}

fn kernel(b: &KernelBuild<'_>, kind: Kind) -> Result<Box<dyn OpKernel>> {
    let max_outputs = match kind {
        Kind::Image => b.node.attr_or::<i64>("max_images", 3)?,
        Kind::Audio => b.node.attr_or::<i64>("max_outputs", 3)?,
        _ => 0,
    };
    Ok(Box::new(SummaryKernel { kind, name: b.node.name.clone(), max_outputs: max_outputs.max(1) as usize }))
}

struct SummaryKernel {
    kind: Kind,
    /// The node's name, for TF's histogram error texts.
    name: String,
    max_outputs: usize,
}

/// Every element of a numeric tensor as `f64`, in row-major order.
fn values_f64(t: &Tensor) -> Result<Vec<f64>> {
    let dtype = t.dtype();
    dispatch_numeric!(dtype, T => Ok(t.as_slice::<T>()?.iter().map(|&v| v.to_f64()).collect()),
        _ => Err(Error::invalid_argument(format!("no summary of {dtype} values"))))
}

fn string_at(t: &Tensor, what: &str) -> Result<String> {
    let s = t.as_strings()?;
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "{what} must be scalar, got {}", fmt_shape(t.shape()));
    }
    Ok(String::from_utf8_lossy(&s[0]).into_owned())
}

/// TF's tag for output `i` of `n`: `<tag>/<kind>` for one, `<tag>/<kind>/<i>` otherwise.
fn numbered(tag: &str, kind: &str, max_outputs: usize, i: usize) -> String {
    if max_outputs == 1 { format!("{tag}/{kind}") } else { format!("{tag}/{kind}/{i}") }
}

impl OpKernel for SummaryKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let summary = match self.kind {
            Kind::Scalar => self.scalar(ctx)?,
            Kind::Histogram => self.histogram(ctx)?,
            Kind::Image => self.image(ctx)?,
            Kind::Audio => self.audio(ctx)?,
            Kind::Merge => return merge(ctx),
        };
        ctx.set_output(0, Tensor::from_strings(&[], vec![summary.encode_to_vec()])?);
        Ok(())
    }
}

impl SummaryKernel {
    fn scalar(&self, ctx: &OpContext<'_>) -> Result<Summary> {
        let (tags, values) = (ctx.input(0)?, ctx.input(1)?);
        let names = tags.as_strings()?;
        if tags.shape() != values.shape() {
            let single = if names.len() == 1 {
                format!(" (tag '{}')", String::from_utf8_lossy(&names[0]))
            } else {
                String::new()
            };
            ff_bail!(
                InvalidArgument,
                "tags and values are not the same shape: {} != {}{single}",
                fmt_shape(tags.shape()),
                fmt_shape(values.shape())
            );
        }
        let value = names
            .iter()
            .zip(values_f64(values)?)
            .map(|(tag, v)| Value {
                tag: String::from_utf8_lossy(tag).into_owned(),
                value: Some(value::Value::SimpleValue(v as f32)),
                ..Default::default()
            })
            .collect();
        Ok(Summary { value })
    }

    fn histogram(&self, ctx: &OpContext<'_>) -> Result<Summary> {
        let tag = string_at(ctx.input(0)?, "tags")?;
        let mut h = Histogram::default();
        for v in values_f64(ctx.input(1)?)? {
            if v.is_nan() {
                ff_bail!(InvalidArgument, "Nan in summary histogram for: {}", self.name);
            }
            if v.is_infinite() {
                ff_bail!(InvalidArgument, "Infinity in summary histogram for: {}", self.name);
            }
            h.add(v);
        }
        Ok(Summary { value: vec![Value { tag, value: Some(value::Value::Histo(h.to_proto())), ..Default::default() }] })
    }

    fn image(&self, ctx: &OpContext<'_>) -> Result<Summary> {
        let tag = string_at(ctx.input(0)?, "tag")?;
        let t = ctx.input(1)?;
        let s = t.shape();
        if s.len() != 4 || !matches!(s[3], 1 | 3 | 4) {
            ff_bail!(InvalidArgument, "Tensor must be 4-D with last dim 1, 3, or 4, not {}", fmt_shape(s));
        }
        let (batch, h, w, c) = (s[0], s[1], s[2], s[3]);
        if h == 0 || w == 0 {
            ff_bail!(InvalidArgument, "Tensor must have non-zero height and width, not {}", fmt_shape(s));
        }
        let per_image = h * w * c;
        let bad_color = [255u8, 0, 0, 255];
        let floats: Option<Vec<f32>> = match t.dtype() {
            DType::UInt8 => None,
            DType::Float32 => Some(t.as_slice::<f32>()?.to_vec()),
            _ => Some(t.as_slice::<f64>()?.iter().map(|&v| v as f32).collect()),
        };
        let mut value = Vec::new();
        for i in 0..batch.min(self.max_outputs) {
            let range = i * per_image..(i + 1) * per_image;
            let pixels = match &floats {
                None => t.as_slice::<u8>()?[range].to_vec(),
                Some(f) => float_image_to_u8(&f[range], c, &bad_color),
            };
            let image = Image {
                height: h as i32,
                width: w as i32,
                colorspace: c as i32,
                encoded_image_string: encode_png(&pixels, h, w, c)?,
            };
            value.push(Value {
                tag: numbered(&tag, "image", self.max_outputs, i),
                value: Some(value::Value::Image(image)),
                ..Default::default()
            });
        }
        Ok(Summary { value })
    }

    fn audio(&self, ctx: &OpContext<'_>) -> Result<Summary> {
        let tag = string_at(ctx.input(0)?, "tag")?;
        let t = ctx.input(1)?;
        let rate_t = ctx.input(2)?;
        if !rate_t.shape().is_empty() {
            ff_bail!(InvalidArgument, "sample_rate must be rank-0 or contain a single value");
        }
        let sample_rate = rate_t.scalar_value::<f32>()?;
        if sample_rate <= 0.0 {
            ff_bail!(InvalidArgument, "sample_rate must be > 0");
        }
        let s = t.shape();
        if !(s.len() == 2 || s.len() == 3) {
            ff_bail!(InvalidArgument, "Tensor must be 3-D or 2-D, got: {}", fmt_shape(s));
        }
        let (batch, frames) = (s[0], s[1]);
        let channels = if s.len() == 3 { s[2] } else { 1 };
        if channels == 0 {
            ff_bail!(InvalidArgument, "The audio must have at least one channel");
        }
        let samples = t.as_slice::<f32>()?;
        let per_clip = frames * channels;
        let mut value = Vec::new();
        for i in 0..batch.min(self.max_outputs) {
            let wav = encode_wav(&samples[i * per_clip..(i + 1) * per_clip], channels, sample_rate)?;
            let audio = Audio {
                sample_rate,
                num_channels: channels as i64,
                length_frames: frames as i64,
                encoded_audio_string: wav,
                content_type: "audio/wav".into(),
            };
            value.push(Value {
                tag: numbered(&tag, "audio", self.max_outputs, i),
                value: Some(value::Value::Audio(audio)),
                ..Default::default()
            });
        }
        Ok(Summary { value })
    }
}

/// `MergeSummary`: the values of every serialized `Summary` in the inputs, in order;
/// a tag seen twice is an error.
fn merge(ctx: &mut OpContext<'_>) -> Result<()> {
    let mut out = Summary::default();
    let mut tags = std::collections::HashSet::new();
    for i in 0..ctx.num_inputs() {
        for bytes in ctx.input(i)?.as_strings()? {
            let s = Summary::decode(bytes.as_slice())
                .map_err(|_| Error::invalid_argument("Could not parse one of the summary inputs"))?;
            for v in s.value {
                if !tags.insert(v.tag.clone()) {
                    ff_bail!(InvalidArgument, "Duplicate tag {} found in summary inputs ", v.tag);
                }
                out.value.push(v);
            }
        }
    }
    ctx.set_output(0, Tensor::from_strings(&[], vec![out.encode_to_vec()])?);
    Ok(())
}
