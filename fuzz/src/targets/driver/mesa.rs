//! The Mesa the real-driver targets run on (`--mesa newest|system|<version>`).
//!
//! A compiler engineer cares about the release they ship next, so by default the targets run
//! the newest Mesa installed. An installation is a folder `<cache>/mesa-<version>/`
//! (`${GPUFUZZ_CACHE:-~/.cache/gpufuzz}`) that a setup script wrote, holding one environment
//! file per driver — `vulkan.env` (lavapipe, for `vulkan` and `naga`), `anv.env`, `radv.env`:
//! `<PREFIX>_ICD=`, `<PREFIX>_SHIM=`, `<PREFIX>_MESA=` and, when the driver runs inside a
//! system root of its own, `<PREFIX>_ROOT=` (paths are then as seen inside the root) — and
//! optionally `versions` (`mesa 26.2.6-1`, `spirv-tools …`, one a line). Which scripts write
//! which: `scripts/mesa-sid.sh` (Debian sid, 26.2.6, in a root), `scripts/mesa-backports.sh`
//! and `scripts/mesa.sh` (bookworm-backports' 25.0.7, bookworm's 22.3.6). `system` is the
//! system's own Mesa through the Vulkan loader's default, for `vulkan` and `naga`.
//!
//! One process judges on one Mesa, as a driver reads its environment once: the command line
//! [`select`]s it before any work and every target asks [`current`]. Worker processes get it
//! from the `--mesa` flag in their command line, so a case decodes the same in all of them.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The key of a finding's `environment` naming the Mesa it was found on (`--mesa` takes it).
pub const RECORDED: &str = "mesa";

/// The variable `--mesa` defaults to (then to `newest`).
pub const VARIABLE: &str = "GPUFUZZ_MESA";

/// An installed Mesa.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesa {
    /// Its version (`26.2.6`), or `system`.
    pub name: String,
    /// Its folder; `None` for the system's.
    folder: Option<PathBuf>,
    /// The system root its drivers run in, if not the system's own (read once, from the
    /// first `_ROOT=` line of its environment files).
    root: Option<PathBuf>,
}

/// A driver and what it needs, as a setup script wrote them in an environment file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Environment {
    /// The ICD manifest naming the driver's library (inside `root` when there is one).
    pub icd: PathBuf,
    /// Mesa's no-op drm-shim for the driver's kernel interface, if it needs one.
    pub shim: Option<PathBuf>,
    /// The Mesa version.
    pub mesa: String,
    /// The system root the driver runs in, if not the system's own.
    pub root: Option<PathBuf>,
}

impl Environment {
    /// `path` (as the driver sees it) as a file of this system.
    fn outside(&self, path: &Path) -> PathBuf {
        match &self.root {
            Some(r) => r.join(path.strip_prefix("/").unwrap_or(path)),
            None => path.to_path_buf(),
        }
    }

    /// The shim as a file of this system (to read its GPU list).
    pub fn shim_file(&self) -> Option<PathBuf> {
        self.shim.as_deref().map(|s| self.outside(s))
    }

    /// The driver library its ICD manifest names (`library_path`), as a file of this system.
    pub fn library_file(&self) -> Result<PathBuf, String> {
        let manifest = self.outside(&self.icd);
        let text = std::fs::read_to_string(&manifest)
            .map_err(|e| format!("{}: {e}", manifest.display()))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", manifest.display()))?;
        let library = json["ICD"]["library_path"]
            .as_str()
            .ok_or_else(|| format!("{}: no ICD.library_path", manifest.display()))?;
        // A bare file name is found by the loader's search path, the system's library folder.
        let library = if library.contains('/') {
            PathBuf::from(library)
        } else {
            Path::new("/usr/lib/x86_64-linux-gnu").join(library)
        };
        Ok(self.outside(&library))
    }

    /// Refuses `switches` (`(variable, value)`, the value's names separated by commas:
    /// `("ACO_DEBUG", "validateir,validatera")`) unless the driver's library knows each name:
    /// Mesa's debug-option tables keep every option name as a C string, so a name missing from
    /// the library is one this version would ignore without a word (an unknown name in
    /// `INTEL_DEBUG` or `RADV_DEBUG` is not an error to Mesa). A name may be stored as the tail
    /// of a longer string (the linker merges `validateir` into `novalidateir`), so a name
    /// followed by the string's end anywhere counts.
    pub fn check_switches(&self, switches: &[(&str, &str)]) -> Result<(), String> {
        self.check_switch_words(switches, &[0])
    }

