//! `reproduce`'s report: the Markdown tables as they are measured, the figures, and at
//! the end the files (`results-NAME.md`, `results-NAME.json`, a figure per experiment).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use warpgraph::bench::GPU_SAMPLE_INTERVAL;
use warpgraph::device::Device;

use super::cell::{first_seen, Cell, Metric};
use super::{Method, Paper, Run};
use crate::plot::{Bars, Chart, Figure, Line};

impl Run<'_> {
    /// Prints a line and keeps it for the Markdown file. A closed stdout (`| head`) is no
    /// error: the run goes on and its files are still written.
    pub(super) fn say(&mut self, line: &str) {
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "{line}");
        self.markdown.push_str(line);
        self.markdown.push('\n');
    }

    /// Prints a table's header: `what` names the first column.
    pub(super) fn header<T>(&mut self, what: &str, methods: &[Method<T>]) {
        let names: Vec<&str> = methods.iter().map(|m| m.name.as_str()).collect();
        self.say(&format!("| {what} | {} |", names.join(" | ")));
        self.say(&format!("|---|{}", "---|".repeat(names.len())));
    }

    /// Prints the row of the last `count` cells.
    pub(super) fn print_row(&mut self, label: &str, count: usize, metric: Metric) {
        let mut line = format!("| {label} |");
        for c in &self.cells[self.cells.len() - count..] {
            let _ = write!(line, " {} |", c.text(metric));
        }
        self.say(&line);
    }

    /// Prints the peak memory of `experiment`'s cells, laid out as its time table.
    pub(super) fn memory_table(&mut self, experiment: &str, what: &str) {
        let cells: Vec<&Cell> = self
            .cells
            .iter()
            .filter(|c| c.experiment == experiment)
            .collect();
        let methods = first_seen(cells.iter().map(|c| c.method.as_str()));
        let graphs = first_seen(cells.iter().map(|c| c.graph.as_str()));
        let mut lines = vec![
            String::new(),
            format!(
                "Peak memory, MiB: the host's (the process's resident set); GPU cells read \
                 \"host / allocated (sampled)\": allocated, the device memory the method \
                 allocates by the library's own figure (the one it checks against free \
                 memory before allocating); sampled, the device memory in use beyond the \
                 baseline, sampled every {} ms (a lower bound: short runs read 0)",
                GPU_SAMPLE_INTERVAL.as_secs_f64() * 1e3
            ),
            String::new(),
            format!("| {what} | {} |", methods.join(" | ")),
            format!("|---|{}", "---|".repeat(methods.len())),
        ];
        for g in &graphs {
            let mut line = format!("| {g} |");
            for m in &methods {
                let text = cells
                    .iter()
                    .find(|c| c.graph == *g && c.method == *m)
                    .map_or("-".to_string(), |c| c.memory_text());
                let _ = write!(line, " {text} |");
            }
            lines.push(line);
        }
        for l in lines {
            self.say(&l);
        }
    }

    /// A line chart of `experiment`'s cells against their vertex counts, a line per
    /// method (GPU methods: kernels solid, end to end dashed); the figure is named after
    /// the experiment.
    pub(super) fn lines(&mut self, experiment: &str, title: &str, note: &str) {
        let cells: Vec<&Cell> = self
            .cells
            .iter()
            .filter(|c| c.experiment == experiment)
            .collect();
        let mut lines = Vec::new();
        for (color, m) in first_seen(cells.iter().map(|c| c.method.as_str()))
            .into_iter()
            .enumerate()
        {
            let of_m: Vec<&&Cell> = cells.iter().filter(|c| c.method == m).collect();
            let gpu = of_m.iter().any(|c| c.median_kernel_seconds.is_some());
            let points = |f: &dyn Fn(&Cell) -> Option<f64>| -> Vec<(f64, f64)> {
                of_m.iter()
                    .filter_map(|c| Some((c.vertices as f64, f(c)? * 1e3)))
                    .collect()
            };
            if gpu {
                lines.push(Line {
                    name: format!("{m}, kernels"),
                    color,
                    dashed: false,
                    points: points(&|c| c.median_kernel_seconds),
                });
                lines.push(Line {
                    name: format!("{m}, end to end"),
                    color,
                    dashed: true,
                    points: points(&|c| c.median_seconds),
                });
            } else {
                lines.push(Line {
                    name: m.to_string(),
                    color,
                    dashed: false,
                    points: points(&|c| c.median_seconds),
                });
            }
        }
        self.figures.push(Figure {
            name: experiment.to_string(),
            title: title.into(),
            note: note.into(),
            y_label: "time (ms, median)".into(),
            chart: Chart::Lines {
                x_label: "vertices (n)".into(),
                lines,
            },
        });
    }

    /// A bar chart of `experiment`'s cells: a group per graph, a bar per method (GPU:
    /// the kernels, a tick at end to end); the figure is named after the experiment.
    pub(super) fn bars(&mut self, experiment: &str, title: &str, note: &str, metric: Metric) {
        let cells: Vec<&Cell> = self
            .cells
            .iter()
            .filter(|c| c.experiment == experiment)
            .collect();
        let groups = first_seen(cells.iter().map(|c| c.graph.as_str()));
        let bars = first_seen(cells.iter().map(|c| c.method.as_str()))
            .into_iter()
            .enumerate()
            .map(|(color, m)| Bars {
                name: m.to_string(),
                color,
                values: groups
                    .iter()
                    .map(|g| {
                        cells
                            .iter()
                            .find(|c| c.graph == *g && c.method == m)
                            .and_then(|c| c.plotted(metric))
                    })
                    .collect(),
            })
            .collect();
        let y_label = match metric {
            Metric::Millis => "time (ms, median)",
            Metric::Gteps => "GTEPS (10⁹ edges/s, harmonic mean)",
        };
        self.figures.push(Figure {
            name: experiment.to_string(),
            title: title.into(),
            note: note.into(),
            y_label: y_label.into(),
            chart: Chart::Bars {
                groups: groups.iter().map(|s| s.to_string()).collect(),
                bars,
                tick: "GPU end to end".into(),
            },
        });
    }

    /// Writes the figures, the Markdown and the JSON (with the `failure` that ended the
    /// run early, if one did).
    pub(super) fn finish(
        mut self,
        dir: &Path,
        stem: &str,
        papers: &[Paper],
        failure: Option<&anyhow::Error>,
    ) -> Result<()> {
        let mut written = Vec::new();
        let mut links = String::from("\n## Figures\n\n");
        for f in &self.figures {
            let files = f.write(dir)?;
            if files.is_empty() {
                let _ = writeln!(
                    links,
                    "- {}: nothing to draw (every method refused)",
                    f.title
                );
            } else {
                let _ = writeln!(links, "![{}]({}.svg)\n", f.title, f.name);
            }
            written.extend(files);
        }
        self.markdown.push_str(&links);
        let md = dir.join(format!("{stem}.md"));
        std::fs::write(&md, &self.markdown).with_context(|| format!("writing {}", md.display()))?;
        let j = serde_json::json!({
            "papers": papers.iter().map(|p| p.name).collect::<Vec<_>>(),
            "failed": failure.map(crate::report),
            "quick": self.args.quick,
            "device": self.device.describe(),
            "gpu": self.gpu.as_ref().map(|g| g.describe()),
            "cpu": Device::Cpu.describe(),
            "memory": {
                "host": "the process's peak resident set (VmHWM) during the cell's runs, the \
                         warm-up included; the mark is reset at the cell's start \
                         (/proc/self/clear_refs) unless host_peak_since_start",
                "gpu_bytes_needed": "GPU cells: the device bytes the method allocates (the \
                         graph, its working memory and result buffers), computed by the \
                         library's estimator for it from the same plan and figures the \
                         method checks against free memory before allocating; null on the \
                         CPU and where the method refuses the graph",
                "gpu_sampled_peak_bytes": format!(
                    "GPU cells: the most device memory in use beyond the free memory before \
                     the graph went onto the GPU, sampled every {} ms while the cell ran (a \
                     lower bound, often 0 for short runs; the whole device)",
                    GPU_SAMPLE_INTERVAL.as_secs_f64() * 1e3
                ),
            },
            "figures": written,
            "cells": self.cells,
        });
        let text = serde_json::to_string_pretty(&j)?;
        let mut jsons = vec![dir.join(format!("{stem}.json"))];
        jsons.extend(self.args.json_out.clone());
        for path in &jsons {
            std::fs::write(path, &text).with_context(|| format!("writing {}", path.display()))?;
        }
        self.say(&format!(
            "\nwrote {} figures (SVG and PNG), {stem}.md and {stem}.json to {}",
            written.len() / 2,
            dir.display()
        ));
        Ok(())
    }
}
