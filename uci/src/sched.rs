//! Asking the OS scheduler to wake a mostly-idle thread promptly.
//!
//! With many more search threads than cores, Linux's EEVDF scheduler (6.6 and later) gives a
//! thread woken from sleep no head start over the busy ones: the input reader woken by `stop`
//! waited behind dozens of searching threads for far longer than answering takes. Since Linux
//! 6.12 a thread may ask for a shorter time slice, which also lets it preempt at wakeup. The
//! input reader asks: it uses almost no CPU, so asking costs the search threads nothing. This
//! is the front end's only `unsafe`: one system call with a plain struct.

/// The slice asked for, in nanoseconds (the kernel accepts 0.1 ms to 100 ms).
#[cfg(target_os = "linux")]
const SHORT_SLICE_NS: u64 = 100_000;

/// Ask for a short time slice for the calling thread. Returns whether the OS accepted (older
/// kernels and other systems do not offer this; nothing changes then).
#[cfg(target_os = "linux")]
pub fn request_short_slice() -> bool {
    /// `struct sched_attr` of `sched_setattr(2)`, its first version (48 bytes).
    #[repr(C)]
    struct SchedAttr {
        size: u32,
        policy: u32,
        flags: u64,
        nice: i32,
        priority: u32,
        runtime: u64,
        deadline: u64,
        period: u64,
    }
    // Keep the thread's nice value: lowering it would need privileges.
    // SAFETY: getpriority only reads the calling thread's (tid 0 = self) scheduling value.
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        policy: libc::SCHED_OTHER as u32,
        flags: 0,
        nice,
        priority: 0,
        runtime: SHORT_SLICE_NS,
        deadline: 0,
        period: 0,
    };
    // SAFETY: `attr` is a valid, initialised `sched_attr` (version 0 layout, its size in
    // `size`) that outlives the call; pid 0 is the calling thread; flags must be 0.
    let status = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) };
    status == 0
}

#[cfg(not(target_os = "linux"))]
pub fn request_short_slice() -> bool {
    false
}
