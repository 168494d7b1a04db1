//! The pure edits: the hooks file's parsed JSON in, the new JSON and a list of [`Change`]s out.
//!
//! - Every other setting and every other hook keeps its value. Entries are matched and edited in
//!   place; foreign hooks that share a matcher group with gatehouse's entry stay in that group.
//! - Key order: `serde_json`'s `preserve_order` feature is on in this workspace, and only
//!   order-preserving edits are made (in-place updates, appends and `retain`), so the original
//!   key order is kept.
//! - Installing is idempotent: when nothing needs to change, the input comes back unchanged with
//!   no change reported.
//! - Installing again with a different command or hold timeout updates gatehouse's entry in place
//!   and reports [`Change::Updated`]; only the keys gatehouse owns (`type`, `command`, `timeout`,
//!   and `name` for an agent whose [`EntryStyle`](crate::EntryStyle) has one) are set. If an event holds several gatehouse entries, the first is kept and the others are
//!   removed, so a prompt is never handled twice.
//! - When an event has no gatehouse entry, a new group is appended: `{"matcher": M, "hooks":
//!   [entry]}`, or `{"hooks": [entry]}` for events without a matcher. A group that already holds
//!   gatehouse's entry keeps its matcher, so a matcher the person narrowed stays narrowed.
//! - Uninstalling removes gatehouse's entries from every event (not only the agent's own), then
//!   the matcher groups it left empty, then the events it left without groups, then `hooks` if
//!   that ended up empty. Containers that were already empty are left alone.
//! - For an agent of the flat shape ([`crate::EntryShape::Flat`]) an event holds its entries
//!   directly: the same rules apply to the entries, with no groups ([`flat`]).

use serde_json::{Map, Value};

use crate::{AgentHooks, Change, EntryShape, HookEvent, HookPlan, InstallError};

mod flat;

impl AgentHooks {
    /// Returns the settings with gatehouse's hooks installed, and what changed.
    ///
    /// When nothing needs to change, the returned settings equal the input and the list is empty.
    ///
    /// # Errors
    ///
    /// Fails when `plan.command` is not recognised by [`AgentHooks::is_gatehouse_command`], or
    /// when the settings, their `hooks` value or one of the agent's events has the wrong JSON type.
    pub fn plan_install(
        &self,
        settings: &Value,
        plan: &HookPlan,
    ) -> Result<(Value, Vec<Change>), InstallError> {
        if !self.is_gatehouse_command(&plan.command) {
            return Err(InstallError::CommandNotRecognised {
                command: plan.command.clone(),
                suffix: self.command_suffix,
            });
        }

        let mut updated = settings.clone();
        let root = updated
            .as_object_mut()
            .ok_or_else(|| self.settings_not_object())?;
        let hooks = root
            .entry("hooks")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or_else(|| self.hooks_not_object())?;

        let mut changes = Vec::new();
        for event in self.events {
            let groups = hooks
                .entry(event.name)
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
                .ok_or_else(|| InstallError::EventNotArray {
                    file: self.file_kind,
                    path: None,
                    event: event.name.to_owned(),
                })?;
            let desired = self.desired_entry(event, plan);
            let installed = match self.entry_shape {
                EntryShape::MatcherGroups => self.install_in_groups(event, groups, desired),
                EntryShape::Flat { .. } => self.install_flat_entry(groups, desired),
            };
            let event = event.name.to_owned();
            match installed {
                Installed::Added => changes.push(Change::Added { event }),
                Installed::Updated => changes.push(Change::Updated { event }),
                Installed::Unchanged => {}
            }
        }

        if changes.is_empty() {
            // Returning the input untouched guarantees that no empty container was added.
            return Ok((settings.clone(), changes));
        }
        Ok((updated, changes))
    }

    /// The error for settings whose top level is not a JSON object. The pure planning functions
    /// do not know the file; the file layer adds its path.
    fn settings_not_object(&self) -> InstallError {
        InstallError::SettingsNotObject {
            file: self.file_kind,
            path: None,
        }
    }

