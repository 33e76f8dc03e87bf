//! Process metrics (`process_*`, Linux): the prometheus crate's process collector, with
//! `process_cpu_seconds_total` in fractional seconds.
//!
//! The crate's collector keeps CPU time in an integer counter of whole seconds, so a dashboard's
//! `rate(process_cpu_seconds_total[1m])` moves in steps of 1/60 CPU and reads 0 for a process using less than a
//! second a minute. Here the same `/proc/self/stat` fields (`utime` + `stime`, in clock ticks, usually 1/100 s)
//! are divided as floating point, so the counter has the kernel's resolution. The other series (resident and
//! virtual memory, open and maximum fds, threads, start time) are the crate's, unchanged.

use prometheus::core::{Collector, Desc};
use prometheus::process_collector::ProcessCollector;
use prometheus::{Counter, Opts, proto};

/// Name of the series replaced with the fractional one.
const CPU: &str = "process_cpu_seconds_total";

/// The process collector with a fractional `process_cpu_seconds_total` (see the module docs).
pub struct ProcessMetrics {
    inner: ProcessCollector,
    cpu: Counter,
}

impl ProcessMetrics {
    /// The metrics of the calling process.
    ///
    /// # Errors
    /// Never in practice (the counter's options are constant).
    pub fn for_self() -> prometheus::Result<ProcessMetrics> {
        Ok(ProcessMetrics {
            inner: ProcessCollector::for_self(),
            cpu: Counter::with_opts(Opts::new(
                CPU,
                "Total user and system CPU time spent in seconds.",
            ))?,
        })
    }
}

/// User + system CPU time of this process so far, in seconds (resolution: one clock tick).
fn cpu_seconds() -> Option<f64> {
    let stat = procfs::process::Process::myself().ok()?.stat().ok()?;
    let ticks = procfs::ticks_per_second().max(1);
    Some((stat.utime + stat.stime) as f64 / ticks as f64)
}

impl Collector for ProcessMetrics {
    fn desc(&self) -> Vec<&Desc> {
        // The inner descriptions include one for `process_cpu_seconds_total` (a counter, as here).
        self.inner.desc()
    }

    fn collect(&self) -> Vec<proto::MetricFamily> {
        let mut families = self.inner.collect();
        families.retain(|f| f.name() != CPU);
        if let Some(now) = cpu_seconds() {
            // Monotonic even if two scrapes race: only ever add the part not yet counted.
            let counted = self.cpu.get();
            if now > counted {
                self.cpu.inc_by(now - counted);
            }
            families.extend(self.cpu.collect());
        }
        families
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_seconds_are_fractional_and_replace_the_integer_series() {
        // Burn CPU until the kernel has charged this process at least one clock tick (a fixed amount of work
        // was sometimes less than a tick on a fast CPU, and the test failed with 0), at most 5 s.
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while cpu_seconds().unwrap_or(0.0) == 0.0
            && start.elapsed() < std::time::Duration::from_secs(5)
        {
            for i in 0..1_000_000u64 {
                x = x.wrapping_mul(31).wrapping_add(std::hint::black_box(i));
            }
        }
        assert_ne!(std::hint::black_box(x), 1);
        let m = ProcessMetrics::for_self().unwrap();
        let families = m.collect();
        let cpu: Vec<_> = families.iter().filter(|f| f.name() == CPU).collect();
        assert_eq!(cpu.len(), 1, "exactly one CPU series");
        let value = cpu[0].get_metric()[0].get_counter().value();
        assert!(value > 0.0, "{value}");
        assert!(
            families
                .iter()
                .any(|f| f.name() == "process_resident_memory_bytes"),
            "the other process series are kept"
        );
    }
}
