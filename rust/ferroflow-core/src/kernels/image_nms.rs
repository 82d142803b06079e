//! Non-maximum suppression: `NonMaxSuppression` (V1..V5) and
//! `NonMaxSuppressionWithOverlaps`, TF's greedy selection exactly: candidates above
//! `score_threshold` leave a priority queue by score (ties to the lower index), each
//! compared with the boxes already selected, newest first; a similarity above the
//! threshold suppresses it (hard NMS), or with `soft_nms_sigma > 0` its score decays
//! by `exp(-0.5 * iou^2 / sigma)` and it goes back in the queue while above the
//! threshold (soft NMS). Boxes are `[y1, x1, y2, x2]` in either corner order; the IoU
//! is computed in f32 as TF's. Shapes and registration in `ops/image.rs`.
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// Which op.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
    V3,
    V4,
    V5,
    Overlaps,
}

struct Nms {
    version: Version,
    pad_to_max_output_size: bool,
    /// V1's iou threshold is an attr.
    iou_attr: f32,
}

pub(crate) fn nms_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let version = match b.node.op_type() {
        "NonMaxSuppression" => Version::V1,
        "NonMaxSuppressionV2" => Version::V2,
        "NonMaxSuppressionV3" => Version::V3,
        "NonMaxSuppressionV4" => Version::V4,
        "NonMaxSuppressionV5" => Version::V5,
        _ => Version::Overlaps,
    };
    Ok(Box::new(Nms {
        version,
        pad_to_max_output_size: b.node.attr_or("pad_to_max_output_size", false)?,
        iou_attr: b.node.attr_or("iou_threshold", 0.5f32)?,
    }))
}

/// A box's corners, ordered: `[ymin, xmin, ymax, xmax]`.
fn corners(b: &[f32]) -> [f32; 4] {
    [b[0].min(b[2]), b[1].min(b[3]), b[0].max(b[2]), b[1].max(b[3])]
}

/// TF's `IOU` of two boxes (0 when either has no area).
fn iou(a: &[f32], b: &[f32]) -> f32 {
    let ([ay0, ax0, ay1, ax1], [by0, bx0, by1, bx1]) = (corners(a), corners(b));
    let (area_a, area_b) = ((ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0));
    if area_a <= 0.0 || area_b <= 0.0 {
        return 0.0;
    }
    let ih = (ay1.min(by1) - ay0.max(by0)).max(0.0);
    let iw = (ax1.min(bx1) - ax0.max(bx0)).max(0.0);
    let inter = ih * iw;
    inter / (area_a + area_b - inter)
}

/// A candidate in the queue: highest score first, then the lowest index.
#[derive(Clone, Copy)]
struct Candidate {
    index: usize,
    score: f32,
    suppress_begin: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        // TF's comparator: `a < b` when a's score is lower, or equal with a higher index.
        self.score.partial_cmp(&other.score).unwrap_or(Ordering::Equal).then(other.index.cmp(&self.index))
    }
}

/// TF's `DoNonMaxSuppressionOp`: the selected indices and their (decayed) scores.
fn select(
    scores: &[f32],
    max_output: usize,
    threshold: f32,
    score_threshold: f32,
    sigma: f32,
    similarity: impl Fn(usize, usize) -> f32,
) -> (Vec<usize>, Vec<f32>) {
    let mut queue: BinaryHeap<Candidate> = scores
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s > score_threshold)
        .map(|(index, &score)| Candidate { index, score, suppress_begin: 0 })
        .collect();
    let soft = sigma > 0.0;
    let scale = if soft { -0.5 / sigma } else { 0.0 };
    let weight = |sim: f32| {
        let w = (scale * sim * sim).exp();
        if soft || sim <= threshold { w } else { 0.0 }
    };
    let (mut selected, mut selected_scores) = (Vec::new(), Vec::new());
    while selected.len() < max_output {
        let Some(mut next) = queue.pop() else { break };
        let original = next.score;
        let mut hard = false;
        for j in (next.suppress_begin..selected.len()).rev() {
            let sim = similarity(next.index, selected[j]);
            next.score *= weight(sim);
            if !soft && sim > threshold {
                hard = true;
                break;
            }
            if next.score <= score_threshold {
                break;
            }
        }
        next.suppress_begin = selected.len();
        if hard {
            continue;
        }
        if next.score == original {
            selected.push(next.index);
            selected_scores.push(next.score);
        } else if next.score > score_threshold {
            queue.push(next);
        }
    }
    (selected, selected_scores)
}

fn scalar_f32(ctx: &OpContext<'_>, i: usize, what: &str) -> Result<f32> {
    let t = ctx.input(i)?;
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "{what} must be 0-D, got shape {}", fmt_shape(t.shape()));
    }
    Ok(super::array::cast(t, DType::Float32)?.as_slice::<f32>()?[0])
}

