//! The browser test's parts: driving the page (`page`), the checks (`checks`) and the move
//! tree's checks of issue 61 (`tree`).

pub mod checks;
pub mod page;
pub mod tree;
