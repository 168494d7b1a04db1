//! The tests' view of the one fake Anthropic API, which lives in the Claude adapter's probe
//! ([`gatehouse_adapter_claude::probe::fake_anthropic`]): the same fake, with waits that panic
//! when their deadline passes, as a test wants.

use std::ops::Deref;
use std::time::Duration;

use serde_json::Value;

pub use gatehouse_adapter_claude::probe::fake_anthropic::{
    tool_result_text, ScriptedTurn, PLAN_FILE,
};

/// A running fake Anthropic API; it stops when dropped.
pub struct FakeAnthropic {
    fake: gatehouse_adapter_claude::probe::fake_anthropic::FakeAnthropic,
}

impl Deref for FakeAnthropic {
    type Target = gatehouse_adapter_claude::probe::fake_anthropic::FakeAnthropic;

    fn deref(&self) -> &Self::Target {
        &self.fake
    }
}

impl FakeAnthropic {
    /// Starts the fake on a free loopback port with the given script of turns.
    pub fn start(script: Vec<ScriptedTurn>) -> FakeAnthropic {
        let fake = gatehouse_adapter_claude::probe::fake_anthropic::FakeAnthropic::start(script)
            .expect("start the fake Anthropic API");
        FakeAnthropic { fake }
    }

    /// Waits until at least `n` tool results have arrived and returns them all; it panics when
    /// `deadline` passes first.
    pub fn wait_for_tool_results(&self, n: usize, deadline: Duration) -> Vec<Value> {
        let what = format!("{n} tool result(s) at the fake Anthropic API");
        super::wait_until(deadline, &what, || self.fake.tool_result_count() >= n);
        self.fake.tool_results()
    }

    /// Waits until at least `n` requests have arrived; it panics when `deadline` passes first.
    pub fn wait_for_requests(&self, n: usize, deadline: Duration) -> Vec<Value> {
        let what = format!("{n} request(s) at the fake Anthropic API");
        super::wait_until(deadline, &what, || self.fake.request_count() >= n);
        self.fake.requests()
    }
}
