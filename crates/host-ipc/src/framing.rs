//! Frames: one JSON value per line, at most [`MAX_FRAME_BYTES`] long. A frame that grows past
//! the limit is an error, after which the connection is closed, since the rest of the line
//! cannot be trusted to end anywhere.

use serde::Serialize;
use thiserror::Error;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The largest frame accepted, newline excluded. Large enough for a prompt carrying a tool input
/// of several megabytes, small enough that a runaway peer cannot exhaust memory.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum FrameError {
    #[error("a frame is longer than the limit of {limit} bytes")]
    TooLarge { limit: usize },
    #[error("the connection failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads newline-delimited frames from a byte stream.
pub struct FrameReader<R> {
    reader: BufReader<R>,
    limit: usize,
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
        }
    }

    /// The next frame without its newline, or `None` at a clean end of stream. Bytes after the
    /// last newline at the end of the stream count as a final frame. Empty lines are skipped.
    pub async fn next_frame(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        let mut frame = Vec::new();
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(if frame.is_empty() { None } else { Some(frame) });
            }
            let (taken, complete) = match available.iter().position(|byte| *byte == b'\n') {
                Some(newline) => (newline + 1, true),
                None => (available.len(), false),
            };
            let content = if complete {
                &available[..taken - 1]
            } else {
                &available[..taken]
            };
            if frame.len() + content.len() > self.limit {
                return Err(FrameError::TooLarge { limit: self.limit });
            }
            frame.extend_from_slice(content);
            self.reader.consume(taken);
            if complete {
                if frame.iter().all(u8::is_ascii_whitespace) {
                    frame.clear();
                    continue;
                }
                return Ok(Some(frame));
            }
        }
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

    #[tokio::test]
    async fn a_frame_at_the_limit_is_accepted() {
        let mut input = vec![b'x'; 99];
        input.push(b'\n');
        assert_eq!(frames_of(&input, 99).await, vec![Ok(vec![b'x'; 99])]);
    }
}
