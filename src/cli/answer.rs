//! `gatehouse answer` and `gatehouse release`. Both exit 0 only when the gateway accepted the
//! request; otherwise the reason goes to stderr and the exit code is 1.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use gatehouse_core::{Action, AlwaysScope, Answer, QuestionResponse};
use gatehouse_host_ipc::ClientError;

use gatehouse_console::output;

pub const AFTER_HELP: &str = "\
Examples:
  gatehouse answer a3f7 once
  gatehouse answer a3f7 deny --message 'use make clean instead'
  gatehouse answer a3f7 always --suggestion s1 --scope project
  gatehouse answer a3f7 --pick q1=Blue
  gatehouse answer a3f7 --pick q1=Cheese --pick q1=Olives --text q2='thin crust'

A prompt too large to list whole is shown cut: read it with `gatehouse show ID`, which ends
with the `--seen DIGEST` to add to an approving answer (`once`, `always`, --pick, --text).

ID is the short id that `gatehouse list` shows (or the full id). An id that could name another
prompt, or names one that has ended, is refused, and nothing is answered. What was answered is
printed: check it.

Question ids (q1, q2, ...) and option labels are shown by `gatehouse list`, and so are the agent's
own suggestions (s1, s2, ...) that `always` picks from: gatehouse keeps only a rule the agent
suggested, for this session (the default, nothing is written), this project or every project.";

#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// The prompt's short id, as `gatehouse list` shows it, or its full id.
    id: String,
    /// `once` (allow this one call), `deny`, or `always` (allow it and stop asking, by one of
    /// the agent's own suggestions). Omit it when answering questions.
    #[arg(value_parser = parse_action)]
    action: Option<String>,
    /// With `always`: the agent's suggestion to keep, as `gatehouse list` shows it (s1, ...)
    /// [default: the prompt's only one].
    #[arg(long, value_name = "ID")]
    suggestion: Option<String>,
    /// With `always`: where the rule is kept.
    #[arg(long, value_enum, default_value_t = Scope::Session)]
    scope: Scope,
    /// With `deny`: the reason, passed on to the agent.
    #[arg(long, short, value_name = "TEXT")]
    message: Option<String>,
    /// Choose an option of a question; repeat for several questions, or several options of a
    /// multi-select question.
    #[arg(long, value_name = "QID=LABEL")]
    pick: Vec<String>,
    /// Answer a question in your own words.
    #[arg(long, value_name = "QID=TEXT")]
    text: Vec<String>,
    /// For a prompt shown cut: the digest that `gatehouse show ID` printed after the whole
    /// prompt (its first 16 hex digits will do). Approving a cut prompt needs it; denying does not.
    #[arg(long, value_name = "DIGEST")]
    seen: Option<String>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// The action word, checked by hand: clap's own check suggests the closest word, and the word
/// closest to a mistyped `allow` is `always`, which keeps allowing.
fn parse_action(word: &str) -> Result<String, String> {
    match word {
        "once" | "deny" | "always" => Ok(word.to_owned()),
        _ => Err(format!(
            "`{word}` is not an action; say `once` to allow this one call, `deny` to refuse it, or \
             `always` to allow it and stop asking (by one of the agent's own suggestions)"
        )),
    }
}

/// Where an `always` rule is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Scope {
    /// This session of the agent only; nothing is written.
    Session,
    /// This project (for Claude Code, `.claude/settings.local.json`).
    Project,
    /// Every project of yours (for Claude Code, `~/.claude/settings.json`).
    User,
}

impl From<Scope> for AlwaysScope {
    fn from(scope: Scope) -> Self {
        match scope {
            Scope::Session => AlwaysScope::Session,
            Scope::Project => AlwaysScope::Project,
            Scope::User => AlwaysScope::User,
        }
    }
}

impl AnswerArgs {
    fn to_answer(&self) -> anyhow::Result<Answer> {
        let answering_questions = !self.pick.is_empty() || !self.text.is_empty();
        let always = self.action.as_deref() == Some("always");
        if !always && (self.suggestion.is_some() || self.scope != Scope::Session) {
            bail!("--suggestion and --scope go with `always`");
        }
        match (self.action.as_deref(), answering_questions) {
            (Some(action), true) => bail!("`{action}` cannot be combined with --pick or --text: questions take only --pick/--text"),
            (None, false) => bail!("say `once` or `deny`, or answer questions with --pick QID=LABEL / --text QID=TEXT"),
            (Some("once"), false) if self.message.is_some() => bail!("--message goes with `deny`, not `once`"),
            (Some("once"), false) => Ok(Answer::Once),
            (Some("always"), false) if self.message.is_some() => bail!("--message goes with `deny`, not `always`"),
            (Some("always"), false) => Ok(Answer::Always { suggestion: self.suggestion.clone(), scope: self.scope.into() }),
            (Some(_), false) => Ok(Answer::Deny { message: self.message.clone() }),
            (None, true) => {
                if self.message.is_some() {
                    bail!("--message goes with `deny`; questions take --pick and --text");
                }
                let mut responses: Vec<QuestionResponse> = Vec::new();
                for pick in &self.pick {
                    let (question, label) = split_pair(pick, "--pick", "QID=LABEL")?;
                    response_for(&mut responses, question).picks.push(label.to_owned());
                }
                for text in &self.text {
                    let (question, text) = split_pair(text, "--text", "QID=TEXT")?;
                    if response_for(&mut responses, question).text.replace(text.to_owned()).is_some() {
                        bail!("--text for `{question}` is given twice; give it once");
                    }
                }
                Ok(Answer::Answer { responses })
            }
        }
    }
}

