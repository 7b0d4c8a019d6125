//! The shipped binary is a position-independent executable, so its code is placed at a random
//! address in every run (ASLR), like every other program on the system.

/// ELF's `e_type` of the built `toolspec` is `ET_DYN` (3), what `-pie` links; a `-no-pie` link
/// gives `ET_EXEC` (2).
#[cfg(target_os = "linux")]
#[test]
fn the_binary_is_position_independent() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_toolspec")).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF", "not an ELF file");
    // e_type: 2 bytes at offset 16, in the file's byte order (EI_DATA at offset 5: 1 = little).
    let e_type = match bytes[5] {
        1 => u16::from_le_bytes([bytes[16], bytes[17]]),
        _ => u16::from_be_bytes([bytes[16], bytes[17]]),
    };
    assert_eq!(
        e_type, 3,
        "e_type {e_type}: not a position-independent executable"
    );
}
