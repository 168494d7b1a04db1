//! The page, its script and its style, embedded in the binary so that the page needs nothing
//! from the internet and no file on disk. The script sets agent text only with `textContent`.

pub const INDEX_HTML: &str = include_str!("assets/index.html");
pub const APP_JS: &str = include_str!("assets/app.js");
pub const APP_CSS: &str = include_str!("assets/app.css");
