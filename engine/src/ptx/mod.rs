//! The PTX front end: text -> tokens (`lexer`) -> syntax tree (`parser`, `ast`).
//!
//! The parser is generic over instructions (opcode, dotted modifiers, operands) so that the whole
//! ISA parses; deciding what an instruction means is the job of `lower`.

pub mod ast;
pub mod lexer;
pub mod parser;
