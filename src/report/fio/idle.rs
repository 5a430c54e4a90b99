//! fio's `--idle-prof=system|percpu` report: the CPU idleness over the run, after the
//! normal report (`CPU idleness:` with `system: P%`, `percpu: P%, …` and the unit work
//! line) and as the JSON document's last key (`cpu_idleness`: `system`, `cpu-N`,
//! `unit_mean`, `unit_stddev`), fio 3.33's `show_idle_prof_stats`. The figures are
//! measured by the front end around the run and handed over through [`Shared`].

use crate::report::{ReportError, Reporter};
use crate::result::RunResult;
use std::sync::{Arc, Mutex};

/// The CPU idleness of a run, percent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IdleStats {
    /// the whole system's
    pub system: f64,
    /// each CPU's (`percpu`), none for `system`
    pub percpu: Option<Vec<f64>>,
    /// one unit of the idle profiler's work, µs: mean and standard deviation
    pub unit: (f64, f64),
}

/// The figures, set once the run has ended (none: nothing is added).
pub type Shared = Arc<Mutex<Option<IdleStats>>>;

fn get(s: &Shared) -> Option<IdleStats> {
    s.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The text lines.
pub fn text(i: &IdleStats) -> String {
    let mut s = format!("\nCPU idleness:\n  system: {:3.2}%\n", i.system);
    if let Some(p) = &i.percpu {
        let each: Vec<String> = p.iter().map(|v| format!("{v:3.2}%")).collect();
        s += &format!("  percpu: {}\n", each.join(", "));
    }
    s += &format!(
        "  unit work: mean={:3.2}us, stddev={:3.2}\n",
        i.unit.0, i.unit.1
    );
    s
}

/// The `cpu_idleness` member, as fio's JSON writer indents it at the top level.
pub fn json_member(i: &IdleStats) -> String {
    let mut m = vec![format!("    \"system\" : {:.6}", i.system)];
    for (n, v) in i.percpu.iter().flatten().enumerate() {
        m.push(format!("    \"cpu-{n}\" : {v:.6}"));
    }
    m.push(format!("    \"unit_mean\" : {:.6}", i.unit.0));
    m.push(format!("    \"unit_stddev\" : {:.6}", i.unit.1));
    format!("  \"cpu_idleness\" : {{\n{}\n  }}", m.join(",\n"))
}

/// The normal report followed by the idleness lines.
pub struct IdleText(pub Box<dyn Reporter>, pub Shared);

impl Reporter for IdleText {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let mut out = self.0.render(r)?;
        if let Some(i) = get(&self.1) {
            out.extend(text(&i).into_bytes());
        }
        Ok(out)
    }
}

/// The JSON document with `cpu_idleness` as its last member.
pub struct IdleJson(pub Box<dyn Reporter>, pub Shared);

impl Reporter for IdleJson {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let out = self.0.render(r)?;
        let Some(i) = get(&self.1) else {
            return Ok(out);
        };
        let doc = String::from_utf8_lossy(&out).into_owned();
        Ok(match doc.rfind("\n}") {
            Some(at) => format!("{},\n{}{}", &doc[..at], json_member(&i), &doc[at..]).into_bytes(),
            None => out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_lines_and_member() {
        let i = IdleStats {
            system: 97.5,
            percpu: Some(vec![95.0, 100.0]),
            unit: (0.25, 0.01),
        };
        assert_eq!(
            text(&i),
            "\nCPU idleness:\n  system: 97.50%\n  percpu: 95.00%, 100.00%\n  unit work: mean=0.25us, stddev=0.01\n"
        );
        let doc = format!("{{\n  \"jobs\" : [],\n{}\n}}", json_member(&i));
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(v["cpu_idleness"]["cpu-1"], 100.0);
        assert_eq!(v["cpu_idleness"]["unit_stddev"], 0.01);
    }
}
