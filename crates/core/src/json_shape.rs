//! What a JSON text costs once parsed, told without parsing it. In a `serde_json::Value` each
//! value takes tens to hundreds of bytes however short its text (`0,` is two bytes), so the size
//! of a hook's stdin bounds neither the memory nor the time its parse takes: 12 MiB of `[0,0,...`
//! grows to most of a GiB. Hooks count the values first and refuse an event with too many.

/// The most values (and object keys) a hook event may hold: tens of MiB once parsed, far more
/// than any agent's tool input holds.
pub const MAX_EVENT_VALUES: usize = 100_000;

/// An upper bound of the number of values and object keys in `bytes`, if they are JSON: one,
/// plus one for each `[`, `{`, `,` and `:` outside strings. Linear, allocates nothing, and is
/// total on bytes that are not JSON.
pub fn values_at_most(bytes: &[u8]) -> usize {
    let mut count = 1;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in bytes {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else {
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' | b',' | b':' => count += 1,
                _ => {}
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number of values and keys in a parsed JSON value.
    fn counted(value: &serde_json::Value) -> usize {
        match value {
            serde_json::Value::Array(items) => 1 + items.iter().map(counted).sum::<usize>(),
            serde_json::Value::Object(members) => {
                1 + members
                    .values()
                    .map(|value| 1 + counted(value))
                    .sum::<usize>()
            }
            _ => 1,
        }
    }

    #[test]
    fn the_count_bounds_the_values_and_keys_and_ignores_strings() {
        for text in [
            r#"0"#,
            r#"[]"#,
            r#"[0,0,0]"#,
            r#"[[],[],{}]"#,
            r#"{"a":1,"b":[1,{"c":null}],"d":{}}"#,
            r#"{"s":"[,{:\"\\","t":["]"]}"#,
        ] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let bound = values_at_most(text.as_bytes());
            assert!(bound >= counted(&value), "{text}: {bound}");
            assert!(bound <= 2 * counted(&value) + 1, "{text}: {bound}");
        }
        assert_eq!(values_at_most(br#""[,{:\"[[[[""#), 1);
        assert_eq!(values_at_most(b"\xff\"\\"), 1);
    }
}
