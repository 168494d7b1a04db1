//! Frames: one JSON value per line, at most [`MAX_FRAME_BYTES`] long. A frame that grows past
//! the limit is an error, after which the connection is closed, since the rest of the line
//! cannot be trusted to end anywhere.
//!
//! A reader may also be held to a pace and a budget (the gateway's hooks socket, whose peers are
//! other machines): a frame, once started, must end within its [`FramePace`], nothing at all may
//! come for a while when the caller says so ([`FrameReader::next_frame_within`]), and the bytes
//! of unfinished frames of every reader sharing a [`FrameBudget`] are counted together: a frame
//! that would pass the budget is read to its end and dropped, so its peer can be told.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use thiserror::Error;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::time::Instant;

/// The largest frame accepted, newline excluded. Large enough for a prompt carrying a tool input
/// of several megabytes, small enough that a runaway peer cannot exhaust memory.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

const MIB: usize = 1024 * 1024;

#[derive(Debug, Error)]
pub enum FrameError {
    #[error("a frame is longer than the limit of {limit} bytes")]
    TooLarge { limit: usize },
    /// A frame did not end within its [`FramePace`].
    #[error("a frame did not end within {allowed:?} of its first byte ({bytes} bytes of it came)")]
    TooSlow { allowed: Duration, bytes: usize },
    /// Nothing came within the time the caller allowed.
    #[error("nothing came for {0:?}")]
    Idle(Duration),
    /// The frame would have taken the unfinished frames of a [`FrameBudget`] past its limit: it
    /// was read to its end and dropped, and the reader can go on with the next.
    #[error("the unfinished frames of this socket's connections may hold at most {limit} bytes together; a frame of {bytes} bytes was dropped")]
    OverBudget { limit: usize, bytes: usize },
    #[error("the connection failed: {0}")]
    Io(#[from] std::io::Error),
}

/// How long a frame may take once its first byte came: `first`, and `per_mib` more for each
/// whole mebibyte of it that came, so a large frame may take longer on a slow link but a frame
/// that stops coming is cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FramePace {
    pub first: Duration,
    pub per_mib: Duration,
}

impl FramePace {
    /// How long a frame of which `bytes` came so far may take in all.
    pub fn allowed(&self, bytes: usize) -> Duration {
        let mebibytes = u32::try_from(bytes / MIB).unwrap_or(u32::MAX);
        self.first
            .saturating_add(self.per_mib.saturating_mul(mebibytes))
    }
}

/// The bytes of unfinished frames that the readers sharing it may hold together. A reader counts
/// a frame's bytes as they come, and gives them back when it is asked for the next frame (its
/// caller is done with this one) or dropped.
#[derive(Debug)]
pub struct FrameBudget {
    limit: usize,
    used: AtomicUsize,
}

impl FrameBudget {
    pub fn new(limit: usize) -> Self {
        FrameBudget {
            limit,
            used: AtomicUsize::new(0),
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many bytes its readers hold now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Counts `bytes` more, unless that would pass the limit.
    fn take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|total| *total <= self.limit)
            })
            .is_ok()
    }

    fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// Reads newline-delimited frames from a byte stream.
pub struct FrameReader<R> {
    reader: BufReader<R>,
    limit: usize,
    pace: Option<FramePace>,
    budget: Option<Arc<FrameBudget>>,
    /// What this reader counts against its budget now.
    reserved: usize,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub fn new(reader: R) -> Self {
        Self::with_limit(reader, MAX_FRAME_BYTES)
    }

    pub fn with_limit(reader: R, limit: usize) -> Self {
        // A small buffer: the gateway keeps one per connection, and a waiting hook's connection
        // is idle (10,000 waiting hooks hold 10 MiB of these). Larger frames still arrive
        // whole; they take more reads.
        FrameReader {
            reader: BufReader::with_capacity(1024, reader),
            limit,
            pace: None,
            budget: None,
            reserved: 0,
        }
    }

    /// Holds every frame to `pace` (see [`FrameError::TooSlow`]).
    #[must_use]
    pub fn paced(mut self, pace: FramePace) -> Self {
        self.pace = Some(pace);
        self
    }

