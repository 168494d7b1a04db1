//! What text the rules allow can never hold, found on the raw text without the parser: the
//! independent check that the rules' tests and the `rules_shell` fuzz target hold the parser to.

/// Characters that allowed text never holds, inside quotes or out.
const REFUSED_ANYWHERE: [char; 7] = ['$', '`', '\\', '\r', '\u{0}', '\u{1b}', '\u{202e}'];

/// Characters that allowed text never holds outside quotes.
const REFUSED_OUTSIDE_QUOTES: [char; 7] = ['(', ')', '{', '}', '<', '~', '!'];

/// What `text` holds that the rules must never allow, said in a few words (`holds '$'`,
/// `redirects to a file`), or `None` when it holds none of it. It scans characters and quotes
/// only, so that a parser bug cannot hide from it; it does not say the text is safe.
#[doc(hidden)]
pub fn never_allowed_in_text(text: &str) -> Option<String> {
    if let Some(refused) = REFUSED_ANYWHERE.iter().find(|c| text.contains(**c)) {
        return Some(format!("holds {refused:?}"));
    }
    let unquoted = outside_quotes(text);
    if let Some(refused) = REFUSED_OUTSIDE_QUOTES
        .iter()
        .find(|c| unquoted.contains(**c))
    {
        return Some(format!("holds {refused:?} outside quotes"));
    }
    let to_a_file = unquoted.match_indices('>').any(|(at, _)| {
        let target = &unquoted[at + 1..];
        !["&0", "&1", "&2"]
            .iter()
            .any(|copy| target.starts_with(copy))
    });
    to_a_file.then(|| "redirects to a file".to_owned())
}

/// The text outside single and double quotes, each quoted stretch replaced by one `q`.
fn outside_quotes(text: &str) -> String {
    let mut outside = String::new();
    let mut quote = None;
    for character in text.chars() {
        match quote {
            Some(open) if character == open => quote = None,
            Some(_) => {}
            None if character == '\'' || character == '"' => {
                quote = Some(character);
                outside.push('q');
            }
            None => outside.push(character),
        }
    }
    outside
}
