//! `gatehouse install service` and `gatehouse uninstall service`: a gateway that is always
//! there. On Linux, a systemd user socket unit and service unit (socket activation: the first
//! hook or front end to connect starts `gatehouse serve`, which stops itself when idle); on
//! macOS, a launchd agent that keeps `gatehouse serve` running.
//!
//! Nothing surprising in the user's files: each file written starts with [`MARKER`], a file
//! without it is never overwritten or removed, writing the same text again changes nothing, and
//! every change is said, with what to run next. This command never runs `systemctl` or
//! `launchctl` itself; `gatehouse setup` runs `systemctl --user` once the person accepted it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

/// The first line of every file gatehouse writes here: how it recognises its own.
pub const MARKER: &str = "Written by `gatehouse install service`";

/// The launchd agent's label, and its file's name without `.plist`.
pub const LAUNCHD_LABEL: &str = "io.github.gatehouse.serve";

/// The systemd socket unit: the gateway's socket and its hooks socket, under the user's runtime
/// folder (`%t`, that is `$XDG_RUNTIME_DIR`, where every gatehouse command looks by default).
pub fn socket_unit() -> String {
    format!(
        "\
# {MARKER}; `gatehouse uninstall service` removes it.
[Unit]
Description=gatehouse gateway sockets (AI coding agents' prompts)

[Socket]
ListenStream=%t/gatehouse/gatehouse.sock
ListenStream=%t/gatehouse/hooks.sock
SocketMode=0600
DirectoryMode=0700
RemoveOnStop=yes

[Install]
WantedBy=sockets.target
"
    )
}

/// The systemd service unit that the socket starts. It needs no network: only Unix sockets.
pub fn service_unit(binary: &str) -> String {
    format!(
        "\
# {MARKER}; `gatehouse uninstall service` removes it.
[Unit]
Description=gatehouse gateway (AI coding agents' prompts)
Requires=gatehouse.socket
After=gatehouse.socket

[Service]
Type=simple
ExecStart={binary} serve
RestrictAddressFamilies=AF_UNIX
NoNewPrivileges=yes
"
    )
}

/// The launchd agent: launchd keeps `gatehouse serve` running from login (gatehouse does not
/// take launchd's sockets, so there is no activation on demand there).
pub fn launchd_plist(binary: &str, log: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- {MARKER}; `gatehouse uninstall service` removes it. -->
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>{LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
    <string>{}</string>
    <string>serve</string>
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <true/>
  <key>StandardErrorPath</key>
  <string>{}</string>
</dict>
</plist>
"#,
        xml_escape(binary),
        xml_escape(log)
    )
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A path as one word of a systemd command line: specifiers (`%`) and variables (`$`) doubled,
/// and quoted when it holds a space, a quote or a backslash.
pub fn systemd_word(path: &str) -> String {
    let escaped = path.replace('%', "%%").replace('$', "$$");
    if escaped
        .chars()
        .any(|c| c.is_whitespace() || c == '"' || c == '\'' || c == '\\')
    {
        format!("\"{}\"", escaped.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        escaped
    }
}

/// One file to write: where, and what.
struct Unit {
    path: PathBuf,
    text: String,
}

/// What happened to one file.
#[derive(Debug, PartialEq, Eq)]
pub enum Done {
    Written,
    Updated,
    Unchanged,
    Removed,
    Absent,
}

fn this_binary() -> anyhow::Result<String> {
    let binary = std::env::current_exe()
        .and_then(|path| path.canonicalize())
        .context("cannot tell where the gatehouse binary is, so the service cannot name it")?;
    let binary = binary.to_str().map(str::to_owned).with_context(|| {
        format!(
            "the gatehouse binary's path {} is not UTF-8; move it to a plain path",
            binary.display()
        )
    })?;
    refuse_control_characters(&binary)?;
    Ok(binary)
}

/// A unit file is read line by line, and a launchd plist's reader would keep a control
/// character: a newline in the binary's path (a folder named `x\nExecStartPre=...`) would add a
/// line of its own to the unit, so such a path is refused rather than quoted.
pub fn refuse_control_characters(binary: &str) -> anyhow::Result<()> {
    if binary.chars().any(char::is_control) {
        anyhow::bail!(
            "the gatehouse binary's path {} holds a control character (a line break, a tab or an escape), which a service file cannot hold safely; move gatehouse to a plain path",
            gatehouse_core::text::visible(binary)
        );
    }
    Ok(())
}

fn home() -> anyhow::Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .context("HOME is not set, so the service files have no home; set it")
}

/// `$XDG_CONFIG_HOME/systemd/user`, or `~/.config/systemd/user`.
fn systemd_user_folder() -> anyhow::Result<PathBuf> {
    let base = match std::env::var_os("XDG_CONFIG_HOME").filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => home()?.join(".config"),
    };
    Ok(base.join("systemd").join("user"))
}

fn units() -> anyhow::Result<Vec<Unit>> {
    let binary = this_binary()?;
    if cfg!(target_os = "macos") {
        let log = home()?.join("Library/Logs/gatehouse.log");
        let path = home()?
            .join("Library/LaunchAgents")
            .join(format!("{LAUNCHD_LABEL}.plist"));
        return Ok(vec![Unit {
            path,
            text: launchd_plist(&binary, &log.to_string_lossy()),
        }]);
    }
    let folder = systemd_user_folder()?;
    Ok(vec![
        Unit {
            path: folder.join("gatehouse.socket"),
            text: socket_unit(),
        },
        Unit {
            path: folder.join("gatehouse.service"),
            text: service_unit(&systemd_word(&binary)),
        },
    ])
}

/// Whether `text` is a file gatehouse wrote here.
fn is_ours(text: &str) -> bool {
    text.lines().take(2).any(|line| line.contains(MARKER))
}

/// Reads a file that may be missing; `None` when it is.
fn read(path: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error).with_context(|| format!("cannot read {}", path.display())),
    }
}

