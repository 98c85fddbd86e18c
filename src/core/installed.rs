//! How this umbel was installed, and how to update it that way: from npm (its launcher says so
//! in `UMBEL_INSTALLED_BY`), cargo (`~/.cargo/bin`), the installer script (its note of the
//! binary it wrote), an unpacked release tarball (the binary beside its CHANGELOG and man
//! pages), or a build in a source tree. `umbel --version` and `umbel doctor` say it.

use std::path::{Path, PathBuf};

/// What the answer is read from (gathered by the adapters).
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// The running binary.
    pub exe: PathBuf,
    /// `UMBEL_INSTALLED_BY` (`npm` when the npm launcher started it).
    pub by_env: Option<String>,
    /// The installer's note (`installer VERSION PATH URL`), when one was written.
    pub installer_note: Option<String>,
    /// Where cargo installs binaries (`$CARGO_HOME/bin`, else `~/.cargo/bin`).
    pub cargo_bin: Option<PathBuf>,
    /// Whether the binary's folder holds a release tarball's CHANGELOG.md and man/.
    pub beside_release_files: bool,
}

/// How umbel was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    /// The npm package `umbel-cli`.
    Npm,
    /// `cargo install`.
    Cargo,
    /// `scripts/install.sh`, from the release at this URL.
    Installer { url: String },
    /// A release tarball, unpacked by hand.
    Tarball,
    /// `cargo build` in a clone of the source.
    SourceTree,
    /// None of these.
    Unknown,
}

/// How the binary `evidence` describes was installed.
pub fn installed(evidence: &Evidence) -> Installed {
    let exe = evidence.exe.to_string_lossy();
    if evidence.by_env.as_deref() == Some("npm") || exe.contains("/node_modules/umbel-cli-") {
        return Installed::Npm;
    }
    if let Some(url) = installer_url(evidence.installer_note.as_deref(), &evidence.exe) {
        return Installed::Installer { url };
    }
    if let Some(bin) = &evidence.cargo_bin
        && evidence.exe.parent() == Some(bin.as_path())
    {
        return Installed::Cargo;
    }
    if evidence.beside_release_files {
        return Installed::Tarball;
    }
    if exe.contains("/target/release/") || exe.contains("/target/debug/") {
        return Installed::SourceTree;
    }
    Installed::Unknown
}

/// The URL the installer's note names, when the note is about this binary.
fn installer_url(note: Option<&str>, exe: &Path) -> Option<String> {
    let mut words = note?.split_whitespace();
    let (kind, _version, path, url) = (words.next()?, words.next()?, words.next()?, words.next()?);
    (kind == "installer" && Path::new(path) == exe).then(|| url.to_string())
}

impl Installed {
    /// How it was installed, in a few words.
    pub fn how(&self) -> String {
        match self {
            Installed::Npm => "with npm (umbel-cli)".into(),
            Installed::Cargo => "with cargo install".into(),
            Installed::Installer { url } => format!("with the installer script, from {url}"),
            Installed::Tarball => "from a release tarball".into(),
            Installed::SourceTree => "built in a source tree".into(),
            Installed::Unknown => "in a way umbel cannot tell".into(),
        }
    }

    /// How to update it the same way.
    pub fn update(&self) -> String {
        match self {
            Installed::Npm => "npm i -g umbel-cli@latest".into(),
            Installed::Cargo => "cargo install --locked umbel".into(),
            Installed::Installer { .. } => {
                "UMBEL_RELEASE_URL=<the new release's folder> sh install.sh (docs/releasing.md)"
                    .into()
            }
            Installed::Tarball => "unpack the new release's tarball in its place".into(),
            Installed::SourceTree => "git pull && cargo build --release --locked".into(),
            Installed::Unknown => "the way you installed it".into(),
        }
    }

    /// The line `umbel --version` adds after the version.
    pub fn line(&self) -> String {
        format!("installed {}; to update: {}", self.how(), self.update())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(exe: &str) -> Evidence {
        Evidence {
            exe: PathBuf::from(exe),
            cargo_bin: Some(PathBuf::from("/home/u/.cargo/bin")),
            ..Evidence::default()
        }
    }

    #[test]
    fn each_way_of_installing_is_told_apart() {
        let npm = Evidence {
            by_env: Some("npm".into()),
            ..at("/usr/lib/node_modules/umbel-cli-linux-x64-gnu/bin/umbel")
        };
        assert_eq!(installed(&npm), Installed::Npm);
        let run_directly = at("/p/lib/node_modules/umbel-cli-linux-x64-gnu/bin/umbel");
        assert_eq!(installed(&run_directly), Installed::Npm);
        assert_eq!(installed(&at("/home/u/.cargo/bin/umbel")), Installed::Cargo);
        let script = Evidence {
            installer_note: Some("installer 0.1.0 /home/u/.local/bin/umbel http://h/r".into()),
            ..at("/home/u/.local/bin/umbel")
        };
        assert_eq!(
            installed(&script),
            Installed::Installer {
                url: "http://h/r".into()
            }
        );
        let unpacked = Evidence {
            beside_release_files: true,
            ..at("/opt/umbel-0.1.0-x86_64-unknown-linux-gnu/umbel")
        };
        assert_eq!(installed(&unpacked), Installed::Tarball);
        assert_eq!(
            installed(&at("/src/umbel/target/release/umbel")),
            Installed::SourceTree
        );
        assert_eq!(installed(&at("/usr/local/bin/umbel")), Installed::Unknown);
    }

    #[test]
    fn the_installers_note_counts_only_for_the_binary_it_wrote() {
        let other = Evidence {
            installer_note: Some("installer 0.1.0 /home/u/.local/bin/umbel http://h/r".into()),
            ..at("/home/u/.cargo/bin/umbel")
        };
        assert_eq!(installed(&other), Installed::Cargo);
    }

    #[test]
    fn every_way_says_how_to_update() {
        assert!(Installed::Npm.line().contains("npm i -g umbel-cli@latest"));
        assert!(
            Installed::Cargo
                .line()
                .contains("cargo install --locked umbel")
        );
        assert!(Installed::Unknown.line().starts_with("installed in a way"));
    }
}
