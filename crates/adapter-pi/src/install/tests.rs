//! The extension file: written whole with the hook's path, the tools and the hold's bound as
//! JSON literals, private, removed exactly, left alone when it is not gatehouse's.

use gatehouse_core::kit::{HookInstaller, InstallRequest};
use gatehouse_harness::own_file::OwnFileError;

use super::*;

fn tools(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| name.to_string()).collect()
}

#[test]
fn the_extension_names_the_hook_tools_and_deadline_as_literals_and_runs_no_shell() {
    let hook = Path::new("/opt/gate \"house\"/gatehouse-hook");
    let extension = extension_for(hook, &tools(&["bash", "write"]), 630).unwrap();
    assert!(is_gatehouse_extension(&extension));
    assert!(
        extension.contains(r#"const HOOK = "/opt/gate \"house\"/gatehouse-hook""#),
        "{extension}"
    );
    assert!(extension.contains(r#"const TOOLS = ["bash","write"]"#));
    assert!(extension.contains("const HOLD_DEADLINE_MS = 630000"));
    assert!(
        !extension.contains("\"@GATEHOUSE_") && !extension.contains("\"@HOLD_"),
        "every placeholder is filled"
    );
    assert!(extension.contains("shell: false"));
    assert!(!extension.contains("exec("), "no shell is ever used");
    assert_eq!(installed_tools(&extension), Some(tools(&["bash", "write"])));
    assert!(matches!(
        extension_for(Path::new("gatehouse-hook"), &tools(&["bash"]), 1),
        Err(InstallError::Program(_))
    ));
}

#[test]
fn chosen_tools_are_names_only() {
    assert_eq!(
        tools_from(" bash, write ,edit").unwrap(),
        tools(&["bash", "write", "edit"])
    );
    for bad in ["", " , ", "bash;rm", "a\"b", "bash,`x`", &"x,".repeat(65)] {
        assert!(
            matches!(tools_from(bad), Err(InstallError::Tools(_))),
            "{bad:?}"
        );
    }
}

fn request(settings: &Path, program: &Path) -> InstallRequest {
    InstallRequest {
        settings: settings.to_path_buf(),
        program: program.to_path_buf(),
        hold_seconds: 600,
        timeout_margin_seconds: 30,
    }
}

#[test]
fn install_writes_one_private_file_keeps_the_chosen_tools_and_uninstall_removes_exactly_it() {
    let folder = tempfile::tempdir().unwrap();
    let bin = folder.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let program = bin.join("gatehouse");
    std::fs::write(&program, "").unwrap();
    let path = PI_INSTALLER
        .settings_path(&SettingsScope::Project(folder.path().join("project")))
        .unwrap();
    assert!(path.ends_with("project/.pi/extensions/gatehouse.ts"));

    let installed = PI_INSTALLER.install(&request(&path, &program)).unwrap();
    assert_eq!(installed.changes.len(), 1, "{installed:?}");
    let extension = std::fs::read_to_string(&path).unwrap();
    assert_eq!(installed_tools(&extension), Some(tools(&DEFAULT_TOOLS)));
    assert!(extension.contains("const HOLD_DEADLINE_MS = 630000"));
    // No hook executable beside it: gatehouse itself, which takes `hook pi EVENT`.
    assert!(extension.contains(&format!("const HOOK = {:?}", program.display().to_string())));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
    }
    let again = PI_INSTALLER.install(&request(&path, &program)).unwrap();
    assert!(again.changes.is_empty(), "nothing changes");

    // A reinstall keeps tools chosen before (written here as a choice would have).
    let chosen = extension_for(&program, &tools(&["bash"]), 630).unwrap();
    std::fs::write(&path, chosen).unwrap();
    PI_INSTALLER.install(&request(&path, &program)).unwrap();
    let extension = std::fs::read_to_string(&path).unwrap();
    assert_eq!(installed_tools(&extension), Some(tools(&["bash"])));

    let others = path.with_file_name("theirs.ts");
    std::fs::write(&others, "export default function () {}").unwrap();
    let removed = PI_INSTALLER.uninstall(&path).unwrap();
    assert_eq!(removed.changes, ["removed gatehouse's extension"]);
    assert!(!path.exists());
    assert!(others.exists(), "another extension is left alone");
    assert!(PI_INSTALLER.uninstall(&path).unwrap().changes.is_empty());
}

#[test]
fn a_file_that_is_not_gatehouses_is_never_overwritten_or_removed() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("gatehouse.ts");
    std::fs::write(&path, "// my own gatehouse.ts\n").unwrap();
    let program = folder.path().join("gatehouse");
    let not_ours = |error: KitError| {
        matches!(
            error.downcast_ref::<InstallError>(),
            Some(InstallError::File(OwnFileError::NotOurs(_)))
        )
    };
    assert!(not_ours(
        PI_INSTALLER.install(&request(&path, &program)).unwrap_err()
    ));
    assert!(not_ours(PI_INSTALLER.uninstall(&path).unwrap_err()));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "// my own gatehouse.ts\n"
    );
}