    /// The error for a `hooks` value that is not a JSON object.
    fn hooks_not_object(&self) -> InstallError {
        InstallError::HooksNotObject {
            file: self.file_kind,
            path: None,
        }
    }

    /// Returns the settings with every gatehouse hook entry removed, and what changed.
    ///
    /// When nothing needs to change, the returned settings equal the input and the list is empty.
    ///
    /// # Errors
    ///
    /// Fails when the settings or their `hooks` value is not a JSON object.
    pub fn plan_uninstall(&self, settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
        let mut updated = settings.clone();
        let root = updated
            .as_object_mut()
            .ok_or_else(|| self.settings_not_object())?;
        let Some(hooks_value) = root.get_mut("hooks") else {
            return Ok((settings.clone(), Vec::new()));
        };
        let hooks = hooks_value
            .as_object_mut()
            .ok_or_else(|| self.hooks_not_object())?;

        let mut changes = Vec::new();
        let mut emptied_events = Vec::new();
        for (event_name, groups_value) in hooks.iter_mut() {
            // An event whose value is not an array cannot hold gatehouse's entry; leave it alone.
            let Some(groups) = groups_value.as_array_mut() else {
                continue;
            };
            if let EntryShape::Flat { .. } = self.entry_shape {
                if !self.remove_flat_entries(groups) {
                    continue;
                }
            } else {
                let positions = self.gatehouse_entry_positions(groups);
                if positions.is_empty() {
                    continue;
                }
                remove_entries(groups, &positions);
            }
            changes.push(Change::Removed {
                event: event_name.clone(),
            });
            if groups.is_empty() {
                emptied_events.push(event_name.clone());
            }
        }

        if changes.is_empty() {
            return Ok((settings.clone(), changes));
        }
        // `retain` keeps the order of the remaining keys, unlike `Map::remove` with `preserve_order`.
        hooks.retain(|event_name, _| !emptied_events.contains(event_name));
        if hooks.is_empty() {
            root.retain(|key, _| key != "hooks");
        }
        Ok((updated, changes))
    }

    /// Installs the `desired` entry into one event's matcher groups.
    fn install_in_groups(
        &self,
        event: &HookEvent,
        groups: &mut Vec<Value>,
        desired: Map<String, Value>,
    ) -> Installed {
        let positions = self.gatehouse_entry_positions(groups);
        let Some((&(first_group, first_entry), duplicates)) = positions.split_first() else {
            groups.push(new_group(event, desired));
            return Installed::Added;
        };
        let entry = group_entries_mut(&mut groups[first_group])
            .and_then(|entries| entries.get_mut(first_entry))
            .and_then(Value::as_object_mut)
            .expect("gatehouse entries are objects inside a group's hooks array");
        let mut changed = set_owned_keys(entry, desired);
        if !duplicates.is_empty() {
            remove_entries(groups, duplicates);
            changed = true;
        }
        Installed::updated_if(changed)
    }

    /// Returns the positions `(group index, entry index)` of gatehouse's entries in an event's
    /// groups, in document order.
    fn gatehouse_entry_positions(&self, groups: &[Value]) -> Vec<(usize, usize)> {
        let mut positions = Vec::new();
        for (group_index, group) in groups.iter().enumerate() {
            let Some(entries) = group.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (entry_index, entry) in entries.iter().enumerate() {
                if self.is_gatehouse_entry(entry) {
                    positions.push((group_index, entry_index));
                }
            }
        }
        positions
    }