fn not_ours(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{} exists and was not written by gatehouse, so it is left alone; move it away (or remove it) and run this again",
        path.display()
    )
}

/// Writes `unit` unless it already says the same; never over a file that is not gatehouse's.
fn write(unit: &Unit) -> anyhow::Result<Done> {
    let done = match read(&unit.path)? {
        Some(existing) if existing == unit.text => return Ok(Done::Unchanged),
        Some(existing) if !is_ours(&existing) => return Err(not_ours(&unit.path)),
        Some(_) => Done::Updated,
        None => Done::Written,
    };
    let folder = unit.path.parent().context("a unit file has a folder")?;
    std::fs::create_dir_all(folder)
        .with_context(|| format!("cannot create the folder {}", folder.display()))?;
    // Written beside the file and renamed over it, so a reader never sees half of it.
    let mut temporary = unit.path.as_os_str().to_owned();
    temporary.push(".gatehouse-tmp");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, &unit.text)
        .and_then(|()| std::fs::rename(&temporary, &unit.path))
        .with_context(|| format!("cannot write {}", unit.path.display()))?;
    Ok(done)
}

/// Removes `path` if gatehouse wrote it, with the links `systemctl enable` made to it in the
/// same folder (`*.wants/`), which would otherwise dangle.
fn remove(path: &Path) -> anyhow::Result<Done> {
    match read(path)? {
        None => return Ok(Done::Absent),
        Some(existing) if !is_ours(&existing) => return Err(not_ours(path)),
        Some(_) => {}
    }
    std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
    if let (Some(folder), Some(name)) = (path.parent(), path.file_name()) {
        for wants in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            let link = wants.path().join(name);
            let points_here = std::fs::read_link(&link).is_ok_and(|target| target == path);
            if wants.file_name().to_string_lossy().ends_with(".wants") && points_here {
                std::fs::remove_file(&link)
                    .with_context(|| format!("cannot remove the link {}", link.display()))?;
            }
        }
    }
    Ok(Done::Removed)
}

/// Refuses, before anything is written or removed, when a unit file is there that gatehouse did
/// not write: a refusal leaves every file as it was.
fn refuse_unless_all_ours(units: &[Unit]) -> anyhow::Result<()> {
    for unit in units {
        if let Some(existing) = read(&unit.path)? {
            if !is_ours(&existing) {
                return Err(not_ours(&unit.path));
            }
        }
    }
    Ok(())
}

/// What `install service` would do to each unit file now (written, updated or unchanged),
/// without writing anything; fails as it would, on a file that is not gatehouse's.
pub fn planned_units() -> anyhow::Result<Vec<(PathBuf, Done)>> {
    let units = units()?;
    refuse_unless_all_ours(&units)?;
    units
        .into_iter()
        .map(|unit| {
            let done = match read(&unit.path)? {
                Some(existing) if existing == unit.text => Done::Unchanged,
                Some(_) => Done::Updated,
                None => Done::Written,
            };
            Ok((unit.path, done))
        })
        .collect()
}

/// Writes the unit files as `install service` does, and says what happened to each.
pub fn write_units() -> anyhow::Result<Vec<(PathBuf, Done)>> {
    let units = units()?;
    refuse_unless_all_ours(&units)?;
    units
        .iter()
        .map(|unit| Ok((unit.path.clone(), write(unit)?)))
        .collect()
}

pub fn install() -> anyhow::Result<ExitCode> {
    let units = units()?;
    let mut changed = false;
    for (path, done) in write_units()? {
        changed |= done != Done::Unchanged;
        let what = match done {
            Done::Written => "written",
            Done::Updated => "updated",
            _ => "unchanged",
        };
        println!("{}: {what}", path.display());
    }
    if cfg!(target_os = "macos") {
        let plist = &units[0].path;
        println!(
            "Next, run: launchctl bootstrap gui/$(id -u) {}",
            plist.display()
        );
        println!("launchd then keeps `gatehouse serve` running from login.");
    } else {
        if changed {
            println!("Next, run: systemctl --user daemon-reload && systemctl --user enable --now gatehouse.socket");
        } else {
            println!("Nothing changed. If it is not enabled yet, run: systemctl --user enable --now gatehouse.socket");
        }
        println!(
            "The first hook or front end to connect then starts the gateway, which stops again after {} s with nothing pending ([serve] idle_exit_seconds). Stop a `gatehouse serve` you started by hand first.",
            crate::config::DEFAULT_IDLE_EXIT_SECONDS
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn uninstall() -> anyhow::Result<ExitCode> {
    let units = units()?;
    refuse_unless_all_ours(&units)?;
    let mut removed = false;
    for unit in &units {
        let done = remove(&unit.path)?;
        removed |= done == Done::Removed;
        let what = if done == Done::Removed {
            "removed"
        } else {
            "not there; nothing to remove"
        };
        println!("{}: {what}", unit.path.display());
    }
    if !removed {
        return Ok(ExitCode::SUCCESS);
    }
    if cfg!(target_os = "macos") {
        println!("Next, run: launchctl bootout gui/$(id -u)/{LAUNCHD_LABEL}");
    } else {
        println!("Next, run: systemctl --user stop gatehouse.socket gatehouse.service && systemctl --user daemon-reload");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests;
