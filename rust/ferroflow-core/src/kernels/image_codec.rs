//! Image codecs of `tf.image`: `DecodePng`, `EncodePng`, `DecodeJpeg`, `EncodeJpeg`,
//! `DecodeGif`, `DecodeBmp` and `DecodeImage` (any of the four by signature), TF's
//! attrs and messages (GIF and BMP in `image_gif_bmp.rs`).
//! PNG is the well-kept `png` crate; JPEG is decoded by `jpeg_decode` and encoded by
//! `jpeg_encode` (libjpeg-turbo's arithmetic, so TF's values), progressive JPEG by
//! `jpeg-encoder`;
//! the header's dimensions are checked with TF's limits before anything is allocated,
//! the pixel buffer is allocated fallibly, and a panic inside a codec (never expected)
//! is caught and reported as `InvalidArgument`, so corrupt or hostile input can never
//! abort the process.
use std::borrow::Cow;
use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::image_gif_bmp::{decode_bmp, decode_gif};
use super::jpeg_decode::{self, DecodeSettings};
use super::jpeg_encode::{self, JpegSettings};
use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// The scalar string input `contents` of a decode op.
fn contents<'a>(ctx: &'a OpContext<'_>) -> Result<&'a [u8]> {
    let t = ctx.input(0)?;
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "contents must be scalar, got shape {}", fmt_shape(t.shape()));
    }
    Ok(&t.as_strings()?[0])
}

/// Runs a codec call, turning a panic into `InvalidArgument`.
fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(Error::invalid_argument(format!("{what}: the decoder rejected the data"))))
}

/// A zeroed byte buffer of `len` bytes, or `ResourceExhausted` when it cannot be had.
fn try_buffer(len: usize) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        Error::new(crate::error::Code::ResourceExhausted, format!("OOM allocating {len} bytes for an image"))
    })?;
    v.resize(len, 0);
    Ok(v)
}

fn check_channels(channels: i64, allowed: &[i64]) -> Result<usize> {
    if !allowed.contains(&channels) {
        let list: Vec<String> = allowed.iter().map(i64::to_string).collect();
        ff_bail!(InvalidArgument, "channels must be {}, got {channels}", list.join(", "));
    }
    Ok(channels as usize)
}

/// Which image a decode kernel accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Png,
    Jpeg,
    Gif,
    Bmp,
    Any,
}

/// `DecodePng`, `DecodeJpeg` and `DecodeImage`.
struct Decode {
    format: Format,
    channels: usize,
    dtype: DType,
    /// `DecodeJpeg`'s attributes (`DecodeImage` decodes a JPEG with TF's defaults).
    jpeg: DecodeSettings,
    /// `DecodeAndCropJpeg`: the window is the second input.
    crop: bool,
    /// `DecodeImage`: a GIF's every frame (4-D) or only its first (3-D).
    expand_animations: bool,
}

pub(crate) fn decode_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let n = b.node;
    let format = match n.op_type() {
        "DecodePng" => Format::Png,
        "DecodeJpeg" | "DecodeAndCropJpeg" => Format::Jpeg,
        "DecodeGif" => Format::Gif,
        "DecodeBmp" => Format::Bmp,
        _ => Format::Any,
    };
    let channels = check_channels(n.attr_or("channels", 0i64)?, &[0, 1, 3, 4])?;
    let dtype = n.attr_or("dtype", DType::UInt8)?;
    let ratio = n.attr_or("ratio", 1i64)?;
    let mut jpeg = DecodeSettings { channels: channels.min(3), ..DecodeSettings::default() };
    let expand_animations: bool = n.attr_or("expand_animations", true)?;
    if ![1, 2, 4, 8].contains(&ratio) {
        ff_bail!(InvalidArgument, "ratio must be 1, 2, 4, or 8, got {ratio}");
    }
    if format == Format::Jpeg {
        if channels == 4 {
            ff_bail!(InvalidArgument, "channels must be 0, 1, or 3, got 4");
        }
        let fraction: f32 = n.attr_or("acceptable_fraction", 1.0f32)?;
        if !(0.0..=1.0).contains(&fraction) {
            ff_bail!(InvalidArgument, "acceptable_fraction must be between 0 and 1, got {fraction}");
        }
        let method: String = n.attr_or("dct_method", String::new())?;
        if !["", "INTEGER_FAST", "INTEGER_ACCURATE"].contains(&method.as_str()) {
            ff_bail!(InvalidArgument, "dct_method must be one of INTEGER_FAST or INTEGER_ACCURATE, got {method}");
        }
        jpeg = DecodeSettings {
            channels,
            ratio: ratio as usize,
            // TF's default is libjpeg's fast integer IDCT.
            fast_idct: method != "INTEGER_ACCURATE",
            fancy_upscaling: n.attr_or("fancy_upscaling", true)?,
            try_recover_truncated: n.attr_or("try_recover_truncated", false)?,
            crop: None,
        };
    }
    let crop = n.op_type() == "DecodeAndCropJpeg";
    Ok(Box::new(Decode { format, channels, dtype, jpeg, crop, expand_animations }))
}

