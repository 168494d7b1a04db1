//! A private Gemini CLI for the end-to-end tests: a scripted Gemini API on loopback (the
//! harness's [`ScriptedServer`] with a generateContent / streamGenerateContent handler), and a
//! home whose `~/.gemini/settings.json` selects api-key auth and turns folder trust, updates,
//! telemetry and tips off, as in the captured fixtures.
//!
//! What Gemini CLI 0.61.0 sends, with `GOOGLE_GEMINI_BASE_URL` set: `POST
//! /v1beta/models/<router model>:generateContent` (it picks a model for the turn and reads the
//! reply's text as JSON; any reply will do) and `POST
//! /v1beta/models/<model>:streamGenerateContent?alt=sse`, answered with `data: {json}\n\n` lines of
//! `{"candidates": [{"content": {"role": "model", "parts": [...]}, "finishReason": "STOP"}]}`.
//! After a `functionCall` part, the next request ends with a user content holding the
//! `functionResponse` (`{"output": ...}` when the command ran).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_harness::http::{Request, Response, ScriptedServer};
use serde_json::{json, Value};

use super::tmux::Tmux;

/// Gemini's input box, once it is ready for a message.
pub const READY_TEXT: &str = "Type your message";

/// The question of Gemini's permission dialog for a shell command.
pub const DIALOG_TEXT: &str = "Allow execution of";

/// How long Gemini may take to start.
pub const START_DEADLINE: Duration = Duration::from_secs(60);

/// Finds Gemini CLI: `GATEHOUSE_GEMINI_BIN`, then `<repo>/node_modules/.bin/gemini`.
pub fn find_gemini_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("GATEHOUSE_GEMINI_BIN")
        .map(PathBuf::from)
        .filter(|path| path.is_file())
    {
        return Some(path);
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/.bin/gemini");
    local.is_file().then_some(local)
}

/// The scripted Gemini API: every turn asks to run `command`, then, once it has the function's
/// response, says "Done.".
pub struct FakeGemini {
    server: ScriptedServer,
    function_responses: Arc<Mutex<Vec<Value>>>,
}

impl FakeGemini {
    pub fn start(command: &str) -> FakeGemini {
        let function_responses = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&function_responses);
        let command = command.to_owned();
        let server = ScriptedServer::start(move |request| answer(request, &command, &recorded))
            .expect("the scripted Gemini API starts");
        FakeGemini {
            server,
            function_responses,
        }
    }

    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// The `functionResponse` parts that reached the model, in order.
    pub fn function_responses(&self) -> Vec<Value> {
        self.function_responses.lock().unwrap().clone()
    }
}

fn answer(request: &Request, command: &str, recorded: &Mutex<Vec<Value>>) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        return Response::not_found(request);
    };
    let route = request.route();
    if route.ends_with(":generateContent") {
        // The router's question: which model for this turn.
        let choice = json!({ "reasoning": "a simple request", "model_choice": "flash" });
        return Response::json(
            "200 OK",
            reply(json!({ "text": choice.to_string() })).to_string(),
        );
    }
    if !route.ends_with(":streamGenerateContent") {
        return Response::not_found(request);
    }
    let last_parts = body["contents"]
        .as_array()
        .and_then(|contents| contents.last())
        .and_then(|content| content["parts"].as_array())
        .cloned()
        .unwrap_or_default();
    let responses: Vec<Value> = last_parts
        .iter()
        .filter_map(|part| part.get("functionResponse").cloned())
        .collect();
    let part = if responses.is_empty() {
        json!({ "functionCall": { "name": "run_shell_command", "args": { "command": command, "description": "write the file" } } })
    } else {
        recorded.lock().unwrap().extend(responses);
        json!({ "text": "Done." })
    };
    Response::events([(None, reply(part).to_string())])
}

fn reply(part: Value) -> Value {
    json!({
        "candidates": [{ "content": { "role": "model", "parts": [part] }, "finishReason": "STOP", "index": 0 }],
        "usageMetadata": { "promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15 },
    })
}

/// A workspace and Gemini's environment for one test. `home` is the HOME that Gemini (and so
/// its hooks) and `gatehouse install gemini` share.
pub struct GeminiEnv {
    pub gemini_bin: PathBuf,
    pub workspace: PathBuf,
    env: Vec<(String, String)>,
}

impl GeminiEnv {
    /// Writes `home/.gemini/settings.json` and creates `root/workspace`; `env` is the rest of
    /// Gemini's environment (HOME, the gateway's socket, ...).
    pub fn new(
        gemini_bin: &Path,
        root: &Path,
        home: &Path,
        fake: &FakeGemini,
        env: &[(&str, String)],
    ) -> GeminiEnv {
        let settings = json!({
            "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": false } },
            "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
            "privacy": { "usageStatisticsEnabled": false },
            "telemetry": { "enabled": false },
            "ui": { "hideTips": true, "hideBanner": true },
        });
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::write(
            home.join(".gemini/settings.json"),
            serde_json::to_string_pretty(&settings).unwrap(),
        )
        .unwrap();
        let workspace = root.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        let mut all = vec![
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("TERM".to_owned(), "xterm-256color".to_owned()),
            ("GEMINI_API_KEY".to_owned(), "x".to_owned()),
            ("GOOGLE_GEMINI_BASE_URL".to_owned(), fake.base_url()),
        ];
        all.extend(
            env.iter()
                .map(|(name, value)| (name.to_string(), value.clone())),
        );
        GeminiEnv {
            gemini_bin: gemini_bin.to_path_buf(),
            workspace: workspace.canonicalize().unwrap(),
            env: all,
        }
    }

    /// Starts Gemini in tmux and waits for its input box.
    pub fn start(&self) -> Tmux {
        let env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        let tmux = Tmux::start(
            "gemini",
            &self.workspace,
            &env,
            &[self.gemini_bin.to_str().unwrap()],
        );
        tmux.wait_for_text(READY_TEXT, START_DEADLINE);
        tmux
    }

    /// Types a message into Gemini and sends it.
    pub fn submit(&self, tmux: &Tmux, message: &str) {
        tmux.send_text(message);
        tmux.wait_for_text(message, START_DEADLINE);
        tmux.send_keys(&["Enter"]);
    }

    pub fn marker(&self, name: &str) -> PathBuf {
        self.workspace.join(name)
    }
}
