//! Shared fixtures: a real `gatehouse serve` on a private socket in a temporary folder, and
//! helpers that run the binary's commands against it.

pub mod web_front;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `gatehouse` binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gatehouse"))
}

/// The hook executable beside it, which `gatehouse install` names in agents' settings.
pub fn hook_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gatehouse-hook"))
}

/// The two commands that run the hook: `gatehouse hook AGENT` (in settings written before the
/// hook had an executable of its own, or by a `gatehouse` copied alone) and `gatehouse-hook
/// AGENT` (what `gatehouse install` writes). The tests of the hook's defences run both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookProgram {
    /// `gatehouse hook ...`.
    Subcommand,
    /// `gatehouse-hook ...`.
    Executable,
}

impl HookProgram {
    pub const BOTH: [HookProgram; 2] = [HookProgram::Subcommand, HookProgram::Executable];

    pub fn path(self) -> PathBuf {
        match self {
            HookProgram::Subcommand => binary(),
            HookProgram::Executable => hook_binary(),
        }
    }

    /// `gatehouse`'s words for a hook (`hook claude`, `--bogus hook claude`) as this program
    /// takes them: `gatehouse-hook` takes them without a first `hook`.
    pub fn words<'a>(self, gatehouse_words: &[&'a str]) -> Vec<&'a str> {
        match (self, gatehouse_words) {
            (HookProgram::Executable, ["hook", rest @ ..]) => rest.to_vec(),
            _ => gatehouse_words.to_vec(),
        }
    }
}

impl std::fmt::Display for HookProgram {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            HookProgram::Subcommand => "gatehouse hook",
            HookProgram::Executable => "gatehouse-hook",
        })
    }
}

/// A copy of the `gatehouse` binary that another user (such as `nobody`) can run, in a fresh
/// folder of mode 0755 in the temporary folder. The checkout's own binary may sit under a private folder
/// (root's home, a `mktemp -d`) that another user cannot traverse; the copy is reachable from
/// anywhere. Keep the folder alive for as long as the copy runs.
pub fn binary_for_another_user() -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::Builder::new()
        .prefix("gh-bin")
        .tempdir()
        .expect("a temporary folder for the binary");
    std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755))
        .expect("the binary's folder opens to others");
    let copy = folder.path().join("gatehouse");
    std::fs::copy(binary(), &copy).expect("the binary is copied");
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755))
        .expect("the copy runs for others");
    (folder, copy)
}

/// Whether this test process runs as root (needed to run a process as another user); when
/// not, says that the test cannot run and why (`needs`; see [`cannot_run`]).
pub fn running_as_root(needs: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        cannot_run(&format!("only root can {needs}"));
    }
    root
}

/// A test that cannot run here (`reason`: what is missing and what provides it) fails under CI
/// (`CI` set: `.ci/run` provides everything a test needs) and says it is skipped elsewhere.
pub fn cannot_run(reason: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "this test cannot run under CI: {reason}"
    );
    eprintln!("skipped: {reason}");
}

/// Starts `command` with its stdio piped, writes `stdin` to it and closes it (a child that
/// exits before reading everything closes the pipe; that is its right); killed and reaped
/// when dropped.
pub fn spawn_fed(mut command: Command, stdin: &[u8]) -> Reaped {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = Reaped::from(command.spawn().expect("the command starts"));
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child
}

/// The user id of `nobody` on Debian.
pub const NOBODY: u32 = 65_534;

/// Starts `python3 -c program arguments...` as `nobody` (another local user), in `/`; it is
/// killed and reaped when dropped. Only root can do this.
pub fn python_as_nobody(program: &str, arguments: &[&Path]) -> Reaped {
    use std::os::unix::process::CommandExt;
    // The child looks python3 up on PATH after it became nobody, so a python3 that only root
    // can reach (under /root, say) is passed over for the system's.
    Command::new("python3")
        .arg("-c")
        .arg(program)
        .args(arguments)
        .uid(NOBODY)
        .gid(NOBODY)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("python3 runs as nobody")
        .into()
}

