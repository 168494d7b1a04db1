//! `gatehouse remote [USER@]HOST`: agents on another machine reach this gateway through an
//! OpenSSH forward of the gateway's hooks socket, kept up until interrupted.
//!
//! It runs the user's own `ssh` (so `~/.ssh/config`, keys, agents and jump hosts work as
//! usual): first a short command that prepares the socket's private folder on HOST and prints
//! its path (HOST's default gatehouse socket, where its hooks look without any setting), then
//! `ssh -N -R <that path>:<hooks socket here> HOST`. When ssh exits, the link is down: it says so
//! on stderr and tries again, at once after a link that was up, and with a growing pause (up to
//! [`MAX_BACKOFF`]) while it keeps failing.
//!
//! Only the hooks socket is reached: a process on HOST can hold, register and observe prompts,
//! as a local hook can, but can never list, watch or answer them (see docs/SECURITY.md).
//!
//! The link names its host, not the far side: ssh forwards to a relay socket of this command's
//! own (`link-<pid>.sock` beside the hooks socket), and the relay opens each connection to the
//! hooks socket with a `link.host` frame naming the link (`--name`, by default HOST of the
//! destination) before passing the far side's bytes through. The gateway accepts that frame
//! only first, so the far side can neither rename its link nor make its prompts look local.

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use gatehouse_gateway::life_cycle::shutdown_signal;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// The longest pause between two attempts that keep failing.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What ssh says, at `-v`, once HOST listens on the forwarded socket.
const FORWARD_UP: &str = "remote forward success for: listen";

#[derive(Debug, Args)]
pub struct RemoteArgs {
    /// The machine whose agents should reach this gateway: [USER@]HOST, or a Host of ~/.ssh/config.
    destination: String,
    /// The forwarded socket's path on HOST [default: HOST's default gatehouse socket,
    /// $XDG_RUNTIME_DIR/gatehouse/gatehouse.sock there, else <temp dir>/gatehouse-<uid>/gatehouse.sock].
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

    /// The forwarded socket's path on HOST, its folder made ready.
    async fn prepare(&self) -> anyhow::Result<String> {
        let mut command = self.ssh();
        command
            .args(["-T", "-o", "BatchMode=yes", "--"])
            .arg(&self.destination)
            .arg(format!(
                "sh -s -- {} {}",
                shell_word(self.remote_socket.as_deref().unwrap_or("")),
                shell_word(&self.remote_gatehouse)
            ))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .with_context(|| format!("cannot run {}", self.ssh.display()))?;
        let mut stdin = child.stdin.take().context("ssh's stdin")?;
        tokio::io::AsyncWriteExt::write_all(&mut stdin, PREPARE.as_bytes()).await?;
        drop(stdin);
        let output = child.wait_with_output().await?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            anyhow::bail!(
                "preparing the socket's folder on {} failed ({}): {}",
                self.destination,
                output.status,
                gatehouse_core::text::visible(stderr.trim())
            );
        }
        let path = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        if !path.starts_with('/') {
            anyhow::bail!(
                "{} named no absolute socket path (it said `{}`)",
                self.destination,
                gatehouse_core::text::visible(&path)
            );
        }
        Ok(path)
    }

    /// `gatehouse install AGENT` on HOST.
    async fn install_remotely(&self, agent: &str) -> anyhow::Result<()> {
        let status = self
            .ssh()
            .args(["-T", "--"])
            .arg(&self.destination)
            .arg(format!(
                "{} install {}",
                shell_word(&self.remote_gatehouse),
                shell_word(agent)
            ))
            .stdin(Stdio::null())
            .status()
            .await
            .with_context(|| format!("cannot run {}", self.ssh.display()))?;
        if !status.success() {
            anyhow::bail!(
                "`{} install {agent}` on {} failed ({status}); is gatehouse installed there? (see --remote-gatehouse)",
                self.remote_gatehouse,
                self.destination
            );
        }
        Ok(())
    }
}

fn say(line: &str) {
    eprintln!("gatehouse remote: {line}");
}