    /// [`Environment::check_switches`] for a compiler written in Rust (NAK), whose string
    /// literals the linker packs end to end without a terminator: a name anywhere counts.
    pub fn check_rust_switches(&self, switches: &[(&str, &str)]) -> Result<(), String> {
        self.check_switch_words(switches, &[])
    }

    fn check_switch_words(&self, switches: &[(&str, &str)], end: &[u8]) -> Result<(), String> {
        let library = self.library_file()?;
        let bytes = std::fs::read(&library).map_err(|e| format!("{}: {e}", library.display()))?;
        let known = |name: &str| {
            let needle = [name.as_bytes(), end].concat();
            bytes.windows(needle.len()).any(|w| w == needle.as_slice())
        };
        let unknown: Vec<String> = switches
            .iter()
            .flat_map(|(var, value)| value.split(',').map(move |n| (var, n)))
            .filter(|(_, n)| !known(n))
            .map(|(var, n)| format!("{var}={n}"))
            .collect();
        if unknown.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "Mesa {}'s {} does not know {}: the switch would be ignored",
                self.mesa,
                library.display(),
                unknown.join(", ")
            ))
        }
    }
}

/// The folder installations live in.
pub fn cache() -> Result<PathBuf, String> {
    std::env::var_os("GPUFUZZ_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/gpufuzz")))
        .ok_or_else(|| "neither GPUFUZZ_CACHE nor HOME is set".to_string())
}

/// The driver environment files an installation may hold.
const DRIVER_FILES: [&str; 6] = [
    "vulkan.env",
    "anv.env",
    "radv.env",
    "turnip.env",
    "nvk.env",
    "asahi.env",
];

/// Compares two version texts by their numeric components (`26.2.6` > `25.10.1` > `25.0.7`).
fn by_version(a: &str, b: &str) -> Ordering {
    let parts = |v: &str| -> Vec<u64> { v.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    parts(a).cmp(&parts(b))
}

/// Whether `v` is a release number (`26.2.6`): digits and dots.
fn is_release(v: &str) -> bool {
    !v.is_empty()
        && v.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The installed versions in `cache`, newest first: folders `mesa-<release>/` holding at
/// least one driver environment file.
pub fn installed_in(cache: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let v = name.strip_prefix("mesa-")?;
            let any = DRIVER_FILES.iter().any(|f| e.path().join(f).is_file());
            (is_release(v) && any).then(|| v.to_string())
        })
        .collect();
    found.sort_by(|a, b| by_version(b, a));
    found
}

/// The installation `choice` names (`newest`, `system` or a version) in `cache`.
pub fn resolve_in(cache: &Path, choice: &str) -> Result<Mesa, String> {
    let installed = installed_in(cache);
    let system = Mesa::system();
    let version = match choice {
        "system" => return Ok(system),
        "newest" => match installed.first() {
            Some(v) => v.clone(),
            None => return Ok(system),
        },
        v if installed.iter().any(|i| i == v) => v.to_string(),
        v => {
            return Err(format!(
                "--mesa {v}: not installed in {} (installed: {}); choose newest, system or an \
                 installed version, or install one: {SCRIPTS}",
                cache.display(),
                if installed.is_empty() {
                    "none".to_string()
                } else {
                    installed.join(", ")
                }
            ))
        }
    };
    let folder = cache.join(format!("mesa-{version}"));
    Ok(Mesa {
        root: root_named_in(&folder),
        folder: Some(folder),
        name: version,
    })
}

/// The root the first `_ROOT=` line of `folder`'s environment files names, if one does.
fn root_named_in(folder: &Path) -> Option<PathBuf> {
    DRIVER_FILES.iter().find_map(|f| {
        let text = std::fs::read_to_string(folder.join(f)).ok()?;
        text.lines()
            .find_map(|l| l.split_once("_ROOT=").map(|(_, r)| PathBuf::from(r)))
    })
}

/// [`resolve_in`] the [`cache`].
pub fn resolve(choice: &str) -> Result<Mesa, String> {
    resolve_in(&cache()?, choice)
}

static CURRENT: OnceLock<Mesa> = OnceLock::new();

/// Makes `mesa` the one this process judges on; choosing another one later is refused.
pub fn select(mesa: Mesa) -> Result<(), String> {
    let chosen = CURRENT.get_or_init(|| mesa.clone());
    if *chosen == mesa {
        Ok(())
    } else {
        Err(format!(
            "this process judges on Mesa {}; it cannot switch to {}",
            chosen.name, mesa.name
        ))
    }
}

