// The one token of the .toolspec grammar that depends on line breaks: the rest of the line after
// an unknown word at the start of a statement (`odrer in_order`), which grammar/toolspec.pest
// reads as one statement up to the end of the line. Everywhere else line breaks are whitespace.
//
// It is the text after the word on the same line, up to a `{` or `}`; it is not there when the
// line ends after the word, or the next text is `:` (a label), `#` (a comment) or the word
// `before` (a `before` rule). No state: nothing to serialize.

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <stdint.h>

enum TokenType {
  UNKNOWN_REST,
  ERROR_SENTINEL,
};

void *tree_sitter_toolspec_external_scanner_create(void) { return NULL; }

void tree_sitter_toolspec_external_scanner_destroy(void *payload) { (void)payload; }

unsigned tree_sitter_toolspec_external_scanner_serialize(void *payload, char *buffer) {
  (void)payload;
  (void)buffer;
  return 0;
}

void tree_sitter_toolspec_external_scanner_deserialize(void *payload, const char *buffer, unsigned length) {
  (void)payload;
  (void)buffer;
  (void)length;
}

static bool is_word_char(int32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static bool ends_rest(TSLexer *lexer) {
  int32_t c = lexer->lookahead;
  return lexer->eof(lexer) || c == '\n' || c == '{' || c == '}';
}

bool tree_sitter_toolspec_external_scanner_scan(void *payload, TSLexer *lexer, const bool *valid_symbols) {
  (void)payload;
  // In error recovery every symbol is valid: the rest of a line is never a way out of an error.
  if (valid_symbols[ERROR_SENTINEL] || !valid_symbols[UNKNOWN_REST]) {
    return false;
  }
  while (lexer->lookahead == ' ' || lexer->lookahead == '\t' || lexer->lookahead == '\r') {
    lexer->advance(lexer, true);
  }
  if (ends_rest(lexer) || lexer->lookahead == ':' || lexer->lookahead == '#') {
    return false;
  }
  static const char before[] = "before";
  unsigned matched = 0;
  while (before[matched] != '\0' && lexer->lookahead == before[matched]) {
    lexer->advance(lexer, false);
    matched++;
  }
  if (before[matched] == '\0' && !is_word_char(lexer->lookahead)) {
    return false;
  }
  while (!ends_rest(lexer)) {
    lexer->advance(lexer, false);
  }
  lexer->result_symbol = UNKNOWN_REST;
  return true;
}