    /// Counts the bytes of unfinished frames against `budget` (see [`FrameError::OverBudget`]).
    #[must_use]
    pub fn within_budget(mut self, budget: Arc<FrameBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The next frame without its newline, or `None` at a clean end of stream. Bytes after the
    /// last newline at the end of the stream count as a final frame. Empty lines are skipped.
    pub async fn next_frame(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        self.next_frame_within(None).await
    }

    /// Like [`FrameReader::next_frame`]; with `idle`, a frame must start within it (empty lines
    /// do not count), or the result is [`FrameError::Idle`]. The previous frame's bytes stop
    /// counting against the budget here.
    pub async fn next_frame_within(
        &mut self,
        idle: Option<Duration>,
    ) -> Result<Option<Vec<u8>>, FrameError> {
        self.give_back();
        let waiting_since = Instant::now();
        let mut frame = Vec::new();
        // When the frame's first byte came, and how many came (dropped ones too).
        let mut started: Option<Instant> = None;
        let mut bytes = 0usize;
        let mut dropping = false;
        loop {
            let deadline = match started {
                None => idle.map(|idle| (waiting_since + idle, FrameError::Idle(idle))),
                Some(start) => self.pace.map(|pace| {
                    let allowed = pace.allowed(bytes);
                    (start + allowed, FrameError::TooSlow { allowed, bytes })
                }),
            };
            let available = match deadline {
                None => self.reader.fill_buf().await?,
                Some((deadline, late)) => {
                    match tokio::time::timeout_at(deadline, self.reader.fill_buf()).await {
                        Ok(read) => read?,
                        Err(_) => return Err(late),
                    }
                }
            };
            if available.is_empty() {
                if dropping {
                    return Err(self.over_budget(bytes));
                }
                return Ok(if frame.is_empty() { None } else { Some(frame) });
            }
            started.get_or_insert_with(Instant::now);
            let (taken, complete) = match available.iter().position(|byte| *byte == b'\n') {
                Some(newline) => (newline + 1, true),
                None => (available.len(), false),
            };
            let content = if complete {
                &available[..taken - 1]
            } else {
                &available[..taken]
            };
            bytes += content.len();
            if bytes > self.limit {
                return Err(FrameError::TooLarge { limit: self.limit });
            }
            if !dropping {
                match &self.budget {
                    Some(budget) if !budget.take(content.len()) => {
                        // Read to its end and dropped: what it held is free for the others.
                        dropping = true;
                        budget.give_back(self.reserved);
                        self.reserved = 0;
                        frame = Vec::new();
                    }
                    Some(_) => {
                        self.reserved += content.len();
                        frame.extend_from_slice(content);
                    }
                    None => frame.extend_from_slice(content),
                }
            }
            self.reader.consume(taken);
            if complete {
                if dropping {
                    return Err(self.over_budget(bytes));
                }
                if frame.iter().all(u8::is_ascii_whitespace) {
                    frame.clear();
                    self.give_back();
                    started = None;
                    bytes = 0;
                    continue;
                }
                return Ok(Some(frame));
            }
        }
    }

    fn over_budget(&self, bytes: usize) -> FrameError {
        FrameError::OverBudget {
            limit: self.budget.as_ref().map_or(0, |budget| budget.limit()),
            bytes,
        }
    }
}

impl<R> FrameReader<R> {
    /// Stops counting what this reader held against its budget.
    fn give_back(&mut self) {
        if let Some(budget) = &self.budget {
            budget.give_back(self.reserved);
        }
        self.reserved = 0;
    }
}

impl<R> Drop for FrameReader<R> {
    fn drop(&mut self) {
        self.give_back();
    }
}

/// Encodes a value as one frame, newline included.
pub fn encode_frame(value: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).expect("protocol values always serialize");
    bytes.push(b'\n');
    bytes
}

