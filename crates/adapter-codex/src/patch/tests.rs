//! The patch reader and its preview: the captured patches, every part of the format, anything
//! else shown raw, hostile paths and text, and the bound.

use super::*;

/// The view of `patch` in the folder `/p`, asserting that it took under 5 s (a bound generous
/// enough for a busy machine, far under what reading it line by line into files would take).
fn view_within_seconds(patch: &str) -> PatchView {
    let started = std::time::Instant::now();
    let view = view(patch, "/p");
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    view
}

fn command_of(fixture: &[u8]) -> String {
    let event: serde_json::Value = serde_json::from_slice(fixture).unwrap();
    event["tool_input"]["command"].as_str().unwrap().to_owned()
}

macro_rules! fixture {
    ($name:literal) => {
        gatehouse_harness::captured_payload!("codex-0.171.0", $name)
    };
}

#[test]
fn the_captured_multi_file_patch_shows_every_file_and_every_line() {
    let patch = command_of(fixture!("PermissionRequest-apply_patch-multi-file"));
    let view = view(&patch, "/home/dev/project");
    assert_eq!(
        view.summary,
        "apply_patch: update hello.txt, add notes/b.txt, delete a.txt"
    );
    assert_eq!(view.preview.format, PreviewFormat::Diff);
    assert_eq!(view.preview.incomplete, None);
    assert!(view
        .preview
        .title
        .starts_with("Codex patch: 3 files; once applies it now and deny blocks it"));
    assert_eq!(
        view.preview.text,
        "--- a/hello.txt\n+++ b/hello.txt\n@@\n-hello from patch\n+hello edited by patch\n\
         --- /dev/null\n+++ b/notes/b.txt\n@@ -0,0 +1,1 @@ new file\n+b\n\
         --- a/a.txt\n+++ /dev/null\n@@ the whole file is deleted (its content is not in the patch) @@\n"
    );
    assert!(view.outside.is_empty());
}

#[test]
fn a_patch_with_or_without_its_final_newline_reads_the_same() {
    let with = command_of(fixture!("PreToolUse-apply_patch"));
    let without = command_of(fixture!("PermissionRequest-apply_patch"));
    assert_eq!(format!("{without}\n"), with);
    assert_eq!(parse(&with).unwrap(), parse(&without).unwrap());
    assert_eq!(
        parse(&without).unwrap(),
        vec![FileChange::Add {
            path: "hello.txt".into(),
            lines: vec!["hello from patch".into()]
        }]
    );
}

#[test]
fn an_absolute_path_outside_the_folder_is_named_in_the_summary_and_the_title() {
    let patch = command_of(fixture!("PermissionRequest-apply_patch-outside-workspace"));
    let view = view(&patch, "/home/dev/project");
    assert_eq!(view.outside, ["/home/dev/out1.txt"]);
    assert_eq!(
        view.summary,
        "apply_patch: add /home/dev/out1.txt; OUTSIDE the session's folder /home/dev/project: /home/dev/out1.txt"
    );
    assert!(view
        .preview
        .title
        .contains("OUTSIDE the session's folder /home/dev/project: /home/dev/out1.txt"));
}

#[test]
fn paths_that_climb_out_are_outside_and_paths_that_stay_are_not() {
    let cwd = "/home/dev/project";
    for outside in [
        "../x",
        "a/../../x",
        "/etc/passwd",
        "/home/dev/project/../projectile/x",
        "/home/dev/projectx",
        "../../../../../../../../x",
    ] {
        assert!(lands_outside(outside, cwd), "{outside}");
    }
    for inside in [
        "a.txt",
        "a/../b.txt",
        "./a",
        "/home/dev/project/a",
        "a/./b/../c",
    ] {
        assert!(!lands_outside(inside, cwd), "{inside}");
    }
    assert!(
        lands_outside("a.txt", ""),
        "an unknown folder is not trusted"
    );
    let patch = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../../etc/cron.d/x\n+x\n*** End Patch";
    let view = view(patch, cwd);
    assert_eq!(view.outside, ["../../etc/cron.d/x"]);
    assert!(view
        .summary
        .contains("update a.txt and move it to ../../etc/cron.d/x; OUTSIDE"));
    assert!(view
        .preview
        .text
        .starts_with("--- a/a.txt\n+++ b/../../etc/cron.d/x\n@@\n+x\n"));
}

#[test]
fn every_part_of_the_format_is_read() {
    let patch = "*** Begin Patch\n\
                 *** Update File: src/main.rs\n\
                 *** Move to: src/app.rs\n\
                 @@ fn main() {\n\
                 -    old();\n\
                 +    new();\n\
                 \x20   keep();\n\
                 @@\n\
                 +last\n\
                 *** End of File\n\
                 *** Delete File: gone.txt\n\
                 *** Add File: new.txt\n\
                 +one\n\
                 +\n\
                 *** End Patch\n";
    let changes = parse(patch).unwrap();
    assert_eq!(changes.len(), 3);
    assert_eq!(
        changes[0],
        FileChange::Update {
            path: "src/main.rs".into(),
            move_to: Some("src/app.rs".into()),
            changes: vec![
                ChangeLine::Header("@@ fn main() {".into()),
                ChangeLine::Line("-    old();".into()),
                ChangeLine::Line("+    new();".into()),
                ChangeLine::Line("    keep();".into()),
                ChangeLine::Header("@@".into()),
                ChangeLine::Line("+last".into()),
                ChangeLine::EndOfFile,
            ]
        }
    );
    let text = view(patch, "/p").preview.text;
    assert!(text.contains("\n+last\n\\ the lines above end the file\n--- a/gone.txt\n"));
    assert!(text.ends_with("@@ -0,0 +1,2 @@ new file\n+one\n+\n"));
}

