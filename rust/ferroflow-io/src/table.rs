//! LevelDB-style sorted string tables, as TF writes a checkpoint's `.index` file
//! (formats.md §2.2): data blocks of prefix-compressed entries with restart points,
//! an empty metaindex block, an index block of separator keys, and a 48-byte footer;
//! every block followed by a type byte and the masked CRC32C of contents and type.
//! The builder reproduces TF's bytes exactly (block size, restart intervals,
//! shortest separators); the reader verifies every block checksum.
use crate::record::mask;
use crate::{Error, Result};

/// Uncompressed size at which a data block is cut (TF's bundle option).
pub const BLOCK_SIZE: usize = 262_144;
/// Entries between restart points in data blocks (the index block uses 1).
const RESTART_INTERVAL: usize = 16;
const MAGIC: u64 = 0xdb47_7524_8b80_fb57;
const FOOTER_LEN: usize = 48;
const TRAILER_LEN: usize = 5;
/// Block type byte of an uncompressed block.
const NO_COMPRESSION: u8 = 0;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        #[allow(clippy::cast_possible_truncation)]
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    #[allow(clippy::cast_possible_truncation)]
    out.push(v as u8);
}

/// Decodes a varint at `*pos`, advancing it; None if it runs past `data` or 10 bytes.
pub(crate) fn get_varint(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..70).step_by(7) {
        let b = *data.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Where a block is in the file (its contents, without the trailer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockHandle {
    offset: u64,
    size: u64,
}

impl BlockHandle {
    fn encode_into(self, out: &mut Vec<u8>) {
        put_varint(out, self.offset);
        put_varint(out, self.size);
    }
    fn decode(data: &[u8], pos: &mut usize) -> Option<BlockHandle> {
        Some(BlockHandle { offset: get_varint(data, pos)?, size: get_varint(data, pos)? })
    }
}

struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    counter: usize,
    interval: usize,
    last_key: Vec<u8>,
}

impl BlockBuilder {
    fn new(interval: usize) -> Self {
        BlockBuilder { buf: Vec::new(), restarts: vec![0], counter: 0, interval, last_key: Vec::new() }
    }
    fn add(&mut self, key: &[u8], value: &[u8]) {
        let shared = if self.counter < self.interval {
            self.last_key.iter().zip(key).take_while(|(a, b)| a == b).count()
        } else {
            self.restarts.push(u32::try_from(self.buf.len()).unwrap_or(u32::MAX));
            self.counter = 0;
            0
        };
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (key.len() - shared) as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.counter += 1;
    }
    fn size_estimate(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }
    fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    /// The block's bytes; the builder starts over.
    fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.buf);
        for r in &self.restarts {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&u32::try_from(self.restarts.len()).unwrap_or(u32::MAX).to_le_bytes());
        *self = BlockBuilder::new(self.interval);
        out
    }
}

/// A short key `k` with `start <= k < limit` (TF's `FindShortestSeparator`).
fn shortest_separator(start: &[u8], limit: &[u8]) -> Vec<u8> {
    let i = start.iter().zip(limit).take_while(|(a, b)| a == b).count();
    if i < start.len().min(limit.len()) && start[i] < 0xff && start[i] + 1 < limit[i] {
        let mut k = start[..=i].to_vec();
        k[i] += 1;
        return k;
    }
    start.to_vec()
}

/// A short key `k >= key` (TF's `FindShortSuccessor`).
fn short_successor(key: &[u8]) -> Vec<u8> {
    match key.iter().position(|&b| b != 0xff) {
        Some(i) => {
            let mut k = key[..=i].to_vec();
            k[i] += 1;
            k
        }
        None => key.to_vec(),
    }
}

/// Builds a table in memory from keys added in strictly increasing byte order.
pub struct TableBuilder {
    out: Vec<u8>,
    data: BlockBuilder,
    index: BlockBuilder,
    last_key: Vec<u8>,
    pending_index: Option<BlockHandle>,
    entries: usize,
}

impl Default for TableBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl TableBuilder {
    /// An empty table.
    pub fn new() -> Self {
        TableBuilder {
            out: Vec::new(),
            data: BlockBuilder::new(RESTART_INTERVAL),
            index: BlockBuilder::new(1),
            last_key: Vec::new(),
            pending_index: None,
            entries: 0,
        }
    }

