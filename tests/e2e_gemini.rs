//! End-to-end: the real Gemini CLI (npm `@google/gemini-cli`, pinned in package.json) in tmux,
//! offline against a scripted Gemini API on loopback, with gatehouse's hooks installed by
//! `gatehouse install gemini` into a private home, and a real `gatehouse serve`. Gemini's
//! prompts are watched read-only: the person answers in Gemini's terminal, and gatehouse lists
//! the prompt until Gemini shows it is over.
//!
//! Without Gemini CLI installed this test is skipped locally, and fails in CI (`CI` set).

use std::time::Duration;

use serde_json::{json, Value};

use gatehouse_adapter_gemini::probe::still_typed;

use crate::common::{wait_for, Gateway};
use crate::support::gemini_env::{
    fake_gemini, find_gemini_bin, GeminiEnv, DIALOG_TEXT, READY_TEXT,
};
use crate::support::tmux::Tmux;
use crate::support::world::{install, refused, required_bin, sandbox_env, AgentWorld};

const DEADLINE: Duration = Duration::from_secs(30);

const COMMAND: &str = "printf watched > watched.txt";

/// How Gemini CLI shows what a hook named `gatehouse` wrote (its stderr, when stdout is empty).
/// Both hooks' names start with it: `gatehouse` (watching) and `gatehouse-answer` (BeforeTool).
const HOOK_SAYS: &str = "[gatehouse";

/// Gemini's terminal and home; the terminal stops first.
struct Gemini {
    tmux: Tmux,
    env: GeminiEnv,
}

/// The kit's world with a running Gemini whose hooks `gatehouse install gemini` wrote.
type World = AgentWorld<Gemini>;

impl World {
    /// Types `message` into Gemini and sends it (the kit's [`still_typed`] says when Enter was dropped).
    fn submit(&self, message: &str) {
        let tmux = &self.agent.tmux;
        self.agent.env.submit_surely(tmux, message, still_typed);
    }

    /// Waits until `prompt` is no longer listed (`what` says why; other prompts may be), and a
    /// late `once` to it is refused as withdrawn.
    fn withdrawn_while_others_may_stay(&self, prompt: &Value, what: &str) {
        wait_for(DEADLINE, what, || {
            let listed = self.gateway.list();
            listed.iter().all(|listed| listed["id"] != prompt["id"])
        });
        refused(&self.answer(&prompt["id"], &["once"]), "withdrawn");
    }

    fn start() -> Option<World> {
        Self::start_with(COMMAND, false).map(|(world, _)| world)
    }

