//! Issue 13, item 7 (schema): `[….stress]` tables, block grids and carving;
//! bad values are typed errors naming the field.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use smithereens_scenario::{ScenarioFile, ScenarioFileError, build};
use std::path::Path;

const BASE: &str = r#"
name = "s"
duration = 0.2
[asset]
supports = "ground"
[asset.box]
size = [2.0, 1.0, 0.5]
blocks = [4, 2, 1]
"#;

fn field_of(text: &str) -> String {
    match ScenarioFile::parse(text) {
        Err(ScenarioFileError::Invalid { field, .. }) => field,
        other => panic!("expected an invalid field, got {other:?}"),
    }
}

#[test]
fn a_stress_table_scales_a_preset_and_overrides_its_modes() {
    let text = format!(
        "{BASE}[asset.stress]\nmaterial = \"brick\"\nscale = 0.5\ntension = [1.0e4, 2.0e4]\ndamage_rate = 0.01\nmax_iterations = 8\nepsilon = 2e-3\n"
    );
    let file = ScenarioFile::parse(&text).unwrap();
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let desc = built.scenario.instances[0].stress.clone().unwrap();
    let m = desc.materials.materials[0];
    let brick = smithereens_core::stress::Material::BRICK;
    assert_eq!(m.compression.fatal, brick.compression.fatal * 0.5);
    assert_eq!(m.shear.elastic, brick.shear.elastic * 0.5);
    assert_eq!((m.tension.elastic, m.tension.fatal), (1.0e4, 2.0e4));
    assert_eq!(m.damage_rate, 0.01);
    assert_eq!(desc.settings.max_iterations, 8);
    assert_eq!(desc.settings.epsilon, 2e-3);
    // The grid: 4 × 2 × 1 blocks of 0.5 m, every shared face bonded.
    let asset = built.scenario.instances[0].asset.validate().unwrap();
    assert_eq!(asset.chunk_count(), 8);
    assert_eq!(asset.bond_count(), 3 * 2 + 4);
    // Without a stress table, stress is off.
    let plain = build(
        &ScenarioFile::parse(BASE).unwrap(),
        Path::new("."),
        &mut |_| {},
    )
    .unwrap();
    assert!(plain.scenario.instances[0].stress.is_none());
}

#[test]
fn carving_takes_chunks_and_their_bonds_away() {
    let text = BASE.replace(
        "blocks = [4, 2, 1]",
        "blocks = [4, 2, 1]\ncarve = [[-0.5, -0.5, -1.0, 0.5, 0.0, 1.0]]",
    );
    let file = ScenarioFile::parse(&text).unwrap();
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let f = &built.scenario.instances[0].asset;
    // The two middle blocks of the bottom row go: 6 blocks, 10 − 2 − 3 = 5
    // bonds (each lost block took its bond up and its side bonds).
    assert_eq!(f.desc.chunks.len(), 6);
    assert_eq!(f.meshes.len(), 6);
    let asset = f.validate().unwrap();
    assert_eq!(asset.bond_count(), 5);
    let all = BASE.replace(
        "blocks = [4, 2, 1]",
        "blocks = [4, 2, 1]\ncarve = [[-9.0, -9.0, -9.0, 9.0, 9.0, 9.0]]",
    );
    assert!(matches!(
        build(
            &ScenarioFile::parse(&all).unwrap(),
            Path::new("."),
            &mut |_| {}
        ),
        Err(ScenarioFileError::Invalid { .. })
    ));
}

#[test]
fn bad_stress_block_and_carve_values_name_their_field() {
    let stress = |body: &str| format!("{BASE}[asset.stress]\n{body}\n");
    assert_eq!(
        field_of(&stress("material = \"cheese\"")),
        "asset.stress.material"
    );
    assert_eq!(field_of(&stress("scale = 0.0")), "asset.stress.scale");
    assert_eq!(field_of(&stress("scale = nan")), "asset.stress.scale");
    assert_eq!(
        field_of(&stress("tension = [2.0, 1.0]")),
        "asset.stress.tension"
    );
    assert_eq!(
        field_of(&stress("shear = [-1.0, 1.0]")),
        "asset.stress.shear"
    );
    assert_eq!(
        field_of(&stress("compression = [1.0, inf]")),
        "asset.stress.compression"
    );
    assert_eq!(
        field_of(&stress("damage_rate = -1.0")),
        "asset.stress.damage_rate"
    );
    assert_eq!(
        field_of(&stress("max_iterations = 0")),
        "asset.stress.max_iterations"
    );
    assert_eq!(field_of(&stress("epsilon = 0.0")), "asset.stress.epsilon");
    assert!(matches!(
        ScenarioFile::parse(&stress("colour = 1")),
        Err(ScenarioFileError::Toml(_))
    ));
    let blocks = |b: &str| BASE.replace("blocks = [4, 2, 1]", b);
    assert_eq!(field_of(&blocks("blocks = [4, 0, 1]")), "asset.box.blocks");
    assert_eq!(
        field_of(&blocks("blocks = [4, 2, 1]\nchunks = 5")),
        "asset.box.blocks"
    );
    assert_eq!(
        field_of(&blocks("blocks = [1000, 1000, 1]")),
        "asset.box.blocks"
    );
    assert_eq!(field_of(&blocks("")), "asset.box.chunks");
    assert_eq!(
        field_of(&blocks(
            "blocks = [4, 2, 1]\ncarve = [[1.0, 0.0, 0.0, 0.0, 1.0, 1.0]]"
        )),
        "asset.box.carve[0]"
    );
    assert_eq!(
        field_of(&blocks(
            "blocks = [4, 2, 1]\ncarve = [[0.0, 0.0, 0.0, nan, 1.0, 1.0]]"
        )),
        "asset.box.carve[0]"
    );
}
