//! `gatehouse log`: the audit log, as text or JSON lines, optionally from a point in time.

use std::process::ExitCode;

use anyhow::{bail, Context};
use gatehouse_core::text::visible;
use gatehouse_core::{Answer, Timestamp};
use gatehouse_gateway::audit::{self, AuditRecord};

use gatehouse_console::output;

pub fn run(json: bool, since: Option<&str>) -> anyhow::Result<ExitCode> {
    let path = super::gateway::audit_log_path()?;
    let since = since
        .map(|text| parse_since(text, gatehouse_host_ipc::now()))
        .transpose()?;
    let records = audit::read_all_with_decisions(&path)
        .with_context(|| format!("cannot read the audit log {}", path.display()))?;
    if records.is_empty() {
        eprintln!("gatehouse: the audit log {} is empty or absent; the gateway writes it as prompts come and go", path.display());
    }
    // Short ids unique among every id in the log, so any of them names one prompt of it.
    let ids = output::ShownIds::among(records.iter().map(|record| record.event.id()));
    for record in records
        .iter()
        .filter(|record| since.is_none_or(|since| record.at >= since))
    {
        if json {
            println!("{}", serde_json::to_string(record)?);
        } else {
            println!("{}", line(record, &ids));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One record as text; the deny message and the answers are made visible like the event.
pub(super) fn line(record: &AuditRecord, ids: &output::ShownIds) -> String {
    let mut line = output::event_line(&record.event, ids);
    match &record.answer {
        Some(Answer::Deny {
            message: Some(message),
        }) => line.push_str(&format!("  message: {}", visible(message))),
        Some(Answer::Answer { responses }) => {
            let answers: Vec<String> = responses
                .iter()
                .map(|response| {
                    let parts: Vec<_> = response
                        .picks
                        .iter()
                        .map(String::as_str)
                        .chain(response.text.as_deref())
                        .map(visible)
                        .collect();
                    format!("{}={}", visible(&response.question), parts.join(", "))
                })
                .collect();
            line.push_str(&format!("  answers: {}", answers.join("; ")));
        }
        Some(Answer::Always { suggestion, scope }) => line.push_str(&format!(
            "  always: suggestion {} for the {}",
            visible(suggestion.as_deref().unwrap_or("?")),
            scope.as_str()
        )),
        _ => {}
    }
    line
}

/// An RFC 3339 time, or an age before `now` such as `45s`, `30m`, `2h` or `7d`.
fn parse_since(text: &str, now: Timestamp) -> anyhow::Result<Timestamp> {
    if let Some(time) = Timestamp::parse_rfc3339(text) {
        return Ok(time);
    }
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let seconds_per_unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => bail!("--since takes an RFC 3339 time (2026-11-30T09:00:00Z) or an age such as 30m, 2h or 7d; got `{text}`"),
    };
    let count: u64 = number
        .parse()
        .with_context(|| format!("--since needs a number before `{unit}`; got `{text}`"))?;
    let age = count.saturating_mul(seconds_per_unit).saturating_mul(1_000);
    Ok(Timestamp(now.unix_millis().saturating_sub(age)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_ages_and_times() {
        let now = Timestamp(10_000_000);
        assert_eq!(parse_since("30s", now).unwrap(), Timestamp(9_970_000));
        assert_eq!(parse_since("2h", now).unwrap(), Timestamp(2_800_000));
        assert_eq!(
            parse_since("1970-01-01T00:00:01Z", now).unwrap(),
            Timestamp(1_000)
        );
        assert!(parse_since("99999999999999999999d", now)
            .unwrap_err()
            .to_string()
            .contains("number"));
        assert_eq!(
            parse_since("9999999999999999d", now).unwrap(),
            Timestamp(0),
            "a huge age means from the start"
        );
        for bad in ["yesterday", "5w", "m", ""] {
            assert!(parse_since(bad, now).is_err(), "{bad}");
        }
    }

    #[test]
    fn deny_messages_and_answers_show_control_characters_as_escapes() {
        use gatehouse_core::{Action, Event, PromptState, QuestionResponse};
        let event = Event::Changed {
            id: "01a22a7c-7184-7520-bb65-4d44b4eba60b".parse().unwrap(),
            state: PromptState::Resolved,
            at: Timestamp(1_796_008_413_000),
            by: Some("gatehouse-cli".into()),
            action: Some(Action::Deny),
            reason: None,
        };
        let denied = AuditRecord {
            at: Timestamp(0),
            event: event.clone(),
            answer: Some(Answer::Deny {
                message: Some("no\x1b]0;pwned\x07\rok".into()),
            }),
        };
        assert_eq!(line(&denied, &output::ShownIds::default()), "2026-11-30T03:13:33.000Z  resolved     01a22a7c-7184-7520-bb65-4d44b4eba60b  deny  by gatehouse-cli  message: no\\e]0;pwned\\u{7}\\rok");
        let responses = vec![QuestionResponse {
            question: "q1\u{202e}".into(),
            picks: vec!["Red\x1b[8m".into()],
            text: Some("more\r".into()),
        }];
        let answered = AuditRecord {
            at: Timestamp(0),
            event,
            answer: Some(Answer::Answer { responses }),
        };
        assert!(
            line(&answered, &output::ShownIds::default())
                .ends_with("answers: q1\\u{202e}=Red\\e[8m, more\\r"),
            "{}",
            line(&answered, &output::ShownIds::default())
        );
    }
}