/// The response for `question`, added in the order questions are first named.
fn response_for<'a>(
    responses: &'a mut Vec<QuestionResponse>,
    question: &str,
) -> &'a mut QuestionResponse {
    let index = match responses
        .iter()
        .position(|response| response.question == question)
    {
        Some(index) => index,
        None => {
            responses.push(QuestionResponse {
                question: question.to_owned(),
                picks: Vec::new(),
                text: None,
            });
            responses.len() - 1
        }
    };
    &mut responses[index]
}

fn split_pair<'a>(pair: &'a str, flag: &str, shape: &str) -> anyhow::Result<(&'a str, &'a str)> {
    match pair.split_once('=') {
        Some((question, value)) if !question.is_empty() => Ok((question, value)),
        _ => bail!("{flag} takes {shape}, such as q1=Blue; got `{pair}`"),
    }
}

/// Answers the prompt that the typed id names. The gateway resolves the id against every prompt
/// it knows, so a stale or ambiguous id is refused there, and says why.
pub async fn run(socket: PathBuf, arguments: AnswerArgs) -> anyhow::Result<ExitCode> {
    let answer = arguments.to_answer()?;
    let mut client = super::connect_frontend(&socket).await?;
    let action = answer.action();
    let mut target = arguments.id.clone();
    if matches!(answer, Answer::Once | Answer::Always { .. }) {
        // Approve only what `list` showed whole, or what `show` printed (named by --seen, which
        // the gateway checks). The prompt checked is the one answered: its full id is used.
        let full = match client.prompt_get(&arguments.id).await {
            Ok(full) => full,
            Err(error) => return refused(error),
        };
        if arguments.seen.is_none() && !output::input_block(&full.prompt).whole {
            eprintln!(
                "gatehouse: refused (not_seen_in_full): prompt {} is longer than `gatehouse list` shows, and nothing was approved; read it whole with `gatehouse show {}`, which prints the `--seen` that approves it",
                output::shown_id(&full.prompt),
                output::shown_id(&full.prompt)
            );
            return Ok(ExitCode::from(1));
        }
        target = full.prompt.id.to_string();
    }
    match client
        .answer_seen(&target, answer.clone(), arguments.seen.clone())
        .await
    {
        Ok(result) if arguments.json => println!("{}", serde_json::to_string(&result)?),
        Ok(result) => {
            let done = match action {
                Action::Once => "allowed once",
                Action::Always => "allowed, and always from now on",
                Action::Deny => "denied",
                Action::Answer => "answered",
            };
            println!("{done}: {}", output::what_was_answered(&result));
            if let Some(kept) = result
                .prompt
                .as_ref()
                .and_then(|prompt| kept(prompt, &answer))
            {
                println!("{kept}");
            }
        }
        Err(error) => return refused(error),
    }
    Ok(ExitCode::SUCCESS)
}

/// For `always`, what the agent keeps letting through from now on, in full: the suggestion it
/// names, or the prompt's only one.
fn kept(prompt: &gatehouse_core::Prompt, answer: &Answer) -> Option<String> {
    let Answer::Always { suggestion, scope } = answer else {
        return None;
    };
    let suggestions = &prompt.prompt.extra.suggestions;
    let kept = match suggestion {
        Some(id) => suggestions.iter().find(|candidate| &candidate.id == id)?,
        None if suggestions.len() == 1 => &suggestions[0],
        None => return None,
    };
    Some(format!(
        "  from now on, for the {}: {}",
        scope.as_str(),
        gatehouse_core::text::visible(&kept.describe())
    ))
}

pub async fn release(socket: PathBuf, id: String) -> anyhow::Result<ExitCode> {
    let mut client = super::connect_frontend(&socket).await?;
    match client.release(&id).await {
        Ok(result) => println!(
            "released: {}; it is back with the agent's terminal",
            output::what_was_answered(&result)
        ),
        Err(error) => return refused(error),
    }
    Ok(ExitCode::SUCCESS)
}

