//! Noisy cut surfaces ([`CutNoise`]): watertight chunks, matching faces
//! between neighbours, volume conservation, determinism, validation, and
//! byte-identical output when the noise is off.

#![allow(clippy::unwrap_used)]

mod common;

use common::asset;
use smithereens_authoring::{
    FractureSettings, Pattern, SiteDistribution, SliceSettings, fracture, load_mesh,
};

/// FNV-1a 64 of `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[test]
fn output_without_noise_is_byte_identical_to_before_the_feature() {
    let mesh = load_mesh(&asset("Box.gltf")).unwrap();
    let settings = FractureSettings {
        chunk_count: 8,
        ..Default::default()
    };
    let voronoi = fracture(
        &mesh,
        &settings,
        &Pattern::Voronoi {
            sites: SiteDistribution::Uniform,
        },
        &mut |_| {},
    )
    .unwrap();
    let slice = fracture(
        &mesh,
        &settings,
        &Pattern::Slice(SliceSettings::default()),
        &mut |_| {},
    )
    .unwrap();
    // Pinned before noisy cut surfaces existed (commit 8fc5ed0).
    assert_eq!(fnv1a(&voronoi.to_bytes()), 0xd755_4594_36d9_cfc8);
    assert_eq!(fnv1a(&slice.to_bytes()), 0xf57e_0bfc_2b7a_1b61);
}