fn as_f32(t: &Tensor) -> Result<Vec<f32>> {
    Ok(super::array::cast(t, DType::Float32)?.as_slice::<f32>()?.to_vec())
}

impl OpKernel for Nms {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let first = ctx.input(0)?;
        let num_boxes = match (self.version, first.shape()) {
            (Version::Overlaps, [n, m]) if n == m => *n,
            (Version::Overlaps, s) => ff_bail!(InvalidArgument, "overlaps must be square{}", fmt_shape(s)),
            (_, [n, 4]) => *n,
            (_, s) if s.len() != 2 => {
                ff_bail!(
                    InvalidArgument,
                    "boxes must be 2-D{} (Shape must be rank 2 but is rank {})",
                    fmt_shape(s),
                    s.len()
                )
            }
            (_, s) => ff_bail!(InvalidArgument, "boxes must have 4 columns (Dimension must be 4 but is {})", s[1]),
        };
        let scores_t = ctx.input(1)?;
        let scores_dtype = scores_t.dtype();
        if scores_t.shape().len() != 1 {
            ff_bail!(
                InvalidArgument,
                "scores must be 1-D{} (Shape must be rank 1 but is rank {})",
                fmt_shape(scores_t.shape()),
                scores_t.shape().len()
            );
        }
        if scores_t.shape()[0] != num_boxes {
            ff_bail!(
                InvalidArgument,
                "scores has incompatible shape (Dimensions must be equal, but are {num_boxes} and {})",
                scores_t.shape()[0]
            );
        }
        let max_t = ctx.input(2)?;
        if !max_t.shape().is_empty() {
            ff_bail!(InvalidArgument, "max_output_size must be 0-D, got shape {}", fmt_shape(max_t.shape()));
        }
        let max_output = crate::framework::tensor_util::int_values(max_t)?[0];
        let max_output =
            usize::try_from(max_output).map_err(|_| Error::invalid_argument("output size must be non-negative"))?;
        let threshold = if self.version == Version::V1 { self.iou_attr } else { scalar_f32(ctx, 3, "iou_threshold")? };
        if self.version != Version::Overlaps && !(0.0..=1.0).contains(&threshold) {
            ff_bail!(InvalidArgument, "iou_threshold must be in [0, 1]");
        }
        let score_threshold = match self.version {
            Version::V1 | Version::V2 => f32::NEG_INFINITY,
            _ => scalar_f32(ctx, 4, "score_threshold")?,
        };
        let sigma = if self.version == Version::V5 { scalar_f32(ctx, 5, "soft_nms_sigma")? } else { 0.0 };
        if sigma < 0.0 {
            ff_bail!(InvalidArgument, "soft_nms_sigma must be non-negative");
        }
        let (data, scores) = (as_f32(first)?, as_f32(scores_t)?);
        let (mut selected, mut selected_scores) = if self.version == Version::Overlaps {
            select(&scores, max_output, threshold, score_threshold, 0.0, |i, j| data[i * num_boxes + j])
        } else {
            select(&scores, max_output, threshold, score_threshold, sigma, |i, j| {
                iou(&data[i * 4..i * 4 + 4], &data[j * 4..j * 4 + 4])
            })
        };
        let valid = selected.len();
        if self.pad_to_max_output_size {
            selected.resize(max_output, 0);
            selected_scores.resize(max_output, 0.0);
        }
        let indices: Vec<i32> = selected.iter().map(|&i| i as i32).collect();
        ctx.set_output(0, Tensor::from_slice(&[indices.len()], &indices)?);
        match self.version {
            Version::V4 => ctx.set_output(1, Tensor::scalar(valid as i32)),
            Version::V5 => {
                let s = Tensor::from_slice(&[selected_scores.len()], &selected_scores)?;
                ctx.set_output(1, super::array::cast(&s, scores_dtype)?);
                ctx.set_output(2, Tensor::scalar(valid as i32));
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_selection_as_tf() {
        // TF's `testSelectFromThreeClusters`.
        let boxes = [
            [0., 0., 1., 1.],
            [0., 0.1, 1., 1.1],
            [0., -0.1, 1., 0.9],
            [0., 10., 1., 11.],
            [0., 10.1, 1., 11.1],
            [0., 100., 1., 101.],
        ];
        let scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];
        let (sel, _) = select(&scores, 3, 0.5, f32::NEG_INFINITY, 0.0, |i, j| iou(&boxes[i], &boxes[j]));
        assert_eq!(sel, vec![3, 0, 5]);
        // Ties go to the lower index.
        let (sel, _) = select(&[0.5, 0.5], 2, 0.5, f32::NEG_INFINITY, 0.0, |_, _| 0.0);
        assert_eq!(sel, vec![0, 1]);
    }
}
