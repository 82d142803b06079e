//! TensorFlow's string hashes, bit for bit: `Hash64` (its MurmurHash64A variant,
//! behind `StringToHashBucket` and the dense hash table's string keys), `Fingerprint64`
//! (FarmHash's, behind `StringToHashBucketFast` and vocabulary tables' OOV buckets) and
//! the keyed SipHash-2-4 of `StringToHashBucketStrong`, with the bucket kernels.
use std::hash::Hasher;

use super::{KernelBuild, OpContext, OpKernel};
use crate::error::Result;
use crate::tensor::Tensor;

/// TF's `Hash64(data, n)`: MurmurHash64A with TF's seed and tail handling.
pub(crate) fn hash64(data: &[u8]) -> u64 {
    hash64_seeded(data, 0x00DE_CAFC_AFFE)
}

fn hash64_seeded(data: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let mut k = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate().rev() {
            h ^= u64::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// TF's `Fingerprint64`: FarmHash's 64-bit fingerprint (stable across platforms).
pub(crate) fn fingerprint64(data: &[u8]) -> u64 {
    farmhash::fingerprint64(data)
}

/// TF's `StrongKeyedHash`: SipHash-2-4 under a 128-bit key.
pub(crate) fn strong_keyed_hash(key: [u64; 2], data: &[u8]) -> u64 {
    let mut h = siphasher::sip::SipHasher24::new_with_keys(key[0], key[1]);
    h.write(data);
    h.finish()
}

/// TF's `Hash64Combine`, for keys of several elements.
pub(crate) fn hash64_combine(a: u64, b: u64) -> u64 {
    a ^ b.wrapping_add(0x9e37_79b9_7f4a_7800).wrapping_add(a << 10).wrapping_add(a >> 4)
}

#[derive(Clone, Copy)]
enum BucketHash {
    Legacy,
    Fast,
    Strong([u64; 2]),
}

struct HashBucket {
    hash: BucketHash,
    num_buckets: u64,
}

/// `StringToHashBucket`, `StringToHashBucketFast` and `StringToHashBucketStrong`:
/// each string's hash modulo `num_buckets`, as `int64`.
pub(crate) fn hash_bucket_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let num_buckets: i64 = b.node.attr_or("num_buckets", 0)?;
    if num_buckets < 1 {
        ff_bail!(InvalidArgument, "Value for attr 'num_buckets' of {num_buckets} must be at least minimum 1");
    }
    let hash = match b.node.op_type() {
        "StringToHashBucket" => BucketHash::Legacy,
        "StringToHashBucketFast" => BucketHash::Fast,
        _ => {
            let key: Vec<i64> = b.node.attr_or("key", Vec::new())?;
            if key.len() != 2 {
                ff_bail!(InvalidArgument, "Key must have 2 elements");
            }
            BucketHash::Strong([key[0] as u64, key[1] as u64])
        }
    };
    Ok(Box::new(HashBucket { hash, num_buckets: num_buckets as u64 }))
}

impl OpKernel for HashBucket {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        let strings = input.as_strings()?;
        let mut out = crate::buffer::try_vec::<i64>(strings.len())?;
        out.resize(strings.len(), 0);
        // Pieces of 4096 strings over the intra-op threads (a few tens of µs each).
        ctx.env.for_each_chunk(&mut out, 4096, 1, |off, chunk| {
            for (j, o) in chunk.iter_mut().enumerate() {
                let s = &strings[off + j];
                let h = match self.hash {
                    BucketHash::Legacy => hash64(s),
                    BucketHash::Fast => fingerprint64(s),
                    BucketHash::Strong(key) => strong_keyed_hash(key, s),
                };
                *o = (h % self.num_buckets) as i64;
            }
        });
        let shape = input.shape().to_vec();
        ctx.set_output(0, Tensor::from_slice(&shape, &out)?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_matches_tensorflow() {
        // `tf.strings.to_hash_bucket_fast(s, 1000003)` in TensorFlow 2.21.
        let want = [377723, 291400, 497363, 297958];
        for (s, w) in ["", "a", "hello", "The quick brown fox jumps over the lazy dog"].iter().zip(want) {
            assert_eq!(fingerprint64(s.as_bytes()) % 1_000_003, w);
        }
    }

    #[test]
    fn hash64_tail_lengths_differ() {
        let hashes: Vec<u64> = (0..17).map(|n| hash64(&vec![7u8; n])).collect();
        for (i, a) in hashes.iter().enumerate() {
            assert!(hashes[i + 1..].iter().all(|b| b != a));
        }
    }
}
