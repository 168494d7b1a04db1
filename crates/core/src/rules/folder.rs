//! A rule's folder: an absolute path that covers itself and every path below it, compared by
//! path components, never by text (`/home/a/proj` does not cover `/home/a/project2`).
//!
//! A `..` component is refused: without the file system (the core has none) it cannot be known
//! where it leads, and through a link it may lead anywhere. The caller resolves links before it
//! hands a folder or a path in; empty and `.` components are dropped.

use std::fmt;

use thiserror::Error;

/// Why a folder is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FolderError {
    #[error("the folder `{0}` is not an absolute path: give it from `/`")]
    NotAbsolute(String),
    #[error("the folder `{0}` has a `..` component: give the folder it leads to")]
    ParentComponent(String),
}

/// An absolute path without `..`, `.` or empty components; written as its path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Folder {
    components: Vec<String>,
}

impl Folder {
    /// The folder at `path`, which must be absolute and hold no `..` component.
    pub fn new(path: &str) -> Result<Folder, FolderError> {
        match components(path) {
            Components::Absolute(components) => Ok(Folder { components }),
            Components::Relative => Err(FolderError::NotAbsolute(path.to_owned())),
            Components::Parent => Err(FolderError::ParentComponent(path.to_owned())),
        }
    }

    /// The root folder, `/`, which covers every path.
    pub fn root() -> Folder {
        Folder {
            components: Vec::new(),
        }
    }

    /// Whether `path` is this folder or below it. `path` is resolved against `base` when it is
    /// relative; a path with `..`, a relative one without a base, or one starting with `~`
    /// (which agents and shells expand to a home folder: `~/.bashrc`, `~user/x`) is covered by
    /// no folder.
    pub fn covers(&self, path: &str, base: Option<&Folder>) -> bool {
        if path.starts_with('~') {
            return false;
        }
        let inside = |components: &[String]| components.starts_with(&self.components);
        match components(path) {
            Components::Absolute(components) => inside(&components),
            Components::Relative => match base {
                Some(base) => {
                    let Components::Absolute(relative) = components(&format!("/{path}")) else {
                        return false;
                    };
                    let joined: Vec<String> =
                        base.components.iter().chain(&relative).cloned().collect();
                    inside(&joined)
                }
                None => false,
            },
            Components::Parent => false,
        }
    }

    /// Whether `other` is this folder or below it.
    pub fn contains(&self, other: &Folder) -> bool {
        other.components.starts_with(&self.components)
    }
}

impl fmt::Display for Folder {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.components.is_empty() {
            return formatter.write_str("/");
        }
        for component in &self.components {
            write!(formatter, "/{component}")?;
        }
        Ok(())
    }
}

impl TryFrom<String> for Folder {
    type Error = FolderError;

    fn try_from(path: String) -> Result<Folder, FolderError> {
        Folder::new(&path)
    }
}

impl From<Folder> for String {
    fn from(folder: Folder) -> String {
        folder.to_string()
    }
}

enum Components {
    Absolute(Vec<String>),
    Relative,
    Parent,
}

fn components(path: &str) -> Components {
    let Some(rest) = path.strip_prefix('/') else {
        return Components::Relative;
    };
    let mut components = Vec::new();
    for component in rest.split('/') {
        match component {
            "" | "." => {}
            ".." => return Components::Parent,
            other => components.push(other.to_owned()),
        }
    }
    Components::Absolute(components)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(path: &str) -> Folder {
        Folder::new(path).unwrap()
    }

    #[test]
    fn a_folder_covers_itself_and_below_by_components() {
        let project = folder("/home/a/proj");
        for inside in [
            "/home/a/proj",
            "/home/a/proj/",
            "/home/a/proj/src/x.rs",
            "/home/a//proj/./src",
        ] {
            assert!(project.covers(inside, None), "{inside}");
        }
        for outside in [
            "/home/a/project2",
            "/home/a/pro",
            "/home/a",
            "/",
            "/home/a/proj/../x",
            "/home/a/proj/src/../../b",
            "proj",
            "",
        ] {
            assert!(!project.covers(outside, None), "{outside}");
        }
        assert!(Folder::root().covers("/etc/passwd", None));
        assert!(folder("/").covers("/x", None));
        assert_eq!(folder("/home//a/./proj/").to_string(), "/home/a/proj");
        assert_eq!(Folder::root().to_string(), "/");
    }

    #[test]
    fn relative_paths_resolve_against_the_base_and_never_climb() {
        let project = folder("/home/a/proj");
        let base = folder("/home/a/proj/src");
        assert!(project.covers("main.rs", Some(&base)));
        assert!(project.covers("./lib/x.rs", Some(&base)));
        assert!(!project.covers("../../b", Some(&base)));
        assert!(
            !project.covers("../x", Some(&base)),
            "`..` is refused, even when it stays inside"
        );
        assert!(!project.covers("main.rs", Some(&folder("/tmp"))));
        assert!(!project.covers("main.rs", None));
    }

    #[test]
    fn relative_and_climbing_folders_are_refused() {
        assert_eq!(
            Folder::new("proj"),
            Err(FolderError::NotAbsolute("proj".into()))
        );
        assert_eq!(
            Folder::new("~/proj"),
            Err(FolderError::NotAbsolute("~/proj".into()))
        );
        assert_eq!(
            Folder::new("/home/a/../b"),
            Err(FolderError::ParentComponent("/home/a/../b".into()))
        );
        assert!(folder("/home").contains(&folder("/home/a")));
        assert!(!folder("/home/a").contains(&folder("/home")));
        assert!(!folder("/home/a").contains(&folder("/home/ab")));
    }
}