    /// Adds an entry; `key` must sort after every key added before.
    pub fn add(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        if self.entries > 0 && key <= self.last_key.as_slice() {
            return Err(Error::InvalidArgument(format!(
                "table keys must be added in increasing order: {:?} after {:?}",
                String::from_utf8_lossy(key),
                String::from_utf8_lossy(&self.last_key)
            )));
        }
        if key.len() + value.len() >= 2 * BLOCK_SIZE {
            self.flush();
        }
        if let Some(handle) = self.pending_index.take() {
            let separator = shortest_separator(&self.last_key, key);
            self.add_index_entry(&separator, handle);
        }
        self.data.add(key, value);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.entries += 1;
        if self.data.size_estimate() >= BLOCK_SIZE {
            self.flush();
        }
        Ok(())
    }

    fn add_index_entry(&mut self, key: &[u8], handle: BlockHandle) {
        let mut encoded = Vec::with_capacity(20);
        handle.encode_into(&mut encoded);
        self.index.add(key, &encoded);
    }

    fn flush(&mut self) {
        if self.data.is_empty() {
            return;
        }
        let contents = self.data.finish();
        self.pending_index = Some(self.write_block(&contents));
    }

    fn write_block(&mut self, contents: &[u8]) -> BlockHandle {
        let handle = BlockHandle { offset: self.out.len() as u64, size: contents.len() as u64 };
        self.out.extend_from_slice(contents);
        self.out.push(NO_COMPRESSION);
        let crc = crc32c::crc32c_append(crc32c::crc32c(contents), &[NO_COMPRESSION]);
        self.out.extend_from_slice(&mask(crc).to_le_bytes());
        handle
    }

    /// The finished table's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.flush();
        let metaindex = self.write_block(&BlockBuilder::new(RESTART_INTERVAL).finish());
        if let Some(handle) = self.pending_index.take() {
            let successor = short_successor(&self.last_key);
            self.add_index_entry(&successor, handle);
        }
        let index_contents = self.index.finish();
        let index = self.write_block(&index_contents);
        let mut footer = Vec::with_capacity(FOOTER_LEN);
        metaindex.encode_into(&mut footer);
        index.encode_into(&mut footer);
        footer.resize(FOOTER_LEN - 8, 0);
        footer.extend_from_slice(&MAGIC.to_le_bytes());
        self.out.extend_from_slice(&footer);
        self.out
    }
}

fn corrupt(name: &str, what: &str) -> Error {
    Error::DataLoss(format!("{name}: corrupted table: {what}"))
}

/// The contents of the block at `handle`, after checking its trailer's CRC.
fn read_block<'a>(file: &'a [u8], handle: BlockHandle, name: &str) -> Result<&'a [u8]> {
    let start = usize::try_from(handle.offset).map_err(|_| corrupt(name, "block offset"))?;
    let size = usize::try_from(handle.size).map_err(|_| corrupt(name, "block size"))?;
    let end = start.checked_add(size).filter(|&e| e.checked_add(TRAILER_LEN).is_some_and(|t| t <= file.len()));
    let end = end.ok_or_else(|| corrupt(name, "block extends past the end of the file"))?;
    let contents = &file[start..end];
    let kind = file[end];
    let stored = u32::from_le_bytes([file[end + 1], file[end + 2], file[end + 3], file[end + 4]]);
    let crc = crc32c::crc32c_append(crc32c::crc32c(contents), &[kind]);
    if mask(crc) != stored {
        return Err(Error::DataLoss(format!("{name}: block checksum mismatch")));
    }
    if kind != NO_COMPRESSION {
        return Err(Error::InvalidArgument(format!(
            "{name}: compressed table blocks (type {kind}) are not supported; TF never writes them for checkpoints"
        )));
    }
    Ok(contents)
}

