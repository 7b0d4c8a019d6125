//! Profiles: the scoring semantics of existing metrics, with their options.
//!
//! Each option is named exactly as in the peer library (and in the `toolspec score` input lines),
//! and is `None` when not given, meaning "the peer's default" (the scorer in `score::profiles`
//! applies it). The same structs are read from `.toolspec` specs and from the JSON lines of
//! `toolspec score`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A metric whose scoring a spec reproduces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", content = "options", rename_all = "snake_case")]
pub enum Profile {
    /// Axion `ToolCorrectness`.
    Axion(AxionOptions),
    /// DeepEval `ToolCorrectnessMetric` (deterministic part; the tool-selection part asks the
    /// judge given on the command line, if any).
    Deepeval(DeepevalOptions),
    /// Evalite `toolCallAccuracy`.
    Evalite(EvaliteOptions),
    /// LangChain agentevals trajectory match.
    Agentevals(AgentevalsOptions),
    /// Galtea Tool Correctness (set equality over normalised names).
    Galtea(GalteaOptions),
    /// promptfoo `tool-call-f1`.
    Promptfoo(PromptfooOptions),
}

/// Options of Axion's `ToolCorrectness`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxionOptions {
    /// Compare arguments too (Axion default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_parameters: Option<bool>,
    /// Order matters (Axion default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict_order: Option<bool>,
    /// `exact`, `subset` or `fuzzy` (Axion default: exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter_matching_strategy: Option<String>,
    /// Similarity threshold for `fuzzy` (Axion default: 0.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuzzy_threshold: Option<f64>,
    /// Pass threshold (Axion default: 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Flexible-order score at HEAD: `recall` (default), `precision`, or `f1` (any other string
    /// scores as f1, as Axion does). Rejected at `v0.2.2`, which has no such option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring: Option<String>,
    /// Which Axion revision to reproduce: `v0.2.2` or `head` (default: head).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
}

/// Options of DeepEval's `ToolCorrectnessMetric`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeepevalOptions {
    /// Subset of `INPUT_PARAMETERS`, `OUTPUT` (DeepEval default: empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation_params: Option<Vec<String>>,
    /// (DeepEval default: false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub should_consider_ordering: Option<bool>,
    /// (DeepEval default: false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub should_exact_match: Option<bool>,
    /// (DeepEval default: false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict_mode: Option<bool>,
    /// (DeepEval default: 0.5)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// DeepEval's `available_tools`: tool names or `ToolCall` objects (`name`, `description`,
    /// `type`, `input_parameters`). When left out and `--judge` is given, `toolspec check` gives
    /// the judge the tools the transcript declares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_tools: Option<Vec<AvailableTool>>,
}

/// One of DeepEval's `available_tools` in a spec: a name, or a `ToolCall` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AvailableTool {
    /// Just the tool's name.
    Name(String),
    /// A `ToolCall` object as DeepEval takes it (`name` required).
    Call(AvailableToolCall),
}

/// A `ToolCall` given as one of DeepEval's `available_tools`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AvailableToolCall {
    /// Tool name.
    pub name: String,
    /// `FUNCTION` (default) or `MCP`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Parameters (a JSON object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_parameters: Option<serde_json::Map<String, Value>>,
}

/// Options of Evalite's `toolCallAccuracy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaliteOptions {
    /// `exact` or `flexible` (Evalite default: exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Weights merged over Evalite's defaults (`exact`, `nameOnly`, `extraPenalty`,
    /// `wrongPenalty`); kept as given, since a JSON `null` weight is meaningful to Evalite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<BTreeMap<String, Value>>,
    /// Pass threshold on the score (a toolspec addition: Evalite reports no pass/fail;
    /// default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
}

/// Options of agentevals' trajectory match.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentevalsOptions {
    /// `strict`, `unordered`, `subset` or `superset` (default: strict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory_match_mode: Option<String>,
    /// `exact`, `ignore`, `subset` or `superset` (default: exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_args_match_mode: Option<String>,
    /// Per-tool override: a mode name or a list of argument keys (dotted paths) to compare.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_args_match_overrides: Option<BTreeMap<String, Value>>,
}

/// Options of Galtea's Tool Correctness (see `docs/parity.md`: the rules are a documented
/// reading of Galtea's description, made explicit).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GalteaOptions {
    /// Name canonicalisation: `exact`, `trim` or `doc_guess` (default: doc_guess).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Prefixes stripped by `doc_guess` (default: `functions.`, `function.`, `tools.`, `tool.`,
    /// `default_api.`, `tools/`, `functions/`, `mcp.`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefixes: Option<Vec<String>>,
    /// Turn camelCase into snake_case (default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camel_to_snake: Option<bool>,
}

