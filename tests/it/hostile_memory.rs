//! Inputs sized to exhaust memory, through the real binary under a cap on its address space
//! (`ulimit -v`, [`hostile_support::run_limited`]): each is refused or read within its bound
//! with a located error or finding, the process never dies, and the good transcript next to it
//! is still checked.
//!
//! Inputs are generated at test time. Where the input that shows a bound on a real machine
//! takes gigabytes, the test uses a smaller input under a proportionally smaller cap: the cap is
//! what makes an unbounded reading fail, whatever the machine's memory.

use crate::hostile_support;

use hostile_support::{Project, BASE_MIB};

/// The cap is real: far below what the binary needs, the run dies (so the tests below, which
/// assert it survives, would see an unbounded allocation), and at the base cap a small project
/// is checked.
#[test]
fn the_address_space_cap_applies_to_the_binary() {
    let p = Project::new();
    let starved = p.check_limited(4, &[]);
    assert_ne!(starved.code, Some(0), "{starved:?}");
    let run = p.check_limited(BASE_MIB, &[]);
    run.assert_survived();
    assert_eq!(run.code, Some(0), "{run:?}");
    run.assert_good_checked();
}
