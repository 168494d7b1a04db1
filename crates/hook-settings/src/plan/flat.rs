//! The pure edits for the flat shape ([`crate::EntryShape::Flat`]), where an event's array holds
//! hook entries directly: gatehouse's entry is updated in place (only the keys it owns), later
//! duplicates are removed, and a missing one is appended; uninstalling removes every gatehouse
//! entry and leaves the others, in order.

use serde_json::{Map, Value};

use super::{set_owned_keys, Installed};
use crate::AgentHooks;

impl AgentHooks {
    /// Installs the `desired` entry into one event's entries.
    pub(super) fn install_flat_entry(
        &self,
        entries: &mut Vec<Value>,
        desired: Map<String, Value>,
    ) -> Installed {
        let positions: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| self.is_gatehouse_entry(entry))
            .map(|(index, _)| index)
            .collect();
        let Some((&first, duplicates)) = positions.split_first() else {
            entries.push(Value::Object(desired));
            return Installed::Added;
        };
        let entry = entries[first]
            .as_object_mut()
            .expect("gatehouse entries are objects");
        let mut changed = set_owned_keys(entry, desired);
        for &index in duplicates.iter().rev() {
            entries.remove(index);
            changed = true;
        }
        Installed::updated_if(changed)
    }

    /// Removes gatehouse's entries from one event's entries; whether there were any.
    pub(super) fn remove_flat_entries(&self, entries: &mut Vec<Value>) -> bool {
        let before = entries.len();
        entries.retain(|entry| !self.is_gatehouse_entry(entry));
        entries.len() != before
    }
}

#[cfg(test)]
mod tests;
