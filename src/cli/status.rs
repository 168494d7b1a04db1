//! `gatehouse status`: whether the gateway is up, the capability flags of each agent installed
//! here (the others on one line; `--json` has every adapter's), and
//! the dangers this command can see from where it runs that the gateway cannot (see
//! [`local_dangers`]).

use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_console::output;

pub async fn run(socket: PathBuf, json: bool, all: bool) -> anyhow::Result<ExitCode> {
    let mut client = match super::connect_frontend(&socket).await {
        Ok(client) => client,
        Err(error) => {
            let dangers = local_dangers();
            if json {
                println!(
                    "{}",
                    serde_json::json!({ "running": false, "socket": socket, "error": format!("{error:#}"), "dangers": dangers })
                );
            } else {
                eprintln!(
                    "gatehouse: {}",
                    gatehouse_core::text::visible(&format!("{error:#}"))
                );
                for danger in &dangers {
                    println!("{}", gatehouse_core::text::visible(danger));
                }
            }
            return Ok(ExitCode::from(1));
        }
    };
    let status = client.status().await?;
    let dangers = local_dangers();
    if json {
        let mut value = serde_json::to_value(&status)?;
        value["running"] = serde_json::Value::Bool(true);
        value["dangers"] = serde_json::json!(dangers);
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        let installed = installed_agents();
        let shown = output::status_for(
            &status,
            gatehouse_host_ipc::now(),
            |id| all || installed.contains(id),
            SEE_EVERY_AGENT,
        );
        print!("{shown}");
        // The gateway refreshes its flags every few seconds; a danger it has said already is
        // not said twice.
        for danger in dangers
            .iter()
            .map(|danger| gatehouse_core::text::visible(danger))
        {
            if !shown.contains(danger.as_ref()) {
                println!("{danger}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// How to see what `status` says of the agents that are not installed here.
const SEE_EVERY_AGENT: &str = "`gatehouse status --all` for each";

/// The ids of the agents installed on this machine, as `gatehouse setup` finds them: the
/// executable on `PATH`, or gatehouse's hooks in its settings. Adapters that install nothing
/// are not agents of this machine's and so are never among them.
fn installed_agents() -> std::collections::BTreeSet<String> {
    let Ok(request) = super::install::request_for(PathBuf::new()) else {
        // Without the request the hooks cannot be looked for: say every agent in full.
        return crate::adapters::registry()
            .iter()
            .map(|adapter| adapter.id().to_owned())
            .collect();
    };
    super::setup::agents::all()
        .into_iter()
        .filter(|agent| agent.executable.is_some() || agent.hook_state(&request).installed())
        .map(|agent| agent.id().to_owned())
        .collect()
}

/// What makes an agent run commands unasked, as this command sees it now: a Gemini policy
/// without the hook that makes it safe (the gateway says it too, but only after its next look,
/// and not at all when it is down), and that policy while the project in the current folder
/// switches gatehouse's hook off (which the gateway, running elsewhere, cannot see).
fn local_dangers() -> Vec<String> {
    use gatehouse_adapter_gemini::install;
    let Some(settings) = install::default_settings_path() else {
        return Vec::new();
    };
    let here = std::env::current_dir().ok();
    let mut dangers = Vec::new();
    dangers.extend(install::policy_without_hook(
        &settings,
        &install::other_settings_files(None),
    ));
    if let Some(folder) = &here {
        dangers.extend(install::project_switches_the_hook_off(&settings, folder));
    }
    dangers
}
