//! The language's words, in one table each: every keyword of the grammar ([`Keyword`]), and the
//! words each setting takes as its value ([`OrderWord`], [`ArgsWord`], ...).
//!
//! The parser's messages, the did-you-mean suggestions and the compiler read these tables, so a
//! word added here is known to all of them at once. The grammar (`grammar/toolspec.pest`) spells
//! its `k_*` rules and its `keyword` rule by hand, as pest requires; a test reads the grammar and
//! fails on a keyword rule this table lacks, or a reserved word missing from `keyword`.

/// An enum of words, each variant spelled once: `ALL`, `WORDS`, `as_str`, `quoted` (as
/// messages name it, in backquotes), `FromStr` and `Display`.
macro_rules! words {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every word, in table order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// Every word as written, in table order.
            pub const WORDS: &'static [&'static str] = &[$($text),*];

            /// The word as written in a spec.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The word as messages name it: `` `word` ``.
            pub fn quoted(self) -> &'static str {
                match self {
                    $($name::$variant => concat!("`", $text, "`"),)*
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownWord;
            fn from_str(s: &str) -> Result<Self, UnknownWord> {
                match s {
                    $($text => Ok($name::$variant),)*
                    _ => Err(UnknownWord),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// A word that is not in the table it was looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownWord;

impl std::fmt::Display for UnknownWord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a known word")
    }
}

impl std::error::Error for UnknownWord {}

words! {
    /// Every keyword of the grammar: each is a `k_*` rule of `grammar/toolspec.pest`, matched as
    /// a whole word (`callx` is a name, not `call x`).
    pub enum Keyword {
        /// `include "path"`
        Include = "include",
        /// `tool name(...)`
        Tool = "tool",
        /// `spec name { ... }`
        Spec = "spec",
        /// `transcripts "glob"`
        Transcripts = "transcripts",
        /// `format name`
        Format = "format",
        /// `order mode`
        Order = "order",
        /// `args mode`
        Args = "args",
        /// `names rule, ...`
        Names = "names",
        /// `strip "prefix"` in `names`
        Strip = "strip",
        /// `threshold t`
        Threshold = "threshold",
        /// `pass_rate >= r`
        PassRate = "pass_rate",
        /// `extra policy`
        Extra = "extra",
        /// `score { ... }`, `score per_argument`
        Score = "score",
        /// `binary`
        Binary = "binary",
        /// `profile name { ... }`
        Profile = "profile",
        /// `never tool`
        Never = "never",
        /// `a before b`
        Before = "before",
        /// `rules deny code, ...`
        Rules = "rules",
        /// `call tool(...)`
        Call = "call",
        /// `optional call`
        Optional = "optional",
        /// `at_least n call`
        AtLeast = "at_least",
        /// `at_most n call`
        AtMost = "at_most",
        /// `exactly n call`
        Exactly = "exactly",
        /// `between n and m call`
        Between = "between",
        /// `between n and m`, `C and D`
        And = "and",
        /// `C or D`, `either { … } or { … }`
        Or = "or",
        /// `errored [true|false]`
        Errored = "errored",
        /// `weight w`
        Weight = "weight",
        /// `exact JSON`
        Exact = "exact",
        /// `subset JSON`
        Subset = "subset",
        /// `fuzzy "text"`
        Fuzzy = "fuzzy",
        /// `fuzzy tokens "text"`, `args fuzzy tokens`
        Tokens = "tokens",
        /// `type t|u`
        Type = "type",
        /// `one_of [...]`
        OneOf = "one_of",
        /// `contains JSON`
        Contains = "contains",
        /// `present`
        Present = "present",
        /// `absent`
        Absent = "absent",
        /// `any`
        Any = "any",
        /// `not C`
        Not = "not",
        /// `in ref`
        In = "in",
        /// `turn N { … }`
        Turn = "turn",
        /// `turn last`, `after last tool`
        Last = "last",
        /// `agent "name" { … }`, `agent "name" runs <= n`
        Agent = "agent",
        /// `answer C`
        Answer = "answer",
        /// `either { … } or { … }`
        Either = "either",
        /// `parallel { … }`
        Parallel = "parallel",
        /// `critical call`, `critical either`
        Critical = "critical",
    }
}

/// Where a keyword may start something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Starts {
    /// A top-level item of a file (`include`, `tool`, `spec`).
    Item,
    /// A statement inside a spec (`order`, `call`, `never`, ...).
    Statement,
    /// Nothing: the word stands inside a statement (`and`, `exact`, `last`, ...).
    Nothing,
}

