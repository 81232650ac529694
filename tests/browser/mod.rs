//! The browser test's parts: driving the page (`page`), the checks (`checks`), the move
//! tree's checks of issue 61 (`tree`) and its figures (`figures`).

pub mod checks;
pub mod figures;
pub mod page;
pub mod tree;
