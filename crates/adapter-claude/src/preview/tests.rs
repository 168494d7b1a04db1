//! Snapshots of the previews of edits and plans, on payloads captured from Claude Code 2.1.332.

use insta::assert_snapshot;
use serde_json::{json, Value};

use super::*;

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/data/claude-code-2.1.332/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn on_disk(text: Option<&str>) -> FileOnDisk {
    text.map_or(FileOnDisk::Absent, |text| FileOnDisk::Text(text.into()))
}

fn preview_of(name: &str, text_on_disk: Option<&str>) -> Preview {
    let event = fixture(name);
    let preview = preview(
        event["tool_name"].as_str().unwrap(),
        &event["tool_input"],
        event["cwd"].as_str().unwrap(),
        &on_disk(text_on_disk),
    )
    .unwrap();
    assert_eq!(preview.incomplete, None, "a small preview is whole");
    preview
}

#[test]
fn an_edit_of_a_file_on_disk_is_a_diff_in_context() {
    let preview = preview_of("PermissionRequest-Edit", Some("one\ntwo\nalpha\nthree\n"));
    assert_eq!(preview.format, PreviewFormat::Diff);
    assert_eq!(preview.title, "e.txt (edit)");
    assert_snapshot!(preview.text, @r"
    --- a/e.txt
    +++ b/e.txt
    @@ -1,4 +1,4 @@
     one
     two
    -alpha
    +beta
     three
    ");
}

#[test]
fn an_edit_without_the_file_is_a_diff_of_the_strings() {
    let preview = preview_of("PermissionRequest-Edit", None);
    assert_snapshot!(preview.text, @r"
    --- a/e.txt
    +++ b/e.txt
    @@ -1 +1 @@
    -alpha
    +beta
    ");
}

#[test]
fn a_write_over_an_existing_file_is_a_diff() {
    let preview = preview_of("PermissionRequest-Write", Some("hello\nold line\n"));
    assert_eq!(preview.title, "notes.txt (overwrite)");
    assert_snapshot!(preview.text, @r"
    --- a/notes.txt
    +++ b/notes.txt
    @@ -1,2 +1 @@
     hello
    -old line
    ");
}

#[test]
fn a_new_file_shows_its_content() {
    let preview = preview_of("PermissionRequest-Write", None);
    assert_eq!(preview.format, PreviewFormat::Text);
    assert_eq!(preview.title, "notes.txt (new file)");
    assert_snapshot!(preview.text, @"hello");
}

#[test]
fn a_multi_edit_applies_every_edit() {
    let input = json!({ "file_path": "/p/src/a.rs", "edits": [
        { "old_string": "a", "new_string": "b" },
        { "old_string": "x", "new_string": "y", "replace_all": true },
    ] });
    let preview = preview("MultiEdit", &input, "/p", &on_disk(Some("a\nx\nx\n"))).unwrap();
    assert_eq!(preview.title, "src/a.rs (2 edits)");
    assert_snapshot!(preview.text, @r"
    --- a/src/a.rs
    +++ b/src/a.rs
    @@ -1,3 +1,3 @@
    -a
    -x
    -x
    +b
    +y
    +y
    ");
}

#[test]
fn a_plan_is_its_markdown() {
    let preview = preview_of("PermissionRequest-ExitPlanMode", None);
    assert_eq!(preview.format, PreviewFormat::Markdown);
    assert_snapshot!(preview.text, @r"
    # Plan
    1. do X
    ");
    let empty = fixture("PermissionRequest-ExitPlanMode-noplanfile");
    assert_eq!(
        super::preview(
            "ExitPlanMode",
            &empty["tool_input"],
            "/p",
            &FileOnDisk::Absent
        ),
        None
    );
}

#[test]
fn a_path_outside_the_folder_stays_whole_and_other_tools_have_none() {
    assert_eq!(relative("/etc/passwd", "/home/dev/project"), "/etc/passwd");
    assert_eq!(
        relative("/home/dev/project/a/b", "/home/dev/project"),
        "a/b"
    );
    assert_eq!(
        preview("Bash", &json!({"command": "ls"}), "/p", &FileOnDisk::Absent),
        None
    );
}