fn refused(error: ClientError) -> anyhow::Result<ExitCode> {
    match error {
        ClientError::Rpc(error) => {
            let hint = match error.name() {
                "not_found" | "ambiguous_id" => {
                    "; `gatehouse list` shows the pending prompts and their short ids"
                }
                "not_seen_in_full" => {
                    "; `gatehouse show ID` prints it whole and the --seen DIGEST that approves it"
                }
                "action_not_offered" if error.message.ends_with("it offers: answer") => {
                    "; a question is answered with --pick QUESTION=LABEL (or --text), and `gatehouse show ID` lists its options"
                }
                "not_pending" => {
                    "; `gatehouse list` shows what is pending (a prompt that came back after a gateway restart has a new id)"
                }
                _ => "",
            };
            eprintln!(
                "gatehouse: refused ({}): {}{hint}",
                gatehouse_core::text::visible(error.name()),
                gatehouse_core::text::visible(&error.message)
            );
            Ok(ExitCode::from(1))
        }
        other => Err(other.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        arguments: AnswerArgs,
    }

    fn answer(line: &[&str]) -> Result<Answer, String> {
        let wrapper =
            Wrapper::try_parse_from(std::iter::once("answer").chain(line.iter().copied()))
                .map_err(|error| error.to_string())?;
        wrapper
            .arguments
            .to_answer()
            .map_err(|error| error.to_string())
    }

    #[test]
    fn permissions_take_once_or_deny() {
        assert_eq!(answer(&["abcd", "once"]), Ok(Answer::Once));
        assert_eq!(
            answer(&["abcd", "deny", "--message", "no"]),
            Ok(Answer::Deny {
                message: Some("no".into())
            })
        );
        assert_eq!(
            answer(&["abcd", "always"]),
            Ok(Answer::Always {
                suggestion: None,
                scope: AlwaysScope::Session
            })
        );
        assert_eq!(
            answer(&["abcd", "always", "--suggestion", "s2", "--scope", "project"]),
            Ok(Answer::Always {
                suggestion: Some("s2".into()),
                scope: AlwaysScope::Project
            })
        );
        assert!(answer(&["abcd", "once", "--scope", "user"]).is_err());
        assert!(answer(&["abcd", "deny", "--suggestion", "s1"]).is_err());
        assert!(answer(&["abcd", "always", "--scope", "everywhere"]).is_err());
        assert!(answer(&["abcd"]).unwrap_err().contains("--pick"));
        assert!(answer(&["abcd", "once", "--message", "x"]).is_err());
    }

    #[test]
    fn a_mistyped_action_is_never_met_with_a_broader_suggestion() {
        for word in ["allow", "alwys", "yes", "approve", "ok"] {
            let refused = answer(&["abcd", word]).unwrap_err();
            assert!(!refused.contains("similar"), "{refused}");
            assert!(
                refused.contains("`once` to allow this one call"),
                "{refused}"
            );
        }
    }

    #[test]
    fn questions_group_picks_and_text_by_question() {
        let parsed = answer(&[
            "abcd",
            "--pick",
            "q1=Red",
            "--pick",
            "q2=Yes",
            "--pick",
            "q1=Blue",
            "--text",
            "q1=teal too",
        ])
        .unwrap();
        assert_eq!(
            parsed,
            Answer::Answer {
                responses: vec![
                    QuestionResponse {
                        question: "q1".into(),
                        picks: vec!["Red".into(), "Blue".into()],
                        text: Some("teal too".into())
                    },
                    QuestionResponse {
                        question: "q2".into(),
                        picks: vec!["Yes".into()],
                        text: None
                    },
                ]
            }
        );
        assert!(answer(&["abcd", "--pick", "Red"])
            .unwrap_err()
            .contains("QID=LABEL"));
        assert!(answer(&["abcd", "once", "--pick", "q1=Red"]).is_err());
        assert!(answer(&["abcd", "--text", "q1=a", "--text", "q1=b"])
            .unwrap_err()
            .contains("twice"));
    }

    #[test]
    fn always_says_what_it_keeps_letting_through() {
        let mut prompt: gatehouse_core::Prompt = serde_json::from_value(serde_json::json!({
            "id": "01a22a7c-7184-7520-bb65-4d44b4eba60e", "short_id": "", "adapter": "claude",
            "session": "s", "cwd": "/p", "kind": "permission", "tool": "Bash",
            "input": {}, "summary": "git push", "correlation": "", "actions": ["once"],
            "state": "resolved", "created_at": "2026-12-01T03:00:00Z", "held_since": "2026-12-01T03:00:00Z"
        }))
        .unwrap();
        prompt.prompt.extra.suggestions = gatehouse_adapter_claude::suggestions::from_event(Some(
            &serde_json::json!([
                { "type": "addRules", "rules": [{ "toolName": "Bash", "ruleContent": "git push:*" }],
                  "behavior": "allow", "destination": "localSettings" },
            ]),
        ));
        let always = |suggestion: Option<&str>| Answer::Always {
            suggestion: suggestion.map(str::to_owned),
            scope: AlwaysScope::Project,
        };
        let words = kept(&prompt, &always(None)).unwrap();
        assert_eq!(
            words,
            "  from now on, for the project: every Bash command that is `git push` or starts with it followed by a space, whatever comes after (such as `git push --force ...`). This includes commands that run other programs or write any file: the further words of `git` are not known to be harmless. The rule covers the command's words only, not the repository's hooks and the programs its configuration names: whatever is there when it runs again runs without asking"
        );
        assert_eq!(kept(&prompt, &always(Some("s1"))), Some(words));
        assert_eq!(kept(&prompt, &always(Some("s9"))), None);
        assert_eq!(kept(&prompt, &Answer::Once), None);
    }
}
