//! Correlation keys: how an adapter recognises the same tool call across an agent's hook events
//! (the prompt, then the tool's finish), when the agent gives the call no id of its own.
//!
//! A key is a SHA-256 digest of the tool's name and the relevant part of its input as canonical
//! JSON (object keys sorted), so it costs 64 bytes however large the input: a hold message
//! carries the input once, and the arbiter's remembered observations have a fixed size each.

use std::io::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The key of a call of `tool` with `relevant_input`: equal inputs (whatever their key order)
/// give equal keys.
pub fn correlation_key(tool: &str, relevant_input: &Value) -> String {
    let mut hasher = Sha256::new();
    hasher.update(tool.as_bytes());
    // A tool name holds no NUL, so the name and the input cannot run into each other.
    hasher.update([0]);
    write_canonical(&mut DigestWriter(&mut hasher), relevant_input);
    let digest = hasher.finalize();
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

struct DigestWriter<'a>(&'a mut Sha256);

impl Write for DigestWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes `value` as JSON with object keys sorted, straight into the digest.
fn write_canonical(out: &mut impl Write, value: &Value) {
    // Writing into a digest cannot fail, and neither can encoding a string or a number.
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let _ = out.write_all(b"{");
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    let _ = out.write_all(b",");
                }
                let _ = serde_json::to_writer(&mut *out, key);
                let _ = out.write_all(b":");
                write_canonical(out, &map[key]);
            }
            let _ = out.write_all(b"}");
        }
        Value::Array(items) => {
            let _ = out.write_all(b"[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    let _ = out.write_all(b",");
                }
                write_canonical(out, item);
            }
            let _ = out.write_all(b"]");
        }
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn equal_inputs_give_equal_keys_whatever_their_key_order() {
        let one = correlation_key(
            "Bash",
            &json!({ "command": "ls", "description": "list", "nested": { "a": 1, "b": [1, 2] } }),
        );
        let other = correlation_key(
            "Bash",
            &json!({ "nested": { "b": [1, 2], "a": 1 }, "description": "list", "command": "ls" }),
        );
        assert_eq!(one, other);
        assert_eq!(one.len(), 64);
    }

    #[test]
    fn different_calls_give_different_keys() {
        let keys = [
            correlation_key("Bash", &json!({ "command": "ls" })),
            correlation_key("Bash", &json!({ "command": "ls " })),
            correlation_key("Write", &json!({ "command": "ls" })),
            correlation_key("Bash", &json!({ "command": ["ls"] })),
            correlation_key("Bash", &json!("{\"command\":\"ls\"}")),
            correlation_key("Bas", &json!({ "hcommand": "ls" })),
        ];
        for (index, key) in keys.iter().enumerate() {
            assert!(
                keys[index + 1..].iter().all(|other| other != key),
                "key {index} repeats"
            );
        }
    }

    #[test]
    fn the_key_is_the_one_docs_protocol_md_shows() {
        let input = json!({ "description": "write hi", "command": "printf hi > hi.txt" });
        assert_eq!(
            correlation_key("Bash", &input),
            "8818f80e200da317a9582581e4b624821976fafd4205a7e846705f8b388a3a8a"
        );
    }

    #[test]
    fn a_key_has_a_fixed_size_however_large_the_input() {
        let huge = json!({ "command": "x".repeat(4 * 1024 * 1024) });
        assert_eq!(correlation_key("Bash", &huge).len(), 64);
    }
}
