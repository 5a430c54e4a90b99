//! What the walk of `diagnose` fills: [`Walk`] collects the stack's [`Layer`]s, the
//! findings and the unknowns while `diagnosis.rs` (the order of the walk) and its steps
//! (`walk_mounts.rs`, `walk_links.rs`, `verdicts.rs`, `platform.rs`) read the machine.
//! Its own file so that the steps name it, not the module that calls them.

use super::findings::{Finding, Unknown};
use super::mountinfo::Mount;
use super::sysroot::Sys;
use serde::{Deserialize, Serialize};

/// One line of the stack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    /// Nesting (0 = top).
    pub depth: u32,
    /// `path`, `mount`, `filesystem`, `partition`, `disk`, `md`, `nvme`, `pcie` …
    pub kind: String,
    /// Human description with the values read.
    pub text: String,
}

/// Collects the answer while walking.
pub(super) struct Walk<'a> {
    pub(super) sys: Sys<'a>,
    pub(super) stack: Vec<Layer>,
    pub(super) findings: Vec<Finding>,
    pub(super) unknowns: Vec<Unknown>,
    pub(super) mounts: Vec<Mount>,
}

impl Walk<'_> {
    pub(super) fn layer(&mut self, depth: u32, kind: &str, text: String) {
        self.stack.push(Layer {
            depth,
            kind: kind.into(),
            text,
        });
    }
    pub(super) fn unknown(&mut self, what: impl Into<String>, why: impl Into<String>) {
        self.unknowns.push(Unknown {
            what: what.into(),
            why: why.into(),
        });
    }
    pub(super) fn find(&mut self, f: Finding) {
        if !self
            .findings
            .iter()
            .any(|g| g.id == f.id && g.message == f.message)
        {
            self.findings.push(f);
        }
    }
}