#[test]
fn anything_else_is_shown_whole_as_raw_text_naming_the_line() {
    for (patch, line) in [
        ("*** Begin Patch\n*** Frobnicate File: x\n*** End Patch", 2),
        (
            "*** Begin Patch\n*** Add File: x\n+a\nnot a line\n*** End Patch",
            4,
        ),
        (
            "*** Begin Patch\n*** Update File: x\n-a\ngarbage\n*** End Patch",
            4,
        ),
        ("not a patch at all", 1),
        ("*** Begin Patch\n*** Add File: x\n+a", 3),
        ("*** Begin Patch\n*** End Patch", 2),
        ("*** Begin Patch\n*** Add File: x\n*** End Patch", 3),
        ("*** Begin Patch\n*** Add File: \n+a\n*** End Patch", 2),
        (" *** Begin Patch\n*** Add File: x\n+a\n*** End Patch", 1),
    ] {
        let problem = parse(patch).unwrap_err();
        assert_eq!(problem.line_number, line, "{patch:?}");
        let view = view(patch, "/p");
        assert_eq!(view.preview.format, PreviewFormat::Text);
        assert_eq!(
            view.preview.text,
            format!("{patch}\n"),
            "nothing is dropped"
        );
        assert!(
            view.preview.title.contains(&format!("line {line}")),
            "{}",
            view.preview.title
        );
        assert!(view.summary.contains("which files it changes is not known"));
    }
}

#[test]
fn hostile_text_is_kept_as_it_is_for_front_ends_to_make_visible() {
    let patch = "*** Begin Patch\n*** Add File: evil\u{202e}txt.sh\n+\x1b[2J\x1b[31mrm -rf ~\r\n+\u{200b}\n*** End Patch";
    let view = view(patch, "/p");
    assert_eq!(view.preview.format, PreviewFormat::Diff);
    assert!(view.summary.contains("add evil\u{202e}txt.sh"));
    assert!(view.preview.text.contains("+\x1b[2J\x1b[31mrm -rf ~\r\n"));
    let shown = gatehouse_core::text::visible(&view.summary);
    assert!(!shown.contains('\u{202e}'), "{shown}");
}

#[test]
fn a_huge_patch_is_cut_with_a_note_in_gatehouses_words_and_the_summary_names_the_count() {
    let mut patch = String::from("*** Begin Patch\n");
    for file in 0..2000 {
        patch.push_str(&format!("*** Add File: f{file}.txt\n"));
        for line in 0..20 {
            patch.push_str(&format!("+line {line} of file {file}\n"));
        }
    }
    patch.push_str("*** End Patch\n");
    let view = view_within_seconds(&patch);
    assert!(view.preview.text.chars().count() <= MAX_PREVIEW_CHARS);
    let note = view.preview.incomplete.unwrap();
    assert!(note.contains("cut at 64 KiB"), "{note}");
    assert!(note.contains("gatehouse show ID"), "{note}");
    assert!(
        view.summary.ends_with("add f9.txt and 1990 more files"),
        "{}",
        view.summary
    );
    assert!(view.preview.title.starts_with("Codex patch: 2000 files"));
}

#[test]
fn a_patch_of_a_hundred_thousand_files_outside_the_folder_is_read_at_once_and_named_within_bounds()
{
    let mut patch = String::from("*** Begin Patch\n");
    for file in 0..100_000 {
        patch.push_str(&format!("*** Delete File: /etc/f{file}\n"));
    }
    patch.push_str("*** End Patch");
    let view = view_within_seconds(&patch);
    assert_eq!(view.outside.len(), 100_000);
    assert!(view.summary.len() < 2_000, "{}", view.summary.len());
    assert!(
        view.preview.title.len() < 2_000,
        "{}",
        view.preview.title.len()
    );
    assert!(view
        .preview
        .title
        .contains("/etc/f9 and 99990 more (`gatehouse show ID` prints the whole patch)"));
    assert!(
        view.preview.incomplete.is_some(),
        "the diff is cut, and says so"
    );
}

#[test]
fn a_patch_of_twelve_mebibytes_of_lines_is_shown_raw_and_cut_without_reading_it_into_files() {
    let mut patch = String::from("*** Begin Patch\n*** Add File: a.txt\n");
    patch.push_str(&"+\n".repeat(6 * 1024 * 1024));
    patch.push_str("*** End Patch\n");
    let view = view_within_seconds(&patch);
    assert_eq!(view.preview.format, PreviewFormat::Text);
    assert!(
        view.preview.title.contains("longer than gatehouse reads"),
        "{}",
        view.preview.title
    );
    assert!(view.summary.contains("which files it changes is not known"));
    assert!(view.preview.text.chars().count() <= MAX_PREVIEW_CHARS);
    assert!(view
        .preview
        .incomplete
        .unwrap()
        .contains("gatehouse show ID"));
}
