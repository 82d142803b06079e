//! GIF and BMP decoding for `DecodeGif`, `DecodeBmp` and `DecodeImage`, with TF's
//! output and messages. GIF: the `gif` crate reads the frames (LZW, interlacing,
//! palettes); the frames are composited on the canvas as TF's `gif_io` does (each
//! frame starts from the previous one, transparent pixels keep it, a first frame
//! smaller than the canvas leaves black around it). BMP: TF's own uncompressed
//! decoder (1, 3 or 4 bytes per pixel, bottom-up or top-down rows padded to 4 bytes),
//! every offset checked against the file before anything is read or allocated.
use std::io::Cursor;
use std::num::NonZeroU64;

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The largest decoded image (all frames): TF's kernels allocate whatever the header
/// asks; a hostile 64k x 64k canvas repeated over thousands of frames must not
/// exhaust memory, so the total is bounded (`ResourceExhausted` beyond).
const MAX_OUTPUT_BYTES: u64 = 1 << 31;

fn gif_error(data: &[u8], e: &gif::DecodingError) -> Error {
    match e {
        gif::DecodingError::MemoryLimit => Error::new(
            crate::error::Code::ResourceExhausted,
            format!("GIF frame too large to decode (size {})", data.len()),
        ),
        e => Error::invalid_argument(format!("Invalid GIF data (size {}), {e}", data.len())),
    }
}

/// Decodes every frame of a GIF into `[frames, height, width, 3]` uint8 (only the
/// first frame, `[height, width, 3]`, when `all_frames` is false).
pub(crate) fn decode_gif(data: &[u8], all_frames: bool) -> Result<Tensor> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    // One frame's index buffer is at most the canvas (64k x 64k = 4 GiB): bounded too.
    options.set_memory_limit(gif::MemoryLimit::Bytes(NonZeroU64::new(MAX_OUTPUT_BYTES).unwrap_or(NonZeroU64::MIN)));
    // TF composites frames that run past the canvas by clipping them.
    options.check_frame_consistency(false);
    let mut decoder = options.read_info(Cursor::new(data)).map_err(|e| gif_error(data, &e))?;
    let (width, height) = (usize::from(decoder.width()), usize::from(decoder.height()));
    let canvas = width * height * 3;
    if canvas == 0 {
        ff_bail!(InvalidArgument, "Invalid GIF data (size {}), the canvas is empty", data.len());
    }
    let global = decoder.global_palette().map(<[u8]>::to_vec);
    let mut out: Vec<u8> = Vec::new();
    let mut frames = 0usize;
    while let Some(frame) = decoder.read_next_frame().map_err(|e| gif_error(data, &e))? {
        let total = (frames as u64 + 1) * canvas as u64;
        if total > MAX_OUTPUT_BYTES {
            ff_bail!(ResourceExhausted, "GIF of {} frames of {width}x{height} is too large to decode", frames + 1);
        }
        out.try_reserve(canvas).map_err(|_| {
            Error::new(crate::error::Code::ResourceExhausted, format!("OOM allocating {canvas} bytes for a GIF"))
        })?;
        // Each frame starts as the previous one (black for the first).
        let start = out.len();
        if frames == 0 {
            out.resize(canvas, 0);
        } else {
            out.extend_from_within(start - canvas..start);
        }
        let palette = frame.palette.as_deref().or(global.as_deref());
        let Some(palette) = palette else {
            ff_bail!(InvalidArgument, "Invalid GIF data (size {}), missing color map", data.len());
        };
        let colors = palette.len() / 3;
        let (left, top) = (usize::from(frame.left), usize::from(frame.top));
        let (fw, fh) = (usize::from(frame.width), usize::from(frame.height));
        let dst = &mut out[start..start + canvas];
        for i in top..(top + fh).min(height) {
            for j in left..(left + fw).min(width) {
                let Some(&index) = frame.buffer.get((i - top) * fw + (j - left)) else { continue };
                if Some(index) == frame.transparent {
                    continue;
                }
                let index = usize::from(index);
                if index >= colors {
                    ff_bail!(
                        InvalidArgument,
                        "Invalid GIF data (size {}), found color index {index} outside of color map range {colors}",
                        data.len()
                    );
                }
                dst[(i * width + j) * 3..(i * width + j) * 3 + 3].copy_from_slice(&palette[index * 3..index * 3 + 3]);
            }
        }
        frames += 1;
        if !all_frames {
            break;
        }
    }
    if frames == 0 {
        ff_bail!(InvalidArgument, "Invalid GIF data (size {}), no image frames", data.len());
    }
    if all_frames {
        Tensor::from_slice(&[frames, height, width, 3], &out)
    } else {
        Tensor::from_slice(&[height, width, 3], &out)
    }
}

