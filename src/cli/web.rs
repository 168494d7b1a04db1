//! `gatehouse web` on the command line: its flags and subcommands, and what `web pair`,
//! `devices`, `revoke` and `push-test` print; serving is `gatehouse-web`'s (`serve::run`), with the
//! settings read here.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use gatehouse_web::control::{self, ControlReply, ControlRequest};
use gatehouse_web::devices::DeviceStore;
use gatehouse_web::{loopback_port, serve};

pub const AFTER_HELP: &str = "\
Examples:
  gatehouse web                                   # http://127.0.0.1:7780, for this machine or an SSH tunnel
  ssh -L 7780:127.0.0.1:7780 devbox               # from a laptop: then open the pairing link there
  gatehouse web --listen 0.0.0.0:7780 --tls-self-signed   # for a phone on the same network
  gatehouse web pair --qr                         # a new pairing link, as a QR code too
  gatehouse web devices                           # paired browsers
  gatehouse web revoke --all                      # log every browser out at once
  gatehouse web push-test                         # a test notification to every browser that asked for them

Plain HTTP is served only on loopback. Any other address needs TLS: --tls-cert and --tls-key,
or --tls-self-signed (made once and kept in the state folder; check its printed fingerprint in
the browser). Requests must name this server in their Host header: the listen address, or a
name given with --host (or `[web] hosts = [...]` in config.toml), so DNS rebinding gets nothing.";

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, after_help = AFTER_HELP)]
pub struct WebArgs {
    #[command(subcommand)]
    command: Option<WebCommand>,
    #[command(flatten)]
    serve: serve::ServeArgs,
}

#[derive(Debug, Subcommand)]
enum WebCommand {
    /// Print a new pairing link (single use, valid for 10 minutes) from the running `gatehouse web`.
    Pair {
        /// Print `{"url": ..., "expires_at": ...}`.
        #[arg(long)]
        json: bool,
        /// Also print the link as a QR code, to scan with a phone.
        #[arg(long)]
        qr: bool,
    },
    /// List the paired browsers.
    Devices {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Send a test notification to every browser that gets pushes (and the ntfy topic, if set).
    PushTest {
        /// Print a JSON array of the results.
        #[arg(long)]
        json: bool,
    },
    /// Log a paired browser out at once (an open page says so within seconds).
    Revoke {
        /// The device's id, as `gatehouse web devices` shows it.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        /// Every paired browser.
        #[arg(long)]
        all: bool,
    },
}

/// Runs `gatehouse web` or one of its subcommands.
pub fn run(socket: PathBuf, arguments: WebArgs) -> anyhow::Result<ExitCode> {
    let control = control::control_path(&socket);
    match arguments.command {
        None => serve::run(socket, arguments.serve, settings()?),
        Some(WebCommand::Pair { json, qr }) => pair(&control, json, qr),
        Some(WebCommand::Devices { json }) => devices(&control, json),
        Some(WebCommand::Revoke { id, all }) => revoke(&control, if all { None } else { id }),
        Some(WebCommand::PushTest { json }) => push_test(&control, json),
    }
}

/// What `gatehouse web` takes from outside its flags, read only when it serves (so `web pair`
/// and the others work with a broken config file).
fn settings() -> anyhow::Result<gatehouse_web::WebSettings> {
    let settings = crate::config::load()?;
    Ok(gatehouse_web::WebSettings {
        web: settings.web,
        notify: settings.notify,
        open_file_limit: crate::open_files::raise_open_file_limit(),
        client_error_words: super::client_error::in_words,
        agent_names: crate::adapters::registry()
            .iter()
            .map(|adapter| (adapter.id().to_owned(), adapter.name().to_owned()))
            .collect(),
    })
}

fn ask(control: &Path, request: ControlRequest) -> anyhow::Result<Option<ControlReply>> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(control::request(control, &request))
}

