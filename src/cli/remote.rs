//! `gatehouse remote [USER@]HOST`: agents on another machine reach this gateway through an
//! OpenSSH forward of the gateway's hooks socket, kept up until interrupted.
//!
//! It runs the user's own `ssh` (so `~/.ssh/config`, keys, agents and jump hosts work as
//! usual): first a short command that prepares the socket's private folder on HOST and prints
//! its path (HOST's default gatehouse socket, where its hooks look without any setting), then
//! `ssh -N -R <that path>:<hooks socket here> HOST`. When ssh exits, the link is down: it says so
//! on stderr and tries again, at once after a link that was up for a while ([`STEADY_LINK`]), and
//! with a growing pause (up to [`MAX_BACKOFF`]) while it keeps failing or dropping.
//!
//! Only the hooks socket is reached: a process on HOST can hold, register and observe prompts,
//! as a local hook can, but can never list, watch or answer them (see docs/SECURITY.md).
//!
//! The link names its host, not the far side: ssh forwards to a relay socket of this command's
//! own (`link-<pid>.sock` beside the hooks socket), and the relay opens each connection to the
//! hooks socket with a `link.host` frame naming the link (`--name`, by default HOST of the
//! destination) before passing the far side's bytes through. The gateway accepts that frame
//! only first, so the far side can neither rename its link nor make its prompts look local.
//!
//! Whatever HOST sends is hostile input (see docs/SECURITY.md): the socket path it names is
//! taken only as a plain path that ssh cannot read as syntax or expand ([`socket_path`]); what
//! it prints is read within limits of size and time, and shown only as visible text indented
//! under its name ([`far_output`]). A path or output refused stops the command ([`Refused`]):
//! asking again would get the same answer.

mod far_output;
mod relay;
mod socket_path;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use gatehouse_core::text::{truncate, visible};
use gatehouse_gateway::life_cycle::shutdown_signal;
use tokio::io::BufReader;
use tokio::process::Command;

use far_output::{show_from, FarCommandError, Limits};
use relay::Relay;
use socket_path::{NotPlain, PlainPath, MAX_FAR_PATH};

/// The longest pause between two attempts that keep failing.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How ssh begins its line, at `-v`, once HOST listens on the forwarded socket.
const FORWARD_UP: &str = "debug1: remote forward success for: listen ";

/// What the prepare step may print: a path on stdout, a reason on stderr.
const PREPARE_LIMITS: Limits = Limits {
    stdout: 4 * 1024,
    stderr: 16 * 1024,
    time: Duration::from_secs(60),
};

/// What `gatehouse install AGENT` on HOST may print, and how long it may take.
const INSTALL_LIMITS: Limits = Limits {
    stdout: 16 * 1024,
    stderr: 16 * 1024,
    time: Duration::from_secs(120),
};

/// The longest line of ssh's own messages kept (the rest of a longer one is dropped).
const MAX_SSH_LINE: usize = 4 * 1024;

/// The most characters of a refused path that a refusal shows.
const SHOWN_PATH_CHARS: usize = 120;

#[derive(Debug, Args)]
pub struct RemoteArgs {
    /// The machine whose agents should reach this gateway: [USER@]HOST, or a Host of ~/.ssh/config.
    destination: String,
    /// The forwarded socket's path on HOST [default: HOST's default gatehouse socket,
    /// $XDG_RUNTIME_DIR/gatehouse/gatehouse.sock there, else <temp dir>/gatehouse-<uid>/gatehouse.sock].
    /// A plain absolute path: letters, digits, `.`, `_`, `-` and `/`, at most 96 bytes.
    #[arg(long, value_name = "PATH")]
    remote_socket: Option<String>,
    /// Also run `gatehouse install AGENT` on HOST, so its agent's hooks use the link.
    #[arg(long, value_name = "AGENT")]
    install: Option<String>,
    /// gatehouse's command on HOST, for --install.
    #[arg(long, value_name = "COMMAND", default_value = "gatehouse")]
    remote_gatehouse: String,
    /// An option for ssh, as `ssh -o` takes it (Port=2222, IdentityFile=...); repeatable.
    #[arg(short = 'o', long = "ssh-option", value_name = "OPTION")]
    ssh_options: Vec<String>,
    /// The ssh program.
    #[arg(long, value_name = "PROGRAM", default_value = "ssh")]
    ssh: PathBuf,
    /// The host name that prompts from this link show [default: HOST of the destination].
    /// Whatever the far side says about itself, its prompts carry this name.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
}