impl OpKernel for Decode {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let data = contents(ctx)?;
        let is_png = data.starts_with(b"\x89PNG\r\n\x1a\n");
        let is_jpeg = data.starts_with(b"\xff\xd8\xff");
        let out = match self.format {
            Format::Png => {
                if !is_png {
                    ff_bail!(InvalidArgument, "Invalid PNG data, size {}", data.len());
                }
                decode_png(data, self.channels, self.dtype)?
            }
            Format::Jpeg => {
                if !is_jpeg {
                    ff_bail!(InvalidArgument, "Invalid JPEG data or crop window, data size {}", data.len());
                }
                let mut settings = self.jpeg;
                if self.crop {
                    settings.crop = Some(crop_window(ctx)?);
                }
                guarded("Invalid JPEG data or crop window", || jpeg_decode::decode(ctx.env, data, &settings))?
            }
            Format::Gif => guarded("DecodeGif", || decode_gif(data, true))?,
            Format::Bmp => guarded("DecodeBmp", || decode_bmp(data, self.channels))?,
            Format::Any => {
                let image = if is_png {
                    decode_png(
                        data,
                        self.channels,
                        if self.dtype == DType::UInt8 { DType::UInt8 } else { DType::UInt16 },
                    )?
                } else if is_jpeg {
                    if self.channels == 4 {
                        ff_bail!(InvalidArgument, "channels must be 0, 1, or 3 for JPEG, got 4");
                    }
                    guarded("Invalid JPEG data or crop window", || jpeg_decode::decode(ctx.env, data, &self.jpeg))?
                } else if data.starts_with(b"GIF8") {
                    if self.channels != 0 && self.channels != 3 {
                        ff_bail!(InvalidArgument, "channels must be 0 or 3 for GIF, got {}", self.channels);
                    }
                    guarded("DecodeGif", || decode_gif(data, self.expand_animations))?
                } else if data.starts_with(b"BM") {
                    if self.channels == 1 {
                        ff_bail!(InvalidArgument, "`channels` must be 0, 3 or 4 for BMP, but got 1");
                    }
                    guarded("DecodeBmp", || decode_bmp(data, self.channels))?
                } else {
                    ff_bail!(InvalidArgument, "Unknown image file format. One of JPEG, PNG, GIF, BMP required.");
                };
                to_dtype(image, self.dtype)?
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `DecodeAndCropJpeg`'s window `[y, x, height, width]`, checked as TF checks it.
fn crop_window(ctx: &OpContext<'_>) -> Result<[i64; 4]> {
    let t = ctx.input(1)?;
    if t.shape().len() != 1 {
        ff_bail!(InvalidArgument, "crop_window must be 1-D, got shape {}", fmt_shape(t.shape()));
    }
    let v = t.as_slice::<i32>()?;
    match *v {
        [y, x, h, w] => Ok([y, x, h, w].map(i64::from)),
        _ => ff_bail!(InvalidArgument, "crop_size must have four elements {}", fmt_shape(t.shape())),
    }
}

/// `ExtractJpegShape`: `[height, width, components]` from the file's header, as
/// `output_type` (int32 or int64).
struct ExtractJpegShape {
    dtype: DType,
}

pub(crate) fn extract_jpeg_shape_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let dtype = b.node.attr_or("output_type", DType::Int32)?;
    if ![DType::Int32, DType::Int64].contains(&dtype) {
        ff_bail!(InvalidArgument, "output_type must be int32 or int64, got {dtype}");
    }
    Ok(Box::new(ExtractJpegShape { dtype }))
}

impl OpKernel for ExtractJpegShape {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let data = contents(ctx)?;
        let shape = guarded("Invalid JPEG data", || jpeg_decode::header_shape(ctx.env, data))?;
        let out = if self.dtype == DType::Int64 {
            Tensor::from_slice(&[3], &shape.map(|d| d as i64))?
        } else {
            // Sides are at most 65535 and components at most 10.
            Tensor::from_slice(&[3], &shape.map(|d| d as i32))?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `DecodeImage`'s `dtype`: uint8 as decoded; uint16 as decoded (PNG, at 16 bits) or
/// shifted left 8 bits (JPEG: TF's kernel scales by 256, not 257 as libpng widens);
/// float32 scaled to `[0, 1]` from the 16-bit PNG or the 8-bit JPEG samples, as TF's
/// kernel.
fn to_dtype(image: Tensor, dtype: DType) -> Result<Tensor> {
    match (image.dtype(), dtype) {
        (a, b) if a == b => Ok(image),
        (DType::UInt8, DType::UInt16) => {
            let v: Vec<u16> = image.as_slice::<u8>()?.iter().map(|&x| u16::from(x) << 8).collect();
            Tensor::from_slice(image.shape(), &v)
        }
        (DType::UInt8, DType::Float32) => {
            let v: Vec<f32> = image.as_slice::<u8>()?.iter().map(|&x| f32::from(x) * (1.0 / 255.0)).collect();
            Tensor::from_slice(image.shape(), &v)
        }
        (DType::UInt16, DType::Float32) => {
            let v: Vec<f32> = image.as_slice::<u16>()?.iter().map(|&x| f32::from(x) * (1.0 / 65535.0)).collect();
            Tensor::from_slice(image.shape(), &v)
        }
        (_, d) => ff_bail!(InvalidArgument, "dtype {d} is not supported by DecodeImage"),
    }
}

/// TF's size limits of `DecodePng`: each side below 2^27, the pixel count below 2^29.
fn check_png_size(width: u32, height: u32) -> Result<()> {
    let (w, h) = (u64::from(width), u64::from(height));
    if w == 0 || h == 0 || w >= 1 << 27 || h >= 1 << 27 || w * h >= 1 << 29 {
        ff_bail!(InvalidArgument, "PNG size too large for int: {width} by {height}");
    }
    Ok(())
}

/// Walks a PNG's chunks up to its image data, before the png crate sees them: a
/// `PLTE` that is not 1 to 256 RGB triples is an error (the crate's palette expansion
/// indexes it in threes and panics on a ragged one), and a `tRNS` that libpng ignores
/// as invalid (TF decodes such files opaque) is left out of the returned bytes — the
/// crate would use or reject it instead. Other chunks the crate validates itself.
fn sanitize_png(data: &[u8]) -> Result<Cow<'_, [u8]>> {
    let mut at = 8;
    let (mut color_type, mut palette) = (None, 0);
    while let Some(header) = data.get(at..at + 8) {
        let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
        let end = at.saturating_add(12).saturating_add(len);
        match &header[4..8] {
            b"IHDR" => color_type = data.get(at + 17).copied(),
            b"PLTE" if len == 0 || !len.is_multiple_of(3) || len > 768 => {
                ff_bail!(
                    InvalidArgument,
                    "Invalid PNG data, size {}: a palette of {len} bytes (1 to 256 RGB entries expected)",
                    data.len()
                );
            }
            b"PLTE" => palette = len / 3,
            b"tRNS" => {
                // libpng's `png_handle_tRNS`: anything else is a benign error, skipped.
                let valid = match color_type {
                    Some(0) => len == 2,
                    Some(2) => len == 6,
                    Some(3) => len > 0 && len <= palette,
                    _ => false,
                };
                if !valid && end <= data.len() {
                    let mut kept = data[..at].to_vec();
                    kept.extend_from_slice(&data[end..]);
                    return Ok(Cow::Owned(sanitize_png(&kept)?.into_owned()));
                }
            }
            b"IDAT" | b"IEND" => break,
            _ => {}
        }
        at = end;
    }
    Ok(Cow::Borrowed(data))
}

/// Decodes a PNG to `height x width x channels` (`0`: the file's) of `dtype` (uint8 or
/// uint16), with libpng's conversions as TF sets them up: palettes and `tRNS` expanded,
/// low bit depths widened, 16-bit samples cut to 8 (`v >> 8`, libpng's `strip_16`) or
/// 8-bit ones widened to 16 (`v * 257`), colour to gray with TF's weights, gray
/// to colour by replication, alpha stripped or added opaque.
///
/// The output tensor is allocated once, fallibly, and rows are converted straight into
/// it: a progressive file is decoded one row at a time, an interlaced one (whose
/// passes cover the whole image) into one buffer of the file's own layout first.
fn decode_png(data: &[u8], channels: usize, dtype: DType) -> Result<Tensor> {
    let data = sanitize_png(data)?;
    guarded("Invalid PNG data", || png_pixels(&data, channels, dtype))
}

/// [`decode_png`]'s work, unguarded (the fuzz tests call it to see panics).
fn png_pixels(data: &[u8], channels: usize, dtype: DType) -> Result<Tensor> {
    let bad = |e: png::DecodingError| Error::invalid_argument(format!("Invalid PNG data, size {}: {e}", data.len()));
    let mut decoder = png::Decoder::new(Cursor::new(data));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(bad)?;
    let (width, height) = (reader.info().width, reader.info().height);
    check_png_size(width, height)?;
    let (color, depth) = reader.output_color_type();
    let src_channels = color.samples();
    let sixteen = depth == png::BitDepth::Sixteen;
    // A deflate stream expands at most 1032:1: larger claims than the data can hold
    // are rejected before the pixel buffer is allocated.
    let row_bytes = (width as usize) * src_channels * if sixteen { 2 } else { 1 };
    let raw = (row_bytes + 1).saturating_mul(height as usize);
    if raw / 1032 > data.len() {
        ff_bail!(InvalidArgument, "Invalid PNG data, size {}: image data truncated", data.len());
    }
    let (h, w) = (height as usize, width as usize);
    let out_channels = if channels == 0 { src_channels } else { channels };
    let mut out = Tensor::for_overwrite(dtype, &[h, w, out_channels])?;
    let rows = PngRows { from: src_channels, to: out_channels, sixteen };
    match dtype {
        DType::UInt16 => rows.fill(&mut reader, out.as_mut_slice::<u16>()?, w, data.len())?,
        _ => rows.fill(&mut reader, out.as_mut_slice::<u8>()?, w, data.len())?,
    }
    Ok(out)
}

/// A sample of a decoded PNG's output tensor, from a file sample of 8 or 16 bits.
trait PngSample: Copy {
    fn store(v: u16, sixteen: bool) -> Self;
    /// A row of 8-bit file samples, channels unchanged.
    fn store_row8(src: &[u8], dst: &mut [Self]) {
        dst.iter_mut().zip(src).for_each(|(d, &v)| *d = Self::store(u16::from(v), false));
    }
}

impl PngSample for u8 {
    fn store(v: u16, sixteen: bool) -> u8 {
        if sixteen { (v >> 8) as u8 } else { v as u8 }
    }
    fn store_row8(src: &[u8], dst: &mut [u8]) {
        dst.copy_from_slice(&src[..dst.len()]);
    }
}

impl PngSample for u16 {
    fn store(v: u16, sixteen: bool) -> u16 {
        if sixteen { v } else { v * 257 }
    }
}

/// How the rows the png crate decodes become rows of the output tensor: channels
/// converted between gray (1), gray+alpha (2), RGB (3) and RGBA (4), samples cut or
/// widened to the output's type.
struct PngRows {
    from: usize,
    to: usize,
    sixteen: bool,
}

impl PngRows {
    /// Decodes every row into `dst` (rows of `w` pixels): a progressive file one row at
    /// a time, an interlaced one (its passes cover the whole image) into one buffer of
    /// the file's own layout first. `size` is the file's, for messages.
    fn fill<T: PngSample, R: std::io::BufRead + std::io::Seek>(
        &self,
        reader: &mut png::Reader<R>,
        dst: &mut [T],
        w: usize,
        size: usize,
    ) -> Result<()> {
        let bad = |e: png::DecodingError| Error::invalid_argument(format!("Invalid PNG data, size {size}: {e}"));
        let line = reader
            .output_line_size(reader.info().width)
            .ok_or_else(|| Error::invalid_argument("PNG image too large"))?;
        let out_row = w * self.to;
        if reader.info().interlaced {
            let total = reader.output_buffer_size().ok_or_else(|| Error::invalid_argument("PNG image too large"))?;
            let mut buf = try_buffer(total)?;
            reader.next_frame(&mut buf).map_err(bad)?;
            for (src, out) in buf.chunks_exact(line).zip(dst.chunks_exact_mut(out_row)) {
                self.convert(src, out);
            }
            return Ok(());
        }
        let mut row = try_buffer(line)?;
        for out in dst.chunks_exact_mut(out_row) {
            if reader.read_row(&mut row).map_err(bad)?.is_none() {
                ff_bail!(InvalidArgument, "Invalid PNG data, size {size}: image data truncated");
            }
            self.convert(&row, out);
        }
        // The call after the last row finishes the image data (its zlib stream's end
        // and checksum), as `next_frame` does: a file cut there is still an error.
        reader.read_row(&mut row).map_err(bad)?;
        Ok(())
    }

    /// One row: `src` in the file's layout (samples big-endian at 16 bits).
    fn convert<T: PngSample>(&self, src: &[u8], dst: &mut [T]) {
        let sixteen = self.sixteen;
        let sample =
            |i: usize| if sixteen { u16::from_be_bytes([src[2 * i], src[2 * i + 1]]) } else { u16::from(src[i]) };
        if self.from == self.to && !sixteen {
            return T::store_row8(src, dst);
        }
        let opaque = if sixteen { u16::MAX } else { 255 };
        for (p, out) in dst.chunks_exact_mut(self.to).enumerate() {
            let s = |k: usize| sample(p * self.from + k);
            if self.from == self.to {
                for (k, o) in out.iter_mut().enumerate() {
                    *o = T::store(s(k), sixteen);
                }
                continue;
            }
            let (color, alpha) = match self.from {
                1 => ([s(0); 3], opaque),
                2 => ([s(0); 3], s(1)),
                3 => ([s(0), s(1), s(2)], opaque),
                _ => ([s(0), s(1), s(2)], s(3)),
            };
            let gray = || if self.from <= 2 { s(0) } else { rgb_to_gray(color, sixteen) };
            let put = |out: &mut [T], v: &[u16]| out.iter_mut().zip(v).for_each(|(o, &v)| *o = T::store(v, sixteen));
            match self.to {
                1 => put(out, &[gray()]),
                2 => put(out, &[gray(), alpha]),
                3 => put(out, &color),
                _ => put(out, &[color[0], color[1], color[2], alpha]),
            }
        }
    }
}

/// libpng's `png_do_rgb_to_gray` with the weights TF sets (0.299 and 0.587, so 9797,
/// 19234 and 3737 of 32768): truncated for 8-bit samples, rounded for 16-bit ones;
/// equal channels pass through.
fn rgb_to_gray(c: [u16; 3], sixteen: bool) -> u16 {
    if c[0] == c[1] && c[1] == c[2] {
        return c[0];
    }
    let sum = 9797 * u32::from(c[0]) + 19234 * u32::from(c[1]) + 3737 * u32::from(c[2]);
    ((sum + if sixteen { 16384 } else { 0 }) >> 15) as u16
}

/// libjpeg's `FIX` with 16 fractional bits (`SCALEBITS`).
pub(crate) const fn fix(x: f64) -> i32 {
    (x * 65536.0 + 0.5) as i32
}

/// The `height x width x channels` of a 3-D image input, TF's message otherwise.
fn image_dims(t: &Tensor) -> Result<[usize; 3]> {
    match t.shape() {
        &[h, w, c] => Ok([h, w, c]),
        s => ff_bail!(InvalidArgument, "image must be 3-dimensional{}", fmt_shape(s)),
    }
}

/// `EncodePng`.
struct EncodePng {
    compression: i64,
}

pub(crate) fn encode_png_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let compression = b.node.attr_or("compression", -1i64)?;
    if !(-1..=9).contains(&compression) {
        ff_bail!(InvalidArgument, "compression should be in [-1,9], got {compression}");
    }
    Ok(Box::new(EncodePng { compression }))
}

impl OpKernel for EncodePng {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let image = ctx.input(0)?;
        let [h, w, c] = image_dims(image)?;
        if !(1..=4).contains(&c) {
            ff_bail!(InvalidArgument, "image must have 1, 2, 3, or 4 channels, got {c}");
        }
        if image.num_elements() >= i32::MAX as usize {
            ff_bail!(InvalidArgument, "image cannot have >= int32 max elements");
        }
        let color = match c {
            1 => png::ColorType::Grayscale,
            2 => png::ColorType::GrayscaleAlpha,
            3 => png::ColorType::Rgb,
            _ => png::ColorType::Rgba,
        };
        let (depth, bytes): (png::BitDepth, Vec<u8>) = match image.dtype() {
            DType::UInt16 => {
                (png::BitDepth::Sixteen, image.as_slice::<u16>()?.iter().flat_map(|v| v.to_be_bytes()).collect())
            }
            _ => (png::BitDepth::Eight, image.as_slice::<u8>()?.to_vec()),
        };
        let err = |e: png::EncodingError| Error::invalid_argument(format!("PNG encoding failed: {e}"));
        let (wu, hu) = (
            u32::try_from(w).map_err(|_| Error::invalid_argument("image too wide for PNG"))?,
            u32::try_from(h).map_err(|_| Error::invalid_argument("image too tall for PNG"))?,
        );
        if w == 0 || h == 0 {
            ff_bail!(InvalidArgument, "PNG images must have positive width and height, got {h}x{w}");
        }
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, wu, hu);
            encoder.set_color(color);
            encoder.set_depth(depth);
            encoder.set_compression(match self.compression {
                0..=2 => png::Compression::Fastest,
                7..=9 => png::Compression::High,
                _ => png::Compression::Balanced,
            });
            let mut writer = encoder.write_header().map_err(err)?;
            writer.write_image_data(&bytes).map_err(err)?;
            writer.finish().map_err(err)?;
        }
        ctx.set_output(0, Tensor::from_strings(&[], vec![out])?);
        Ok(())
    }
}