/// Writes a value as one frame and flushes it.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    value: &impl Serialize,
) -> std::io::Result<()> {
    writer.write_all(&encode_frame(value)).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames_of(input: &[u8], limit: usize) -> Vec<Result<Vec<u8>, String>> {
        let mut reader = FrameReader::with_limit(input, limit);
        let mut frames = Vec::new();
        loop {
            match reader.next_frame().await {
                Ok(Some(frame)) => frames.push(Ok(frame)),
                Ok(None) => return frames,
                Err(error) => {
                    frames.push(Err(error.to_string()));
                    return frames;
                }
            }
        }
    }

    #[tokio::test]
    async fn splits_lines_and_skips_blank_ones() {
        let frames = frames_of(b"{\"a\":1}\n\n  \n{\"b\":2}\n{\"c\":3}", 64).await;
        let texts: Vec<String> = frames
            .into_iter()
            .map(|frame| String::from_utf8(frame.unwrap()).unwrap())
            .collect();
        assert_eq!(texts, ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]);
    }

    #[tokio::test]
    async fn a_frame_over_the_limit_is_an_error() {
        let mut input = vec![b'x'; 100];
        input.push(b'\n');
        let frames = frames_of(&input, 99).await;
        assert_eq!(
            frames,
            vec![Err(
                "a frame is longer than the limit of 99 bytes".to_string()
            )]
        );
    }

    const PACE: FramePace = FramePace {
        first: Duration::from_secs(5),
        per_mib: Duration::from_secs(2),
    };

    #[test]
    fn a_large_frame_is_allowed_more_time_for_each_mebibyte_that_came() {
        assert_eq!(PACE.allowed(0), Duration::from_secs(5));
        assert_eq!(PACE.allowed(MIB - 1), Duration::from_secs(5));
        assert_eq!(PACE.allowed(16 * MIB), Duration::from_secs(37));
    }

    #[tokio::test(start_paused = true)]
    async fn a_frame_that_stops_coming_is_too_slow_and_silence_is_idle_only_when_asked() {
        let (mut near, far) = tokio::io::duplex(1024);
        let mut reader = FrameReader::new(far).paced(PACE);
        near.write_all(b"{\"a\":").await.unwrap();
        let error = reader.next_frame().await.unwrap_err();
        assert!(
            matches!(error, FrameError::TooSlow { bytes: 5, .. }),
            "{error}"
        );

        let (mut near, far) = tokio::io::duplex(1024);
        let mut reader = FrameReader::new(far).paced(PACE);
        let idle = Duration::from_secs(30);
        near.write_all(b"\n\n").await.unwrap();
        let started = Instant::now();
        let error = reader.next_frame_within(Some(idle)).await.unwrap_err();
        assert!(matches!(error, FrameError::Idle(_)), "{error}");
        assert_eq!(started.elapsed(), idle, "blank lines are no frame");
        near.write_all(b"{}\n").await.unwrap();
        assert_eq!(reader.next_frame().await.unwrap(), Some(b"{}".to_vec()));
    }

    #[tokio::test]
    async fn readers_sharing_a_budget_hold_at_most_it_and_a_frame_past_it_is_dropped_whole() {
        let budget = Arc::new(FrameBudget::new(100));
        let (mut first_near, first_far) = tokio::io::duplex(1024);
        let mut first = FrameReader::new(first_far).within_budget(budget.clone());
        let (mut second_near, second_far) = tokio::io::duplex(1024);
        let mut second = FrameReader::new(second_far).within_budget(budget.clone());
        first_near.write_all(&[b'x'; 60]).await.unwrap();
        first_near.write_all(b"\n").await.unwrap();
        assert_eq!(first.next_frame().await.unwrap().unwrap().len(), 60);
        assert_eq!(budget.used(), 60, "counted while its caller handles it");
        second_near.write_all(&[b'y'; 50]).await.unwrap();
        second_near.write_all(b"\n{}\n").await.unwrap();
        let error = second.next_frame().await.unwrap_err();
        assert!(
            matches!(
                error,
                FrameError::OverBudget {
                    limit: 100,
                    bytes: 50
                }
            ),
            "{error}"
        );
        assert_eq!(budget.used(), 60, "the dropped frame holds nothing");
        assert_eq!(second.next_frame().await.unwrap(), Some(b"{}".to_vec()));
        drop(first);
        assert_eq!(budget.used(), 2, "a reader dropped gives back what it held");
        drop(second);
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn a_frame_at_the_limit_is_accepted() {
        let mut input = vec![b'x'; 99];
        input.push(b'\n');
        assert_eq!(frames_of(&input, 99).await, vec![Ok(vec![b'x'; 99])]);
    }
}