/// The Mesa this process judges on: the one [`select`]ed, else `$GPUFUZZ_MESA`'s, else the
/// newest installed (the system's when none is, or when `$GPUFUZZ_MESA` names none: a command
/// line checks its `--mesa` before any work, so that is a library caller's choice).
pub fn current() -> &'static Mesa {
    CURRENT.get_or_init(|| {
        let choice = std::env::var(VARIABLE).unwrap_or_else(|_| "newest".into());
        resolve(&choice).unwrap_or_else(|_| Mesa::system())
    })
}

impl Mesa {
    /// The system's own Mesa.
    fn system() -> Mesa {
        Mesa {
            name: "system".into(),
            folder: None,
            root: None,
        }
    }

    /// Whether this is the system's Mesa (the Vulkan loader's default driver).
    pub fn is_system(&self) -> bool {
        self.folder.is_none()
    }

    /// The environment file `file` (`anv.env`) of this installation.
    pub fn file(&self, file: &str) -> Result<PathBuf, String> {
        match &self.folder {
            Some(f) => Ok(f.join(file)),
            None => Err(format!(
                "the system's Mesa has no {file} (its drivers need a drm-shim): choose an \
                 installed Mesa with --mesa (installed: {})",
                cache().map_or_else(|e| e, |c| installed_in(&c).join(", "))
            )),
        }
    }

    /// The driver environment in `file`, whose lines start with `<prefix>_`; the error names
    /// the file and says to run `script`.
    pub fn driver(&self, file: &str, prefix: &str, script: &str) -> Result<Environment, String> {
        read_environment(&self.file(file)?, prefix, script)
    }

