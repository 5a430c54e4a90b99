//! The reports of `iomark diagnose`, over the result's diagnosis (`targets`): the text
//! layout ([`DiagnoseText`]: four sections, Stack, Ceiling, Findings with their
//! evidence, Unknowns, one line per layer or finding) and the diagnosis as JSON
//! ([`DiagnoseJson`], stable finding IDs).

use crate::report::{ReportError, Reporter};
use crate::result::{Ceiling, Diagnosis, RunResult};
use crate::util::color::{Paint, Role};

/// The text report of the result's (first) diagnosis.
pub struct DiagnoseText {
    /// whether it is coloured
    pub paint: Paint,
}

impl Reporter for DiagnoseText {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let d = r.targets.first().ok_or(ReportError::Empty)?;
        Ok(render_text_painted(d, &self.paint).into_bytes())
    }
}

/// The result's (first) diagnosis as pretty JSON with a final newline.
pub struct DiagnoseJson;

impl Reporter for DiagnoseJson {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let d = r.targets.first().ok_or(ReportError::Empty)?;
        serde_json::to_string_pretty(d)
            .map(|t| (t + "\n").into_bytes())
            .map_err(|e| ReportError::Failed(format!("cannot encode JSON: {e}")))
    }
}

/// Render the text report (no colour).
pub fn render_text(d: &Diagnosis) -> String {
    render_text_painted(d, &Paint { on: false })
}

/// The style of a finding's severity label.
fn severity_role(label: &str) -> Role {
    match label {
        "LIMIT" => Role::Limit,
        "WARN" | "CACHE" => Role::Warn,
        _ => Role::Dim,
    }
}

/// Render the text report; section titles and severities are coloured when `paint` is on.
pub fn render_text_painted(d: &Diagnosis, paint: &Paint) -> String {
    let mut o = String::new();
    let root = if d.root == "/" {
        String::new()
    } else {
        format!("  (root {})", d.root)
    };
    let title = |t: &str| paint.paint(Role::Header, t) + "\n";
    o.push_str(&format!(
        "iomark diagnose {}{root}\n\n{}",
        d.target,
        title("Stack")
    ));
    for l in &d.stack {
        o.push_str(&format!(
            "  {}{:<11} {}\n",
            "  ".repeat(l.depth as usize),
            l.kind,
            l.text
        ));
    }
    o.push_str(&format!("\n{}", title("Ceiling")));
    match (&d.ceiling, &d.ceiling_unknown) {
        (Some(c), _) => {
            o.push_str(&format!(
                "  ≈ {} realistic, {} raw — set by {}\n",
                Ceiling::describe(c.realistic_mb_s),
                Ceiling::describe(c.raw_mb_s),
                c.set_by
            ));
            let dir = |v: Option<f64>| {
                v.map(Ceiling::describe)
                    .unwrap_or_else(|| "not estimated".into())
            };
            o.push_str(&format!(
                "  read ≈ {}, write ≈ {}\n",
                dir(c.read_mb_s),
                dir(c.write_mb_s)
            ));
        }
        (None, Some(why)) => o.push_str(&format!("  none derived: {why}\n")),
        (None, None) => o.push_str("  none derived\n"),
    }
    o.push_str(&format!("\n{}", title("Findings")));
    if d.findings.is_empty() {
        o.push_str("  none\n");
    }
    for f in &d.findings {
        let label = f.severity.label();
        o.push_str(&format!(
            "  {} {}: {}\n",
            paint.paint(severity_role(label), &format!("{label:<5}")),
            f.id,
            f.message
        ));
        for e in &f.evidence {
            o.push_str(&format!("          evidence: {} = {}\n", e.file, e.value));
        }
    }
    o.push_str(&format!("\n{}", title("Unknowns")));
    if d.unknowns.is_empty() {
        o.push_str("  none\n");
    }
    for u in &d.unknowns {
        o.push_str(&format!("  {}: {}\n", u.what, u.why));
    }
    o
}
