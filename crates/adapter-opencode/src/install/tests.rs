//! The plugin file: written whole with the binary's path, left alone when it is not gatehouse's.

use super::*;
use crate::kilo::KILO;
use crate::OPENCODE;
use gatehouse_harness::own_file::OwnFileError;

#[test]
fn the_plugin_names_the_binary_as_a_string_literal_and_runs_no_shell() {
    let plugin = plugin_for(&OPENCODE, Path::new("/opt/gate \"house\"/gatehouse")).unwrap();
    assert!(is_gatehouse_plugin(&plugin));
    assert!(
        plugin.contains(r#"const GATEHOUSE = "/opt/gate \"house\"/gatehouse""#),
        "{plugin}"
    );
    assert!(!plugin.contains("@GATEHOUSE_PROGRAM@"));
    assert!(plugin.contains("shell: false"));
    assert!(!plugin.contains("exec("), "no shell is ever used");
    assert!(matches!(
        plugin_for(&OPENCODE, Path::new("gatehouse")),
        Err(InstallError::Program(_))
    ));
}

/// One plugin, two agents: each file names its own agent and runs its own adapter's hook, and
/// nothing else in it differs.
#[test]
fn the_plugin_of_each_agent_runs_its_own_adapter_and_differs_in_nothing_else() {
    let program = Path::new("/usr/local/bin/gatehouse");
    let opencode = plugin_for(&OPENCODE, program).unwrap();
    let kilo = plugin_for(&KILO, program).unwrap();
    assert!(opencode.starts_with("// gatehouse's OpenCode plugin: hands OpenCode's"));
    assert!(kilo.starts_with("// gatehouse's Kilo plugin: hands Kilo's"));
    assert!(is_gatehouse_plugin(&opencode) && is_gatehouse_plugin(&kilo));
    assert!(opencode.contains(r#"const ADAPTER = "opencode""#));
    assert!(kilo.contains(r#"const ADAPTER = "kilo""#));
    assert!(kilo.contains(r#"spawn(GATEHOUSE, ["hook", ADAPTER, word]"#));
    for plugin in [&opencode, &kilo] {
        assert!(!plugin.contains('@'), "a placeholder is left: {plugin}");
    }
    let kilo_as_opencode = kilo.replace("Kilo", "OpenCode").replace("kilo", "opencode");
    assert_eq!(kilo_as_opencode, opencode);
    let odd = PluginAgent {
        id: "kilo\"; x",
        ..KILO
    };
    assert!(matches!(
        plugin_for(&odd, program),
        Err(InstallError::AdapterId(_))
    ));
}

/// Another local user cannot answer through the plugin: it opens no port, fetches no URL (not
/// even OpenCode's `serverUrl`, which another user could reach when OpenCode listens), and
/// replies only through OpenCode's in-process client with what its own child printed.
#[test]
fn the_plugin_listens_nowhere_and_replies_only_in_process() {
    let plugin = plugin_for(&OPENCODE, Path::new("/usr/local/bin/gatehouse")).unwrap();
    for forbidden in [
        "fetch(",
        "serverUrl",
        "createServer",
        "listen(",
        "net\"",
        "http\"",
        "eval(",
        "Function(",
    ] {
        assert!(!plugin.contains(forbidden), "the plugin uses {forbidden}");
    }
    assert!(plugin.contains("client._client.post("));
    let imports: Vec<&str> = plugin
        .lines()
        .filter(|line| line.starts_with("import "))
        .collect();
    assert_eq!(imports, [r#"import { spawn } from "node:child_process""#]);
}

#[test]
fn install_writes_one_file_and_uninstall_removes_exactly_it() {
    let folder = tempfile::tempdir().unwrap();
    let plugins = folder.path().join("opencode/plugin");
    std::fs::create_dir_all(&plugins).unwrap();
    let theirs = plugins.join("theirs.js");
    std::fs::write(&theirs, "export const Theirs = async () => ({})\n").unwrap();
    let ours = plugins.join(PLUGIN_FILE_NAME);
    let program = Path::new("/usr/local/bin/gatehouse");
    assert!(install_plugin(&OPENCODE, &ours, program).unwrap());
    assert!(
        !install_plugin(&OPENCODE, &ours, program).unwrap(),
        "unchanged"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&ours).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
    }
    let mut names: Vec<String> = std::fs::read_dir(&plugins)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["gatehouse.js", "theirs.js"]);
    assert!(uninstall_plugin(&ours).unwrap());
    assert!(!ours.exists());
    assert!(theirs.exists());
    assert!(!uninstall_plugin(&ours).unwrap(), "nothing left to remove");
}

#[test]
fn a_file_that_is_not_gatehouses_is_never_overwritten_or_removed() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(PLUGIN_FILE_NAME);
    std::fs::write(&path, "// someone else's gatehouse.js\n").unwrap();
    let program = Path::new("/usr/local/bin/gatehouse");
    for agent in [&OPENCODE, &KILO] {
        assert!(matches!(
            install_plugin(agent, &path, program),
            Err(InstallError::File(OwnFileError::NotOurs(_)))
        ));
    }
    assert!(matches!(
        uninstall_plugin(&path),
        Err(InstallError::File(OwnFileError::NotOurs(_)))
    ));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "// someone else's gatehouse.js\n"
    );
}

#[test]
fn the_user_folder_honours_xdg_config_home_and_a_project_has_its_own() {
    for (agent, project_plugin, user_plugin) in [
        (
            &OPENCODE,
            "/w/.opencode/plugin/gatehouse.js",
            "opencode/plugin/gatehouse.js",
        ),
        (
            &KILO,
            "/w/.kilo/plugin/gatehouse.js",
            "kilo/plugin/gatehouse.js",
        ),
    ] {
        let installer = PluginInstaller { agent };
        let project = installer
            .settings_path(&SettingsScope::Project(PathBuf::from("/w")))
            .unwrap();
        assert_eq!(project, Path::new(project_plugin));
        // The variables are the process's: read, not changed, here.
        if let Some(xdg) =
            std::env::var_os("XDG_CONFIG_HOME").filter(|x| Path::new(x).is_absolute())
        {
            let user = installer.settings_path(&SettingsScope::User).unwrap();
            assert_eq!(user, PathBuf::from(xdg).join(user_plugin));
        }
    }
}

/// A file of gatehouse's for another agent (an OpenCode plugin copied into Kilo's folder) is
/// gatehouse's, and is replaced by the agent's own.
#[test]
fn an_install_replaces_gatehouses_plugin_of_another_agent() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(PLUGIN_FILE_NAME);
    let program = Path::new("/usr/local/bin/gatehouse");
    std::fs::write(&path, plugin_for(&OPENCODE, program).unwrap()).unwrap();
    assert!(install_plugin(&KILO, &path, program).unwrap());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        plugin_for(&KILO, program).unwrap()
    );
    assert!(!is_gatehouse_plugin("// gatehouse's plugin: no name\n"));
    assert!(!is_gatehouse_plugin("x\n// gatehouse's OpenCode plugin:\n"));
}

/// The plugin runs the small hook executable beside the gatehouse binary that installs it, with
/// the same words (`gatehouse-hook` takes `hook ADAPTER EVENT` too); without one there, or one
/// that may not be run, it runs the binary, as plugins written before do.
#[test]
fn the_plugin_runs_the_hook_executable_beside_gatehouse_when_it_is_there() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let program = folder.path().join("gatehouse");
    let hook = folder.path().join("gatehouse-hook");
    std::fs::write(&program, "").unwrap();
    let installer = PluginInstaller { agent: &KILO };
    let install = |settings: &str| {
        let request = InstallRequest {
            settings: folder.path().join(settings),
            program: program.clone(),
            hold_seconds: 60,
            timeout_margin_seconds: 30,
        };
        let outcome = installer.install(&request).unwrap();
        let plugin = std::fs::read_to_string(&request.settings).unwrap();
        (plugin, outcome.changes.join("\n"))
    };
    let runs = |plugin: &str, path: &Path| {
        plugin.contains(&format!(
            "const GATEHOUSE = {}",
            serde_json::to_string(path.to_str().unwrap()).unwrap()
        ))
    };
    let (alone, said) = install("alone.js");
    assert!(runs(&alone, &program), "{alone}");
    assert!(
        said.contains(&format!("{} hook kilo", program.display())),
        "{said}"
    );
    // A file that may not be run is not the hook executable.
    std::fs::write(&hook, "").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(runs(&install("not-runnable.js").0, &program));
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (beside, said) = install("beside.js");
    assert!(runs(&beside, &hook), "{beside}");
    assert!(
        said.contains(&format!("{} hook kilo", hook.display())),
        "{said}"
    );
    assert!(beside.contains(r#"spawn(GATEHOUSE, ["hook", ADAPTER, word]"#));
    assert_eq!(hook_program(&program), hook);
}