    /// Tells whether a hook entry (one element of a matcher group's `hooks` array, or of an
    /// event's array in the flat shape) is gatehouse's.
    /// The commands of gatehouse's entries of `event` in `settings`, in order (none when the
    /// settings do not have the expected shape).
    #[must_use]
    pub fn gatehouse_commands(&self, settings: &Value, event: &str) -> Vec<String> {
        let entries_of_event = settings
            .get("hooks")
            .and_then(|hooks| hooks.get(event))
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        let entries: Vec<&Value> = match self.entry_shape {
            EntryShape::MatcherGroups => entries_of_event
                .filter_map(|group| group.get("hooks").and_then(Value::as_array))
                .flatten()
                .collect(),
            EntryShape::Flat { .. } => entries_of_event.collect(),
        };
        entries
            .into_iter()
            .filter(|entry| self.is_gatehouse_entry(entry))
            .filter_map(|entry| entry.get(self.entry_shape.command_key())?.as_str())
            .map(str::to_owned)
            .collect()
    }

    fn is_gatehouse_entry(&self, entry: &Value) -> bool {
        entry
            .get(self.entry_shape.command_key())
            .and_then(Value::as_str)
            .is_some_and(|command| self.is_gatehouse_command(command))
    }

    /// Returns the hook entry gatehouse wants for an event under the given plan: its `name`
    /// first when the agent's entries have one, then `type`, the command and the timeout (in the
    /// agent's unit) under the keys of the agent's entry shape.
    fn desired_entry(&self, event: &HookEvent, plan: &HookPlan) -> Map<String, Value> {
        let mut entry = Map::new();
        if let Some(name) = self.entry.name {
            entry.insert("name".to_owned(), Value::from(name));
        }
        entry.insert("type".to_owned(), Value::from("command"));
        entry.insert(
            self.entry_shape.command_key().to_owned(),
            Value::from(self.command_for(event, plan)),
        );
        let timeout = self.entry.timeout_unit.written(event.timeout_seconds(plan));
        entry.insert(
            self.entry_shape.timeout_key().to_owned(),
            Value::from(timeout),
        );
        entry
    }
}

/// What installing gatehouse's entry into one event's array did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Installed {
    Added,
    Updated,
    Unchanged,
}

impl Installed {
    pub(crate) fn updated_if(changed: bool) -> Installed {
        if changed {
            Installed::Updated
        } else {
            Installed::Unchanged
        }
    }
}

/// Sets the keys gatehouse owns on its existing `entry` to their `desired` values, keeping any
/// other key; whether one changed.
pub(crate) fn set_owned_keys(entry: &mut Map<String, Value>, desired: Map<String, Value>) -> bool {
    let mut changed = false;
    for (key, value) in desired {
        if entry.get(&key) != Some(&value) {
            entry.insert(key, value);
            changed = true;
        }
    }
    changed
}

/// Returns a new matcher group for an event that holds only the given entry.
fn new_group(event: &HookEvent, entry: Map<String, Value>) -> Value {
    let mut group = Map::new();
    if let Some(matcher) = event.matcher {
        group.insert("matcher".to_owned(), Value::from(matcher));
    }
    group.insert("hooks".to_owned(), Value::Array(vec![Value::Object(entry)]));
    Value::Object(group)
}

/// Returns the `hooks` array of a matcher group, or `None` when the group does not have the
/// expected shape (such groups are never touched).
fn group_entries_mut(group: &mut Value) -> Option<&mut Vec<Value>> {
    group.get_mut("hooks")?.as_array_mut()
}

/// Removes the entries at the given positions, then removes each group that this left empty.
/// The positions must be in document order, as `gatehouse_entry_positions` returns them.
fn remove_entries(groups: &mut Vec<Value>, positions: &[(usize, usize)]) {
    // Going backwards keeps the indexes of the positions still to be removed valid.
    for &(group_index, entry_index) in positions.iter().rev() {
        let entries = group_entries_mut(&mut groups[group_index])
            .expect("positions come from gatehouse_entry_positions on the same groups");
        entries.remove(entry_index);
        if entries.is_empty() {
            groups.remove(group_index);
        }
    }
}

#[cfg(test)]
mod tests;
