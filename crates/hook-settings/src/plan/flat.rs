//! The pure edits for the flat shape ([`crate::EntryShape::Flat`]), where an event's array holds
//! hook entries directly: gatehouse's entry is updated in place (only the keys it owns), later
//! duplicates are removed, and a missing one is appended; uninstalling removes every gatehouse
//! entry and leaves the others, in order.

use serde_json::Value;

use crate::{AgentHooks, Change, HookEvent, HookPlan};

impl AgentHooks {
    /// Installs gatehouse's entry into one event's entries and returns what changed.
    pub(super) fn install_flat_event(
        &self,
        event: &HookEvent,
        entries: &mut Vec<Value>,
        plan: &HookPlan,
    ) -> Option<Change> {
        let desired = self.desired_entry(event, plan);
        let positions: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| self.is_gatehouse_entry(entry))
            .map(|(index, _)| index)
            .collect();
        let Some((&first, duplicates)) = positions.split_first() else {
            entries.push(Value::Object(desired));
            return Some(Change::Added {
                event: event.name.to_owned(),
            });
        };
        let mut changed = false;
        let entry = entries[first]
            .as_object_mut()
            .expect("gatehouse entries are objects");
        for (key, value) in desired {
            if entry.get(&key) != Some(&value) {
                entry.insert(key, value);
                changed = true;
            }
        }
        for &index in duplicates.iter().rev() {
            entries.remove(index);
            changed = true;
        }
        changed.then(|| Change::Updated {
            event: event.name.to_owned(),
        })
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