impl Keyword {
    /// What the keyword may start.
    pub fn starts(self) -> Starts {
        use Keyword as K;
        match self {
            K::Include | K::Tool | K::Spec => Starts::Item,
            K::Transcripts
            | K::Format
            | K::Order
            | K::Args
            | K::Names
            | K::Threshold
            | K::PassRate
            | K::Extra
            | K::Score
            | K::Binary
            | K::Profile
            | K::Never
            | K::Rules
            | K::Call
            | K::Optional
            | K::AtLeast
            | K::AtMost
            | K::Exactly
            | K::Between
            | K::Turn
            | K::Agent
            | K::Answer
            | K::Either
            | K::Parallel
            | K::Critical => Starts::Statement,
            K::Strip
            | K::Before
            | K::And
            | K::Or
            | K::Errored
            | K::Weight
            | K::Exact
            | K::Subset
            | K::Fuzzy
            | K::Tokens
            | K::Type
            | K::OneOf
            | K::Contains
            | K::Present
            | K::Absent
            | K::Any
            | K::Not
            | K::In
            | K::Last => Starts::Nothing,
        }
    }

    /// Whether the word is reserved at the start of a statement: a line starting with it is
    /// never read as an unknown word (the grammar's `keyword` rule). `rules` stays usable as a
    /// tool name (`rules before x`), so it is not; `errored`, `weight` and `or` are, so that one misplaced is a syntax error naming
    /// what was expected rather than an unknown statement.
    pub fn reserved(self) -> bool {
        match self.starts() {
            Starts::Item => true,
            Starts::Statement => self != Keyword::Rules,
            Starts::Nothing => matches!(self, Keyword::Errored | Keyword::Weight | Keyword::Or),
        }
    }

    /// The keywords that may start a top-level item.
    pub fn items() -> impl Iterator<Item = Keyword> {
        Keyword::ALL
            .iter()
            .copied()
            .filter(|k| k.starts() == Starts::Item)
    }

    /// The keywords that may start a statement inside a spec.
    pub fn statements() -> impl Iterator<Item = Keyword> {
        Keyword::ALL
            .iter()
            .copied()
            .filter(|k| k.starts() == Starts::Statement)
    }

    /// Whether the keyword may start a statement inside a `turn` or `agent` block
    /// (expectations, groups and nested blocks).
    pub fn starts_in_scope(self) -> bool {
        use Keyword as K;
        matches!(
            self,
            K::Call
                | K::Optional
                | K::AtLeast
                | K::AtMost
                | K::Exactly
                | K::Between
                | K::Critical
                | K::Turn
                | K::Agent
                | K::Either
                | K::Parallel
        )
    }

    /// The keywords that may start a statement inside a `turn` or `agent` block.
    pub fn scope_statements() -> impl Iterator<Item = Keyword> {
        Keyword::ALL.iter().copied().filter(|k| k.starts_in_scope())
    }
}

words! {
    /// `order WORD`.
    pub enum OrderWord {
        /// Exactly the written sequence.
        Strict = "strict",
        /// The written order, other calls between.
        InOrder = "in_order",
        /// Any order.
        Any = "any",
    }
}

words! {
    /// `args WORD [tokens] [>= t]`.
    pub enum ArgsWord {
        /// Only what is written is checked; unlisted arguments are never looked at.
        Ignore = "ignore",
        /// Literals compare equal; unlisted arguments fail.
        Exact = "exact",
        /// Literals compare as subsets.
        Subset = "subset",
        /// String literals compare by similarity.
        Fuzzy = "fuzzy",
    }
}

