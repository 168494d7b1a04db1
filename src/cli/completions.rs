//! `gatehouse completions SHELL` and `gatehouse man [COMMAND]`: shell completions and roff man
//! pages (gatehouse(1), and one a command, such as gatehouse-setup(1)), generated from the clap
//! definitions of [`super::Cli`], so they always match the command line.

use std::io::Write;
use std::process::ExitCode;

use anyhow::bail;
use clap::CommandFactory;
use clap_complete::Shell;

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: Shell) -> anyhow::Result<ExitCode> {
    let mut command = for_completions(super::Cli::command());
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut command, "gatehouse", &mut out);
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The command line as completion scripts offer it: without the `--socket` hidden where it
/// means nothing ([`super::WITHOUT_SOCKET`]). The scripts offer every argument, hidden or not,
/// and clap gives the global `--socket` to each command that has none, so here it is not global:
/// each other command gets it, for itself and the commands under it.
fn for_completions(command: clap::Command) -> clap::Command {
    let socket = command
        .get_arguments()
        .find(|arg| arg.get_id() == "socket")
        .expect("the command line has --socket")
        .clone();
    let others: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .filter(|name| !super::WITHOUT_SOCKET.contains(&name.as_str()))
        .collect();
    let mut command = command.mut_arg("socket", |arg| arg.global(false));
    for name in super::WITHOUT_SOCKET {
        command = command.mut_subcommand(name, |sub| without_socket(name, &sub));
    }
    for name in others {
        command = command.mut_subcommand(name, |sub| sub.arg(socket.clone()));
    }
    command
}

/// A copy of `sub` (named `name`) for completions: its help, arguments but `--socket`, and the
/// commands under it.
fn without_socket(name: &'static str, sub: &clap::Command) -> clap::Command {
    let mut copy = clap::Command::new(name);
    if let Some(about) = sub.get_about() {
        copy = copy.about(about.clone());
    }
    copy.args(
        sub.get_arguments()
            .filter(|arg| arg.get_id() != "socket")
            .cloned(),
    )
    .subcommands(sub.get_subcommands().cloned())
}

