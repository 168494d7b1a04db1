//! End-to-end: the real Gemini CLI (npm `@google/gemini-cli`, pinned in package.json) in tmux,
//! offline against a scripted Gemini API on loopback, with gatehouse's hooks installed by
//! `gatehouse install gemini` into a private home, and a real `gatehouse serve`. Gemini's
//! prompts are watched read-only: the person answers in Gemini's terminal, and gatehouse lists
//! the prompt until Gemini shows it is over.
//!
//! Without Gemini CLI installed this test is skipped locally, and fails in CI (`CI` set).

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{wait_for, Gateway};
use crate::support::gemini_env::{
    fake_gemini, find_gemini_bin, GeminiEnv, DIALOG_TEXT, READY_TEXT,
};
use crate::support::tmux::Tmux;
use crate::support::world::{install, refused, required_bin, sandbox_env, AgentWorld};

const DEADLINE: Duration = Duration::from_secs(30);

const COMMAND: &str = "printf watched > watched.txt";

/// How Gemini CLI shows what a hook named `gatehouse` wrote (its stderr, when stdout is empty).
const HOOK_SAYS: &str = "[gatehouse]";

/// Gemini's terminal and home; the terminal stops first.
struct Gemini {
    tmux: Tmux,
    env: GeminiEnv,
}

/// The kit's world with a running Gemini whose hooks `gatehouse install gemini` wrote.
type World = AgentWorld<Gemini>;

impl World {
    fn start() -> Option<World> {
        let bin = required_bin("Gemini CLI", find_gemini_bin())?;
        let gateway = Gateway::start();
        let fake = fake_gemini(COMMAND);
        // The same HOME and XDG folders as the sandbox's gatehouse commands, so the hooks that
        // Gemini runs find the gateway.
        let env = sandbox_env(&gateway, true);
        let folder = gateway.sandbox.folder.path();
        let gemini = GeminiEnv::new(&bin, folder, &gateway.home(), &fake, &env);
        let stdout = install(&gateway, "gemini", &[]);
        assert!(stdout.contains("read-only"), "{stdout}");
        let tmux = gemini.start();
        Some(AgentWorld {
            agent: Gemini { tmux, env: gemini },
            adapter: "gemini",
            gateway,
            fake,
        })
    }

    /// Submits a turn, waits for Gemini's dialog, and returns the one prompt the gateway lists.
    fn prompt_for(&self, message: &str) -> Value {
        self.agent.env.submit(&self.agent.tmux, message);
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
    world
        .agent
        .tmux
        .press_until_gone(&["Escape"], DIALOG_TEXT, Duration::from_secs(3), DEADLINE);
    world.agent.tmux.wait_for_text(READY_TEXT, DEADLINE);
    assert_eq!(world.gateway.list().len(), 1, "no event after Esc");
    world.agent.env.submit(&world.agent.tmux, "and again");
    wait_for(
        DEADLINE,
        "the next message to withdraw the cancelled prompt",
        || {
            world
                .gateway
                .list()
                .iter()
                .all(|listed| listed["id"] != cancelled["id"])
        },
    );
    refused(&world.answer(&cancelled["id"], &["once"]), "withdrawn");
    assert!(!world.agent.env.marker("watched.txt").exists());

    // With the gateway down, Gemini behaves as if gatehouse were not installed: its dialog
    // comes, nothing from gatehouse is on its screen, and Allow runs the command.
    world
        .agent
        .tmux
        .press_until_gone(&["Escape"], DIALOG_TEXT, Duration::from_secs(3), DEADLINE);
    world.agent.tmux.wait_for_text(READY_TEXT, DEADLINE);
    world.gateway.kill();
    world
        .agent
        .env
        .submit(&world.agent.tmux, "without the gateway");
    let screen = world.agent.tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
    assert!(!screen.contains(HOOK_SAYS), "{screen}");
    world
        .agent
        .tmux
        .press_until_gone(&["Enter"], DIALOG_TEXT, Duration::from_secs(3), DEADLINE);
    wait_for(
        DEADLINE,
        "the command allowed without a gateway to run",
        || world.agent.env.marker("watched.txt").exists(),
    );
    wait_for(DEADLINE, "the model to get the command's output", || {
        world.fake.outputs().len() == 2
    });
    let screen = world.agent.tmux.screen();
    assert!(!screen.contains(HOOK_SAYS), "{screen}");
}