/// Polls `condition` until it holds, or panics after `deadline` naming `what`.
pub fn wait_for(deadline: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let start = Instant::now();
    while !condition() {
        assert!(
            start.elapsed() < deadline,
            "timed out after {deadline:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A private folder for one test: socket, HOME and config live in it.
pub struct Sandbox {
    pub folder: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        let sandbox = Sandbox {
            folder: tempfile::Builder::new()
                .prefix("gh")
                .tempdir()
                .expect("a temporary folder"),
        };
        // A user's home exists; gatehouse never makes one (the hook's spool needs it).
        std::fs::create_dir(sandbox.home()).expect("the sandbox's home");
        sandbox
    }

    pub fn socket(&self) -> PathBuf {
        self.folder.path().join("run").join("gatehouse.sock")
    }

    pub fn home(&self) -> PathBuf {
        self.folder.path().join("home")
    }

    /// A `gatehouse` command that sees only this sandbox.
    pub fn command(&self, arguments: &[&str]) -> Command {
        let mut command = Command::new(binary());
        command.args(arguments);
        self.isolate(&mut command);
        command
    }

    /// Another program (such as `systemd-socket-activate` or `ssh`), with the same cleared
    /// environment as [`Sandbox::command`].
    pub fn program(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        self.isolate(&mut command);
        command
    }

    /// Like [`Sandbox::command`], run through `sh` with `umask` set first (as a person's shell
    /// profile may set it), to show which modes gatehouse gives its files by itself.
    pub fn command_under_umask(&self, umask: u32, arguments: &[&str]) -> Command {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("umask {umask:03o}; exec \"$0\" \"$@\""))
            .arg(binary())
            .args(arguments);
        self.isolate(&mut command);
        command
    }

    /// Clears `command`'s environment but for PATH and this sandbox's folders.
    fn isolate(&self, command: &mut Command) {
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.folder.path().join("config"))
            .env("XDG_RUNTIME_DIR", self.folder.path().join("run"))
            .env("GATEHOUSE_SOCKET", self.socket());
    }

    /// Runs a command to completion.
    pub fn run(&self, arguments: &[&str]) -> Output {
        self.command(arguments)
            .stdin(Stdio::null())
            .output()
            .expect("gatehouse runs")
    }

    /// Runs a command to completion; panics with its stderr unless it succeeded.
    pub fn run_successfully(&self, arguments: &[&str]) -> Output {
        let output = self.run(arguments);
        assert!(
            output.status.success(),
            "gatehouse {arguments:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Answers `once` to prompt `id` with the `--seen` fingerprint from the `approve: ` line of
    /// `shown` (what `gatehouse show` printed); panics unless the answer succeeded.
    pub fn answer_once_as_shown(&self, id: &str, shown: &str) -> Output {
        let approve = shown
            .lines()
            .find_map(|line| line.strip_prefix("approve: "))
            .expect("show says how to approve what it printed");
        let seen = approve.rsplit(' ').next().unwrap();
        self.run_successfully(&["answer", id, "once", "--seen", seen])
    }

    /// Starts `gatehouse ARGUMENTS` in this sandbox, its stdin and stdout null and its stderr
    /// `stderr` (null, or piped for the test to read).
    pub fn spawn_quiet(&self, arguments: &[&str], stderr: Stdio) -> Child {
        self.command(arguments)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|error| panic!("gatehouse {arguments:?} starts: {error}"))
    }

    /// Starts `gatehouse hook AGENT` with `stdin` and extra environment; the hook is killed and
    /// reaped if the test drops it unfinished (a hook whose gateway went away retries for minutes).
    pub fn spawn_hook(&self, agent: &str, stdin: &[u8], env: &[(&str, &str)]) -> Reaped {
        self.spawn_fed(&["hook", agent], env, stdin)
    }

    /// `program` with `gatehouse_words` (as `gatehouse` takes them, `hook` first; see
    /// [`HookProgram::words`]), seeing only this sandbox.
    pub fn hook_command(&self, program: HookProgram, gatehouse_words: &[&str]) -> Command {
        let mut command = Command::new(program.path());
        command.args(program.words(gatehouse_words));
        self.isolate(&mut command);
        command
    }

    /// Like [`Sandbox::spawn_fed`], run by `program`.
    pub fn spawn_hook_program(
        &self,
        program: HookProgram,
        gatehouse_words: &[&str],
        env: &[(&str, &str)],
        stdin: &[u8],
    ) -> Reaped {
        let mut command = self.hook_command(program, gatehouse_words);
        command.envs(env.iter().copied());
        spawn_fed(command, stdin)
    }

    /// Starts `gatehouse ARGUMENTS` with extra environment, its output piped, and `stdin` written
    /// to it and closed (a command that exits before reading everything closes the pipe; that is
    /// its right); killed and reaped if the test drops it unfinished.
    pub fn spawn_fed(&self, arguments: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Reaped {
        let mut command = self.command(arguments);
        command.envs(env.iter().copied());
        spawn_fed(command, stdin)
    }

    /// Runs `gatehouse answer ID ARGUMENTS...` for `prompt` (as `list --json` lists it).
    pub fn answer(&self, prompt: &serde_json::Value, arguments: &[&str]) -> Output {
        let id = prompt["id"].as_str().expect("a prompt has an id");
        self.run(&[&["answer", id][..], arguments].concat())
    }

    /// Starts `gatehouse hook claude` with Claude Code's `event` on its stdin (see
    /// [`Sandbox::spawn_hook`]).
    pub fn spawn_claude(&self, event: &serde_json::Value) -> Reaped {
        self.spawn_hook("claude", event.to_string().as_bytes(), &[])
    }

    /// Every record of the audit log, as `log --json` prints them, oldest first.
    pub fn audit_log(&self) -> Vec<serde_json::Value> {
        let output = self.run_successfully(&["log", "--json"]);
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|line| serde_json::from_str(line).expect("log --json prints JSON lines"))
            .collect()
    }

    /// Waits until a gateway answers `status` on this sandbox's socket.
    pub fn wait_until_serving(&self) {
        wait_for(
            Duration::from_secs(10),
            "the gateway to answer `status`",
            || self.run(&["status"]).status.success(),
        );
    }

    /// The pending prompts, as `list --json` prints them.
    pub fn list(&self) -> Vec<serde_json::Value> {
        let output = self.run_successfully(&["list", "--json"]);
        serde_json::from_slice(&output.stdout).expect("list --json prints a JSON array")
    }

    /// What `gatehouse list` prints, for a person.
    pub fn list_text(&self) -> String {
        String::from_utf8_lossy(&self.run(&["list"]).stdout).into_owned()
    }

    /// What `gatehouse log` prints, for a person.
    pub fn log_text(&self) -> String {
        String::from_utf8_lossy(&self.run(&["log"]).stdout).into_owned()
    }

    /// Waits up to `deadline` until a pending prompt matches `wanted` (`what` names it) and
    /// returns it.
    pub fn wait_for_prompt(
        &self,
        deadline: Duration,
        what: &str,
        wanted: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let mut found = None;
        wait_for(deadline, what, || {
            found = self.list().into_iter().find(&wanted);
            found.is_some()
        });
        found.expect("the prompt was found")
    }

    /// Waits until `count` prompts are pending and returns them (within 30 s: a busy 2-core
    /// machine running the whole suite took more than 10 s to list a 4 MiB prompt).
    pub fn wait_for_pending(&self, count: usize) -> Vec<serde_json::Value> {
        self.wait_for_pending_within(count, Duration::from_secs(30))
    }

    pub fn wait_for_pending_within(
        &self,
        count: usize,
        deadline: Duration,
    ) -> Vec<serde_json::Value> {
        let mut prompts = Vec::new();
        wait_for(deadline, &format!("{count} pending prompts"), || {
            prompts = self.list();
            prompts.len() == count
        });
        prompts
    }

    /// Starts a Claude Code hook holding `event`'s prompt; the hook, and the prompt as the
    /// gateway lists it once it does (the one prompt that was not pending before).
    pub fn hold_claude(&self, event: &serde_json::Value) -> (Reaped, serde_json::Value) {
        let before: Vec<serde_json::Value> = self
            .list()
            .iter()
            .map(|prompt| prompt["id"].clone())
            .collect();
        let hook = self.spawn_hook("claude", event.to_string().as_bytes(), &[]);
        let prompts = self.wait_for_pending(before.len() + 1);
        let prompt = prompts
            .into_iter()
            .find(|prompt| !before.contains(&prompt["id"]))
            .expect("the new prompt is listed");
        (hook, prompt)
    }
}

/// A running `gatehouse serve`, stopped when dropped.
pub struct Gateway {
    pub sandbox: Sandbox,
    process: Child,
}

impl Gateway {
    pub fn start() -> Self {
        Self::start_in(Sandbox::new())
    }

    pub fn start_in(sandbox: Sandbox) -> Self {
        let process = Self::spawn(&sandbox);
        let gateway = Gateway { sandbox, process };
        gateway.wait_until_up();
        gateway
    }

    /// Starts `gatehouse serve` in `sandbox` with `configure` applied to its command first (to
    /// lower its open-file limit, or keep its stderr, say); its stdio is null unless `configure`
    /// says otherwise.
    pub fn start_with(sandbox: Sandbox, configure: impl FnOnce(&mut Command)) -> Self {
        let mut command = sandbox.command(&["serve"]);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        configure(&mut command);
        let process = command.spawn().expect("gatehouse serve starts");
        let gateway = Gateway { sandbox, process };
        gateway.wait_until_up();
        gateway
    }

    fn spawn(sandbox: &Sandbox) -> Child {
        sandbox.spawn_quiet(&["serve"], Stdio::null())
    }

    fn wait_until_up(&self) {
        self.sandbox.wait_until_serving();
    }

    /// Starts a new gateway on the same socket, after [`Gateway::kill`].
    pub fn start_again(&mut self) {
        self.process = Self::spawn(&self.sandbox);
        self.wait_until_up();
    }

    pub fn socket(&self) -> PathBuf {
        self.sandbox.socket()
    }

    /// The gateway's resident memory, from /proc.
    pub fn resident_bytes(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.process.id()))
            .expect("the gateway's /proc status");
        let line = status
            .lines()
            .find(|line| line.starts_with("VmRSS:"))
            .expect("a VmRSS line");
        let kib: u64 = line
            .split_whitespace()
            .nth(1)
            .and_then(|kib| kib.parse().ok())
            .expect("VmRSS in kB");
        kib * 1024
    }

    /// Stops the gateway with SIGTERM, as `kill` or a service manager would, and waits for it.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        // SAFETY: kill only sends a signal, to the process this fixture started and still owns.
        unsafe { libc::kill(self.process.id() as libc::pid_t, libc::SIGTERM) };
        let start = Instant::now();
        loop {
            if let Some(status) = self
                .process
                .try_wait()
                .expect("the gateway can be waited on")
            {
                return status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the gateway did not stop within 10 s of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The gateway's process id (to stop it with SIGSTOP, say).
    pub fn pid(&self) -> u32 {
        self.process.id()
    }

    /// Kills the gateway at once, as a crash would.
    pub fn kill(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.kill();
    }
}

impl std::ops::Deref for Gateway {
    type Target = Sandbox;

    fn deref(&self) -> &Sandbox {
        &self.sandbox
    }
}

/// A hook payload from the captured fixtures, with its session replaced so tests do not collide.
pub fn claude_fixture(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/adapter-claude/tests/data/claude-code-2.1.332")
        .join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(&path).expect("the fixture exists"))
        .expect("the fixture is JSON")
}

