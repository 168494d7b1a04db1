//! Whether another user could replace the program an agent's hook runs. `install` writes the
//! hook program's path into the agent's settings, and the agent then runs whatever file is at
//! that path as the person: a `gatehouse-hook` in a folder others may write (a 0777 download
//! folder) was swapped for a script that ran as the person (attacker review, MEDIUM). So `install`
//! refuses, and `doctor` fails, while the program or any folder above it is writable by anyone
//! but the person and root.
//!
//! Judged by owners and mode bits, never by `access(2)` (which says yes to root for every file):
//!
//! - the file and every folder above it must belong to the person or root;
//! - none may be writable by others, nor by a group other than the person's own private group
//!   (a group of the person's name whose only member is the person, as `umask 002` systems give
//!   each user);
//! - except a folder with the sticky bit (`/tmp`, 1777): there only an entry's owner (or the
//!   folder's, or root) may rename or remove it, so it protects the entry below it when that
//!   entry belongs to the person or root. A folder that is writable but not sticky lets anyone
//!   rename what is in it, and so replace everything below.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Write for the group, and for others.
const GROUP_WRITE: u32 = 0o020;
const OTHER_WRITE: u32 = 0o002;
const STICKY: u32 = 0o1000;

/// How much of `/etc/passwd` and `/etc/group` is read.
const ACCOUNTS_FILE_LIMIT: u64 = 4 << 20;

/// Why another user could replace `program` (a file named by its absolute, resolved path), in
/// words that name the file or folder and its mode; `None` when only the person and root can.
pub fn why_others_could_replace(program: &Path) -> Option<String> {
    let me = Me::now();
    let mut below: Option<(PathBuf, std::fs::Metadata)> = None;
    for path in program.ancestors() {
        let metadata = match std::fs::symlink_metadata(path) {
            Ok(metadata) => metadata,
            Err(error) => return Some(format!("{} cannot be checked ({error})", path.display())),
        };
        let what = if below.is_none() { "" } else { "the folder " };
        if !me.trusts_owner(metadata.uid()) {
            return Some(format!(
                "{what}{} belongs to user id {}, who can change it",
                path.display(),
                metadata.uid()
            ));
        }
        if let Some(writers) = me.other_writers(&metadata) {
            let sticky_protects = metadata.mode() & STICKY != 0
                && metadata.is_dir()
                && below
                    .as_ref()
                    .is_some_and(|(_, entry)| me.trusts_owner(entry.uid()));
            if !sticky_protects {
                return Some(format!(
                    "{what}{} is writable by {writers} (mode {:04o})",
                    path.display(),
                    metadata.mode() & 0o7777
                ));
            }
        }
        below = Some((path.to_path_buf(), metadata));
    }
    None
}

/// The person, as the checks need them.
struct Me {
    uid: u32,
    /// The person's own private group, if they have one: a group named as they are, with no
    /// other member.
    private_group: Option<u32>,
}

impl Me {
    fn now() -> Me {
        // SAFETY: geteuid and getegid have no preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Me {
            uid,
            private_group: private_group(uid, gid),
        }
    }

    fn trusts_owner(&self, uid: u32) -> bool {
        uid == self.uid || uid == 0
    }

    /// Who else may write this file or folder, in words; `None` when no one.
    fn other_writers(&self, metadata: &std::fs::Metadata) -> Option<&'static str> {
        let mode = metadata.mode();
        if mode & OTHER_WRITE != 0 {
            return Some("every user");
        }
        let own_group = self.private_group == Some(metadata.gid());
        (mode & GROUP_WRITE != 0 && !own_group).then_some("its group")
    }
}

/// `gid` when it is the private group of the user `uid`: named as the user in `/etc/group`,
/// with no member but that user. Unknown names count as shared.
fn private_group(uid: u32, gid: u32) -> Option<u32> {
    let passwd = read_limited("/etc/passwd")?;
    let name = passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() > 3 && fields[2].parse() == Ok(uid)).then(|| fields[0].to_owned())
    })?;
    let group = read_limited("/etc/group")?;
    group.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        let alone = fields.get(3).is_none_or(|members| {
            members
                .split(',')
                .all(|member| member.is_empty() || member == name)
        });
        (fields.len() > 2 && fields[2].parse() == Ok(gid) && fields[0] == name && alone)
            .then_some(gid)
    })
}

fn read_limited(path: &str) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(ACCOUNTS_FILE_LIMIT)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn folder_with_mode(parent: &Path, name: &str, mode: u32) -> PathBuf {
        let folder = parent.join(name);
        std::fs::create_dir(&folder).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(mode)).unwrap();
        folder
    }

    fn program_in(folder: &Path, mode: u32) -> PathBuf {
        let program = folder.join("gatehouse-hook");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(mode)).unwrap();
        program
    }

    #[test]
    fn a_world_writable_folder_or_file_is_named_with_its_mode_and_a_private_one_passes() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().canonicalize().unwrap();
        let open = folder_with_mode(&base, "open", 0o777);
        let why = why_others_could_replace(&program_in(&open, 0o755)).expect("refused");
        assert!(
            why.contains("open is writable by every user (mode 0777)"),
            "{why}"
        );
        let private = folder_with_mode(&base, "private", 0o755);
        assert_eq!(why_others_could_replace(&program_in(&private, 0o755)), None);
        let writable_file = folder_with_mode(&base, "file", 0o755);
        let why = why_others_could_replace(&program_in(&writable_file, 0o757)).expect("refused");
        assert!(
            why.contains("gatehouse-hook is writable by every user"),
            "{why}"
        );
    }

    #[test]
    fn a_sticky_folder_protects_what_the_person_owns_in_it_but_a_writable_folder_above_does_not() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().canonicalize().unwrap();
        let sticky = folder_with_mode(&base, "sticky", 0o1777);
        assert_eq!(why_others_could_replace(&program_in(&sticky, 0o755)), None);
        let open = folder_with_mode(&base, "open", 0o777);
        let inner = folder_with_mode(&open, "bin", 0o755);
        let why = why_others_could_replace(&program_in(&inner, 0o755)).expect("refused");
        assert!(why.contains("open is writable by every user"), "{why}");
    }
}