    /// The system root its drivers run in, if not the system's own (the first `_ROOT=` line
    /// of its environment files).
    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// What the installation's `versions` file records (`mesa`, `spirv-tools`, …), in its
    /// order; empty when it has none.
    pub fn versions(&self) -> Vec<(String, String)> {
        let Some(folder) = &self.folder else {
            return Vec::new();
        };
        std::fs::read_to_string(folder.join("versions"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// What a finding records of it: [`RECORDED`] (the installation, which `--mesa` takes
    /// back) and the versions its `versions` file records, as `mesa <key>`.
    pub fn record(&self) -> Vec<(String, String)> {
        let mut out = BTreeMap::from([(RECORDED.to_string(), self.name.clone())]);
        for (k, v) in self.versions() {
            out.insert(format!("mesa {k}"), v);
        }
        out.into_iter().collect()
    }
}

impl fmt::Display for Mesa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// What to run to install a Mesa, for error messages.
pub const SCRIPTS: &str =
    "scripts/mesa-sid.sh (the newest: Debian sid's), scripts/mesa-backports.sh and scripts/mesa.sh (25.0.7 and 22.3.6)";

/// A driver's environment: the file `$variable` names when set (a test's or a user's own),
/// else the current Mesa's `file`.
pub fn driver_environment(variable: &str, file: &str, prefix: &str) -> Result<Environment, String> {
    match std::env::var_os(variable) {
        Some(f) => read_environment(Path::new(&f), prefix, SCRIPTS),
        None => current().driver(file, prefix, SCRIPTS),
    }
}

/// The environment file [`driver_environment`] reads.
pub fn driver_environment_file(variable: &str, file: &str) -> Result<PathBuf, String> {
    match std::env::var_os(variable) {
        Some(f) => Ok(PathBuf::from(f)),
        None => current().file(file),
    }
}

/// Reads an environment file whose lines `<prefix>_ICD=`, `<prefix>_SHIM=`, `<prefix>_MESA=`
/// and `<prefix>_ROOT=` name the files; the error names the file and says to run `script`.
pub fn read_environment(file: &Path, prefix: &str, script: &str) -> Result<Environment, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{}: {e} (run {script})", file.display()))?;
    let get = |key: &str| {
        let key = format!("{prefix}_{key}=");
        text.lines()
            .find_map(|l| l.strip_prefix(&key))
            .map(str::to_string)
    };
    let required =
        |key: &str| get(key).ok_or_else(|| format!("{}: no {prefix}_{key}= line", file.display()));
    let env = Environment {
        icd: required("ICD")?.into(),
        shim: get("SHIM").map(Into::into),
        mesa: required("MESA")?,
        root: get("ROOT").map(Into::into),
    };
    if let Some(root) = &env.root {
        vulkan_runner::root::check(root)
            .map_err(|e| format!("{e} (named in {})", file.display()))?;
    }
    for p in std::iter::once(&env.icd).chain(env.shim.as_ref()) {
        if !env.outside(p).is_file() {
            return Err(format!(
                "{} (named in {}) is missing: run {script}",
                env.outside(p).display(),
                file.display()
            ));
        }
    }
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gpufuzz-mesa-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn newest_is_the_highest_installed_release_and_an_unknown_version_is_refused() {
        let cache = folder("choice");
        for (v, file) in [
            ("25.0.7", "anv.env"),
            ("26.2.6", "vulkan.env"),
            ("22.3.6", "radv.env"),
            ("25.10.1", "anv.env"),
            // Not installations: no driver file, not a release.
            ("27.0.0", "notes"),
            ("25.0.7-debug", "anv.env"),
        ] {
            let d = cache.join(format!("mesa-{v}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join(file), "").unwrap();
        }
        assert_eq!(
            installed_in(&cache),
            ["26.2.6", "25.10.1", "25.0.7", "22.3.6"]
        );
        assert_eq!(resolve_in(&cache, "newest").unwrap().name, "26.2.6");
        assert_eq!(resolve_in(&cache, "25.0.7").unwrap().name, "25.0.7");
        assert!(resolve_in(&cache, "system").unwrap().is_system());
        let e = resolve_in(&cache, "24.1.0").unwrap_err();
        assert!(
            e.contains("not installed") && e.contains("26.2.6, 25.10.1"),
            "{e}"
        );
        // Nothing installed: newest is the system's.
        let empty = folder("empty");
        assert!(resolve_in(&empty, "newest").unwrap().is_system());
        std::fs::remove_dir_all(&cache).unwrap();
        std::fs::remove_dir_all(&empty).unwrap();
    }

    #[test]
    fn an_environment_names_its_root_and_its_files_are_looked_for_inside_it() {
        let cache = folder("env");
        let root = cache.join("root");
        for d in ["usr/bin", "usr/share/vulkan/icd.d", "proc/self"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("usr/bin/env"), "").unwrap();
        std::fs::write(root.join("usr/share/vulkan/icd.d/lvp_icd.json"), "{}").unwrap();
        let file = cache.join("vulkan.env");
        std::fs::write(
            &file,
            format!(
                "GPUFUZZ_VULKAN_ICD=/usr/share/vulkan/icd.d/lvp_icd.json\nGPUFUZZ_VULKAN_MESA=26.2.6\nGPUFUZZ_VULKAN_ROOT={}\n",
                root.display()
            ),
        )
        .unwrap();
        let env = read_environment(&file, "GPUFUZZ_VULKAN", "scripts/mesa-sid.sh").unwrap();
        assert_eq!(env.root.as_deref(), Some(root.as_path()));
        assert_eq!(env.shim, None);
        // A file missing inside the root is named as a file of this system.
        std::fs::remove_file(root.join("usr/share/vulkan/icd.d/lvp_icd.json")).unwrap();
        let e = read_environment(&file, "GPUFUZZ_VULKAN", "scripts/mesa-sid.sh").unwrap_err();
        assert!(
            e.contains(&root.join("usr/share").display().to_string()),
            "{e}"
        );
        assert!(e.contains("run scripts/mesa-sid.sh"), "{e}");
        std::fs::remove_dir_all(&cache).unwrap();
    }

    #[test]
    fn a_switch_the_drivers_library_does_not_hold_is_refused() {
        let cache = folder("switches");
        let lib = cache.join("libvulkan_test.so");
        // An option table as a library holds it: names as NUL-terminated strings among others.
        // `validateir` only as the tail of `novalidateir`, as a linker merges them.
        std::fs::write(
            &lib,
            b"\x7fELF\0nocache\0novalidateir\0validatera,x\0cs16\0",
        )
        .unwrap();
        let icd = cache.join("test_icd.json");
        std::fs::write(
            &icd,
            format!(r#"{{"ICD": {{"library_path": "{}"}}}}"#, lib.display()),
        )
        .unwrap();
        let env = Environment {
            icd,
            shim: None,
            mesa: "26.2.6".into(),
            root: None,
        };
        assert_eq!(env.library_file().unwrap(), lib);
        env.check_switches(&[("RADV_DEBUG", "nocache"), ("ACO_DEBUG", "validateir")])
            .unwrap();
        // Neither a name it lacks nor the start of a longer string counts as known.
        let e = env
            .check_switches(&[
                ("ACO_DEBUG", "validateir,validatera"),
                ("INTEL_DEBUG", "no8"),
            ])
            .unwrap_err();
        assert!(
            e.contains("ACO_DEBUG=validatera") && e.contains("INTEL_DEBUG=no8"),
            "{e}"
        );
        assert!(!e.contains("validateir"), "{e}");
        assert!(e.contains("Mesa 26.2.6"), "{e}");
        std::fs::remove_dir_all(&cache).unwrap();
    }
}