/// `EncodeJpeg`.
struct EncodeJpeg {
    format: String,
    progressive: bool,
    settings: JpegSettings,
}

pub(crate) fn encode_jpeg_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let n = b.node;
    let format: String = n.attr_or("format", String::new())?;
    if !["", "grayscale", "rgb"].contains(&format.as_str()) {
        ff_bail!(InvalidArgument, "format must be '', grayscale or rgb, got {format}");
    }
    let quality = n.attr_or("quality", 95i64)?;
    if !(0..=100).contains(&quality) {
        ff_bail!(InvalidArgument, "quality must be in [0,100], got {quality}");
    }
    let unit: String = n.attr_or("density_unit", "in".to_string())?;
    let density_unit = match unit.as_str() {
        "in" => 1,
        "cm" => 2,
        u => ff_bail!(InvalidArgument, "density_unit must be 'in' or 'cm', got {u}"),
    };
    let density = |name: &str| -> Result<u16> {
        let v = n.attr_or(name, 300i64)?;
        u16::try_from(v).map_err(|_| Error::invalid_argument(format!("{name} must be in [0, 65535], got {v}")))
    };
    Ok(Box::new(EncodeJpeg {
        format,
        progressive: n.attr_or("progressive", false)?,
        settings: JpegSettings {
            quality: quality.max(1) as u8,
            chroma_downsampling: n.attr_or("chroma_downsampling", true)?,
            optimize_coding: n.attr_or("optimize_size", false)?,
            density_unit,
            x_density: density("x_density")?,
            y_density: density("y_density")?,
            xmp: n.attr_or::<String>("xmp_metadata", String::new())?.into_bytes(),
        },
    }))
}

