//! The preview's bounds, each on the input that breaks an unbounded preview: a `replace_all`
//! that grows a file a thousandfold, an edit list that grows it exponentially or is long enough
//! to take minutes, a diff that is quadratic in the edit's size, a file on disk under `/proc`
//! whose size says 0. Each comes at once, marked incomplete.

use std::time::{Duration, Instant};

use gatehouse_core::{HookEvent, Preview, PreviewFormat};
use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

/// Well above what a debug build needs on a busy machine, far below what an unbounded preview
/// takes on these inputs (minutes, or gigabytes and an abort).
const GENEROUS: Duration = Duration::from_secs(5);

/// The preview of `tool` with `input`, checking that it came within [`GENEROUS`]. Its deadline
/// is that too, so that the bounds other than the deadline are what the test sees.
fn timed_preview(tool: &str, input: &Value, on_disk: &FileOnDisk) -> Preview {
    let started = Instant::now();
    let preview =
        preview_within(tool, input, "/p", on_disk, started + GENEROUS).expect("a preview");
    let elapsed = started.elapsed();
    assert!(elapsed < GENEROUS, "{tool}: the preview took {elapsed:?}");
    assert!(
        preview.text.chars().count() < MAX_PREVIEW_CHARS + 200,
        "{tool}: the text is bounded"
    );
    preview
}

fn incomplete_because(preview: &Preview, expected: &str) {
    let reason = preview.incomplete.as_deref().unwrap_or_default();
    assert!(
        reason.contains(expected),
        "incomplete should say {expected:?}, says {reason:?}"
    );
}

#[test]
fn a_replace_all_that_would_grow_the_file_past_the_bound_is_not_built() {
    // 256 KiB of `a`, each replaced by 4 KiB: a gigabyte if it were built.
    let file = FileOnDisk::Text("a".repeat(crate::on_disk::MAX_FILE_BYTES as usize));
    let input = json!({
        "file_path": "/p/a.txt",
        "old_string": "a",
        "new_string": "b".repeat(4096),
        "replace_all": true,
    });
    let preview = timed_preview("Edit", &input, &file);
    assert_eq!(preview.format, PreviewFormat::Diff);
    incomplete_because(
        &preview,
        "the file after the edits would be larger than 512 KiB",
    );
    incomplete_because(&preview, "shown without the file around it");
    assert!(preview.text.starts_with("--- a/a.txt\n+++ b/a.txt\n"));
    assert!(preview.text.contains("\n-a\n+bbbb"), "the strings' diff");
}

#[test]
fn an_edit_list_that_doubles_the_file_is_stopped_at_the_bound() {
    let file = FileOnDisk::Text("a\n".repeat(1000));
    let doubling = json!({ "old_string": "a", "new_string": "aa", "replace_all": true });
    let input = json!({ "file_path": "/p/a.txt", "edits": vec![doubling; 64] });
    let preview = timed_preview("MultiEdit", &input, &file);
    incomplete_because(&preview, "larger than 512 KiB");
    assert_eq!(preview.title, "a.txt (64 edits)");
}

#[test]
fn a_long_edit_list_is_applied_only_within_its_work_budget() {
    // Each edit scans and copies the whole 256 KiB file: 100,000 of them would be 25 GB of work.
    let file = FileOnDisk::Text("a".repeat(crate::on_disk::MAX_FILE_BYTES as usize));
    let one = json!({ "old_string": "a", "new_string": "b" });
    let input = json!({ "file_path": "/p/a.txt", "edits": vec![one; 100_000] });
    let preview = timed_preview("MultiEdit", &input, &file);
    incomplete_because(&preview, "applying the edits would take more than");
    incomplete_because(&preview, "edits are shown");
}

/// Lines that share nothing: Myers' diff of two such texts is quadratic in their length.
fn distinct_lines(prefix: &str, count: usize) -> String {
    (0..count).map(|line| format!("{prefix}{line}\n")).collect()
}

/// An edit of `/p/a.txt` that replaces `count` distinct lines with as many others.
fn edit_of_distinct_lines(count: usize) -> Value {
    json!({
        "file_path": "/p/a.txt",
        "old_string": distinct_lines("x", count),
        "new_string": distinct_lines("y", count),
    })
}

#[test]
fn a_diff_that_would_be_quadratic_is_cut_to_its_bounds_and_its_deadline() {
    let input = edit_of_distinct_lines(100_000);
    let started = Instant::now();
    let preview = preview("Edit", &input, "/p", &FileOnDisk::Absent).expect("a preview");
    assert!(started.elapsed() < GENEROUS, "{:?}", started.elapsed());
    incomplete_because(&preview, "the diff covers only the first 10000 lines");
    assert!(preview.text.contains("\n-x0\n"));
}

