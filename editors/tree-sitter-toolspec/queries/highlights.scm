; Highlighting for .toolspec files. Capture names are the common ones of Neovim, Helix and Zed.

(comment) @comment @spell

; Items and statements
"include" @keyword.import

[
  "tool"
  "spec"
] @keyword.type

[
  "transcripts"
  "format"
  "order"
  "args"
  "names"
  "strip"
  "threshold"
  "pass_rate"
  "total_calls"
  "extra"
  "score"
  "profile"
  "rules"
  "tokens"
] @keyword

(binary_setting) @keyword

[
  "call"
  "never"
  "before"
  "optional"
  "at_least"
  "at_most"
  "exactly"
  "between"
  "errored"
  "weight"
  "either"
  "parallel"
  "turn"
  "after"
  "agent"
  "runs"
  "answer"
  "first"
  "last"
] @keyword

(critical) @keyword.modifier

(count "and" @keyword)

; Constraints
[
  "and"
  "or"
  "not"
  "in"
  "exact"
  "subset"
  "fuzzy"
  "type"
  "one_of"
  "contains"
] @keyword.operator

[
  (present)
  (absent)
  (any)
] @constant.builtin

; Names
(spec
  name: (identifier) @type.definition)

(tool_declaration
  name: (tool_name
    name: (_) @function))

(tool_name
  server: (_) @module)

(tool_name
  name: (_) @function.call)

(wildcard) @character.special

(before_rule
  first: (_) @label)

(expectation
  label: (label) @label)

(reference
  label: (identifier) @label)

(reference
  [
    "output"
    "args"
  ] @variable.builtin)

(reference
  (identifier) @property
  (#not-eq? @property "output"))

(path
  .
  (identifier) @variable.parameter)

(path
  "."
  (identifier) @property)

(profile_option
  key: (identifier) @variable.parameter)

(score_entry
  key: (identifier) @constant)

[
  (order_setting
    value: (identifier) @constant)
  (args_setting
    value: (identifier) @constant)
  (extra_setting
    value: (identifier) @constant)
  (format_setting
    value: (identifier) @constant)
  (score_setting
    value: (identifier) @constant)
  (names_setting
    value: (identifier) @constant)
  (rules_setting
    value: (identifier) @constant)
  (profile_setting
    name: (identifier) @constant)
]

(rule_code) @constant

(type_name) @type.builtin

(unknown_statement
  word: (identifier) @error)

; Literals
(string) @string

(escape_sequence) @string.escape

(regex
  "/" @punctuation.delimiter)

(regex_pattern) @string.regexp

(regex_flags) @character.special

[
  (number)
  (integer)
] @number

(boolean) @boolean

(null) @constant.builtin

; Operators and punctuation
[
  "->"
  "=="
  ">="
  "<="
  ">"
  "<"
  "|"
  "%"
  (range_operator)
  (spread)
] @operator

"::" @punctuation.delimiter

[
  ","
  ":"
  "."
] @punctuation.delimiter

[
  "{"
  "}"
  "("
  ")"
  "["
  "]"
] @punctuation.bracket

(each
  "*" @character.special)