words! {
    /// The flags of `names FLAG, ...` (besides `strip "prefix"`).
    pub enum NameFlag {
        /// Compare case-insensitively.
        IgnoreCase = "ignore_case",
        /// `-`, `.`, ` `, `_` and `/` are one separator.
        UnifySeparators = "unify_separators",
    }
}

words! {
    /// `extra WORD`.
    pub enum ExtraWord {
        /// Extra calls cost the `extra` penalty.
        Allow = "allow",
        /// An extra call fails the pair.
        Forbid = "forbid",
    }
}

words! {
    /// `rules WORD code, ...`.
    pub enum RulesWord {
        /// The rules' findings fail the pair.
        Deny = "deny",
    }
}

words! {
    /// The keys of `score { KEY n, ... }`.
    pub enum ScoreKey {
        /// Credit of a full match.
        Exact = "exact",
        /// Credit of a name-only match.
        NameOnly = "name_only",
        /// Penalty per extra call.
        Extra = "extra",
        /// Penalty per unmet expectation.
        Missing = "missing",
    }
}

words! {
    /// `score WORD`.
    pub enum ScoreWord {
        /// Partial credit per argument.
        PerArgument = "per_argument",
    }
}

words! {
    /// The JSON types of `type t|u`.
    pub enum TypeWord {
        /// `null`
        Null = "null",
        /// `true` / `false`
        Boolean = "boolean",
        /// Any number.
        Number = "number",
        /// A number without a fractional part.
        Integer = "integer",
        /// A string.
        String = "string",
        /// An array.
        Array = "array",
        /// An object.
        Object = "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for k in Keyword::ALL {
            assert_eq!(k.as_str().parse::<Keyword>(), Ok(*k));
            assert_eq!(k.quoted(), format!("`{k}`"));
        }
        assert_eq!("in_order".parse::<OrderWord>(), Ok(OrderWord::InOrder));
        assert!("odrer".parse::<OrderWord>().is_err());
        assert_eq!(TypeWord::WORDS.len(), TypeWord::ALL.len());
    }

    /// The grammar and the table agree: every `k_*` rule of `grammar/toolspec.pest` is a
    /// keyword of the table, spelled as its rule is named, with the rule `keyword_rule` gives it;
    /// every keyword has its rule; and the grammar's `keyword` rule lists exactly the reserved
    /// words.
    #[test]
    fn words_match_the_grammar() {
        use crate::syntax::parser::{keyword_of, keyword_rule};
        let grammar = include_str!("../../grammar/toolspec.pest");
        let mut in_grammar = Vec::new();
        for line in grammar.lines() {
            let Some(rest) = line.strip_prefix("k_") else {
                continue;
            };
            let name = rest.split_whitespace().next().unwrap();
            let word = line.split('"').nth(1).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(name, word, "rule k_{name} matches {word:?}");
            let k: Keyword = word
                .parse()
                .unwrap_or_else(|_| panic!("`{word}` (rule k_{name}) is missing from Keyword"));
            assert_eq!(format!("{:?}", keyword_rule(k)), format!("k_{name}"));
            assert_eq!(keyword_of(keyword_rule(k)), Some(k));
            in_grammar.push(k);
        }
        for k in Keyword::ALL {
            assert!(
                in_grammar.contains(k),
                "`{k}` has no k_{k} rule in the grammar"
            );
        }
        let start = grammar.find("\nkeyword = @{").expect("the keyword rule");
        let body = &grammar[start..start + grammar[start..].find("~ !").unwrap()];
        let mut listed: Vec<&str> = body.split('"').skip(1).step_by(2).collect();
        let mut reserved: Vec<&str> = Keyword::ALL
            .iter()
            .filter(|k| k.reserved())
            .map(|k| k.as_str())
            .collect();
        listed.sort_unstable();
        reserved.sort_unstable();
        assert_eq!(
            listed, reserved,
            "the grammar's `keyword` rule and Keyword::reserved"
        );
    }

    #[test]
    fn scope_statements_start_statements() {
        for k in Keyword::scope_statements() {
            assert_eq!(k.starts(), Starts::Statement, "{k}");
        }
    }
}
