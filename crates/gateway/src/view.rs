//! What front ends are sent of a prompt: the whole prompt when its content is at most
//! [`VIEW_MAX_BYTES`] of JSON, else a copy cut to bounds and marked as cut
//! ([`gatehouse_core::Prompt::cut`]), so that `list`, `subscribe`, snapshots and events stay far
//! below a frame whatever a hook sends. `prompt.get` hands out the whole prompt with its
//! [`digest`], and an approving answer of a cut prompt must name that digest: nothing is approved
//! that the person could not see.
//!
//! The audit log keeps the same cut copy of a large prompt, with the digest of the whole.

use gatehouse_core::{NewPrompt, PromptExtra};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The largest prompt content (its `NewPrompt` as JSON) sent whole in lists and events.
pub const VIEW_MAX_BYTES: usize = 32 * 1024;

/// The most of a preview's text that a listed cut copy carries, in bytes.
pub const LISTED_PREVIEW_BYTES: usize = 8 * 1024;

/// How hard a cut copy is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CutLevel {
    /// Every text field to a few KiB, the input to an excerpt of its JSON, at most a few
    /// questions and suggestions.
    Listed,
    /// Only the basics, each to a few hundred bytes: for a prompt whose listed copy is still
    /// large, and for lists so long that their prompts must be smaller to fit one frame.
    Minimal,
}

struct Bounds {
    field: usize,
    input: usize,
    preview: usize,
    questions: usize,
    options: usize,
    option_text: usize,
    suggestions: usize,
}

impl CutLevel {
    fn bounds(self) -> Bounds {
        match self {
            CutLevel::Listed => Bounds {
                field: 2048,
                input: 8 * 1024,
                preview: LISTED_PREVIEW_BYTES,
                questions: 8,
                options: 16,
                option_text: 256,
                suggestions: 8,
            },
            CutLevel::Minimal => Bounds {
                field: 256,
                input: 1024,
                preview: 0,
                questions: 0,
                options: 0,
                option_text: 0,
                suggestions: 0,
            },
        }
    }
}

