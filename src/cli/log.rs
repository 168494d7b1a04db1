//! `gatehouse log`: the audit log, as text or JSON lines, optionally from a point in time.

use std::process::ExitCode;

use anyhow::{bail, Context};
use gatehouse_core::{Answer, Timestamp};
use gatehouse_host_ipc::server::audit::{self, AuditRecord};

use crate::output;

pub fn run(json: bool, since: Option<&str>) -> anyhow::Result<ExitCode> {
    let path = super::serve::audit_log_path()?;
    let since = since
        .map(|text| parse_since(text, gatehouse_host_ipc::server::now()))
        .transpose()?;
    let records = audit::read_all(&path)
        .with_context(|| format!("cannot read the audit log {}", path.display()))?;
    if records.is_empty() {
        eprintln!("gatehouse: the audit log {} is empty or absent; the gateway writes it as prompts come and go", path.display());
    }
    for record in records
        .iter()
        .filter(|record| since.is_none_or(|since| record.at >= since))
    {
        if json {
            println!("{}", serde_json::to_string(record)?);
        } else {
            println!("{}", line(record));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn line(record: &AuditRecord) -> String {
    let mut line = output::event_line(&record.event);
    match &record.answer {
        Some(Answer::Deny {
            message: Some(message),
        }) => line.push_str(&format!("  message: {message}")),
        Some(Answer::Answer { responses }) => {
            let answers: Vec<String> = responses
                .iter()
                .map(|response| {
                    let parts: Vec<&str> = response
                        .picks
                        .iter()
                        .map(String::as_str)
                        .chain(response.text.as_deref())
                        .collect();
                    format!("{}={}", response.question, parts.join(", "))
                })
                .collect();
            line.push_str(&format!("  answers: {}", answers.join("; ")));
        }
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
}