fn le_i32(data: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
}

/// TF's `DecodeBmp`: `[height, width, channels]` uint8 from an uncompressed BMP;
/// `channels` 0 takes the file's (bits per pixel / 8), else it must equal it.
pub(crate) fn decode_bmp(data: &[u8], channels: usize) -> Result<Tensor> {
    if data.len() < 32 {
        ff_bail!(
            InvalidArgument,
            "Incomplete bmp content, requires at least 32 bytes to find the header size, width, height, and bpp, got {} bytes",
            data.len()
        );
    }
    let header_size = le_i32(data, 10);
    let width = le_i32(data, 18);
    let height = le_i32(data, 22);
    // TF reads 4 bytes from offset 28: the bit count and, in its high half, the low
    // half of the compression (so a compressed file has an absurd pixel size).
    let bpp = le_i32(data, 28);
    let file_channels = i64::from(bpp / 8);
    let channels = if channels == 0 {
        file_channels
    } else {
        if i64::try_from(channels).unwrap_or(-1) != file_channels {
            ff_bail!(
                InvalidArgument,
                "channels attribute {channels} does not match bits per pixel from file {file_channels}"
            );
        }
        file_channels
    };
    if ![1, 3, 4].contains(&channels) {
        ff_bail!(InvalidArgument, "Number of channels must be 1, 3 or 4, was {channels}");
    }
    if width <= 0 {
        ff_bail!(InvalidArgument, "Width must be positive");
    }
    if height == 0 {
        ff_bail!(InvalidArgument, "Height must be nonzero");
    }
    if header_size < 0 {
        ff_bail!(InvalidArgument, "header size must be nonnegative");
    }
    let (w, abs_h, c, header) = (i64::from(width), i64::from(height).abs(), channels, i64::from(header_size));
    if w * abs_h >= i64::from(i32::MAX / 8) {
        ff_bail!(InvalidArgument, "Total possible pixel bytes must be less than 2^30");
    }
    // Rows are padded to 4 bytes.
    let row_size = (c * w + 3) / 4 * 4;
    let expected = header + (abs_h - 1) * row_size + (w - 1) * c + c;
    if expected > i64::try_from(data.len()).unwrap_or(i64::MAX) {
        ff_bail!(InvalidArgument, "Expected {expected} bytes, but only have {} bytes", data.len());
    }
    let top_down = height < 0;
    let (w, h, c, row) = (w as usize, abs_h as usize, c as usize, row_size as usize);
    let pixels = &data[header as usize..];
    let mut out = Vec::new();
    out.try_reserve_exact(h * w * c).map_err(|_| {
        Error::new(crate::error::Code::ResourceExhausted, format!("OOM allocating {} bytes for a BMP", h * w * c))
    })?;
    out.resize(h * w * c, 0);
    for i in 0..h {
        let src_row = if top_down { i } else { h - 1 - i } * row;
        for j in 0..w {
            let (s, d) = (src_row + j * c, (i * w + j) * c);
            match c {
                1 => out[d] = pixels[s],
                // BGR(A) -> RGB(A).
                _ => {
                    out[d] = pixels[s + 2];
                    out[d + 1] = pixels[s + 1];
                    out[d + 2] = pixels[s];
                    if c == 4 {
                        out[d + 3] = pixels[s + 3];
                    }
                }
            }
        }
    }
    Tensor::from_slice(&[h, w, c], &out)
}
