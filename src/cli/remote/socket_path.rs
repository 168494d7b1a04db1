//! The two socket paths of a link's forward, `ssh -R FAR:NEAR`: plain absolute paths only.
//!
//! ssh reads a forward as its own syntax before it is a path: `:` separates fields, `\` escapes
//! the next character and `[...]` quotes a field; then it expands `%` tokens (`%u`, `%d`, ...)
//! and `${VAR}` from the environment of the person who runs it. So a path that HOST names for
//! its side could pick this machine's end of the forward (`\:` then a folder any local user can
//! make, leading to the person's own gateway socket), or have ssh send HOST the person's
//! environment variables, one per reconnect (`${ANTHROPIC_API_KEY}`). ssh has no escape for
//! `${`, so only an allow-list closes this: a [`PlainPath`] starts with `/`, has only
//! [`SAFE_CHARACTERS`], no `.` or `..` component, does not end with `/`, and is short enough
//! for a Unix socket on any system (sun_path is 108 bytes on Linux, 104 on macOS and the BSDs).

use std::fmt;
use std::path::Path;

use gatehouse_core::text::visible;

/// The characters a [`PlainPath`] may have, in words.
pub const SAFE_CHARACTERS: &str = "letters, digits, `.`, `_`, `-` and `/`";

/// The longest socket path taken for HOST's side of the forward, in bytes.
pub const MAX_FAR_PATH: usize = 96;

/// The longest socket path taken for this machine's side: what a Unix socket can be bound to
/// here (sun_path's 108 bytes on Linux, with its NUL).
pub const MAX_NEAR_PATH: usize = 107;

/// A socket path that ssh takes as it is written: nothing in it is syntax or expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainPath(String);

/// Why a path is not a [`PlainPath`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotPlain {
    Empty,
    NotAbsolute,
    UnsafeCharacter(char),
    DotComponent(&'static str),
    EndsWithSlash,
    TooLong { length: usize, max: usize },
}

impl fmt::Display for NotPlain {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotPlain::Empty => write!(formatter, "it is empty"),
            NotPlain::NotAbsolute => write!(formatter, "it does not start with `/`"),
            NotPlain::UnsafeCharacter(character) => write!(
                formatter,
                "it has `{}`, which is not among {SAFE_CHARACTERS}",
                visible(&character.to_string())
            ),
            NotPlain::DotComponent(dots) => write!(formatter, "it has a `{dots}` component"),
            NotPlain::EndsWithSlash => write!(formatter, "it ends with `/`, which names a folder"),
            NotPlain::TooLong { length, max } => write!(
                formatter,
                "it is {length} bytes long, and at most {max} are taken"
            ),
        }
    }
}

impl std::error::Error for NotPlain {}

impl PlainPath {
    /// HOST's side of the forward: what HOST named, or what `--remote-socket` says.
    pub fn far(path: &str) -> Result<PlainPath, NotPlain> {
        Self::checked(path, MAX_FAR_PATH)
    }

    /// This machine's side of the forward (the link's relay socket).
    pub fn near(path: &Path) -> Result<PlainPath, NotPlain> {
        Self::checked(&path.to_string_lossy(), MAX_NEAR_PATH)
    }