/// Claude Code's captured Bash prompt, asking to run `command`.
pub fn claude_bash(command: &str) -> serde_json::Value {
    let mut event = claude_fixture("PermissionRequest-Bash");
    event["tool_input"]["command"] = command.into();
    event
}

/// A prompt's id, as `list --json` prints it.
pub fn id_of(prompt: &serde_json::Value) -> String {
    prompt["id"]
        .as_str()
        .expect("a prompt has an id")
        .to_owned()
}

/// A child process killed and reaped when dropped, so that no test leaves one behind, whether
/// it passes or panics. It derefs to the `Child`; `finish` takes it whole.
pub struct Reaped(Option<Child>);

impl Reaped {
    /// Gives the child back to be waited on by hand (its caller must then reap it).
    pub fn into_inner(mut self) -> Child {
        self.0
            .take()
            .expect("a reaped child is present until dropped")
    }

    /// Waits for the child to exit and returns its output.
    pub fn wait_with_output(self) -> std::io::Result<Output> {
        self.into_inner().wait_with_output()
    }

    /// Kills the child and reaps it (it stays here, exited).
    pub fn stop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl From<Child> for Reaped {
    fn from(child: Child) -> Self {
        Reaped(Some(child))
    }
}

impl std::ops::Deref for Reaped {
    type Target = Child;
    fn deref(&self) -> &Child {
        self.0
            .as_ref()
            .expect("a reaped child is present until dropped")
    }
}

impl std::ops::DerefMut for Reaped {
    fn deref_mut(&mut self) -> &mut Child {
        self.0
            .as_mut()
            .expect("a reaped child is present until dropped")
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Asserts that `text` (what `what` printed) says each of `said`.
pub fn assert_says_all(what: &str, text: &str, said: &[&str]) {
    for said in said {
        assert!(text.contains(said), "{what} says {said:?}: {text}");
    }
}

/// The `behavior` of the Claude Code verdict a hook printed (`allow` or `deny`); panics with what
/// it printed when that is not JSON.
pub fn claude_behavior(output: &Output) -> serde_json::Value {
    let verdict: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("the hook printed a verdict, not {output:?}"));
    verdict["hookSpecificOutput"]["decision"]["behavior"].clone()
}

/// Waits for `hook` (see [`finish`]): it exits 0 and prints nothing (`why` says why).
pub fn finished_silently(hook: Reaped, deadline: Duration, why: &str) -> Output {
    let output = finish(hook, deadline);
    assert!(output.status.success(), "{why}: {output:?}");
    assert!(output.stdout.is_empty(), "{why}: {output:?}");
    output
}

/// Waits for a child to exit and returns its output, panicking if it takes longer than
/// `deadline` (the child is then killed and reaped).
pub fn finish(child: impl Into<Reaped>, deadline: Duration) -> Output {
    let mut child = child.into();
    let start = Instant::now();
    loop {
        if child
            .try_wait()
            .expect("the child can be waited on")
            .is_some()
        {
            return child.wait_with_output().expect("the child's output");
        }
        if start.elapsed() > deadline {
            panic!("the child did not exit within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
