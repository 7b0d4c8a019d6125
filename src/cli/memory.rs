//! The default number of workers: one per core, but no more than the memory this process may
//! use holds workers reading their largest file (`transcript::WORKER_MEMORY` each). Read from
//! what Linux reports (`/proc`, the cgroup's limit); elsewhere, one per core.

use toolspec::transcript::WORKER_MEMORY;

/// What a worker thread maps beside what it reads, under an address-space limit: its stack and
/// the allocator's arena it may reserve.
const THREAD_MAPPINGS: u64 = 128 << 20;

/// Worker threads for a run whose `-j` is not given: `None` for one per core (rayon's default),
/// or fewer when the memory available holds fewer workers (at least one).
pub(crate) fn default_jobs() -> Option<usize> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let fit = workers_within(&Probe::system())?;
    let n = usize::try_from(fit).unwrap_or(usize::MAX).clamp(1, cores);
    (n < cores).then_some(n)
}

/// Run `f` on a pool of `threads` workers (`-j`; default: one per core, fewer when the memory
/// this process may use holds fewer workers reading their largest file, [`default_jobs`]).
/// When the threads cannot be started (a process under `ulimit -v` or a thread limit), `f` runs
/// on this thread: the same report, later, never an abort. The command and the Python module's
/// project check both run through here.
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> T {
    let Some(n) = threads.or_else(default_jobs) else {
        return f();
    };
    match rayon::ThreadPoolBuilder::new()
        .num_threads(n.max(1))
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// What the system says about memory (each `None` when it does not say).
struct Probe {
    /// `MemAvailable` of /proc/meminfo.
    available: Option<u64>,
    /// The cgroup's `memory.max` less its `memory.current`.
    cgroup_left: Option<u64>,
    /// The address-space limit (`ulimit -v`) less what the process maps already (`VmSize`).
    address_left: Option<u64>,
}

impl Probe {
    fn system() -> Probe {
        let read = |p: &str| std::fs::read_to_string(p).ok();
        let meminfo = read("/proc/meminfo");
        let status = read("/proc/self/status");
        let limits = read("/proc/self/limits");
        let cgroup_max = read("/sys/fs/cgroup/memory.max");
        let cgroup_now = read("/sys/fs/cgroup/memory.current");
        let kib = |text: &Option<String>, key: &str| -> Option<u64> {
            let line = text.as_deref()?.lines().find(|l| l.starts_with(key))?;
            let n: u64 = line[key.len()..].split_whitespace().next()?.parse().ok()?;
            n.checked_mul(1024)
        };
        let address_limit = limits.as_deref().and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("Max address space"))?;
            // `Max address space  SOFT  HARD  bytes`: the soft limit is the one enforced.
            line["Max address space".len()..]
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        });
        let number = |t: &Option<String>| t.as_deref()?.trim().parse::<u64>().ok();
        Probe {
            available: kib(&meminfo, "MemAvailable:"),
            cgroup_left: number(&cgroup_max)
                .map(|max| max.saturating_sub(number(&cgroup_now).unwrap_or(0))),
            address_left: address_limit
                .map(|limit| limit.saturating_sub(kib(&status, "VmSize:").unwrap_or(0))),
        }
    }
}

/// How many workers fit: the least of what each limit holds.
fn workers_within(p: &Probe) -> Option<u64> {
    let by_memory = [p.available, p.cgroup_left]
        .into_iter()
        .flatten()
        .min()
        .map(|m| m / WORKER_MEMORY);
    let by_address = p
        .address_left
        .map(|a| a / (WORKER_MEMORY + THREAD_MAPPINGS));
    [by_memory, by_address].into_iter().flatten().min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tightest_limit_decides() {
        let gib = 1u64 << 30;
        let p = |available, cgroup_left, address_left| Probe {
            available,
            cgroup_left,
            address_left,
        };
        assert_eq!(workers_within(&p(None, None, None)), None);
        // 1.5 GiB a worker.
        assert_eq!(WORKER_MEMORY, 3 * gib / 2);
        assert_eq!(workers_within(&p(Some(64 * gib), None, None)), Some(42));
        assert_eq!(
            workers_within(&p(Some(64 * gib), Some(3 * gib), None)),
            Some(2)
        );
        // Under `ulimit -v 2 GiB` with 100 MiB mapped: one worker and its mappings fit.
        assert_eq!(
            workers_within(&p(Some(64 * gib), None, Some(4 * gib - (100 << 20)))),
            Some(2)
        );
        assert_eq!(
            workers_within(&p(Some(64 * gib), None, Some(2 * gib - (100 << 20)))),
            Some(1)
        );
        assert_eq!(workers_within(&p(Some(gib / 2), None, None)), Some(0));
    }
}