/// The entries of one block, in order.
fn block_entries(block: &[u8], name: &str, out: &mut Vec<(Vec<u8>, Vec<u8>)>) -> Result<()> {
    let bad = || corrupt(name, "bad block contents");
    let n = block.len().checked_sub(4).ok_or_else(bad)?;
    let restarts = u32::from_le_bytes([block[n], block[n + 1], block[n + 2], block[n + 3]]) as usize;
    let limit = restarts.checked_mul(4).and_then(|r| n.checked_sub(r)).ok_or_else(bad)?;
    let mut pos = 0;
    let mut key: Vec<u8> = Vec::new();
    while pos < limit {
        let shared = usize::try_from(get_varint(block, &mut pos).ok_or_else(bad)?).map_err(|_| bad())?;
        let unshared = usize::try_from(get_varint(block, &mut pos).ok_or_else(bad)?).map_err(|_| bad())?;
        let value_len = usize::try_from(get_varint(block, &mut pos).ok_or_else(bad)?).map_err(|_| bad())?;
        let key_end = pos.checked_add(unshared).filter(|&e| e <= limit).ok_or_else(bad)?;
        let value_end = key_end.checked_add(value_len).filter(|&e| e <= limit).ok_or_else(bad)?;
        if shared > key.len() {
            return Err(bad());
        }
        key.truncate(shared);
        key.extend_from_slice(&block[pos..key_end]);
        out.push((key.clone(), block[key_end..value_end].to_vec()));
        pos = value_end;
    }
    Ok(())
}

/// Every `(key, value)` of the table in `file`, in key order, verifying the footer's
/// magic number and every block's checksum (`DataLoss` naming `name` otherwise).
pub fn read_table(file: &[u8], name: &str) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let footer_at = file.len().checked_sub(FOOTER_LEN).ok_or_else(|| corrupt(name, "file too short"))?;
    let footer = &file[footer_at..];
    let magic = u64::from_le_bytes(footer[FOOTER_LEN - 8..].try_into().map_err(|_| corrupt(name, "footer"))?);
    if magic != MAGIC {
        return Err(corrupt(name, "not an sstable (bad magic number)"));
    }
    let mut pos = 0;
    let _metaindex = BlockHandle::decode(footer, &mut pos).ok_or_else(|| corrupt(name, "footer"))?;
    let index = BlockHandle::decode(footer, &mut pos).ok_or_else(|| corrupt(name, "footer"))?;
    let mut index_entries = Vec::new();
    block_entries(read_block(file, index, name)?, name, &mut index_entries)?;
    let mut entries = Vec::new();
    for (_, encoded) in index_entries {
        let mut p = 0;
        let handle = BlockHandle::decode(&encoded, &mut p).ok_or_else(|| corrupt(name, "bad block handle"))?;
        block_entries(read_block(file, handle, name)?, name, &mut entries)?;
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_successors_follow_tf() {
        assert_eq!(shortest_separator(b"abc1", b"abc5"), b"abc2");
        assert_eq!(shortest_separator(b"abc3", b"abc4"), b"abc3", "adjacent bytes stay");
        assert_eq!(shortest_separator(b"ab", b"abc"), b"ab", "a prefix stays");
        assert_eq!(short_successor(b"zeta/bias"), b"{");
        assert_eq!(short_successor(b"v"), b"w");
        assert_eq!(short_successor(b"\xff\xff"), b"\xff\xff");
    }

    #[test]
    fn empty_block_and_trailer_are_tfs() {
        let mut t = TableBuilder::new();
        let handle = t.write_block(&BlockBuilder::new(16).finish());
        assert_eq!(handle, BlockHandle { offset: 0, size: 8 });
        assert_eq!(t.out, [0, 0, 0, 0, 1, 0, 0, 0, 0x00, 0xc0, 0xf2, 0xa1, 0xb0]);
    }

    #[test]
    fn many_entries_round_trip_across_blocks() {
        let mut t = TableBuilder::new();
        let keys: Vec<String> = (0..7000).map(|i| format!("layer{i:05}/weights")).collect();
        for (i, k) in keys.iter().enumerate() {
            t.add(k.as_bytes(), &[u8::try_from(i % 251).unwrap(); 40]).unwrap();
        }
        let bytes = t.finish();
        let entries = read_table(&bytes, "t").unwrap();
        assert_eq!(entries.len(), 7000);
        for (i, ((k, v), want)) in entries.iter().zip(&keys).enumerate() {
            assert_eq!(k, want.as_bytes());
            assert_eq!(v, &vec![u8::try_from(i % 251).unwrap(); 40]);
        }
        let mut broken = bytes.clone();
        broken[100] ^= 1;
        assert!(matches!(read_table(&broken, "t"), Err(Error::DataLoss(m)) if m.contains("checksum")));
        let mut out_of_order = TableBuilder::new();
        out_of_order.add(b"b", b"").unwrap();
        assert!(out_of_order.add(b"a", b"").is_err());
    }
}