#[test]
fn past_the_deadline_the_diff_is_coarse_and_says_so() {
    let input = edit_of_distinct_lines(5_000);
    let started = Instant::now();
    let preview = preview_within("Edit", &input, "/p", &FileOnDisk::Absent, Instant::now())
        .expect("a preview");
    assert!(started.elapsed() < GENEROUS);
    incomplete_because(&preview, "the diff took longer than");
    assert!(preview.text.contains("\n-x0\n"), "still a diff");
}

#[test]
fn a_write_too_large_to_diff_is_its_content_cut() {
    let before = FileOnDisk::Text("old\n".into());
    let input = json!({ "file_path": "/p/a.txt", "content": "new line\n".repeat(200_000) });
    let preview = timed_preview("Write", &input, &before);
    assert_eq!(preview.format, PreviewFormat::Text);
    assert_eq!(preview.title, "a.txt (overwrite)");
    incomplete_because(&preview, "so this is the new content, not a diff");
    incomplete_because(&preview, "cut at 65536 characters");
}

#[test]
fn an_edit_past_the_lines_a_diff_covers_is_shown_by_its_strings() {
    // 100,000 short lines fit the file bound but not a diff's: a diff of the first 10,000 lines
    // would not show an edit of the last one.
    let mut file = "line\n".repeat(100_000);
    file.push_str("last\n");
    let input = json!({ "file_path": "/p/a.txt", "old_string": "last", "new_string": "changed" });
    let preview = timed_preview("Edit", &input, &FileOnDisk::Text(file.clone()));
    incomplete_because(&preview, "the file is longer than 10000 lines");
    assert!(
        preview.text.contains("\n-last\n+changed\n"),
        "{}",
        preview.text
    );
    let write = timed_preview(
        "Write",
        &json!({ "file_path": "/p/a.txt", "content": "new\n" }),
        &FileOnDisk::Text(file),
    );
    assert_eq!(write.format, PreviewFormat::Text);
    incomplete_because(&write, "so this is the new content, not a diff");
}

#[test]
fn a_write_over_a_file_that_cannot_be_read_is_an_overwrite_not_a_new_file() {
    let before = FileOnDisk::NotShown("the file on disk is larger than 256 KiB".into());
    let input = json!({ "file_path": "/p/a.txt", "content": "new\n" });
    let preview = timed_preview("Write", &input, &before);
    assert_eq!(preview.title, "a.txt (overwrite)");
    incomplete_because(&preview, "larger than 256 KiB, so this is the new content");
}

#[test]
fn a_long_plan_and_a_long_path_are_cut() {
    let plan = timed_preview(
        "ExitPlanMode",
        &json!({ "plan": "é".repeat(1_000_000) }),
        &FileOnDisk::Absent,
    );
    incomplete_because(&plan, "cut at 65536 characters");
    let path = format!("/{}", "d".repeat(1_000_000));
    let write = timed_preview(
        "Write",
        &json!({ "file_path": path, "content": "x" }),
        &FileOnDisk::Absent,
    );
    assert!(write.title.chars().count() < 4200, "the title is bounded");
}

#[test]
fn an_edit_of_a_proc_file_reads_it_only_up_to_the_bound() {
    // Through the hook's real reader: /proc/self/pagemap says 0 bytes and holds hundreds of GiB.
    let event = json!({
        "hook_event_name": "PermissionRequest",
        "session_id": "s",
        "cwd": "/p",
        "tool_name": "Edit",
        "tool_input": { "file_path": "/proc/self/pagemap", "old_string": "a", "new_string": "b" },
    });
    let surroundings = crate::events::Surroundings {
        terminal: None,
        read_file: &crate::on_disk::read,
    };
    let started = Instant::now();
    let parsed = crate::events::parse_in(event.to_string().as_bytes(), &surroundings);
    assert!(started.elapsed() < GENEROUS);
    let Ok(HookEvent::Prompt { prompt, .. }) = parsed else {
        panic!("{parsed:?}")
    };
    let preview = prompt.extra.preview.expect("a preview");
    incomplete_because(&preview, "the file on disk is larger than 256 KiB");
    assert!(preview.text.contains("\n-a\n+b\n"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any edit list over any file of repeated text gives a bounded preview, at once.
    #[test]
    fn any_edit_list_over_any_repeated_file_is_bounded(
        unit in "[ab\n]{1,4}",
        repeat in 0usize..70_000,
        edits in prop::collection::vec(("[ab\n]{1,3}", "[ab\n]{0,64}", any::<bool>()), 1..40),
    ) {
        let file = FileOnDisk::Text(unit.repeat(repeat).chars().take(256 * 1024).collect());
        let edits: Vec<Value> = edits
            .into_iter()
            .map(|(old, new, all)| json!({ "old_string": old, "new_string": new, "replace_all": all }))
            .collect();
        let started = Instant::now();
        let preview = preview("MultiEdit", &json!({ "file_path": "/p/a", "edits": edits }), "/p", &file)
            .expect("a preview");
        prop_assert!(started.elapsed() < GENEROUS, "{:?}", started.elapsed());
        prop_assert!(preview.text.chars().count() < MAX_PREVIEW_CHARS + 200);
    }
}
