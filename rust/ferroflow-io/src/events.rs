//! Event files (formats.md §1): TF's file naming, the `brain.Event:2` first record,
//! and [`EventFileWriter`], which frames and writes events on a background thread
//! behind a bounded queue, as TF's `EventFileWriter`: `add_event` blocks only when
//! `max_queue` events are pending, and written data reaches the OS within
//! `flush_secs`, at `flush()` and at `close()`.
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ferroflow_proto::{Event, SourceMetadata, Summary, event};
use prost::Message;

use crate::record::frame_into;
use crate::{Error, Result};

/// Seconds since the Unix epoch, fractional (an event's `wall_time`).
pub fn wall_time() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// This machine's host name, for event file names (`localhost` when unknown).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && !h.contains(['/', '\\']))
        .unwrap_or_else(|| "localhost".into())
}

/// What the writer thread is asked to do.
enum Msg {
    Event(Vec<u8>),
    Flush(SyncSender<Result<()>>),
    Close(SyncSender<Result<()>>),
}

/// How long the writer thread polls for more events before it sleeps: under a
/// steady stream it never sleeps, so producers never pay for waking it (a futex
/// wake-up per event would cap the rate at ~100 K events/s).
const SPIN: Duration = Duration::from_micros(200);

/// The bounded queue between producers and the writer thread. The thread takes
/// every pending message at once; at most `max` events wait (flush and close
/// requests are always accepted, in order).
struct Queue {
    state: Mutex<QueueState>,
    /// Messages waiting, readable without the lock (for the thread's polling).
    pending: AtomicUsize,
    not_empty: Condvar,
    not_full: Condvar,
    max: usize,
}

#[derive(Default)]
struct QueueState {
    items: Vec<Msg>,
    events: usize,
    /// The thread is asleep on `not_empty`.
    sleeping: bool,
    /// The thread has stopped: nothing more is accepted.
    stopped: bool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues `msg`; with `block` false a full queue hands an event back instead.
    fn push(&self, msg: Msg, block: bool) -> Result<Option<Msg>> {
        let mut s = self.lock();
        let is_event = matches!(msg, Msg::Event(_));
        while is_event && s.events >= self.max && !s.stopped {
            if !block {
                return Ok(Some(msg));
            }
            s = self.not_full.wait(s).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        if s.stopped {
            return Err(Error::FailedPrecondition("the event writer thread has stopped".into()));
        }
        s.events += usize::from(is_event);
        s.items.push(msg);
        self.pending.store(s.items.len(), Ordering::Release);
        if s.sleeping {
            self.not_empty.notify_one();
        }
        Ok(None)
    }

    /// Every pending message (waiting at most until `deadline` when given, forever
    /// otherwise); empty on a timeout.
    fn take_all(&self, deadline: Option<Instant>) -> Vec<Msg> {
        let spin_until = Instant::now() + SPIN;
        while self.pending.load(Ordering::Acquire) == 0 && Instant::now() < spin_until {
            std::hint::spin_loop();
            std::thread::yield_now();
        }
        let mut s = self.lock();
        while s.items.is_empty() {
            s.sleeping = true;
            match deadline {
                None => s = self.not_empty.wait(s).unwrap_or_else(std::sync::PoisonError::into_inner),
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    let (g, timeout) =
                        self.not_empty.wait_timeout(s, left).unwrap_or_else(std::sync::PoisonError::into_inner);
                    s = g;
                    if timeout.timed_out() && s.items.is_empty() {
                        s.sleeping = false;
                        return Vec::new();
                    }
                }
            }
            s.sleeping = false;
        }
        s.events = 0;
        self.pending.store(0, Ordering::Release);
        let items = std::mem::take(&mut s.items);
        drop(s);
        self.not_full.notify_all();
        items
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.not_full.notify_all();
    }
}

/// Options of an [`EventFileWriter`] (TF's `FileWriter` arguments).
#[derive(Clone, Debug)]
pub struct WriterOptions {
    /// Events that may be pending before `add_event` blocks.
    pub max_queue: usize,
    /// Longest time written events stay in the writer's buffer.
    pub flush_secs: f64,
    /// Appended to the file name.
    pub filename_suffix: String,
    /// The host name in the file name.
    pub hostname: String,
}