/// `text` cut to at most `bytes` bytes, at a character boundary.
pub(crate) fn cut_text(text: &str, bytes: usize) -> String {
    if text.len() <= bytes {
        return text.to_owned();
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// `value` whole when its JSON is at most `bytes` long, else the first `bytes` of its JSON as a
/// string.
fn cut_value(value: &Value, bytes: usize) -> Value {
    if json_size(value) <= bytes {
        return value.clone();
    }
    let mut excerpt = Excerpt {
        text: Vec::with_capacity(bytes + 4),
        limit: bytes,
    };
    // Writing stops with an error once the excerpt is full: the rest is never made.
    let _ = serde_json::to_writer(&mut excerpt, value);
    Value::String(cut_text(&String::from_utf8_lossy(&excerpt.text), bytes))
}

/// Keeps the first `limit` bytes written, then refuses the rest.
struct Excerpt {
    text: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Excerpt {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let room = self.limit + 4 - self.text.len().min(self.limit + 4);
        if room == 0 {
            return Err(std::io::Error::other("the excerpt is full"));
        }
        let taken = bytes.len().min(room);
        self.text.extend_from_slice(&bytes[..taken]);
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A copy of `prompt` cut to the bounds of `level`.
pub(crate) fn cut_content(prompt: &NewPrompt, level: CutLevel) -> NewPrompt {
    let bounds = level.bounds();
    let field = |text: &str| cut_text(text, bounds.field);
    let questions = prompt
        .questions
        .iter()
        .take(bounds.questions)
        .map(|question| {
            let mut question = question.clone();
            question.id = field(&question.id);
            question.text = field(&question.text);
            question.header = field(&question.header);
            question.options.truncate(bounds.options);
            for option in &mut question.options {
                option.label = cut_text(&option.label, bounds.option_text);
                option.description = cut_text(&option.description, bounds.option_text);
            }
            question
        })
        .collect();
    let mut extra = PromptExtra::default();
    if level == CutLevel::Listed {
        extra = prompt.extra.clone();
        if let Some(preview) = &mut extra.preview {
            preview.title = field(&preview.title);
            if preview.text.len() > bounds.preview {
                preview.text = cut_text(&preview.text, bounds.preview);
                // The adapter's own reason was about the whole preview: this copy is cut further.
                preview.incomplete = Some(match &preview.incomplete {
                    Some(reason) => format!(
                        "this copy is cut at {} bytes; the whole prompt has the rest ({})",
                        bounds.preview,
                        cut_text(reason, bounds.field)
                    ),
                    None => format!(
                        "this copy is cut at {} bytes; the whole prompt has the rest",
                        bounds.preview
                    ),
                });
            }
        }
        extra.suggestions.truncate(bounds.suggestions);
        for suggestion in &mut extra.suggestions {
            suggestion.id = field(&suggestion.id);
            suggestion.summary = field(&suggestion.summary);
            suggestion.native = cut_value(&suggestion.native, bounds.field);
        }
        if json_size(&extra.terminal) > bounds.field {
            extra.terminal = None;
        }
    }
    NewPrompt {
        adapter: field(&prompt.adapter),
        session: field(&prompt.session),
        cwd: field(&prompt.cwd),
        kind: prompt.kind,
        tool: field(&prompt.tool),
        input: cut_value(&prompt.input, bounds.input),
        summary: field(&prompt.summary),
        questions,
        correlation: field(&prompt.correlation),
        read_only_reason: prompt.read_only_reason.as_deref().map(field),
        host: field(&prompt.host),
        extra,
    }
}

/// The copy of a prompt whose content is `full_bytes` long that front ends are sent: `None` when
/// it goes whole, else the listed cut, or the minimal one when that is still too large.
pub(crate) fn listed_copy(prompt: &NewPrompt, full_bytes: usize) -> Option<NewPrompt> {
    if full_bytes <= VIEW_MAX_BYTES {
        return None;
    }
    let listed = cut_content(prompt, CutLevel::Listed);
    let listed_bytes = json_size(&listed);
    Some(if listed_bytes <= VIEW_MAX_BYTES {
        listed
    } else {
        cut_content(prompt, CutLevel::Minimal)
    })
}

/// How many bytes `value` takes as JSON, counted as it is written out, never held whole.
pub(crate) fn json_size(value: &impl serde::Serialize) -> usize {
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

/// The size and digest (as [`digest`] gives it) of `value` as JSON, hashed as it is written
/// out, never held whole.
pub(crate) fn json_size_and_digest(value: &impl serde::Serialize) -> (usize, String) {
    let mut hasher = Hasher(Sha256::new(), 0);
    let _ = serde_json::to_writer(&mut hasher, value);
    let Hasher(hash, size) = hasher;
    (size, hex_digest(&hash.finalize()))
}

struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Hasher(Sha256, usize);

impl std::io::Write for Hasher {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        self.1 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `sha256:` and the hex SHA-256 of `content`.
pub fn digest(content: &[u8]) -> String {
    hex_digest(&Sha256::digest(content))
}

fn hex_digest(hash: &[u8]) -> String {
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash {
        let _ = std::fmt::Write::write_fmt(&mut text, format_args!("{byte:02x}"));
    }
    text
}

/// Whether `seen`, as an answer names it, is `digest` or a prefix of it at least
/// `min_chars` long (with or without the `sha256:` prefix), ignoring case.
pub(crate) fn names_digest(seen: &str, digest: &str, min_chars: usize) -> bool {
    let seen = seen.trim().to_ascii_lowercase();
    let seen = seen.strip_prefix("sha256:").unwrap_or(&seen);
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    seen.len() >= min_chars && hex.starts_with(seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatehouse_core::PromptKind;

    fn huge(bytes: usize) -> NewPrompt {
        NewPrompt {
            adapter: "toy".into(),
            session: "s".repeat(bytes),
            cwd: "/p".repeat(bytes),
            kind: PromptKind::Permission,
            tool: "Bash".into(),
            input: serde_json::json!({ "command": "x".repeat(bytes) }),
            summary: "\u{1}".repeat(bytes),
            questions: vec![],
            correlation: String::new(),
            read_only_reason: None,
            host: String::new(),
            extra: Default::default(),
        }
    }

    #[test]
    fn a_small_prompt_goes_whole_and_a_large_one_is_cut_below_the_bound() {
        let small = huge(10);
        let bytes = serde_json::to_vec(&small).unwrap().len();
        assert!(listed_copy(&small, bytes).is_none());
        let large = huge(1 << 20);
        let bytes = serde_json::to_vec(&large).unwrap().len();
        let copy = listed_copy(&large, bytes).expect("cut");
        assert!(serde_json::to_vec(&copy).unwrap().len() <= VIEW_MAX_BYTES);
        assert!(
            copy.input.is_string(),
            "the input is an excerpt of its JSON"
        );
    }

    #[test]
    fn text_is_cut_at_a_character_boundary() {
        assert_eq!(cut_text("ééé", 3), "é");
        assert_eq!(cut_text("abc", 10), "abc");
    }

    #[test]
    fn a_digest_is_named_by_a_long_enough_prefix_only() {
        let digest = digest(b"x");
        let hex = digest.strip_prefix("sha256:").unwrap();
        assert!(names_digest(&digest, &digest, 16));
        assert!(names_digest(&hex[..16].to_uppercase(), &digest, 16));
        assert!(!names_digest(&hex[..15], &digest, 16));
        assert!(!names_digest("0000000000000000", &digest, 16));
    }
}
