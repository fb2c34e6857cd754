//! A suite of crowd scenarios (`navkit simulate --suite`, the crowd suite benchmark): scenario
//! files read from folders or named one by one, each with the level it names resolved, and the
//! runs each asks for (one, or one per seed of its random agents).
//!
//! The project's suite is `scenarios/crowd/` (its levels made by `scripts/crowd-levels.py`).
//! Its scenarios on RecastDemo's levels name them beside the repository
//! (`../../../shared/meshes/recastdemo/...`), outside the suite's folder: like a `.gset`'s mesh,
//! such a level is read only where outside paths are allowed
//! ([`LoadOptions::allow_outside_paths`], the CLI's `--allow-outside-paths`).

use std::path::{Path, PathBuf};

use crate::geometry::LoadOptions;
use crate::tools::scenario::Scenario;
use crate::tools::simulation::SimSettings;
use crate::{Error, Result};

/// One scenario of a suite.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteScenario {
    /// Its name: the file's name without `.json`.
    pub name: String,
    /// The scenario file.
    pub file: PathBuf,
    /// What it holds.
    pub scenario: Scenario,
    /// The level it names, resolved ([`Scenario::level_file`]); none if it names none.
    pub level: Option<PathBuf>,
}

/// One run of a suite's scenario: its seed (for random agents) and settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteRun {
    /// The seed of the random agents (none for a scenario with its own agents).
    pub seed: Option<u64>,
    /// The run's settings.
    pub settings: SimSettings,
}

impl SuiteScenario {
    /// Reads the scenario `file` and resolves its level with `options`.
    pub fn load(file: &Path, options: &LoadOptions) -> Result<SuiteScenario> {
        let scenario = Scenario::load(file)?;
        let level = scenario.level_file(file, options)?;
        let name = file
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        Ok(SuiteScenario {
            name,
            file: file.to_path_buf(),
            scenario,
            level,
        })
    }

    /// The runs this scenario asks for with `base` settings ([`Scenario::settings`]): one per
    /// seed of its random agents, else one.
    pub fn runs(&self, base: &SimSettings) -> Vec<SuiteRun> {
        let settings = self.scenario.settings(base);
        let seeds = self.scenario.seeds();
        if seeds.is_empty() {
            return vec![SuiteRun {
                seed: None,
                settings,
            }];
        }
        seeds
            .into_iter()
            .map(|seed| SuiteRun {
                seed: Some(seed),
                settings: SimSettings {
                    seed,
                    ..settings.clone()
                },
            })
            .collect()
    }
}

/// The scenarios of `paths`: a folder gives its `.json` files (not its subfolders'), in name
/// order; a file is read whatever its name. Each level is resolved with `options`. A folder
/// without scenario files is an error.
pub fn load_suite(paths: &[PathBuf], options: &LoadOptions) -> Result<Vec<SuiteScenario>> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if !meta.is_dir() {
            out.push(SuiteScenario::load(path, options)?);
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| Error::io(path, e))?
            .map(|entry| entry.map(|e| e.path()).map_err(|e| Error::io(path, e)))
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .filter(|p| {
                p.is_file()
                    && p.extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            })
            .collect();
        if files.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{}: no scenario files (.json) in this folder",
                path.display()
            )));
        }
        files.sort();
        for f in files {
            out.push(SuiteScenario::load(&f, options)?);
        }
    }
    Ok(out)
}