/// Writes one event file on a background thread.
pub struct EventFileWriter {
    path: PathBuf,
    queue: Arc<Queue>,
    closed: bool,
    worker: Option<JoinHandle<()>>,
    /// The first error the thread met, reported by the next call.
    error: Arc<Mutex<Option<String>>>,
    /// Tags whose first value kept its metadata (TF strips it from later values).
    seen_tags: Mutex<HashSet<String>>,
}

impl EventFileWriter {
    /// Creates `logdir` if needed and `events.out.tfevents.<secs>.<host><suffix>` in
    /// it (with `.<pid>.<n>` before the suffix if that name is taken), writes and
    /// flushes the `file_version` event, and starts the writer thread.
    pub fn create(logdir: &Path, options: &WriterOptions) -> Result<Self> {
        std::fs::create_dir_all(logdir).map_err(Error::io(format!("creating {}", logdir.display())))?;
        let now = wall_time();
        let secs = now as u64;
        let (host, suffix) = (&options.hostname, &options.filename_suffix);
        let mut path = logdir.join(format!("events.out.tfevents.{secs:010}.{host}{suffix}"));
        let mut n = 0;
        let file = loop {
            match File::options().write(true).create_new(true).open(&path) {
                Ok(f) => break f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    n += 1;
                    let pid = std::process::id();
                    path = logdir.join(format!("events.out.tfevents.{secs:010}.{host}.{pid}.{n}{suffix}"));
                }
                Err(e) => return Err(Error::Io(format!("creating {}", path.display()), e)),
            }
        };
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let first = Event {
            wall_time: secs as f64,
            what: Some(event::What::FileVersion("brain.Event:2".into())),
            source_metadata: Some(SourceMetadata { writer: "ferroflow".into() }),
            ..Default::default()
        };
        let mut record = Vec::new();
        frame_into(&first.encode_to_vec(), &mut record);
        out.write_all(&record).and_then(|()| out.flush()).map_err(Error::io(format!("writing {}", path.display())))?;

        let queue = Arc::new(Queue {
            state: Mutex::new(QueueState::default()),
            pending: AtomicUsize::new(0),
            not_empty: Condvar::new(),
            not_full: Condvar::new(),
            max: options.max_queue.max(1),
        });
        let thread_queue = Arc::clone(&queue);
        let error = Arc::new(Mutex::new(None));
        let flush_every = Duration::from_secs_f64(options.flush_secs.max(0.0));
        let (thread_error, name) = (Arc::clone(&error), path.display().to_string());
        let worker = std::thread::Builder::new()
            .name("ferroflow-event-writer".into())
            .spawn(move || {
                write_loop(out, &thread_queue, flush_every, &thread_error, &name);
                thread_queue.stop();
            })
            .map_err(Error::io("starting the event writer thread"))?;
        Ok(EventFileWriter {
            path,
            queue,
            closed: false,
            worker: Some(worker),
            error,
            seen_tags: Mutex::new(HashSet::new()),
        })
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn take_error(&self) -> Result<()> {
        match self.error.lock().map(|mut e| e.take()) {
            Ok(Some(m)) => Err(Error::FailedPrecondition(m)),
            _ => Ok(()),
        }
    }

    fn send(&self, msg: Msg) -> Result<()> {
        self.push(msg, true).map(|_| ())
    }

    fn push(&self, msg: Msg, block: bool) -> Result<Option<Msg>> {
        self.take_error()?;
        if self.closed {
            return Err(Error::FailedPrecondition("the event writer is closed".into()));
        }
        self.queue.push(msg, block)
    }

    /// Queues a serialized `Event`; blocks while `max_queue` events are pending.
    pub fn add_event(&self, event: Vec<u8>) -> Result<()> {
        self.send(Msg::Event(event))
    }

