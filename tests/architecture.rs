//! docs/ARCHITECTURE.md stays true: the dependency rules it states hold in `cargo metadata`, and
//! every source path it names exists.
//!
//! Two kinds of rule are checked. The layering rules below hold for every crate of their kind
//! (an adapter never reaches the socket or another adapter; the core knows no other crate), so
//! a new adapter crate is checked without a line here. The document's own "depends on `a`, `b`
//! ... only" sentences are read from each crate's section and compared with its manifest, so
//! the document cannot drift from the code.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn architecture_document() -> String {
    std::fs::read_to_string(repository().join("docs/ARCHITECTURE.md"))
        .expect("docs/ARCHITECTURE.md is readable")
}

/// Each workspace crate's name and the names of its normal (not dev or build) dependencies.
fn workspace_dependencies() -> Vec<(String, BTreeSet<String>)> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(repository())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
    metadata["packages"]
        .as_array()
        .expect("metadata lists packages")
        .iter()
        .map(|package| {
            let dependencies = package["dependencies"]
                .as_array()
                .expect("a package lists its dependencies")
                .iter()
                .filter(|dependency| dependency["kind"].is_null())
                .map(|dependency| dependency["name"].as_str().unwrap().to_string())
                .collect();
            (package["name"].as_str().unwrap().to_string(), dependencies)
        })
        .collect()
}

fn is_adapter(name: &str) -> bool {
    name.starts_with("gatehouse-adapter-")
}

/// The front ends that are libraries: they know the wire and no agent, nor each other.
fn is_front_end(name: &str) -> bool {
    name == "gatehouse-web" || name == "gatehouse-console"
}

#[test]
fn the_layering_holds_for_every_crate() {
    let crates = workspace_dependencies();
    assert!(
        crates.iter().any(|(name, _)| is_adapter(name)),
        "the workspace has adapter crates"
    );
    let mut broken = Vec::new();
    for (name, dependencies) in &crates {
        for dependency in dependencies {
            let forbidden = match name.as_str() {
                "gatehouse-core" => dependency.starts_with("gatehouse-"),
                "gatehouse-host-ipc" => {
                    is_adapter(dependency)
                        || dependency == "gatehouse-gateway"
                        || is_front_end(dependency)
                }
                "gatehouse-gateway" | "gatehouse-hook-settings" | "gatehouse-harness" => {
                    is_adapter(dependency) || is_front_end(dependency)
                }
                // The hook is handed its adapter and reaches the gateway only over the wire.
                "gatehouse-hook" => {
                    is_adapter(dependency)
                        || is_front_end(dependency)
                        || dependency == "gatehouse-gateway"
                }
                front_end if is_front_end(front_end) => {
                    is_adapter(dependency) || is_front_end(dependency)
                }
                adapter if is_adapter(adapter) => {
                    is_adapter(dependency)
                        || dependency == "gatehouse-host-ipc"
                        || dependency == "gatehouse-gateway"
                }
                _ => false,
            };
            if forbidden {
                broken.push(format!("{name} depends on {dependency}"));
            }
        }
    }
    assert!(broken.is_empty(), "layering broken: {broken:?}");
}

/// The crate a `### \`crates/NAME\`` heading names, as a package name.
fn crate_of_heading(line: &str) -> Option<String> {
    let folder = line.strip_prefix("### `crates/")?.split('`').next()?;
    Some(format!("gatehouse-{folder}"))
}

/// The backticked words of `text`.
fn quoted_words(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The document's "depends on `a`, `b` ... only" sentences, per crate section.
fn stated_dependencies(document: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut stated = Vec::new();
    let mut section: Option<(String, String)> = None;
    let mut flush = |section: Option<(String, String)>| {
        if let Some((name, text)) = section {
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let rule = text.match_indices("depends on ").find_map(|(start, _)| {
                let sentence = &text[start..];
                let sentence = &sentence[..sentence.find(". ").unwrap_or(sentence.len())];
                sentence
                    .strip_suffix(" only")
                    .or_else(|| sentence.strip_suffix(" only."))
            });
            if let Some(rule) = rule {
                let words = quoted_words(rule)
                    .into_iter()
                    .map(|word| match word {
                        "core" | "hook-settings" | "harness" | "host-ipc" | "gateway" | "hook" => {
                            format!("gatehouse-{word}")
                        }
                        other => other.to_string(),
                    })
                    .collect();
                stated.push((name, words));
            }
        }
    };
    for line in document.lines() {
        if line.starts_with("### ") {
            flush(section.take());
            section = crate_of_heading(line).map(|name| (name, String::new()));
        } else if let Some((_, text)) = section.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    flush(section);
    stated
}

#[test]
fn each_crate_depends_on_exactly_what_the_document_says() {
    let stated = stated_dependencies(&architecture_document());
    assert!(
        stated.len() >= 3,
        "the document states the dependencies of several crates: {stated:?}"
    );
    let actual = workspace_dependencies();
    for (name, words) in stated {
        let (_, dependencies) = actual
            .iter()
            .find(|(actual_name, _)| *actual_name == name)
            .unwrap_or_else(|| panic!("the document names a crate that is not there: {name}"));
        assert_eq!(
            &words, dependencies,
            "docs/ARCHITECTURE.md says what {name} depends on; Cargo.toml says otherwise"
        );
    }
}

/// Words that name a source path: `src/cli/mod.rs`, `probe/`, `events.rs` (not a pattern such
/// as `tests/e2e_NAME.rs`).
fn looks_like_a_path(word: &str) -> bool {
    let plain = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/_.-".contains(c));
    plain
        && !word.contains("NAME")
        && !word.starts_with('.')
        && !word.starts_with('/')
        && (word.ends_with(".rs") || word.ends_with(".md") || word.ends_with('/'))
}

/// Every file and folder of the repository (not `target`, `node_modules` or `.git`), relative to
/// it, folders with a trailing `/`.
fn repository_paths() -> Vec<String> {
    let root = repository();
    let mut paths = Vec::new();
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder of the repository is readable") {
            let path = entry.expect("a folder entry").path();
            let relative = path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if ["target", "node_modules", ".git"].contains(&relative.as_str()) {
                continue;
            }
            if path.is_dir() {
                paths.push(format!("{relative}/"));
                folders.push(path);
            } else {
                paths.push(relative);
            }
        }
    }
    paths
}

/// A path the document names exists when some file or folder is that path, or ends with it
/// (the document names files relative to the crate or folder its paragraph is about).
#[test]
fn every_source_path_the_document_names_exists() {
    let paths = repository_paths();
    let document = architecture_document();
    let named: Vec<&str> = quoted_words(&document)
        .into_iter()
        .filter(|word| looks_like_a_path(word))
        .collect();
    assert!(
        named.len() > 20,
        "the document names many paths (found {})",
        named.len()
    );
    let missing: Vec<&str> = named
        .into_iter()
        .filter(|word| {
            !paths
                .iter()
                .any(|path| path == word || path.ends_with(&format!("/{word}")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}