fn pair(control: &Path, json: bool, qr: bool) -> anyhow::Result<ExitCode> {
    let Some(ControlReply::Pairing { url, expires_at }) = ask(control, ControlRequest::Pair)?
    else {
        anyhow::bail!(
            "`gatehouse web` is not running (no control socket at {}); start it first, e.g. `gatehouse web &`",
            control.display()
        );
    };
    if json {
        println!(
            "{}",
            serde_json::json!({ "url": url, "expires_at": expires_at })
        );
    } else {
        println!("Open this link in the browser to pair (once, until {expires_at}):\n  {url}");
    }
    if qr {
        if let Some(port) = loopback_port(&url) {
            // A phone cannot open a loopback address: say so, and how to reach the page instead.
            eprintln!("{}", loopback_qr_advice(port));
            return Ok(ExitCode::SUCCESS);
        }
        let code = qrcode::QrCode::new(url.as_bytes())?;
        let picture = code
            .render::<qrcode::render::unicode::Dense1x2>()
            .quiet_zone(true)
            .build();
        if json {
            eprintln!("{picture}");
        } else {
            println!("{picture}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What `web pair --qr` says instead of a QR code when the page listens on loopback only.
pub fn loopback_qr_advice(port: u16) -> String {
    format!(
        "No QR code: this link names a loopback address, which only a browser on this machine can open (a phone cannot).
Two ways work from a phone or another machine:
  1. TLS on the LAN address: restart with `gatehouse web --listen 0.0.0.0:{port} --tls-self-signed`,
     then run `gatehouse web pair --qr` again and scan that code;
  2. an SSH tunnel from the other machine: `ssh -L {port}:127.0.0.1:{port} THIS-HOST`, then open
     the link above in that machine's browser."
    )
}

fn devices(control: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let devices = match ask(control, ControlRequest::Devices)? {
        Some(ControlReply::Devices { devices }) => devices,
        _ => DeviceStore::open(Some(DeviceStore::default_path()?))?.devices(),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&devices)?);
        return Ok(ExitCode::SUCCESS);
    }
    if devices.is_empty() {
        println!("No browser is paired; run `gatehouse web pair` and open the link it prints.");
        return Ok(ExitCode::SUCCESS);
    }
    let mut rows = vec![["ID", "NAME", "PAIRED", "LAST SEEN", "PUSH"].map(str::to_owned)];
    rows.extend(devices.into_iter().map(|device| {
        let push = if device.push.is_empty() {
            "-".to_owned()
        } else {
            device.push.join(", ")
        };
        [
            gatehouse_core::text::one_line(&device.id, 16),
            gatehouse_core::text::one_line(&device.name, 28),
            device.paired_at.to_string(),
            device.last_seen.to_string(),
            gatehouse_core::text::one_line(&push, 120),
        ]
    }));
    print!(
        "{}",
        gatehouse_console::output::aligned_lines(&rows).concat()
    );
    Ok(ExitCode::SUCCESS)
}

fn push_test(control: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let Some(ControlReply::PushTested { outcomes }) = ask(control, ControlRequest::PushTest)?
    else {
        anyhow::bail!(
            "`gatehouse web` is not running (no control socket at {}); start it first, e.g. `gatehouse web &`",
            control.display()
        );
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&outcomes)?);
    } else if outcomes.is_empty() {
        eprintln!("{NO_PUSH_ADVICE}");
    } else {
        for outcome in &outcomes {
            println!(
                "{:<28} {:<40} {} {}",
                gatehouse_core::text::one_line(&outcome.device, 28),
                gatehouse_core::text::one_line(&outcome.service, 40),
                if outcome.delivered { "sent" } else { "FAILED" },
                gatehouse_core::text::one_line(&outcome.detail, 200)
            );
        }
    }
    Ok(if every_push_was_accepted(&outcomes) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What `push-test` says when there is nobody to push to.
const NO_PUSH_ADVICE: &str = "No browser gets pushes and no ntfy topic is set, so nothing was \
sent. Pair a browser (`gatehouse web pair`) and press \"Notify me\" on its page, or set \
[notify] ntfy_url in config.toml to get them through ntfy (see `gatehouse web --help`).";

/// Whether `push-test` succeeded: at least one push was sent and every one was accepted (none
/// sent is a failure: no notification reaches anyone).
fn every_push_was_accepted(outcomes: &[gatehouse_web::push::notifier::PushOutcome]) -> bool {
    !outcomes.is_empty() && outcomes.iter().all(|outcome| outcome.delivered)
}

fn revoke(control: &Path, id: Option<String>) -> anyhow::Result<ExitCode> {
    let removed = match ask(control, ControlRequest::Revoke { id: id.clone() })? {
        Some(ControlReply::Revoked { ids }) => ids,
        _ => {
            // Not running: change the file; the next `gatehouse web` reads it.
            let mut store = DeviceStore::open(Some(DeviceStore::default_path()?))?;
            let ids = store.revoke(id.as_deref());
            store.save()?;
            ids
        }
    };
    match (removed.is_empty(), id) {
        (true, Some(id)) => {
            eprintln!("no paired device has the id {id}; `gatehouse web devices` lists them");
            Ok(ExitCode::from(1))
        }
        (true, None) => {
            println!("No browser was paired.");
            Ok(ExitCode::SUCCESS)
        }
        (false, _) => {
            println!("Logged out: {}", removed.join(", "));
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_link_gets_advice_instead_of_a_qr_code() {
        let advice = loopback_qr_advice(7780);
        assert!(
            advice.contains("--listen 0.0.0.0:7780 --tls-self-signed"),
            "{advice}"
        );
        assert!(advice.contains("ssh -L 7780:127.0.0.1:7780"), "{advice}");
    }

    #[test]
    fn push_test_fails_when_nothing_was_sent_or_a_push_was_refused() {
        let outcome = |delivered| gatehouse_web::push::notifier::PushOutcome {
            device: "phone".into(),
            service: "web.push.apple.com".into(),
            delivered,
            detail: String::new(),
        };
        assert!(!every_push_was_accepted(&[]));
        assert!(!every_push_was_accepted(&[outcome(true), outcome(false)]));
        assert!(every_push_was_accepted(&[outcome(true)]));
        assert!(NO_PUSH_ADVICE.contains("\"Notify me\""));
        assert!(NO_PUSH_ADVICE.contains("ntfy"));
    }

    #[test]
    fn every_column_of_the_devices_table_starts_at_the_same_place() {
        let rows = [
            ["ID", "NAME", "PAIRED", "PUSH"].map(str::to_owned),
            ["a1b2c3d4", "phone", "2026-12-02T04:41:24.123Z", "-"].map(str::to_owned),
            [
                "e5f6a7b8",
                "Büro-Rechner mit langem Namen…",
                "2026-12-02T04:41:24.123Z",
                "web.push.apple.com",
            ]
            .map(str::to_owned),
        ];
        insta::assert_snapshot!(gatehouse_console::output::aligned_lines(&rows).concat(), @r"
        ID        NAME                            PAIRED                    PUSH
        a1b2c3d4  phone                           2026-12-02T04:41:24.123Z  -
        e5f6a7b8  Büro-Rechner mit langem Namen…  2026-12-02T04:41:24.123Z  web.push.apple.com
        ");
    }
}