/// Prints the man page of the command named by `words` (none: gatehouse(1) itself) in roff on
/// stdout.
pub fn man(words: &[String]) -> anyhow::Result<ExitCode> {
    let page = man_page(words)?;
    let mut out = std::io::stdout().lock();
    out.write_all(page.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The man page of the command named by `words`, such as `["web", "pair"]` for
/// gatehouse-web-pair(1), with the line breaks of the help's examples kept.
pub fn man_page(words: &[String]) -> anyhow::Result<String> {
    let mut command = super::Cli::command();
    // Built, each command has its full name (`gatehouse-web-pair`) and the global options.
    command.build();
    let version = command.get_version().unwrap_or_default().to_owned();
    let mut named: Vec<&str> = Vec::new();
    for word in words {
        let Some(sub) = command.find_subcommand(word).cloned() else {
            let under = std::iter::once("gatehouse")
                .chain(named.iter().copied())
                .collect::<Vec<_>>()
                .join(" ");
            let known: Vec<&str> = command
                .get_subcommands()
                .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
                .map(clap::Command::get_name)
                .collect();
            if known.is_empty() {
                bail!(
                    "`{under}` has no commands under it; `gatehouse man {}` is its page",
                    named.join(" ")
                );
            }
            bail!(
                "`{under}` has no command `{}`; its man pages are for {}",
                gatehouse_core::text::visible(word),
                known.join(", ")
            );
        };
        named.push(word);
        command = sub;
    }
    let mut roff = Vec::new();
    clap_mangen::Man::new(command)
        .source(format!("gatehouse {version}"))
        .render(&mut roff)?;
    Ok(keep_line_breaks(&String::from_utf8(roff)?))
}

/// Roff fills each paragraph, joining its lines: the examples of a help text (indented lines,
/// such as the Quick start's commands, with the line before them that ends in `:`) are set
/// without filling (`.nf` ... `.fi`), so that each stays on its own line as in `--help`.
fn keep_line_breaks(roff: &str) -> String {
    let lines: Vec<&str> = roff.lines().collect();
    let is_text = |line: &str| !line.starts_with('.') && !line.starts_with('\'');
    let is_example = |line: &str| is_text(line) && line.starts_with(' ');
    let is_heading = |line: &str| is_text(line) && line.ends_with(':');
    let mut out = String::with_capacity(roff.len() + 64);
    let mut at = 0;
    while at < lines.len() {
        // A block: headings and examples, one after another, holding at least one example.
        let end = (at..lines.len())
            .find(|&index| !is_example(lines[index]) && !is_heading(lines[index]))
            .unwrap_or(lines.len());
        let block = &lines[at..end];
        if block.iter().any(|line| is_example(line)) {
            out.push_str(".nf\n");
            for line in block {
                out.push_str(line);
                out.push('\n');
            }
            out.push_str(".fi\n");
            at = end;
        } else {
            out.push_str(lines[at]);
            out.push('\n');
            at += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_and_their_headings_are_set_unfilled_and_prose_is_filled() {
        let roff = ".SH DESCRIPTION\nSome prose\nthat fills.\n.PP\nQuick start:\n  gatehouse setup   # one\n  gatehouse doctor  # two\nor by hand:\n  gatehouse serve &\n.PP\nA line ending:\nin prose.\n";
        assert_eq!(
            keep_line_breaks(roff),
            ".SH DESCRIPTION\nSome prose\nthat fills.\n.PP\n.nf\nQuick start:\n  gatehouse setup   # one\n  gatehouse doctor  # two\nor by hand:\n  gatehouse serve &\n.fi\n.PP\nA line ending:\nin prose.\n"
        );
    }

    /// The hidden `--socket` is on exactly the commands [`super::super::WITHOUT_SOCKET`] names,
    /// and the completion scripts offer it on every other command and none of those.
    #[test]
    fn the_socket_is_hidden_exactly_where_it_means_nothing() {
        let mut command = super::super::Cli::command();
        command.build();
        for sub in command
            .get_subcommands()
            .filter(|sub| sub.get_name() != "help")
        {
            let hidden = sub
                .get_arguments()
                .find(|arg| arg.get_id() == "socket")
                .unwrap_or_else(|| panic!("{} takes --socket", sub.get_name()))
                .is_hide_set();
            let name = sub.get_name();
            assert_eq!(
                hidden,
                super::super::WITHOUT_SOCKET.contains(&name),
                "{name}"
            );
        }
        let script = {
            let mut out = Vec::new();
            clap_complete::generate(
                Shell::Bash,
                &mut for_completions(super::super::Cli::command()),
                "gatehouse",
                &mut out,
            );
            String::from_utf8(out).unwrap()
        };
        let options_of = |case: &str| {
            let at = script.find(&format!("{case})")).expect(case);
            let line = script[at..].lines().nth(1).unwrap().to_owned();
            line
        };
        assert!(options_of("gatehouse__subcmd__list").contains("--socket"));
        assert!(options_of("gatehouse__subcmd__web__subcmd__pair").contains("--socket"));
        for quiet in ["log", "install", "uninstall", "completions", "man"] {
            let options = options_of(&format!("gatehouse__subcmd__{quiet}"));
            assert!(!options.contains("--socket"), "{quiet}: {options}");
        }
    }

    #[test]
    fn a_command_s_page_is_named_after_it_and_an_unknown_command_is_refused_with_the_known() {
        let page = man_page(&["web".into(), "pair".into()]).unwrap();
        assert!(page.contains(".TH gatehouse-web-pair 1"), "{page}");
        let refused = man_page(&["nonsense".into()]).unwrap_err().to_string();
        assert!(refused.contains("no command `nonsense`"), "{refused}");
        assert!(refused.contains("setup, doctor"), "{refused}");
    }
}
