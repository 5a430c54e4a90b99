//! What the `--live` view shows, drawn with ratatui from the frames of the run's sampler
//! (run/live.rs): a header (command, phase, elapsed and remaining time, the keys), the
//! device line (utilisation and temperature when known), and per job its current MB/s,
//! IOPS, mean latency and 99th percentile (of the last sample's interval; `-` where the
//! recorder is not read while the run goes on) with sparklines of the last 60 s.

use super::format;
use crate::run::live::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Sparkline};
use std::collections::VecDeque;

/// How far back the sparklines reach, s.
pub const WINDOW_S: f64 = 60.0;

/// The view's memory: the frames of the last [`WINDOW_S`] seconds and what the header
/// says.
#[derive(Debug, Default)]
pub struct State {
    /// the command's name (`iomark run`, `iomark mark`)
    pub title: String,
    frames: VecDeque<Frame>,
    /// seconds since the view started, and left (`None`: not known)
    pub elapsed_s: u64,
    /// seconds left, when known
    pub remaining_s: Option<u64>,
    /// `q` or Ctrl-C was pressed: the run is stopping
    pub stopping: bool,
}

impl State {
    /// A view of `title` with no frame yet.
    pub fn new(title: &str) -> State {
        State {
            title: title.into(),
            ..State::default()
        }
    }

    /// Keep `f`, drop the frames older than the window.
    pub fn push(&mut self, f: Frame) {
        let t = f.t_s;
        // a new series (mark's next loop restarts its clock): keep the window's width
        if self.frames.back().is_some_and(|b| t < b.t_s) {
            let shift = self.frames.back().map_or(0.0, |b| b.t_s);
            for g in self.frames.iter_mut() {
                g.t_s -= shift;
            }
        }
        self.frames.push_back(f);
        while self.frames.front().is_some_and(|g| g.t_s < t - WINDOW_S) {
            self.frames.pop_front();
        }
    }

    /// The series of job `i` over the window: (MB/s ×10, IOPS, latency ns) per frame.
    fn series(&self, i: usize) -> [Vec<u64>; 3] {
        let mut s: [Vec<u64>; 3] = Default::default();
        for f in &self.frames {
            let j = f.jobs.get(i);
            let bw = j.map_or(0.0, |j| j.read_bps + j.write_bps);
            let io = j.map_or(0.0, |j| j.read_iops + j.write_iops);
            s[0].push((bw / 1e5) as u64);
            s[1].push(io as u64);
            s[2].push(j.and_then(|j| j.lat_mean_ns).unwrap_or(0.0) as u64);
        }
        s
    }
}

/// The header line: command, phase, elapsed and remaining time, the keys.
fn header(st: &State) -> Line<'static> {
    let phase = st
        .frames
        .back()
        .and_then(|f| f.phase.clone())
        .map_or(String::new(), |p| format!("  {p}"));
    let keys = if st.stopping {
        "  stopping: saving the partial result…".to_string()
    } else {
        "  q or Ctrl-C: stop (partial result kept)".to_string()
    };
    Line::from(vec![
        Span::styled(
            format!("{} --live", st.title),
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Span::raw(phase),
        Span::raw(format!(
            "  elapsed {}  remaining {}",
            format::duration(Some(st.elapsed_s)),
            format::duration(st.remaining_s)
        )),
        Span::styled(keys, Style::default().fg(Color::Yellow)),
    ])
}

/// The device line: utilisation and temperature over the last interval.
fn device(st: &State) -> Line<'static> {
    let f = st.frames.back();
    let util = f.and_then(|f| f.util_pct);
    let temp = f.and_then(|f| f.temp_c);
    let text = match (f, util, temp) {
        (None, _, _) => "device: waiting for the first sample".to_string(),
        (_, None, None) => {
            "device: no block device or sensor known (null engine, tmpfs, …)".to_string()
        }
        _ => format!(
            "device: utilisation {}  temperature {}",
            format::util(util),
            format::temp(temp)
        ),
    };
    Line::from(text)
}

/// One job's box: its current figures in the title, three sparklines inside.
fn job_box(frame: &mut ratatui::Frame, area: Rect, st: &State, i: usize) {
    let Some(j) = st.frames.back().and_then(|f| f.jobs.get(i)) else {
        return;
    };
    let title = format!(
        " {}  {}  {}  lat mean {}  p99 {} ",
        j.name,
        format::mb_s(j.read_bps + j.write_bps),
        format::iops(j.read_iops + j.write_iops),
        format::latency(j.lat_mean_ns),
        format::latency(j.lat_p99_ns)
    );
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let cols = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Ratio(1, 3); 3])
        .split(inner);
    let series = st.series(i);
    let names = [
        "MB/s, last 60 s",
        "IOPS, last 60 s",
        "mean latency, last 60 s",
    ];
    let colors = [Color::Green, Color::Cyan, Color::Magenta];
    for (k, s) in series.iter().enumerate() {
        let w = usize::from(cols[k].width);
        let tail = &s[s.len().saturating_sub(w)..];
        let spark = Sparkline::default()
            .block(Block::default().title(names[k]))
            .style(Style::default().fg(colors[k]))
            .data(tail);
        frame.render_widget(spark, cols[k]);
    }
}

/// Draw the whole view.
pub fn draw(frame: &mut ratatui::Frame, st: &State) {
    let area = frame.area();
    let jobs = st.frames.back().map_or(0, |f| f.jobs.len());
    let per = 6u16;
    let fit = usize::from(area.height.saturating_sub(3) / per).min(jobs);
    let mut cons = vec![Constraint::Length(1), Constraint::Length(1)];
    cons.extend(std::iter::repeat_n(Constraint::Length(per), fit));
    cons.push(Constraint::Min(0));
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints(cons)
        .split(area);
    frame.render_widget(Paragraph::new(header(st)), rows[0]);
    frame.render_widget(Paragraph::new(device(st)), rows[1]);
    for i in 0..fit {
        job_box(frame, rows[2 + i], st, i);
    }
    if jobs > fit {
        let more = format!(
            "… and {} more job(s) (a taller terminal shows them)",
            jobs - fit
        );
        frame.render_widget(Paragraph::new(more), rows[2 + fit]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::live::JobRates;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    #[test]
    fn draws_each_job_with_its_figures_and_the_device() {
        let mut st = State::new("iomark run");
        for t in 0..70 {
            st.push(Frame {
                t_s: f64::from(t),
                jobs: vec![JobRates {
                    name: "seqread".into(),
                    read_bps: 123_400_000.0,
                    read_iops: 30_127.0,
                    lat_mean_ns: Some(33_000.0),
                    lat_p99_ns: Some(91_000.0),
                    ..JobRates::default()
                }],
                util_pct: Some(87.0),
                temp_c: Some(41.0),
                ..Frame::default()
            });
        }
        // the window keeps 60 s
        assert_eq!(st.frames.len(), 61);
        st.elapsed_s = 70;
        st.remaining_s = Some(50);
        let mut term = Terminal::new(TestBackend::new(120, 20)).unwrap();
        term.draw(|f| draw(f, &st)).unwrap();
        let screen: String = term
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        for want in [
            "iomark run --live",
            "elapsed 01:10  remaining 00:50",
            "seqread  123.4 MB/s  30.1k IOPS  lat mean 33.0 µs  p99 91.0 µs",
            "utilisation 87 %  temperature 41 °C",
            "MB/s, last 60 s",
        ] {
            assert!(screen.contains(want), "{want}: {screen}");
        }
    }
}
