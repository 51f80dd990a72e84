use super::*;

/// The start position packed as marlinformat does, with this result byte.
fn packed_startpos(result: u8) -> [u8; START_BYTES] {
    let mut h = [0u8; START_BYTES];
    let occupancy: u64 = 0xFFFF_0000_0000_FFFF;
    h[0..8].copy_from_slice(&occupancy.to_le_bytes());
    // Squares in order a1..h2 then a7..h8; unmoved rooks on a1, h1, a8, h8.
    let white = [6u8, 1, 2, 4, 5, 2, 1, 6, 0, 0, 0, 0, 0, 0, 0, 0];
    let black: Vec<u8> = [0u8, 0, 0, 0, 0, 0, 0, 0, 6, 1, 2, 4, 5, 2, 1, 6].iter().map(|c| c | 8).collect();
    let codes: Vec<u8> = white.iter().copied().chain(black).collect();
    for (i, code) in codes.iter().enumerate() {
        h[8 + i / 2] |= code << (4 * (i % 2));
    }
    h[24] = 64; // White to move, no en-passant square
    h[26] = 1; // move 1
    h[30] = result;
    h
}

#[test]
fn the_start_position_unpacks_with_shredder_castling() {
    let start = unpack_start(&packed_startpos(2)).expect("a valid start");
    assert_eq!(start.fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1");
    assert_eq!((start.result, start.ply), (2, 0));
    assert!(unpack_start(&packed_startpos(3)).unwrap_err().contains("result byte 3"));
}

#[test]
fn games_are_framed_with_their_offsets_and_a_cut_is_named() {
    let mut file = Vec::new();
    for moves in [2u16, 0] {
        file.extend_from_slice(&packed_startpos(1));
        for m in 0..moves {
            file.extend_from_slice(&(m + 1).to_le_bytes());
            file.extend_from_slice(&(-5i16).to_le_bytes());
        }
        file.extend_from_slice(&[0; RECORD_BYTES]);
    }
    let mut frames = Frames::new(&file[..]);
    let first = frames.next_game().expect("framed").expect("a game");
    assert_eq!((first.index, first.offset, first.records.len()), (0, 0, 2));
    assert_eq!(first.records[1], Record { raw_move: 2, score: -5, offset: 36 });
    assert_eq!(first.bytes.len(), 44);
    let second = frames.next_game().expect("framed").expect("a game");
    assert_eq!((second.index, second.offset, second.records.len()), (1, 44, 0));
    assert_eq!(frames.next_game(), Ok(None));
    assert_eq!(frames.offset(), file.len() as u64);

    for cut in 1..file.len() {
        let mut frames = Frames::new(&file[..cut]);
        let mut outcome = frames.next_game();
        while let Ok(Some(_)) = outcome {
            outcome = frames.next_game();
        }
        match outcome {
            Ok(None) => assert!(cut == 44, "cut at {cut} went unnoticed"),
            Err(FrameError::Truncated { game, .. }) => assert_eq!(game, u64::from(cut > 44), "cut {cut}"),
            Ok(Some(_)) | Err(FrameError::Io { .. }) => unreachable!("cut {cut}"),
        }
    }
}