    /// Queues a serialized `Event` if the queue has room; otherwise hands it back
    /// (so a caller holding a lock, such as Python's GIL, can release it first).
    pub fn try_add_event(&self, event: Vec<u8>) -> Result<Option<Vec<u8>>> {
        match self.push(Msg::Event(event), false)? {
            Some(Msg::Event(e)) => Ok(Some(e)),
            _ => Ok(None),
        }
    }

    /// Queues `Event{wall_time, step, summary}` from a serialized `Summary`. As TF's
    /// writer, only the first value of each tag keeps its `metadata`. The summary is
    /// spliced into the event unparsed unless metadata must be stripped.
    pub fn add_summary(&self, summary: &[u8], step: Option<i64>, wall_time: f64) -> Result<()> {
        self.add_event(self.summary_event(summary, step, wall_time)?)
    }

    /// The serialized `Event` [`EventFileWriter::add_summary`] queues.
    pub fn summary_event(&self, summary: &[u8], step: Option<i64>, wall_time: f64) -> Result<Vec<u8>> {
        let parsed = Summary::decode(summary)
            .map_err(|e| Error::InvalidArgument(format!("add_summary needs a serialized Summary: {e}")))?;
        let mut stripped = None;
        if parsed.value.iter().any(|v| v.metadata.is_some()) {
            let mut seen = self.seen_tags.lock().map_err(|_| Error::FailedPrecondition("poisoned".into()))?;
            let mut s = parsed;
            for v in &mut s.value {
                if v.metadata.is_some() && !seen.insert(v.tag.clone()) {
                    v.metadata = None;
                }
            }
            stripped = Some(s.encode_to_vec());
        }
        let body = stripped.as_deref().unwrap_or(summary);
        let mut event = Vec::with_capacity(body.len() + 24);
        event.push(0x09); // field 1, fixed64: wall_time
        event.extend_from_slice(&wall_time.to_le_bytes());
        if let Some(step) = step.filter(|&s| s != 0) {
            event.push(0x10); // field 2, varint: step
            prost::encoding::encode_varint(step as u64, &mut event);
        }
        event.push(0x2a); // field 5, length-delimited: summary
        prost::encoding::encode_varint(body.len() as u64, &mut event);
        event.extend_from_slice(body);
        Ok(event)
    }

    fn round_trip(&self, make: impl FnOnce(SyncSender<Result<()>>) -> Msg) -> Result<()> {
        let (ack_tx, ack_rx) = sync_channel(1);
        self.send(make(ack_tx))?;
        ack_rx.recv().map_err(|_| Error::FailedPrecondition("the event writer thread has stopped".into()))?
    }

    /// Writes every queued event and hands the data to the operating system.
    pub fn flush(&self) -> Result<()> {
        self.round_trip(Msg::Flush)
    }

    /// Writes every queued event, syncs the file and stops the thread. Closing a
    /// closed writer does nothing.
    pub fn close(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.round_trip(Msg::Close);
        self.closed = true;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
        result
    }

    /// Whether `close` was called.
    pub fn is_closed(&self) -> bool {
        self.closed
    }
}

