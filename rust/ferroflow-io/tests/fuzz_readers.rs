//! Property tests that search for inputs crashing the readers of untrusted files:
//! the TFRecord reader (event files), the sorted-table reader and the checkpoint
//! bundle reader. Damaged input must give an error (`DataLoss` and kin), never a
//! panic, an abort or wrong values. Bounded so `cargo test` stays fast.
use std::io::Cursor;

use ferroflow_io::bundle::{BundleReader, BundleWriter, DT_STRING, TensorBytes, data_path, index_path};
use ferroflow_io::record::{Compression, RecordFileWriter, RecordReader, decompressing, frame_into};
use ferroflow_io::table::read_table;
use proptest::prelude::*;

/// A damage to a file: bytes flipped, a cut, or bytes inserted.
#[derive(Clone, Debug)]
enum Damage {
    Flip(usize, u8),
    Cut(usize),
    Insert(usize, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(i, x)| Damage::Flip(i, x)),
        any::<usize>().prop_map(Damage::Cut),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Damage::Insert(i, b)),
    ]
}

fn apply(bytes: &[u8], damages: &[Damage]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for d in damages {
        let n = out.len().max(1);
        match d {
            Damage::Flip(i, x) => {
                if !out.is_empty() {
                    out[i % n] ^= x;
                }
            }
            Damage::Cut(i) => out.truncate(i % n),
            Damage::Insert(i, b) => {
                let at = i % (out.len() + 1);
                out.splice(at..at, b.iter().copied());
            }
        }
    }
    out
}

fn records() -> Vec<Vec<u8>> {
    vec![b"first".to_vec(), vec![7u8; 300], Vec::new(), b"last record".to_vec()]
}

fn record_file() -> Vec<u8> {
    let mut out = Vec::new();
    for r in records() {
        frame_into(&r, &mut out);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn record_reader_survives_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut r = RecordReader::new(Cursor::new(bytes), "fuzz");
        for _ in 0..64 {
            match r.next_record() {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }

    #[test]
    fn record_reader_returns_only_true_records(damages in proptest::collection::vec(damage(), 1..4)) {
        let damaged = apply(&record_file(), &damages);
        let mut r = RecordReader::new(Cursor::new(damaged), "fuzz");
        let good = records();
        while let Ok(Some(rec)) = r.next_record() {
            // CRCs make a damaged record fail; a record that comes back is a true one.
            prop_assert!(good.contains(&rec));
        }
    }

    #[test]
    fn table_reader_survives_damage(damages in proptest::collection::vec(damage(), 1..4)) {
        let mut t = ferroflow_io::table::TableBuilder::new();
        for i in 0..200u32 {
            t.add(format!("key{i:05}").as_bytes(), &i.to_le_bytes()).unwrap();
        }
        let damaged = apply(&t.finish(), &damages);
        if let Ok(rows) = read_table(&damaged, "fuzz") {
            for (k, v) in rows {
                prop_assert!(k.starts_with(b"key") && v.len() == 4);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn bundle_reader_never_returns_wrong_values(
        index_damage in proptest::collection::vec(damage(), 0..3),
        data_damage in proptest::collection::vec(damage(), 0..3),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("ckpt");
        let dense: Vec<u8> = (0..64u8).collect();
        let strings = vec![b"ab".to_vec(), Vec::new(), vec![9u8; 200]];
        let mut w = BundleWriter::new(&prefix).unwrap();
        w.add("dense", 1, &[4, 4], TensorBytes::Dense(&dense)).unwrap();
        w.add("strings", DT_STRING, &[3], TensorBytes::Strings(&strings)).unwrap();
        w.finish().unwrap();
        for (path, damages) in [(index_path(&prefix), &index_damage), (data_path(&prefix), &data_damage)] {
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, apply(&bytes, damages)).unwrap();
        }
        let Ok(r) = BundleReader::open(&prefix) else { return Ok(()) };
        if let Ok(v) = r.read("dense") {
            prop_assert_eq!(v, ferroflow_io::bundle::TensorData::Dense(dense));
        }
        if let Ok(v) = r.read("strings") {
            prop_assert_eq!(v, ferroflow_io::bundle::TensorData::Strings(strings));
        }
    }
}

/// The record file of `records()` compressed as asked, as TF's writer writes it.
fn compressed_file(compression: Compression) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records");
    let mut w = RecordFileWriter::create(&path, compression, None).unwrap();
    for r in records() {
        w.write(&r).unwrap();
    }
    w.close().unwrap();
    std::fs::read(&path).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn compressed_records_come_back_true_or_as_data_loss(
        gzip in any::<bool>(),
        damages in proptest::collection::vec(damage(), 1..4),
    ) {
        let compression = if gzip { Compression::Gzip } else { Compression::Zlib };
        let damaged = apply(&compressed_file(compression), &damages);
        let stream = decompressing(Cursor::new(damaged), compression, "fuzz".into());
        let mut r = RecordReader::new(stream, "fuzz");
        let good = records();
        let mut n = 0;
        loop {
            match r.next_record() {
                // Records come back whole and in order, or not at all.
                Ok(Some(rec)) => {
                    prop_assert!(n < good.len() && rec == good[n], "record {} is not the one written", n);
                    n += 1;
                }
                Ok(None) => break,
                Err(e) => {
                    prop_assert!(matches!(e, ferroflow_io::Error::DataLoss(_)), "{:?}", e);
                    break;
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// A damaged V1 checkpoint file: an error, or the true values (the table's block
    /// checksums catch flipped bytes; its metadata is checked before any allocation).
    #[test]
    fn v1_checkpoint_reader_never_returns_wrong_values(damages in proptest::collection::vec(damage(), 1..4)) {
        use ferroflow_io::slices::{SliceReader, SliceWriter};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.ckpt");
        let dense: Vec<u8> = (0..64u8).collect();
        let strings = vec![b"ab".to_vec(), Vec::new(), vec![9u8; 200]];
        let mut w = SliceWriter::new(&path);
        w.add("dense", 1, &[4, 4], None, TensorBytes::Dense(&dense)).unwrap();
        w.add("strings", DT_STRING, &[3], None, TensorBytes::Strings(&strings)).unwrap();
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, apply(&bytes, &damages)).unwrap();
        let Ok(r) = SliceReader::open(&path) else { return Ok(()) };
        if let Ok(v) = r.read("dense") {
            prop_assert_eq!(v, ferroflow_io::bundle::TensorData::Dense(dense));
        }
        if let Ok(v) = r.read("strings") {
            prop_assert_eq!(v, ferroflow_io::bundle::TensorData::Strings(strings));
        }
    }
}
