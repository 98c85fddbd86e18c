//! fake-gemini at older releases against their recordings (`tests/data/gemini/<version>/`).

use super::*;
use crate::fixtures::release_screen;
use crate::gemini::screens::header;

#[test]
fn the_header_and_version_name_the_release_as_recorded() {
    for version in ["0.55.1", "0.58.0"] {
        let v = Version::parse(version).unwrap();
        let screen = release_screen("gemini", version, "trust-dialog.txt");
        let drawn = header(v, Some("gemini-api-key"));
        assert_eq!(screen[1..5], drawn[1..5], "{version}");
    }
    let recorded = release_screen("gemini", "0.55.1", "version.txt");
    assert_eq!(recorded, vec![Version::new(0, 55, 1).to_string()]);
    assert_eq!(title(PINNED), "Gemini CLI v0.61.0");
}