/// Options of promptfoo's `tool-call-f1`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptfooOptions {
    /// Pass threshold on F1 (promptfoo default: 1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Invert pass/fail (`not-tool-call-f1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inverse: Option<bool>,
}

/// A profile as specs name it: its name and the options it accepts (the fields of its options
/// struct above, whose serde types check the values).
///
/// The one list of profile names and options: `compile` validates a spec's profile against it
/// (with did-you-mean hints), and each peer of `score::profiles::PEERS` points at its row (the
/// scorer comes after `config` in the pipeline, so the list lives here, where both can read it).
#[derive(Debug, PartialEq, Eq)]
pub struct ProfileSpec {
    /// The name, as in specs and `toolspec score --profile NAME`.
    pub name: &'static str,
    /// The option names, as in the peer library.
    pub options: &'static [&'static str],
}

/// Axion `ToolCorrectness` ([`AxionOptions`]).
pub static AXION: ProfileSpec = ProfileSpec {
    name: "axion",
    options: &[
        "check_parameters",
        "strict_order",
        "parameter_matching_strategy",
        "fuzzy_threshold",
        "threshold",
        "scoring",
        "rev",
    ],
};

/// DeepEval `ToolCorrectnessMetric` ([`DeepevalOptions`]).
pub static DEEPEVAL: ProfileSpec = ProfileSpec {
    name: "deepeval",
    options: &[
        "evaluation_params",
        "should_consider_ordering",
        "should_exact_match",
        "strict_mode",
        "threshold",
        "available_tools",
    ],
};

/// Evalite `toolCallAccuracy` ([`EvaliteOptions`]).
pub static EVALITE: ProfileSpec = ProfileSpec {
    name: "evalite",
    options: &["mode", "weights", "threshold"],
};

/// agentevals trajectory match ([`AgentevalsOptions`]).
pub static AGENTEVALS: ProfileSpec = ProfileSpec {
    name: "agentevals",
    options: &[
        "trajectory_match_mode",
        "tool_args_match_mode",
        "tool_args_match_overrides",
    ],
};

/// Galtea Tool Correctness ([`GalteaOptions`]).
pub static GALTEA: ProfileSpec = ProfileSpec {
    name: "galtea",
    options: &["profile", "prefixes", "camel_to_snake"],
};

/// promptfoo `tool-call-f1` ([`PromptfooOptions`]).
pub static PROMPTFOO: ProfileSpec = ProfileSpec {
    name: "promptfoo",
    options: &["threshold", "inverse"],
};

/// Every profile, in the order the hints list them.
pub static PROFILES: &[&ProfileSpec] = &[
    &AXION,
    &DEEPEVAL,
    &EVALITE,
    &AGENTEVALS,
    &GALTEA,
    &PROMPTFOO,
];

/// Options that only the person running toolspec may give, on the command line: a spec, an
/// include or `toolspec.toml` that sets one gets [`ProfileError::CommandLineOnly`].
pub const COMMAND_LINE_ONLY: &[(&str, &str)] = &[("judge", "--judge")];

/// Why a profile could not be built from a name and options.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProfileError {
    /// The option runs a program (or widens what is read): only the command line may set it.
    #[error("`{option}` is accepted only on the command line: pass `{flag}` to toolspec (a repository's files never choose a command to run)")]
    CommandLineOnly {
        /// The option given.
        option: String,
        /// The command-line flag to use instead.
        flag: &'static str,
    },
    /// No profile has this name.
    #[error("unknown profile `{name}`")]
    UnknownProfile {
        /// The name given.
        name: String,
    },
    /// The profile has no such option.
    #[error("profile `{profile}` has no option `{option}`")]
    UnknownOption {
        /// The profile.
        profile: String,
        /// The option given.
        option: String,
    },
    /// The option's value has the wrong type or is out of range.
    #[error("invalid value for `{option}`: {message}")]
    InvalidValue {
        /// The option.
        option: String,
        /// What is wrong.
        message: String,
    },
}