pub async fn run(socket: PathBuf, arguments: RemoteArgs) -> anyhow::Result<ExitCode> {
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
        gatehouse_core::text::visible(&name)
    ));
    let mut installed = arguments.install.is_none();
    let mut backoff = Duration::from_secs(1);
    loop {
        let attempt = async {
            let remote = arguments.prepare().await?;
            if !installed {
                if let Some(agent) = &arguments.install {
                    arguments.install_remotely(agent).await?;
                    installed = true;
                    if arguments.remote_socket.is_some() {
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
                was_up: true,
                status,
            }) => {
                say(&format!(
                    "link to {} is DOWN ({status}); agents there get no answers from here until it is back; reconnecting",
                    arguments.destination
                ));
                backoff = Duration::from_secs(1);
                Duration::ZERO
            }
            Ok(Link {
                was_up: false,
                status,
            }) => {
                say(&format!(
                    "cannot open the link to {} ({status}); trying again in {} s",
                    arguments.destination,
                    backoff.as_secs()
                ));
                grow(&mut backoff)
            }
            Err(error) => {
                say(&format!(
                    "cannot open the link to {}: {}; trying again in {} s",
                    arguments.destination,
                    gatehouse_core::text::visible(&format!("{error:#}")),
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

/// The relay between ssh's forward and the hooks socket: a socket of this command's own, in the
/// hooks socket's private folder, whose every connection reaches the hooks socket after a
/// `link.host` frame naming the link. Dropped, it stops and removes its socket.
struct Relay {
    path: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    fn start(hooks: &Path, name: &str) -> anyhow::Result<Relay> {
        use interprocess::local_socket::traits::tokio::Listener as _;
        use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
        let folder = hooks.parent().unwrap_or(Path::new("."));
        if !folder.exists() {
            gatehouse_host_ipc::socket::create_private_folder(folder)?;
        }
        let path = folder.join(format!("link-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let listener = ListenerOptions::new()
            .name(path.as_path().to_fs_name::<GenericFilePath>()?)
            .reclaim_name(false)
            .create_tokio()?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        }
        let first_frame = gatehouse_host_ipc::framing::encode_frame(&serde_json::json!({
            "jsonrpc": "2.0",
            "method": gatehouse_host_ipc::protocol::method::LINK_HOST,
            "params": gatehouse_host_ipc::protocol::LinkHostParams { host: name.to_owned() },
        }));
        let hooks = hooks.to_owned();
        let task = tokio::spawn(async move {
            loop {
                let far = match listener.accept().await {
                    Ok(far) => far,
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                if let Err(refusal) = gatehouse_gateway::check_peer(&far) {
                    say(&format!("refused a connection to the relay: {refusal}"));
                    continue;
                }
                let (hooks, first_frame) = (hooks.clone(), first_frame.clone());
                tokio::spawn(async move {
                    use tokio::io::AsyncWriteExt;
                    // No gateway: the far hook sees its connection close, and its agent's
                    // terminal decides.
                    let Ok(mut gateway) = gatehouse_host_ipc::socket::connect(&hooks).await else {
                        return;
                    };
                    if gateway.write_all(&first_frame).await.is_err() {
                        return;
                    }
                    // When either side ends, both are closed at once (a shutdown alone may not
                    // reach the other side), so the gateway learns a dropped link at once and
                    // withdraws what the far hook held.
                    let (mut far_reader, mut far_writer) = tokio::io::split(far);
                    let (mut gateway_reader, mut gateway_writer) = tokio::io::split(gateway);
                    tokio::select! {
                        _ = tokio::io::copy(&mut far_reader, &mut gateway_writer) => {}
                        _ = tokio::io::copy(&mut gateway_reader, &mut far_writer) => {}
                    }
                });
            }
        });
        Ok(Relay { path, task })
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The pause before the next attempt, and a longer one for the attempt after it.
fn grow(backoff: &mut Duration) -> Duration {
    let pause = *backoff;
    *backoff = (pause * 2).min(MAX_BACKOFF);
    pause
}

/// How one ssh session ended: whether its forward was ever up, and ssh's exit status.
struct Link {
    was_up: bool,
    status: String,
}

/// Runs `ssh -N -R` until it exits, saying when the forward is up. ssh's own messages pass
/// through to stderr, but for its `-v` debug lines.
async fn forward(arguments: &RemoteArgs, remote: &str, hooks: &Path) -> anyhow::Result<Link> {
    let mut command = arguments.ssh();
    command
        .args([
            "-N",
            "-v",
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
        .arg(format!("{remote}:{}", hooks.display()))
        .arg("--")
        .arg(&arguments.destination)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot run {}", arguments.ssh.display()))?;
    let pid = child.id().unwrap_or_default();
    let mut lines = BufReader::new(child.stderr.take().context("ssh's stderr")?).lines();
    let mut was_up = false;
    let started = Instant::now();
    while let Some(line) = lines.next_line().await? {
        if line.contains(FORWARD_UP) && !was_up {
            was_up = true;
            say(&format!(
                "link to {} is UP (ssh pid {pid}, after {} ms): hooks there reach this gateway through {remote}",
                arguments.destination,
                started.elapsed().as_millis()
            ));
        } else if !["debug", "OpenSSH_", "Authenticated to", "Transferred:"]
            .iter()
            .any(|noise| line.starts_with(noise))
        {
            eprintln!("ssh: {}", gatehouse_core::text::visible(&line));
        }
    }
    let status = child.wait().await?;
    Ok(Link {
        was_up,
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