    fn checked(path: &str, max: usize) -> Result<PlainPath, NotPlain> {
        if path.is_empty() {
            return Err(NotPlain::Empty);
        }
        if !path.starts_with('/') {
            return Err(NotPlain::NotAbsolute);
        }
        if let Some(unsafe_character) = path
            .chars()
            .find(|&character| !(character.is_ascii_alphanumeric() || "._/-".contains(character)))
        {
            return Err(NotPlain::UnsafeCharacter(unsafe_character));
        }
        if path.len() > max {
            return Err(NotPlain::TooLong {
                length: path.len(),
                max,
            });
        }
        if let Some(dots) = path
            .split('/')
            .find_map(|component| [".", ".."].into_iter().find(|&dots| dots == component))
        {
            return Err(NotPlain::DotComponent(dots));
        }
        if path.ends_with('/') {
            return Err(NotPlain::EndsWithSlash);
        }
        Ok(PlainPath(path.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PlainPath {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACCEPTED: &[&str] = &[
        "/run/user/1000/gatehouse/gatehouse.sock",
        "/tmp/gatehouse-1000/gatehouse.sock",
        "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/gatehouse-501/gatehouse.sock",
        "/a",
        "/home/dev/.gatehouse/g.sock",
        "/tmp/..x/x../.hidden/-dash/under_score/UPPER.lower.0-9",
        "/tmp//double",
    ];

    /// Every character that ssh (or a shell, a config file or a terminal) reads as more than
    /// itself, and then some.
    const REFUSED_CHARACTERS: &str =
        ":%${}[]\\ '\"\n\0@=,#*?!;|&<>()`~+^\t\r\x1b\x07\u{7f}\u{9b}\u{202e}\u{200b}é";

    #[test]
    fn only_plain_absolute_paths_of_safe_characters_are_taken() {
        for accepted in ACCEPTED {
            assert_eq!(
                PlainPath::far(accepted).map(|path| path.to_string()),
                Ok((*accepted).to_owned())
            );
        }
        let longest = format!("/{}", "a".repeat(MAX_FAR_PATH - 1));
        assert!(PlainPath::far(&longest).is_ok());
        let refused: &[(&str, NotPlain)] = &[
            ("", NotPlain::Empty),
            ("relative/g.sock", NotPlain::NotAbsolute),
            ("~/g.sock", NotPlain::NotAbsolute),
            ("[/tmp/g.sock]", NotPlain::NotAbsolute),
            ("/tmp/../etc/g.sock", NotPlain::DotComponent("..")),
            ("/..", NotPlain::DotComponent("..")),
            ("/tmp/./g.sock", NotPlain::DotComponent(".")),
            ("/tmp/g/", NotPlain::EndsWithSlash),
            ("/", NotPlain::EndsWithSlash),
            (
                &format!("{longest}a"),
                NotPlain::TooLong {
                    length: MAX_FAR_PATH + 1,
                    max: MAX_FAR_PATH,
                },
            ),
        ];
        for (path, why) in refused {
            assert_eq!(PlainPath::far(path).as_ref(), Err(why), "{path:?}");
        }
        for character in REFUSED_CHARACTERS.chars() {
            for path in [
                format!("/tmp/g{character}.sock"),
                format!("/tmp/{character}"),
                format!("/{character}/g.sock"),
            ] {
                assert_eq!(
                    PlainPath::far(&path),
                    Err(NotPlain::UnsafeCharacter(character)),
                    "{path:?}"
                );
            }
        }
        // A path longer than the far side's limit still fits a socket here.
        assert!(PlainPath::near(Path::new(&format!("{longest}aaaa"))).is_ok());
    }

    #[test]
    fn a_refusal_says_what_was_refused_as_visible_text() {
        let why = PlainPath::far("/tmp/\u{1b}]52;c;aGFja2Vk\u{7}").unwrap_err();
        assert_eq!(
            why.to_string(),
            "it has `\\e`, which is not among letters, digits, `.`, `_`, `-` and `/`"
        );
        assert_eq!(
            PlainPath::far("/tmp/${GH_SECRET}").unwrap_err().to_string(),
            "it has `$`, which is not among letters, digits, `.`, `_`, `-` and `/`"
        );
    }

    /// `remoteforward FAR NEAR` as `ssh -G` reads `-R FORWARD` (no host is contacted), with
    /// `GH_PROBE` in ssh's environment; `None` when ssh refuses the forward.
    fn as_ssh_reads(forward: &str) -> Option<String> {
        let output = std::process::Command::new("ssh")
            .args(["-G", "-F", "/dev/null", "-R", forward, "gatehouse.invalid"])
            .env("GH_PROBE", "expanded")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("ssh runs");
        output.status.success().then(|| {
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .find_map(|line| line.strip_prefix("remoteforward "))
                .expect("ssh -G lists the forward")
                .to_owned()
        })
    }

    /// The real ssh confirms both halves: what the allow-list takes reaches ssh's forward as it
    /// was written, and what ssh treats specially would not have.
    #[test]
    fn ssh_takes_every_accepted_path_as_written_and_would_have_changed_the_refused_ones() {
        if std::process::Command::new("ssh")
            .arg("-V")
            .output()
            .is_err()
        {
            eprintln!("skipped: no ssh on PATH");
            return;
        }
        let near = "/tmp/gatehouse-near/link-1.sock";
        let every_safe_character = format!(
            "/{}{}{}._-/x",
            ('a'..='z').collect::<String>(),
            ('A'..='Z').collect::<String>(),
            ('0'..='9').collect::<String>()
        );
        for accepted in ACCEPTED
            .iter()
            .copied()
            .chain([every_safe_character.as_str()])
        {
            let far = PlainPath::far(accepted).unwrap();
            assert_eq!(
                as_ssh_reads(&format!("{far}:{near}")),
                Some(format!("{accepted} {near}")),
                "{accepted}"
            );
        }
        for special in [
            "/tmp/${GH_PROBE}.sock",
            "/tmp/%u.sock",
            "/tmp/%d.sock",
            "/tmp/%%.sock",
            "/tmp/a\\b.sock",
            "/tmp/far.sock:/tmp/helper\\",
            "/tmp/far.sock:[/tmp/helper]",
            "/tmp/a:b.sock",
        ] {
            assert!(PlainPath::far(special).is_err(), "{special}");
            let read = as_ssh_reads(&format!("{special}:{near}"));
            assert_ne!(read, Some(format!("{special} {near}")), "{special}");
            println!("ssh reads -R {special}:{near} as {read:?}");
        }
    }
}
