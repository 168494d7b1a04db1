//! What the fuzz target `claude_hook_event` runs (fuzz/), and a test that runs its seeds on
//! every build: an event parsed as the agent's stdin could be, and the same event with a file on
//! disk made from the input, so that short inputs reach the preview's bounds (a file of many
//! `a`s takes two bytes). Nothing here touches the disk.

use gatehouse_core::{HookEvent, ParseError};

use crate::events::{parse, parse_in, Surroundings};
use crate::on_disk::{FileOnDisk, MAX_FILE_BYTES};

/// Parses `bytes` as an event; and when they hold a NUL, parses what follows the NUL and one
/// more byte `n` as an event whose edited file is the text before the NUL repeated
/// `n * 1024 + 1` times, up to [`MAX_FILE_BYTES`]. Returns the second parse when there is one.
pub fn parse_with_made_up_file(bytes: &[u8]) -> Result<HookEvent, ParseError> {
    let alone = parse(bytes);
    let Some(nul) = bytes.iter().position(|&byte| byte == 0) else {
        return alone;
    };
    let (text, rest) = bytes.split_at(nul);
    let (repeat, event) = match rest.get(1) {
        Some(&repeat) => (usize::from(repeat) * 1024 + 1, &rest[2..]),
        None => (1, &[][..]),
    };
    let text = String::from_utf8_lossy(text);
    let fits = (MAX_FILE_BYTES as usize / text.len().max(1)).max(1);
    let file = text.repeat(repeat.min(fits));
    let surroundings = Surroundings {
        terminal: None,
        read_file: &|_| FileOnDisk::Text(file.clone()),
    };
    parse_in(event, &surroundings)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// Every seed of the fuzz target, each a preview that is unbounded without bounds, parses
    /// within a few seconds (a debug build on a busy machine) into a prompt whose preview says
    /// it is incomplete.
    #[test]
    fn the_fuzz_seeds_parse_at_once_with_their_preview_marked_incomplete() {
        let folder = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fuzz/seeds/claude_hook_event"
        );
        let mut seeds = 0;
        for entry in std::fs::read_dir(folder).expect("the fuzz seeds") {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let started = Instant::now();
            let parsed = parse_with_made_up_file(&bytes);
            let elapsed = started.elapsed();
            assert!(
                elapsed < Duration::from_secs(5),
                "{path:?} took {elapsed:?}"
            );
            let Ok(HookEvent::Prompt { prompt, .. }) = parsed else {
                panic!("{path:?}: {parsed:?}")
            };
            let preview = prompt.extra.preview.expect("a preview");
            assert!(preview.incomplete.is_some(), "{path:?}: {preview:?}");
            seeds += 1;
        }
        assert!(seeds >= 4, "the seeds are there ({seeds})");
    }
}
