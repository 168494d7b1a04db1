//! The tests' view of the kit's scripted model speaking the Anthropic messages API, as the
//! Claude adapter's probe starts it ([`gatehouse_adapter_claude::probe::scripted_model`]): the
//! same model, with a wait that panics when its deadline passes, as a test wants.

use std::ops::Deref;
use std::time::Duration;

use gatehouse_harness::model::ScriptedModel;
use serde_json::Value;

pub use gatehouse_harness::model::anthropic::{tool_result_text, PLAN_FILE};
pub use gatehouse_harness::model::ScriptedTurn;

/// A running scripted Anthropic API; it stops when dropped.
pub struct FakeAnthropic {
    model: ScriptedModel,
}

impl Deref for FakeAnthropic {
    type Target = ScriptedModel;

    fn deref(&self) -> &Self::Target {
        &self.model
    }
}

impl FakeAnthropic {
    /// Starts the model on a free loopback port with the given script of turns.
    pub fn start(script: Vec<ScriptedTurn>) -> FakeAnthropic {
        let model = gatehouse_adapter_claude::probe::scripted_model(script)
            .expect("start the scripted Anthropic API");
        FakeAnthropic { model }
    }

    /// Waits until at least `n` tool results (`tool_result` blocks) have arrived and returns
    /// them all, in order; it panics when `deadline` passes first.
    pub fn wait_for_tool_results(&self, n: usize, deadline: Duration) -> Vec<Value> {
        let what = format!("{n} tool result(s) at the scripted Anthropic API");
        super::wait_until(deadline, &what, || self.model.outputs().len() >= n);
        self.model.outputs()
    }
}