    /// The world with `command` scripted, installed answerable (`install gemini --answerable
    /// --yes`) when `answerable`; also returns Gemini's executable, for the probe.
    fn start_with(command: &str, answerable: bool) -> Option<(World, std::path::PathBuf)> {
        let bin = required_bin("Gemini CLI", find_gemini_bin())?;
        let gateway = Gateway::start();
        let fake = fake_gemini(command);
        // The same HOME and XDG folders as the sandbox's gatehouse commands, so the hooks that
        // Gemini runs find the gateway.
        let env = sandbox_env(&gateway, true);
        let folder = gateway.sandbox.folder.path();
        let gemini = GeminiEnv::new(&bin, folder, &gateway.home(), &fake, &env);
        if answerable {
            let output = gateway.run(&["install", "gemini", "--answerable", "--yes"]);
            let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
            assert!(
                output.status.success(),
                "{stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(stdout.contains("UNASKED"), "the price is said: {stdout}");
        } else {
            let stdout = install(&gateway, "gemini", &[]);
            assert!(stdout.contains("read-only"), "{stdout}");
        }
        let tmux = gemini.start();
        let world = AgentWorld {
            agent: Gemini { tmux, env: gemini },
            adapter: "gemini",
            gateway,
            fake,
        };
        Some((world, bin))
    }

    /// Submits a turn, waits for Gemini's dialog, and returns the one prompt the gateway lists.
    fn prompt_for(&self, message: &str) -> Value {
        self.submit(message);
        let screen = self.agent.tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
        assert!(!screen.contains(HOOK_SAYS), "{screen}");
        self.the_one_listed(&self.agent.tmux, DEADLINE)
    }
}

#[test]
fn gemini_prompts_are_watched_read_only_and_leave_when_gemini_moves_on() {
    let Some(mut world) = World::start() else {
        return;
    };

    // Allow in Gemini's dialog: listed read-only meanwhile, then the command runs and AfterTool
    // withdraws the prompt.
    let prompt = world.prompt_for("please write watched.txt");
    assert_eq!(prompt["adapter"], "gemini");
    assert_eq!(prompt["tool"], "run_shell_command");
    assert_eq!(prompt["summary"], COMMAND);
    assert_eq!(prompt["input"]["command"], COMMAND);
    assert_eq!(prompt["actions"], json!([]), "read-only");
    let reason = prompt["read_only_reason"].as_str().unwrap_or_default();
    assert!(reason.contains("allow does not skip it"), "{prompt}");
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");
    assert!(!world.agent.env.marker("watched.txt").exists());
    // "1. Allow once" is selected: Enter allows. Gemini may drop a key while it draws the
    // dialog, so Enter is pressed again until the dialog goes.
    world
        .agent
        .tmux
        .press_until_gone(&["Enter"], DIALOG_TEXT, Duration::from_secs(3), DEADLINE);
    wait_for(DEADLINE, "the allowed command to write its file", || {
        std::fs::read_to_string(world.agent.env.marker("watched.txt"))
            .is_ok_and(|text| text == "watched")
    });
    wait_for(DEADLINE, "the allowed prompt to be withdrawn", || {
        world.gateway.list().is_empty()
    });
    refused(&world.answer(&prompt["id"], &["once"]), "withdrawn");
    world.agent.tmux.wait_for_text("Done.", DEADLINE);
    let responses = world.fake.outputs();
    assert_eq!(responses.len(), 1, "{responses:?}");
    assert!(
        responses[0]["response"].get("output").is_some(),
        "{responses:?}"
    );

    // Esc in Gemini's dialog gives no event: the prompt stays listed until the person's next
    // message (BeforeAgent) shows the session moved on.
    std::fs::remove_file(world.agent.env.marker("watched.txt")).unwrap();
    let cancelled = world.prompt_for("once more");
    assert_ne!(cancelled["id"], prompt["id"]);
    world.dismiss_dialog();
    assert_eq!(world.gateway.list().len(), 1, "no event after Esc");
    world.submit("and again");
    world.withdrawn_while_others_may_stay(
        &cancelled,
        "the next message to withdraw the cancelled prompt",
    );
    assert!(!world.agent.env.marker("watched.txt").exists());

    // With the gateway down, Gemini behaves as if gatehouse were not installed: its dialog
    // comes, nothing from gatehouse is on its screen, and Allow runs the command.
    world.dismiss_dialog();
    world.without_the_gateway_geminis_dialog_allows("watched.txt");
    wait_for(DEADLINE, "the model to get the command's output", || {
        world.fake.outputs().len() == 2
    });
    let screen = world.agent.tmux.screen();
    assert!(!screen.contains(HOOK_SAYS), "{screen}");
}

const ANSWERED: &str = "printf answered > answered.txt";

impl World {
    /// Submits a turn and returns the prompt the answerable hook holds: listed with once and
    /// deny, while Gemini shows no dialog (only "Executing Hook").
    fn held_for(&self, message: &str) -> Value {
        self.submit(message);
        let mut held = None;
        wait_for(DEADLINE, "a held prompt with once and deny", || {
            held = self
                .gateway
                .list()
                .into_iter()
                .find(|prompt| prompt["actions"] == json!(["once", "deny"]));
            held.is_some()
        });
        let screen = self.agent.tmux.wait_for_text("Executing Hook", DEADLINE);
        assert!(
            !screen.contains(DIALOG_TEXT),
            "no dialog while the hook holds: {screen}"
        );
        held.unwrap()
    }

    /// With the gateway gone, Gemini behaves as if gatehouse were not installed: a message
    /// brings its own dialog, with nothing from gatehouse on its screen, and its Allow runs the
    /// command, which writes `file`.
    fn without_the_gateway_geminis_dialog_allows(&mut self, file: &str) {
        self.gateway.kill();
        self.submit("without the gateway");
        let tmux = &self.agent.tmux;
        let screen = tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
        assert!(!screen.contains(HOOK_SAYS), "{screen}");
        assert!(!self.agent.env.marker(file).exists());
        tmux.press_until_gone(&["Enter"], DIALOG_TEXT, Duration::from_secs(3), DEADLINE);
        wait_for(
            DEADLINE,
            "the command allowed in Gemini's dialog to run",
            || self.agent.env.marker(file).exists(),
        );
    }