impl OpKernel for EncodeJpeg {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let image = ctx.input(0)?;
        let [h, w, c] = image_dims(image)?;
        if image.num_elements() >= i32::MAX as usize {
            ff_bail!(InvalidArgument, "Cannot encode images with >= max int32 elements");
        }
        jpeg_encode::check_size(h, w)?;
        let channels = match self.format.as_str() {
            "grayscale" => 1,
            "rgb" => 3,
            _ if c == 1 || c == 3 => c,
            _ => ff_bail!(InvalidArgument, "image must have 1 or 3 channels, got {}", fmt_shape(image.shape())),
        };
        if channels != c {
            ff_bail!(
                InvalidArgument,
                "format {} expects {channels} channels, got {}",
                self.format,
                fmt_shape(image.shape())
            );
        }
        let pixels = image.as_slice::<u8>()?;
        let s = &self.settings;
        if !self.progressive {
            let out = jpeg_encode::encode(ctx.env, pixels, h, w, c, s)?;
            ctx.set_output(0, Tensor::from_strings(&[], vec![out])?);
            return Ok(());
        }
        // Progressive files come from jpeg-encoder (its own scans, not TF's bytes).
        let err = |e: jpeg_encoder::EncodingError| Error::invalid_argument(format!("JPEG encoding failed: {e}"));
        let mut out = Vec::new();
        let mut encoder = jpeg_encoder::Encoder::new(&mut out, s.quality);
        encoder.set_progressive(true);
        encoder.set_sampling_factor(if s.chroma_downsampling {
            jpeg_encoder::SamplingFactor::F_2_2
        } else {
            jpeg_encoder::SamplingFactor::F_1_1
        });
        let unit = if s.density_unit == 2 {
            jpeg_encoder::PixelDensityUnit::Centimeters
        } else {
            jpeg_encoder::PixelDensityUnit::Inches
        };
        encoder.set_density(jpeg_encoder::PixelDensity { density: (s.x_density, s.y_density), unit });
        if !s.xmp.is_empty() {
            encoder.add_app_segment(1, jpeg_encode::xmp_segment(&s.xmp)).map_err(err)?;
        }
        let color = if c == 1 { jpeg_encoder::ColorType::Luma } else { jpeg_encoder::ColorType::Rgb };
        encoder.encode(pixels, w as u16, h as u16, color).map_err(err)?;
        ctx.set_output(0, Tensor::from_strings(&[], vec![out])?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trip_and_corrupt() {
        let pixels: Vec<u8> = (0..2 * 3 * 3).map(|i| (i * 13) as u8).collect();
        let mut out = Vec::new();
        {
            let mut e = png::Encoder::new(&mut out, 3, 2);
            e.set_color(png::ColorType::Rgb);
            e.set_depth(png::BitDepth::Eight);
            let mut w = e.write_header().unwrap();
            w.write_image_data(&pixels).unwrap();
        }
        let t = decode_png(&out, 0, DType::UInt8).unwrap();
        assert_eq!(t.shape(), &[2, 3, 3]);
        assert_eq!(t.as_slice::<u8>().unwrap(), &pixels[..]);
        // Truncated and damaged files are errors, never panics.
        for cut in [8, 20, 33, out.len() - 20] {
            assert!(decode_png(&out[..cut], 0, DType::UInt8).is_err());
        }
        // A header claiming a huge image is refused before allocation.
        let mut huge = out.clone();
        huge[16..20].copy_from_slice(&60000u32.to_be_bytes());
        huge[20..24].copy_from_slice(&60000u32.to_be_bytes());
        assert!(decode_png(&huge, 0, DType::UInt8).is_err());
    }

    /// A PNG of `w x h` pixels with `chunks` (type, data) inserted after IHDR.
    fn png_with(color: png::ColorType, depth: png::BitDepth, w: u32, h: u32, pixels: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut e = png::Encoder::new(&mut out, w, h);
            e.set_color(color);
            e.set_depth(depth);
            if color == png::ColorType::Indexed {
                e.set_palette(vec![0u8, 0, 0, 255, 0, 0, 0, 255, 0]);
                e.set_trns(vec![0u8, 128]);
            }
            let mut wr = e.write_header().unwrap();
            wr.write_image_data(pixels).unwrap();
        }
        out
    }

