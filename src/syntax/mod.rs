//! Syntax: `.toolspec` source text → AST with byte spans. The only module that knows pest.