impl Profile {
    /// The profile's name and options.
    pub fn spec(&self) -> &'static ProfileSpec {
        match self {
            Profile::Axion(_) => &AXION,
            Profile::Deepeval(_) => &DEEPEVAL,
            Profile::Evalite(_) => &EVALITE,
            Profile::Agentevals(_) => &AGENTEVALS,
            Profile::Galtea(_) => &GALTEA,
            Profile::Promptfoo(_) => &PROMPTFOO,
        }
    }

    /// The profile's name as written in specs (`axion`, `deepeval`, ...).
    pub fn name(&self) -> &'static str {
        self.spec().name
    }

    /// The profile named `name`, or `None`.
    pub fn spec_of(name: &str) -> Option<&'static ProfileSpec> {
        PROFILES.iter().copied().find(|p| p.name == name)
    }

    /// Build a profile from its name and options. Every option is checked; the first problem is
    /// returned (callers that want all of them check names with [`Profile::spec_of`] first).
    pub fn from_options(
        name: &str,
        options: serde_json::Map<String, Value>,
    ) -> Result<Profile, ProfileError> {
        let known = Profile::spec_of(name)
            .ok_or_else(|| ProfileError::UnknownProfile {
                name: name.to_owned(),
            })?
            .options;
        if let Some((option, flag)) = COMMAND_LINE_ONLY
            .iter()
            .find(|(o, _)| options.contains_key(*o))
        {
            return Err(ProfileError::CommandLineOnly {
                option: (*option).to_owned(),
                flag,
            });
        }
        if let Some(bad) = options.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(ProfileError::UnknownOption {
                profile: name.to_owned(),
                option: bad.clone(),
            });
        }
        let tagged = serde_json::json!({ "name": name, "options": Value::Object(options.clone()) });
        serde_json::from_value(tagged).map_err(|e| {
            // Name the option whose value failed, by re-checking each one alone.
            let option = options
                .iter()
                .find(|(k, v)| {
                    let mut one = serde_json::Map::new();
                    one.insert((*k).clone(), (*v).clone());
                    serde_json::from_value::<Profile>(
                        serde_json::json!({ "name": name, "options": Value::Object(one) }),
                    )
                    .is_err()
                })
                .map(|(k, _)| k.clone())
                .unwrap_or_default();
            ProfileError::InvalidValue {
                option,
                message: e.to_string(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn builds_a_profile_and_serializes_only_given_options() {
        let p = Profile::from_options("axion", opts(json!({"strict_order": true}))).unwrap();
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"name": "axion", "options": {"strict_order": true}})
        );
    }

    #[test]
    fn every_known_option_is_accepted_by_its_profile() {
        for spec in PROFILES {
            let name = spec.name;
            for option in spec.options {
                // A value of the right type for each option, so only the name is being tested.
                let value = match *option {
                    "check_parameters"
                    | "strict_order"
                    | "should_consider_ordering"
                    | "should_exact_match"
                    | "strict_mode"
                    | "camel_to_snake"
                    | "inverse" => {
                        json!(true)
                    }
                    "fuzzy_threshold" | "threshold" => json!(0.5),
                    "evaluation_params" | "prefixes" | "available_tools" => {
                        json!(["INPUT_PARAMETERS"])
                    }
                    "weights" | "tool_args_match_overrides" => json!({"x": 1}),
                    _ => json!("exact"),
                };
                let mut m = serde_json::Map::new();
                m.insert((*option).to_owned(), value);
                let p = Profile::from_options(name, m)
                    .unwrap_or_else(|e| panic!("{name}.{option}: {e}"));
                assert_eq!(p.name(), name);
                assert!(std::ptr::eq(p.spec(), *spec));
            }
        }
    }

    #[test]
    fn rejects_unknown_names_options_and_bad_values() {
        assert!(matches!(
            Profile::from_options("axon", opts(json!({}))),
            Err(ProfileError::UnknownProfile { .. })
        ));
        assert!(matches!(
            Profile::from_options("axion", opts(json!({"strict": true}))),
            Err(ProfileError::UnknownOption { .. })
        ));
        let p = Profile::from_options(
            "deepeval",
            opts(json!({"available_tools": ["search", {"name": "book", "type": "MCP"}]})),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&p).unwrap()["options"]["available_tools"],
            json!(["search", {"name": "book", "type": "MCP"}])
        );
        assert!(Profile::from_options(
            "deepeval",
            opts(json!({"available_tools": [{"description": "no name"}]}))
        )
        .is_err());
        assert!(matches!(
            Profile::from_options("deepeval", opts(json!({"judge": "touch x; echo 1"}))),
            Err(ProfileError::CommandLineOnly { .. })
        ));
        match Profile::from_options("deepeval", opts(json!({"threshold": "high"}))) {
            Err(ProfileError::InvalidValue { option, .. }) => assert_eq!(option, "threshold"),
            other => panic!("{other:?}"),
        }
    }
}
