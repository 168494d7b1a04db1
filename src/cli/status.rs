//! `gatehouse status`: whether the gateway is up, and each adapter's capability flags, and
//! the dangers this command can see from where it runs that the gateway cannot (see
//! [`local_dangers`]).

use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_console::output;

pub async fn run(socket: PathBuf, json: bool) -> anyhow::Result<ExitCode> {
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
        let shown = output::status(&status, gatehouse_host_ipc::now());
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
