/**
 * @file The .toolspec language for tree-sitter (highlighting in Neovim, Helix, Zed, GitHub).
 *
 * It follows grammar/toolspec.pest, the language's own grammar, rule for rule where it can; like
 * that grammar it leaves modes, options and type names to the compiler (they are identifiers
 * here), and reads a statement that starts with an unknown word as `unknown_statement`, so that a
 * typo is one node and not an error that swallows the lines after it.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)));
// A list with an optional trailing comma.
const commaSepTrailing = (rule) => optional(seq(commaSep1(rule), optional(',')));

module.exports = grammar({
  name: 'toolspec',

  extras: ($) => [/\s/, $.comment],

  word: ($) => $.identifier,

  // src/scanner.c: the rest of a line after an unknown word (the only token that ends at a line
  // break), and a symbol that no rule uses, valid only while the parser recovers from an error.
  externals: ($) => [$._unknown_rest, $._error_sentinel],

  rules: {
    source_file: ($) => repeat($._item),

    // A statement that starts with a keyword outside a spec parses as that statement (toolspec
    // names it misplaced-statement), so that the rest of the file still reads as written. Like
    // grammar/toolspec.pest, a label or a `before` rule there is an error.
    _item: ($) =>
      choice(
        $.include,
        $.tool_declaration,
        $.spec,
        $.transcripts_setting,
        $.format_setting,
        $.order_setting,
        $.args_setting,
        $.names_setting,
        $.threshold_setting,
        $.pass_rate_setting,
        $.total_calls_setting,
        $.extra_setting,
        $.score_setting,
        $.binary_setting,
        $.profile_setting,
        $.rules_setting,
        $.never_rule,
        $.turn_block,
        $.after_block,
        $.agent_block,
        $.agent_runs,
        $.answer,
        $.either,
        $.parallel,
        alias($._unlabelled_expectation, $.expectation),
        $.unknown_statement,
      ),

    comment: (_) => token(seq('#', /[^\n]*/)),

    include: ($) => seq('include', field('path', $.string)),

    tool_declaration: ($) => seq('tool', field('name', $.tool_name), field('arguments', $.argument_list)),

    spec: ($) => seq('spec', field('name', $.identifier), field('body', $.block)),

    block: ($) => seq('{', repeat($._statement), '}'),

    _statement: ($) =>
      choice(
        $.transcripts_setting,
        $.format_setting,
        $.order_setting,
        $.args_setting,
        $.names_setting,
        $.threshold_setting,
        $.pass_rate_setting,
        $.total_calls_setting,
        $.extra_setting,
        $.score_setting,
        $.binary_setting,
        $.profile_setting,
        $.rules_setting,
        $.never_rule,
        $.before_rule,
        $.turn_block,
        $.after_block,
        $.agent_block,
        $.agent_runs,
        $.answer,
        $.either,
        $.parallel,
        $.expectation,
        alias($._unlabelled_expectation, $.expectation),
        $.unknown_statement,
      ),

    // ---------------------------------------------------------------------------------------
    // Settings

    transcripts_setting: ($) => seq('transcripts', commaSep1(field('glob', $.string))),
    format_setting: ($) => seq('format', field('value', choice($.identifier, $.string))),
    order_setting: ($) => seq('order', field('value', $.identifier)),
    args_setting: ($) =>
      seq('args', field('value', $.identifier), optional('tokens'), optional(seq('>=', field('threshold', $.number)))),
    names_setting: ($) => seq('names', commaSep1(choice($.strip, field('value', $.identifier)))),
    strip: ($) => seq('strip', field('prefix', $.string)),
    threshold_setting: ($) => seq('threshold', field('value', $.number)),
    pass_rate_setting: ($) => seq('pass_rate', field('operator', $.comparison_operator), field('value', $.number), optional('%')),
    total_calls_setting: ($) => seq('total_calls', field('operator', $.count_operator), field('value', $.integer)),
    extra_setting: ($) => seq('extra', field('value', $.identifier)),
    // `score { exact 1, name_only 0.5 }` and `score per_argument`
    score_setting: ($) =>
      seq('score', choice(seq('{', repeat(seq($.score_entry, optional(','))), '}'), field('value', $.identifier))),
    score_entry: ($) => seq(field('key', $.identifier), field('value', $.number)),
    binary_setting: (_) => 'binary',
    profile_setting: ($) => seq('profile', field('name', $.identifier), optional($.profile_options)),
    profile_options: ($) => seq('{', commaSepTrailing($.profile_option), '}'),
    profile_option: ($) => seq(field('key', choice($.identifier, $.string)), ':', field('value', $._json)),
    // `rules deny schema-violation, repeated-call`
    rules_setting: ($) => seq('rules', field('value', $.identifier), commaSep1(alias($.identifier, $.rule_code))),

    count_operator: (_) => choice('==', '>=', '<=', '>', '<'),
    comparison_operator: (_) => choice('>=', '<=', '>', '<'),

    // ---------------------------------------------------------------------------------------
    // Rules, blocks, the answer

    never_rule: ($) =>
      seq(
        'never',
        field('tool', choice($.wildcard, $.tool_name)),
        optional(field('arguments', $.argument_list)),
        repeat(choice($.errored, $.weight)),
      ),
    // `lookup before refund`: labels or tool names.
    before_rule: ($) =>
      seq(field('first', choice($.identifier, $.string)), 'before', field('then', $.tool_name)),
    turn_block: ($) => seq('turn', field('turn', choice('last', $.integer)), field('body', $.block)),
    after_block: ($) => seq('after', choice('first', 'last'), field('tool', $.tool_name), field('body', $.block)),
    agent_block: ($) => seq('agent', field('agent', $.string), field('body', $.block)),
    agent_runs: ($) =>
      seq('agent', field('agent', $.string), 'runs', field('operator', $.count_operator), field('value', $.integer)),
    answer: ($) => seq('answer', field('constraint', $._constraint)),
    either: ($) => seq(optional($.critical), 'either', $.block, repeat(seq('or', $.block))),
    parallel: ($) => seq(optional($.critical), 'parallel', $.block),
    critical: (_) => 'critical',

    // An unknown word at the start of a statement and the rest of its line: the compiler names
    // it and suggests the keyword that was meant.
    // The rest of the line is one token that does not start with `:` (a label) or the word
    // `before` (a `before` rule); a braced block may follow, as in grammar/toolspec.pest.
    unknown_statement: ($) =>
      seq(field('word', $.identifier), optional($._unknown_rest), optional(field('body', $.block))),
    // `_unknown_rest` comes from src/scanner.c: it ends at the line's end.

    // ---------------------------------------------------------------------------------------
    // Expectations

    expectation: ($) => seq(field('label', alias($.identifier, $.label)), ':', $._expectation_body),
    _unlabelled_expectation: ($) => $._expectation_body,
    _expectation_body: ($) =>
      seq(
        optional($.critical),
        optional(field('count', $.count)),
        'call',
        field('tool', choice($.wildcard, $.tool_name)),
        optional(field('arguments', choice($.argument_list, $.exact, $.subset))),
        optional(seq('->', field('output', choice($.field_list, $._constraint)))),
        repeat(choice($.errored, $.weight)),
      ),
    count: ($) =>
      choice(
        'optional',
        seq('at_least', $.integer),
        seq('at_most', $.integer),
        seq('exactly', $.integer),
        seq('between', $.integer, 'and', $.integer),
      ),
    errored: ($) => seq('errored', optional($.boolean)),
    weight: ($) => seq('weight', field('value', $.number)),
    wildcard: (_) => '*',

    // `lookup_order`, `functions.lookup`, `github/create-issue`, `"send mail"`, `github::search`
    tool_name: ($) =>
      seq(
        optional(seq(field('server', choice(alias($._bare_tool, $.identifier), $.string)), '::')),
        field('name', choice(alias($._bare_tool, $.identifier), $.string)),
      ),
    _bare_tool: (_) => /[A-Za-z_][A-Za-z0-9_-]*([./][A-Za-z0-9_][A-Za-z0-9_-]*)*/,

    argument_list: ($) => seq('(', commaSepTrailing(choice($.spread, $.argument)), ')'),
    field_list: ($) => prec(1, seq('{', commaSepTrailing(choice($.spread, $.argument)), '}')),
    spread: (_) => '...',
    argument: ($) => seq(field('path', $.path), ':', field('constraint', $._constraint)),
    // After `->`, `{"a": 1}` is a field list (as in grammar/toolspec.pest, which tries it first).
    path: ($) => prec(1, seq(choice($.identifier, $.string), repeat($._path_step))),
    _path_step: ($) =>
      choice(seq('.', choice($.identifier, $.string)), seq('[', choice($.integer, $.string), ']')),

    // ---------------------------------------------------------------------------------------
    // Constraints: `C and D or E` (`and` binds tighter)

    _constraint: ($) => choice($._term, $.and, $.or),
    or: ($) => prec.left(1, seq(field('left', $._constraint), 'or', field('right', $._constraint))),
    and: ($) => prec.left(2, seq(field('left', $._constraint), 'and', field('right', $._constraint))),

    _term: ($) =>
      choice(
        $.not,
        $.in,
        $.reference,
        $.regex,
        $.range,
        $.comparison,
        $.type,
        $.one_of,
        $.contains,
        $.fuzzy,
        $.exact,
        $.subset,
        $.present,
        $.absent,
        $.any,
        $._json,
      ),
    not: ($) => seq('not', $._term),
    in: ($) => seq('in', choice($.reference, $._json)),
    // `lookup.output.items[0].sku`, `search.output.flights[*].id`
    reference: ($) =>
      seq(field('label', $.identifier), '.', choice('output', 'args'), repeat(choice($._path_step, $.each))),
    each: (_) => seq('[', '*', ']'),
    regex: ($) =>
      seq('/', field('pattern', $.regex_pattern), token.immediate('/'), optional(field('flags', $.regex_flags))),
    regex_pattern: (_) => token.immediate(/([^/\\\n]|\\[^\n])+/),
    regex_flags: (_) => token.immediate(/[imsxU]+/),
    range: ($) =>
      choice(seq($.number, $.range_operator, optional($.number)), seq($.range_operator, $.number)),
    range_operator: (_) => choice('..=', '..'),
    comparison: ($) => seq(field('operator', $.comparison_operator), field('value', choice($.reference, $._json))),
    type: ($) => seq('type', alias($.identifier, $.type_name), repeat(seq('|', alias($.identifier, $.type_name)))),
    one_of: ($) => seq('one_of', $.json_array),
    contains: ($) => seq('contains', choice($.reference, $._json)),
    fuzzy: ($) => seq('fuzzy', optional('tokens'), $.string, optional(seq('>=', field('threshold', $.number)))),
    exact: ($) => seq('exact', $._json),
    subset: ($) => seq('subset', $._json),
    present: (_) => 'present',
    absent: (_) => 'absent',
    any: (_) => 'any',

    // ---------------------------------------------------------------------------------------
    // JSON values (trailing commas allowed), names

    _json: ($) => choice($.json_object, $.json_array, $.string, $.number, $.boolean, $.null),
    json_object: ($) => seq('{', commaSepTrailing($.json_member), '}'),
    json_member: ($) => seq(field('key', $.string), ':', field('value', $._json)),
    json_array: ($) => seq('[', commaSepTrailing($._json), ']'),
    boolean: (_) => choice('true', 'false'),
    null: (_) => 'null',

    string: ($) => seq('"', repeat(choice($._string_content, $.escape_sequence)), token.immediate('"')),
    _string_content: (_) => token.immediate(prec(1, /[^"\\\n]+/)),
    escape_sequence: (_) => token.immediate(/\\[^\n]/),

    number: (_) => /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/,
    integer: (_) => /[0-9]+/,

    identifier: (_) => /[A-Za-z_][A-Za-z0-9_-]*/,
  },
});
