//! Helpers for the profiles' direct readers ([`super::tape::TapeProfile::direct`]), which walk
//! the objects of a line whose shape they know and read only the values they keep into the
//! tape ([`Tape::value`]), with the tape reader's checks. Each helper answers `None` for what
//! the walk leaves to the tape reader.

use super::tape::{skip_ws, token, Tape};

/// A node index that stands for an absent value.
pub(super) const NONE: u32 = u32::MAX;

/// `null` at `i`?
#[inline(always)]
pub(super) fn is_null(b: &[u8], i: usize) -> bool {
    b.get(i..i + 4) == Some(b"null".as_slice())
}

/// Whether the bytes at `i` are `lit`.
#[inline(always)]
pub(super) fn starts(b: &[u8], i: usize, lit: &[u8]) -> bool {
    b.get(i..i + lit.len()) == Some(lit)
}

/// `"key":` for a key of `N - 3` bytes, at compile time (see [`member_key!`]).
pub(super) const fn quoted_key<const N: usize>(key: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out[0] = b'"';
    let mut j = 0;
    while j < key.len() {
        out[j + 1] = key[j];
        j += 1;
    }
    out[N - 2] = b'"';
    out[N - 1] = b':';
    out
}

/// A member's key at `i` (a `&Tape` and an index): `Some((id, index of its value))`, `None` for
/// a key with an escape or no key. The `fast` keys, the usual ones, are recognized with their
/// quotes and colon in one fixed-length comparison each (`"name":`, as both compact JSON and
/// Python's `json.dumps` write them); otherwise the key is read and matched against the `fast`
/// and `slow` keys; any other key is `other`. Keys are byte-string literals.
///
/// A macro rather than a function over a table of keys: each comparison then has a literal of
/// known length and the slow path is a `match`, as hand-written code would have them (a loop
/// over a table cost DeepEval 5.6 % and Evalite 4.6 % more instructions, callgrind).
macro_rules! member_key {
    ($tape:expr, $i:expr,
     fast [$($fast:literal => $fid:expr),* $(,)?],
     slow [$($slow:literal => $sid:expr),* $(,)?],
     other $other:expr) => {{
        let tape: &$crate::score::profiles::tape::Tape<'_> = $tape;
        let i: usize = $i;
        let b = tape.src().as_bytes();
        let c = b.get(i + 1).copied();
        let fast: Option<(u8, usize)> = 'fast: {
            $({
                const QUOTED: [u8; $fast.len() + 3] =
                    $crate::score::profiles::walk::quoted_key($fast);
                if c == Some($fast[0]) && $crate::score::profiles::walk::starts(b, i, &QUOTED) {
                    break 'fast Some(($fid, i + QUOTED.len()));
                }
            })*
            None
        };
        match fast {
            Some((k, v)) => Some((k, $crate::score::profiles::tape::skip_ws(b, v))),
            None => tape.plain_key(i).map(|(k, v)| {
                let id: u8 = match k {
                    $($fast => $fid,)*
                    $($slow => $sid,)*
                    _ => $other,
                };
                (id, v)
            }),
        }
    }};
}
pub(super) use member_key;

/// Skip the value at `i` (inside `levels` containers), checked as the tape reader checks
/// it: the index after it. A string without escapes is only scanned.
#[inline(always)]
pub(super) fn skip(tape: &mut Tape<'_>, i: usize, levels: usize) -> Option<usize> {
    if let Some((_, end)) = tape.plain_str(i) {
        return Some(end);
    }
    Some(tape.value(i, levels)?.1)
}

/// A value kept as a node, at `i` (inside `levels` containers): its node ([`NONE`] for
/// `null`, which the caller reads as absent) and the index after it.
#[inline(always)]
pub(super) fn kept(tape: &mut Tape<'_>, i: usize, levels: usize) -> Option<(u32, usize)> {
    if is_null(tape.src().as_bytes(), i) {
        return Some((NONE, i + 4));
    }
    tape.value(i, levels)
}

/// The bits of the known keys seen in an object: a repeated one leaves the line.
#[inline(always)]
pub(super) fn once(seen: &mut u32, bit: u32) -> Option<()> {
    if *seen & bit != 0 {
        return None;
    }
    *seen |= bit;
    Some(())
}

/// After a member or item at `i`: the index of the next one in `Ok`, or the index after the
/// closing `close` in `Err`.
#[inline(always)]
pub(super) fn next(b: &[u8], i: usize, close: u8) -> Option<Result<usize, usize>> {
    match token(b, i) {
        (Some(b','), i) => Some(Ok(skip_ws(b, i + 1))),
        (Some(c), i) if c == close => Some(Err(i + 1)),
        _ => None,
    }
}

/// The array at `i`, each item read by `item` (given the item's first byte, answering the
/// index after it): the index after the array.
#[inline(always)]
pub(super) fn items(
    tape: &mut Tape<'_>,
    i: usize,
    mut item: impl FnMut(&mut Tape<'_>, usize) -> Option<usize>,
) -> Option<usize> {
    let b = tape.src().as_bytes();
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let (t, mut i) = token(b, i + 1);
    if t == Some(b']') {
        return Some(i + 1);
    }
    loop {
        i = item(tape, i)?;
        match next(b, i, b']')? {
            Ok(at) => i = at,
            Err(end) => return Some(end),
        }
    }
}
