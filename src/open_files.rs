//! The open-file limit of a server process: the gateway holds one connection per waiting hook,
//! `gatehouse web` one per page, so each takes as many descriptors as the system lets it.

/// Raises this process's soft limit on open files to its hard limit, and returns the limit now
/// in force.
pub fn raise_open_file_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: both calls only read or write the struct passed to them.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1_024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                return raised.rlim_cur;
            }
            tracing::debug!("cannot raise the open file limit");
        }
    }
    limit.rlim_cur
}
