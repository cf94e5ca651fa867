// SPDX-License-Identifier: Apache-2.0
// Values in the SQL an SQL client runs (SPEC Rule 3; attacker s31 B3):
// `psql -c "CREATE USER app WITH PASSWORD '${DB_PASSWORD}';"` quotes the
// value for the shell only; with `x'; COPY (SELECT 1) TO PROGRAM 'touch F'; --`
// postgres runs `touch F`, and sqlite3's edit() runs a command likewise.
// interpreter_programs.cc finds the SQL (the clients and their options);
// this scanner finds where in it a placeholder stands, per dialect:
//   a '...' literal: the quote is written twice (`''`), which every dialect
//     here reads as one quote in the literal. postgres and sqlite read no
//     other escape there (postgres assuming standard_conforming_strings,
//     on by default since 9.1; a program naming that setting or
//     backslash_quote refuses `\`); mysql, mariadb and clickhouse read `\`
//     escapes (unless NO_BACKSLASH_ESCAPES), so `\` is refused there and the
//     doubling stays exact in both modes; a postgres E'...' literal reads
//     `\` escapes: `'` and `\` are refused;
//   a "..." identifier (a string with `\` escapes in mysql), a `...`
//     identifier: that quote doubled likewise, `\` refused where escapes
//     are read; sqlite's [...] identifier: `]` refused;
//   a dollar-quoted body (`$$...$$`, `$tag$...$tag$`): no `$`; in postgres the
//     body of DO or CREATE FUNCTION is SQL again, so it is scanned as SQL (a
//     literal in it takes no `$` either, its code only a decimal integer);
//     a body in another LANGUAGE (plpython3u, java) is code;
//   a comment: `--`/`#` to the line's end takes no newline, `/* */` no `*`
//     or `/`; mysql's `/*! */` and `/*+ */` hold code;
//   anywhere else, code: only a decimal integer (`LIMIT ${N}`). So is the
//     rest of a program after a backslash outside a literal (psql's `\!`,
//     `\gexec`, mysql's `\!`), the line of a sqlite3 dot-command (`.shell`),
//     and a postgres/cql '...' literal after AS, DO or LANGUAGE x (a
//     function body run later as code).
// A program that starts commands (postgres COPY ... PROGRAM, sqlite's edit(),
// mysql's system, pager, sys_exec) takes only shell-inert values in its
// literals; one that runs strings as SQL (EXECUTE but GRANT EXECUTE ON,
// psql's \gexec, mysql's PREPARE ... FROM, dblink, query_to_xml,
// load_extension) has only code. The words count anywhere outside literals.
// Out of reach: a negative number after `-` in code (`a = -${N}` with -1
// starts a `--` comment: the rest of the line is lost, no code runs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shell.h"

namespace safesubst {

enum class SqlDialect : std::uint8_t { kNone, kPostgres, kSqlite, kMysql, kClickhouse, kCql };

/// A field of an SQL program: [begin, end) of its text, and how a value is
/// written there (ShellContext's operand and program_stops; for
/// kProgramDoubled the first stop is the quote written twice).
struct SqlField {
  std::size_t begin = 0, end = 0;
  ShellOperand kind = ShellOperand::kProgramCode;
  std::string stops;
  std::string_view what;  ///< "a string literal"
  std::string_view runs;  ///< empty, or why every literal is restricted
};

/// The fields of `program` (SQL of `dialect`), in text order; a place in
/// none of them is code.
std::vector<SqlField> SqlFields(SqlDialect dialect, std::string_view program);

}  // namespace safesubst