impl Drop for EventFileWriter {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// The writer thread: frames each event into the buffer; flushes when the oldest
/// unflushed event is `flush_every` old (the first write flushes at once, as TF's
/// initial deadline is 0), and on request.
fn write_loop(
    mut out: BufWriter<File>,
    queue: &Queue,
    flush_every: Duration,
    error: &Mutex<Option<String>>,
    name: &str,
) {
    let mut record = Vec::new();
    let mut deadline = Instant::now();
    let mut dirty = false;
    let mut failed = false;
    let report = |e: std::io::Error| {
        if let Ok(mut slot) = error.lock() {
            slot.get_or_insert_with(|| format!("writing {name}: {e}"));
        }
    };
    loop {
        for msg in queue.take_all(dirty.then_some(deadline)) {
            match msg {
                Msg::Event(payload) => {
                    record.clear();
                    frame_into(&payload, &mut record);
                    if !failed && let Err(e) = out.write_all(&record) {
                        failed = true;
                        report(e);
                    }
                    dirty = true;
                }
                Msg::Flush(ack) => {
                    let r = out.flush().map_err(Error::io(format!("flushing {name}")));
                    dirty = false;
                    let _ = ack.send(r);
                }
                Msg::Close(ack) => {
                    let r = out
                        .flush()
                        .and_then(|()| out.get_ref().sync_all())
                        .map_err(Error::io(format!("closing {name}")));
                    let _ = ack.send(r);
                    return;
                }
            }
        }
        if dirty && Instant::now() >= deadline {
            if let Err(e) = out.flush() {
                report(e);
            }
            dirty = false;
            deadline = Instant::now() + flush_every;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::RecordReader;

    fn options(max_queue: usize, flush_secs: f64) -> WriterOptions {
        WriterOptions { max_queue, flush_secs, filename_suffix: String::new(), hostname: "host".into() }
    }

    fn read_events(path: &Path) -> Vec<Event> {
        let file = File::open(path).unwrap();
        RecordReader::new(file, "f").map(|r| Event::decode(r.unwrap().as_slice()).unwrap()).collect()
    }

    #[test]
    fn writes_named_files_with_the_version_first_and_every_event() {
        let dir = tempfile::tempdir().unwrap();
        let logdir = dir.path().join("run");
        let mut w = EventFileWriter::create(&logdir, &options(2, 100.0)).unwrap();
        let mut w2 = EventFileWriter::create(&logdir, &options(2, 100.0)).unwrap();
        assert_ne!(w.path(), w2.path());
        let name = w.path().file_name().unwrap().to_str().unwrap().to_owned();
        assert!(name.starts_with("events.out.tfevents.") && name.ends_with(".host"), "{name}");
        let summary = Summary {
            value: vec![ferroflow_proto::summary::Value {
                tag: "loss".into(),
                value: Some(ferroflow_proto::summary::value::Value::SimpleValue(0.25)),
                ..Default::default()
            }],
        }
        .encode_to_vec();
        for step in 0..1000 {
            w.add_summary(&summary, Some(step), 1.5).unwrap();
        }
        w.close().unwrap();
        w.close().unwrap();
        assert!(w.add_event(vec![]).is_err());
        w2.close().unwrap();
        let events = read_events(w.path());
        assert_eq!(events.len(), 1001);
        assert_eq!(events[0].what, Some(event::What::FileVersion("brain.Event:2".into())));
        for (i, e) in events[1..].iter().enumerate() {
            assert_eq!((e.step, e.wall_time), (i as i64, 1.5));
            assert_eq!(e.what, Some(event::What::Summary(Summary::decode(summary.as_slice()).unwrap())));
        }
    }

    #[test]
    fn flush_makes_events_readable_and_metadata_is_kept_once_per_tag() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = EventFileWriter::create(dir.path(), &options(10, 1000.0)).unwrap();
        let value = ferroflow_proto::summary::Value {
            tag: "t".into(),
            metadata: Some(Default::default()),
            value: Some(ferroflow_proto::summary::value::Value::SimpleValue(1.0)),
            ..Default::default()
        };
        let s = Summary { value: vec![value] }.encode_to_vec();
        w.add_summary(&s, None, 0.0).unwrap();
        w.add_summary(&s, None, 0.0).unwrap();
        w.flush().unwrap();
        let events = read_events(w.path());
        assert_eq!(events.len(), 3);
        let meta = |e: &Event| match &e.what {
            Some(event::What::Summary(s)) => s.value[0].metadata.is_some(),
            _ => panic!(),
        };
        assert!(meta(&events[1]) && !meta(&events[2]));
        w.close().unwrap();
    }

    #[test]
    fn idle_writer_flushes_after_flush_secs() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = EventFileWriter::create(dir.path(), &options(10, 0.05)).unwrap();
        w.add_event(Event { step: 1, ..Default::default() }.encode_to_vec()).unwrap();
        w.add_event(Event { step: 2, ..Default::default() }.encode_to_vec()).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(read_events(w.path()).len(), 3);
        w.close().unwrap();
    }
}