    /// Esc until Gemini's dialog is gone and its input box is back.
    fn dismiss_dialog(&self) {
        self.agent.tmux.press_until_gone(
            &["Escape"],
            DIALOG_TEXT,
            Duration::from_secs(3),
            DEADLINE,
        );
        self.agent.tmux.wait_for_text(READY_TEXT, DEADLINE);
    }

    fn signal_gateway(&self, signal: libc::c_int) {
        // SAFETY: kill only sends a signal, to the gateway this test started and still owns.
        unsafe { libc::kill(self.gateway.pid() as libc::pid_t, signal) };
    }

    fn answered(&self) -> bool {
        self.agent.env.marker("answered.txt").exists()
    }
}

#[test]
fn gemini_answerable_by_choice_once_probed_and_its_own_dialog_whenever_gatehouse_has_no_answer() {
    let Some((mut world, bin)) = World::start_with(ANSWERED, true) else {
        return;
    };

    // Before the probe: the hook hands the call to Gemini's dialog at once, listed read-only.
    let watched = world.prompt_for("before the probe");
    assert_eq!(watched["actions"], json!([]), "{watched}");
    assert!(!world.answered());
    world.dismiss_dialog();

    // The probe proves once, deny and hand-back on this Gemini CLI, offline.
    let probed = world.probe(&bin);
    assert!(probed.contains("Gemini CLI 0.61.0"), "{probed}");
    world.wait_until_verified("Gemini CLI 0.61.0");

    // once from the gateway runs the command, with no dialog from Gemini.
    let held = world.held_for("run it");
    assert_eq!(held["summary"], ANSWERED);
    assert_eq!(held["input"]["command"], ANSWERED);
    assert_eq!(held["input"]["description"], "write the file");
    let answered = world.answer(&held["id"], &["once"]);
    assert!(answered.status.success(), "{answered:?}");
    wait_for(DEADLINE, "the command answered once to run", || {
        world.answered()
    });
    world.agent.tmux.wait_for_text("Done.", DEADLINE);
    assert!(!world.agent.tmux.screen().contains(DIALOG_TEXT));
    let outputs = world.fake.outputs().len();

    // deny: not run, and the reason reaches the model.
    std::fs::remove_file(world.agent.env.marker("answered.txt")).unwrap();
    let held = world.held_for("and again");
    let denied = world.answer(
        &held["id"],
        &["deny", "--message", "use make clean instead"],
    );
    assert!(denied.status.success(), "{denied:?}");
    wait_for(DEADLINE, "the model to get the deny", || {
        world.fake.outputs().len() > outputs
    });
    let response = world.fake.outputs()[outputs].to_string();
    assert!(
        response.contains("Tool execution blocked: use make clean instead"),
        "{response}"
    );
    assert!(!world.answered());
    world.agent.tmux.wait_for_text(READY_TEXT, DEADLINE);

    // release: Gemini's own dialog, watched read-only; nothing runs unasked.
    let held = world.held_for("hand it back");
    let released = world
        .gateway
        .run(&["release", held["id"].as_str().unwrap()]);
    assert!(released.status.success(), "{released:?}");
    let screen = world.agent.tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
    assert!(!screen.contains(HOOK_SAYS), "{screen}");
    assert!(!world.answered());
    world.dismiss_dialog();

    // Esc while the hook holds: the call is over in Gemini, and the prompt leaves the list.
    let held = world.held_for("cancel it");
    world.agent.tmux.send_keys(&["Escape"]);
    world
        .agent
        .tmux
        .wait_for_text("Request cancelled", DEADLINE);
    world.withdrawn_while_others_may_stay(&held, "the cancelled prompt to be withdrawn");
    assert!(!world.answered());
    world.agent.tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A gateway that is wedged (SIGSTOP): Gemini's own dialog comes, nothing runs unasked.
    world.signal_gateway(libc::SIGSTOP);
    world.submit("with the gateway stopped");
    let screen = world.agent.tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
    world.signal_gateway(libc::SIGCONT);
    assert!(!screen.contains(HOOK_SAYS), "{screen}");
    assert!(!world.answered());
    world.dismiss_dialog();

    // A gateway that is gone: Gemini's own dialog, and its Allow runs the command, as if
    // gatehouse were not installed.
    world.without_the_gateway_geminis_dialog_allows("answered.txt");
}