/// Prepares the socket's folder on HOST and prints the socket's path. `$1`: the path asked
/// for, or empty for HOST's default. Refuses a folder of another user's, and a path where a
/// gatehouse gateway of HOST's own answers; removes a stale socket that a dropped link left.
const PREPARE: &str = r#"set -e
umask 077
if [ -n "$1" ]; then
  sock=$1
else
  if [ -n "$XDG_RUNTIME_DIR" ]; then dir=$XDG_RUNTIME_DIR/gatehouse
  else dir=${TMPDIR:-/tmp}; dir=${dir%/}/gatehouse-$(id -u); fi
  sock=$dir/gatehouse.sock
fi
dir=$(dirname "$sock")
mkdir -p "$dir"
if [ -L "$dir" ] || ! [ -O "$dir" ]; then
  echo "$dir is not a folder of your own" >&2; exit 3
fi
chmod 700 "$dir"
if [ -e "$sock" ] && ! [ -S "$sock" ]; then
  echo "$sock is not a socket; choose another path with --remote-socket" >&2; exit 3
fi
if [ -S "$sock" ] && command -v "$2" >/dev/null 2>&1 && GATEHOUSE_SOCKET=$sock "$2" status >/dev/null 2>&1; then
  echo "a gatehouse gateway of this host's own serves $sock; choose another path with --remote-socket" >&2; exit 4
fi
rm -f "$sock"
printf '%s\n' "$sock"
"#;

/// A word for the remote shell: single-quoted.
fn shell_word(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

impl RemoteArgs {
    /// The link's name: `--name`, else the destination without its user, port or scheme.
    fn link_name(&self) -> String {
        if let Some(name) = self.name.as_ref().filter(|name| !name.trim().is_empty()) {
            return name.trim().to_owned();
        }
        let destination = self.destination.trim_start_matches("ssh://");
        let host = destination
            .rsplit_once('@')
            .map_or(destination, |(_, host)| host);
        let host = if self.destination.starts_with("ssh://") {
            host.split(':').next().unwrap_or(host)
        } else {
            host
        };
        host.trim_matches(['[', ']']).to_owned()
    }

    fn ssh(&self) -> Command {
        let mut command = Command::new(&self.ssh);
        for option in &self.ssh_options {
            command.arg("-o").arg(option);
        }
        command.kill_on_drop(true);
        command
    }

    /// The forwarded socket's path on HOST (`given`, or HOST's default), its folder made ready;
    /// HOST's answer is taken only as a [`PlainPath`].
    async fn prepare(&self, given: Option<&PlainPath>) -> anyhow::Result<PlainPath> {
        let step = "preparing the socket's folder";
        let mut command = self.ssh();
        command
            .args(["-T", "-o", "BatchMode=yes", "--"])
            .arg(&self.destination)
            .arg(format!(
                "sh -s -- {} {}",
                shell_word(given.map_or("", PlainPath::as_str)),
                shell_word(&self.remote_gatehouse)
            ));
        let output =
            far_output::run_within(command, Some(PREPARE.as_bytes()), PREPARE_LIMITS).await;
        let status = match output.ended {
            Ok(status) => status,
            Err(why) => {
                show_from(&self.destination, &output.stderr);
                return Err(self.stopped(step, why));
            }
        };
        if !status.success() {
            let said = show_from(&self.destination, &output.stderr);
            anyhow::bail!(
                "{step} on {} failed ({status}){}",
                self.destination,
                if said { "; what it said is above" } else { "" }
            );
        }
        let answer = String::from_utf8_lossy(&output.stdout);
        let answer = answer.strip_suffix('\n').unwrap_or(&answer);
        PlainPath::far(answer).map_err(|why| {
            show_from(&self.destination, &output.stderr);
            Refused::FarPath {
                host: self.destination.clone(),
                path: answer.to_owned(),
                why,
            }
            .into()
        })
    }

    /// `gatehouse install AGENT` on HOST; what it prints is shown as HOST's.
    async fn install_remotely(&self, agent: &str) -> anyhow::Result<()> {
        let mut command = self.ssh();
        command
            .args(["-T", "--"])
            .arg(&self.destination)
            .arg(format!(
                "{} install {}",
                shell_word(&self.remote_gatehouse),
                shell_word(agent)
            ));
        let output = far_output::run_within(command, None, INSTALL_LIMITS).await;
        show_from(&self.destination, &output.stdout);
        show_from(&self.destination, &output.stderr);
        let status = output
            .ended
            .map_err(|why| self.stopped("`gatehouse install`", why))?;
        if !status.success() {
            anyhow::bail!(
                "`{} install {agent}` on {} failed ({status}); is gatehouse installed there? (see --remote-gatehouse)",
                self.remote_gatehouse,
                self.destination
            );
        }
        Ok(())
    }

    /// The error for a `step` on HOST that did not run to its end: a refusal when HOST printed
    /// too much (asking again would not help).
    fn stopped(&self, step: &'static str, why: FarCommandError) -> anyhow::Error {
        match why {
            FarCommandError::PrintedTooMuch { .. } => Refused::TooMuchOutput {
                step,
                host: self.destination.clone(),
                why,
            }
            .into(),
            FarCommandError::CannotRun(error) => {
                anyhow::anyhow!("cannot run {}: {error}", self.ssh.display())
            }
            other => anyhow::anyhow!("{step} on {} failed: {other}", self.destination),
        }
    }
}

/// What makes `gatehouse remote` stop instead of trying again: a socket path that ssh would
/// read as syntax or expand, or a far side that prints without end.
#[derive(Debug)]
enum Refused {
    /// `--remote-socket` is not a plain path.
    GivenPath { path: String, why: NotPlain },
    /// HOST answered the prepare step with a path that is not plain.
    FarPath {
        host: String,
        path: String,
        why: NotPlain,
    },
    /// The relay socket here is not a plain path.
    NearPath { path: String, why: NotPlain },
    /// A step on HOST printed more than its limit.
    TooMuchOutput {
        step: &'static str,
        host: String,
        why: FarCommandError,
    },
}

impl fmt::Display for Refused {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |path: &str| truncate(path, SHOWN_PATH_CHARS);
        match self {
            Refused::GivenPath { path, why } => write!(
                formatter,
                "--remote-socket `{}` is refused: {why}; ssh would read it as forward syntax or \
                 expand it. Give a plain absolute path (at most {MAX_FAR_PATH} bytes)",
                shown(path)
            ),
            Refused::FarPath { host, path, why } => write!(
                formatter,
                "{} named `{}` as the socket path on its side, which is refused: {why}; ssh would read \
                 it as forward syntax or expand it, so nothing was forwarded. If that host is yours, \
                 choose a plain path there with --remote-socket PATH (at most {MAX_FAR_PATH} bytes)",
                visible(host),
                shown(path)
            ),
            Refused::NearPath { path, why } => write!(
                formatter,
                "the link's relay socket here, `{}`, is refused for ssh: {why}; run the gateway on a \
                 socket in a plain path (--socket or GATEHOUSE_SOCKET)",
                shown(path)
            ),
            Refused::TooMuchOutput { step, host, why } => {
                write!(formatter, "{step} on {} was refused: {why}", visible(host))
            }
        }
    }
}