    /// Rewrites chunk `kind`'s data (and its CRC) in a PNG.
    fn replace_chunk(file: &[u8], kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut at = 8;
        while at + 8 <= file.len() {
            let len = u32::from_be_bytes(file[at..at + 4].try_into().unwrap()) as usize;
            if &file[at + 4..at + 8] == kind {
                let mut out = file[..at].to_vec();
                out.extend_from_slice(&(data.len() as u32).to_be_bytes());
                let mut body = kind.to_vec();
                body.extend_from_slice(data);
                out.extend_from_slice(&body);
                out.extend_from_slice(&crc32fast_png(&body).to_be_bytes());
                out.extend_from_slice(&file[at + 12 + len..]);
                return out;
            }
            at += 12 + len;
        }
        panic!("no chunk");
    }

    /// PNG's CRC-32 (ISO-HDLC).
    fn crc32fast_png(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn bad_palettes_are_errors_before_the_decoder() {
        let file = png_with(png::ColorType::Indexed, png::BitDepth::Eight, 2, 1, &[1, 2]);
        let t = decode_png(&file, 4, DType::UInt8).unwrap();
        assert_eq!(t.as_slice::<u8>().unwrap(), &[255, 0, 0, 128, 0, 255, 0, 255]);
        for plte in [&[1u8, 2, 3, 4][..], &[], &[0; 771]] {
            let bad = replace_chunk(&file, b"PLTE", plte);
            let e = decode_png(&bad, 0, DType::UInt8).unwrap_err();
            assert!(e.message.contains("palette of"), "{e}");
        }
        // A tRNS longer than the palette is one libpng skips as invalid: opaque pixels.
        let long = replace_chunk(&file, b"tRNS", &[1, 2, 3, 4]);
        let t = decode_png(&long, 4, DType::UInt8).unwrap();
        assert_eq!(t.as_slice::<u8>().unwrap(), &[255, 0, 0, 255, 0, 255, 0, 255]);
    }

    #[test]
    fn sixteen_bit_and_channel_conversions_go_straight_to_the_output() {
        // 2x1 RGBA at 16 bits: one row converted to every channel count and both types.
        let px: [u16; 8] = [0x1234, 0xffff, 0x0000, 0x8000, 0x4000, 0x4000, 0x4000, 0xffff];
        let bytes: Vec<u8> = px.iter().flat_map(|v| v.to_be_bytes()).collect();
        let file = png_with(png::ColorType::Rgba, png::BitDepth::Sixteen, 2, 1, &bytes);
        let t16 = decode_png(&file, 0, DType::UInt16).unwrap();
        assert_eq!(t16.as_slice::<u16>().unwrap(), &px);
        let t8 = decode_png(&file, 3, DType::UInt8).unwrap();
        assert_eq!(t8.as_slice::<u8>().unwrap(), &[0x12, 0xff, 0x00, 0x40, 0x40, 0x40]);
        let gray = decode_png(&file, 1, DType::UInt16).unwrap();
        let want = |c: [u16; 3]| rgb_to_gray(c, true);
        assert_eq!(gray.as_slice::<u16>().unwrap(), &[want([0x1234, 0xffff, 0]), 0x4000]);
        // 8-bit gray widened to 16 bits and to RGBA.
        let file = png_with(png::ColorType::Grayscale, png::BitDepth::Eight, 2, 1, &[7, 200]);
        assert_eq!(decode_png(&file, 0, DType::UInt16).unwrap().as_slice::<u16>().unwrap(), &[7 * 257, 200 * 257]);
        let rgba = decode_png(&file, 4, DType::UInt8).unwrap();
        assert_eq!(rgba.as_slice::<u8>().unwrap(), &[7, 7, 7, 255, 200, 200, 200, 255]);
    }

    #[test]
    fn jpeg_corrupt_is_an_error() {
        let env = crate::framework::kernel::ExecEnv::SINGLE_THREADED;
        let s = DecodeSettings::default();
        assert!(jpeg_decode::decode(&env, b"\xff\xd8\xff\xe0garbage", &s).is_err());
        assert!(jpeg_decode::decode(&env, b"\xff\xd8\xff", &s).is_err());
    }

    /// Damaged and random images: the decoders return values or errors, and never
    /// panic underneath `guarded` (a panic on a decoder's hot path is a bug even when
    /// it is caught). Bounded so `cargo test` stays fast.
    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        fn seeds() -> Vec<Vec<u8>> {
            let rgb: Vec<u8> = (0..5 * 4 * 3).map(|i| (i * 37) as u8).collect();
            let gray16: Vec<u8> = (0..6 * 3 * 2).map(|i| (i * 11) as u8).collect();
            let mut jpeg = Vec::new();
            jpeg_encoder::Encoder::new(&mut jpeg, 90).encode(&rgb, 5, 4, jpeg_encoder::ColorType::Rgb).unwrap();
            vec![
                png_with(png::ColorType::Rgb, png::BitDepth::Eight, 5, 4, &rgb),
                png_with(png::ColorType::Indexed, png::BitDepth::Eight, 4, 2, &[0, 1, 2, 1, 0, 2, 2, 1]),
                png_with(png::ColorType::Grayscale, png::BitDepth::Sixteen, 6, 3, &gray16),
                png_with(png::ColorType::Rgba, png::BitDepth::Eight, 3, 5, &rgb),
                jpeg,
            ]
        }

        /// Flips, cuts and inserts at positions derived from the strategy's numbers.
        fn damage(file: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
            let mut out = file.to_vec();
            for &(at, value, kind) in edits {
                let n = out.len().max(1);
                match kind % 3 {
                    0 if !out.is_empty() => out[at % n] ^= value.max(1),
                    1 => out.truncate(at % n),
                    _ => {
                        let at = at % (out.len() + 1);
                        out.insert(at, value);
                    }
                }
            }
            out
        }

        fn decode_unguarded(data: &[u8], channels: usize) {
            let png =
                std::panic::catch_unwind(|| sanitize_png(data).and_then(|d| png_pixels(&d, channels, DType::UInt8)));
            assert!(png.is_ok(), "the PNG decoder panicked on {data:?}");
            let env = crate::framework::kernel::ExecEnv::SINGLE_THREADED;
            let settings = DecodeSettings { channels: channels.min(3), ..DecodeSettings::default() };
            let jpeg = std::panic::catch_unwind(AssertUnwindSafe(|| jpeg_decode::decode(&env, data, &settings)));
            assert!(jpeg.is_ok(), "the JPEG decoder panicked on {data:?}");
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

            #[test]
            fn damaged_images_never_panic(
                seed in 0usize..5,
                edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..5),
                channels in prop_oneof![Just(0usize), Just(1), Just(3), Just(4)],
            ) {
                let file = damage(&seeds()[seed], &edits);
                decode_unguarded(&file, channels);
            }

            #[test]
            fn random_bytes_after_a_signature_never_panic(
                png_signature in any::<bool>(),
                tail in proptest::collection::vec(any::<u8>(), 0..256),
            ) {
                let mut file = if png_signature { b"\x89PNG\r\n\x1a\n".to_vec() } else { b"\xff\xd8\xff".to_vec() };
                file.extend(tail);
                decode_unguarded(&file, 0);
            }
        }
    }
}
