//! The browser test's parts: driving the page (`page`) and the checks (`checks`).

pub mod checks;
pub mod page;