impl std::error::Error for Refused {}

fn say(line: &str) {
    eprintln!("gatehouse remote: {line}");
}

pub async fn run(socket: PathBuf, arguments: RemoteArgs) -> anyhow::Result<ExitCode> {
    let given = match &arguments.remote_socket {
        Some(path) => Some(PlainPath::far(path).map_err(|why| Refused::GivenPath {
            path: path.clone(),
            why,
        })?),
        None => None,
    };
    let hooks = gatehouse_host_ipc::socket::hooks_socket_path(&socket);
    if !hooks.exists() {
        say(&format!(
            "no hooks socket at {} yet; prompts from {} reach this gateway once it runs (`gatehouse serve`, or `gatehouse install service`)",
            hooks.display(),
            arguments.destination
        ));
    }
    let name = arguments.link_name();
    let relay = Relay::start(&hooks, &name).with_context(|| {
        format!(
            "cannot open the link's relay socket beside {}",
            hooks.display()
        )
    })?;
    say(&format!(
        "prompts from {} are shown as from host `{}`",
        arguments.destination,
        visible(&name)
    ));
    let mut installed = arguments.install.is_none();
    let mut backoff = Duration::from_secs(1);
    loop {
        let attempt = async {
            let remote = arguments.prepare(given.as_ref()).await?;
            if !installed {
                if let Some(agent) = &arguments.install {
                    arguments.install_remotely(agent).await?;
                    installed = true;
                    if given.is_some() {
                        say(&format!(
                            "hooks on {} look for the default socket; set GATEHOUSE_SOCKET={remote} for the agent there, or socket = \"{remote}\" in its ~/.config/gatehouse/config.toml",
                            arguments.destination
                        ));
                    }
                }
            }
            forward(&arguments, &remote, &relay.path).await
        };
        let ended = tokio::select! {
            ended = attempt => ended,
            () = shutdown_signal() => {
                say("stopping; the link is closed");
                return Ok(ExitCode::SUCCESS);
            }
        };
        let pause = match ended {
            Ok(Link {
                up_for: Some(up_for),
                status,
            }) => {
                // A link that stayed up a while comes back at once; one that drops as soon as it
                // is up (or a far side that only says it is up) waits as a failure does.
                let pause = if up_for >= STEADY_LINK {
                    backoff = Duration::from_secs(1);
                    Duration::ZERO
                } else {
                    grow(&mut backoff)
                };
                say(&format!(
                    "link to {} is DOWN ({status}); agents there get no answers from here until it is back; reconnecting in {} s",
                    arguments.destination,
                    pause.as_secs()
                ));
                pause
            }
            Ok(Link {
                up_for: None,
                status,
            }) => {
                say(&format!(
                    "cannot open the link to {} ({status}); trying again in {} s",
                    arguments.destination,
                    backoff.as_secs()
                ));
                grow(&mut backoff)
            }
            Err(error) if error.is::<Refused>() => return Err(error),
            Err(error) => {
                say(&format!(
                    "cannot open the link to {}: {}; trying again in {} s",
                    arguments.destination,
                    visible(&format!("{error:#}")),
                    backoff.as_secs()
                ));
                grow(&mut backoff)
            }
        };
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = shutdown_signal() => {
                say("stopping");
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
}

/// The pause before the next attempt, and a longer one for the attempt after it.
fn grow(backoff: &mut Duration) -> Duration {
    let pause = *backoff;
    *backoff = (pause * 2).min(MAX_BACKOFF);
    pause
}

/// How long a link must have been up to be reconnected at once when it drops.
const STEADY_LINK: Duration = Duration::from_secs(30);

/// How one ssh session ended: how long its forward was up, if it ever was, and ssh's exit
/// status.
struct Link {
    up_for: Option<Duration>,
    status: String,
}

/// Runs `ssh -N -R FAR:RELAY` until it exits, saying when the forward is up. ssh's own
/// messages pass through to stderr as visible text, one bounded line each, but for its `-v`
/// debug lines.
async fn forward(arguments: &RemoteArgs, far: &PlainPath, relay: &Path) -> anyhow::Result<Link> {
    let near = PlainPath::near(relay).map_err(|why| Refused::NearPath {
        path: relay.display().to_string(),
        why,
    })?;
    let mut command = arguments.ssh();
    command
        .args([
            "-N",
            "-v",
            // No password or keyboard-interactive prompt of HOST's text on the terminal: the
            // prepare step just logged in the same way.
            "-o",
            "BatchMode=yes",
            "-o",
            "ExitOnForwardFailure=yes",
            "-o",
            "StreamLocalBindUnlink=yes",
            "-o",
            "ServerAliveInterval=15",
            "-o",
            "ServerAliveCountMax=3",
            "-R",
        ])
        .arg(format!("{far}:{near}"))
        .arg("--")
        .arg(&arguments.destination)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot run {}", arguments.ssh.display()))?;
    let pid = child.id().unwrap_or_default();
    let mut stderr = BufReader::new(child.stderr.take().context("ssh's stderr")?);
    let mut up_since = None;
    let started = Instant::now();
    while let Some(line) = far_output::next_line_within(&mut stderr, MAX_SSH_LINE).await? {
        if line.starts_with(FORWARD_UP) && up_since.is_none() {
            up_since = Some(Instant::now());
            say(&format!(
                "link to {} is UP (ssh pid {pid}, after {} ms): hooks there reach this gateway through {far}",
                arguments.destination,
                started.elapsed().as_millis()
            ));
        } else if !["debug", "OpenSSH_", "Authenticated to", "Transferred:"]
            .iter()
            .any(|noise| line.starts_with(noise))
        {
            eprintln!("ssh: {}", visible(&line));
        }
    }
    let status = child.wait().await?;
    Ok(Link {
        up_for: up_since.map(|since| since.elapsed()),
        status: status.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_named_by_its_destination_host_unless_named() {
        let name = |destination: &str, name: Option<&str>| {
            RemoteArgs {
                destination: destination.into(),
                remote_socket: None,
                install: None,
                remote_gatehouse: "gatehouse".into(),
                ssh_options: vec![],
                ssh: "ssh".into(),
                name: name.map(str::to_owned),
            }
            .link_name()
        };
        assert_eq!(name("dev@devbox", None), "devbox");
        assert_eq!(name("devbox", None), "devbox");
        assert_eq!(name("ssh://dev@devbox:2222", None), "devbox");
        assert_eq!(name("dev@devbox", Some("build-vm")), "build-vm");
    }

    #[test]
    fn words_for_the_remote_shell_are_quoted_whole() {
        assert_eq!(
            shell_word("/run/user/1000/g.sock"),
            "'/run/user/1000/g.sock'"
        );
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("it's; rm -rf ~"), r"'it'\''s; rm -rf ~'");
    }
}
