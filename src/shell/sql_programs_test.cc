// SPDX-License-Identifier: Apache-2.0
// Values in the SQL of SQL clients (sql_programs.h): where each placeholder
// lands for psql, mysql/mariadb, sqlite3, clickhouse-client, cqlsh, mongosh
// and redis-cli, in scripts and exec-form argv; and, with the real sqlite3
// under dash, that each value written is stored and printed exactly and no
// hostile value runs a command (edit(), ATTACH, `.shell`).
#include "sql_programs.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "interpreter_programs.h"
#include "program_encoding.h"
#include "program_places.h"
#include "real_shells.h"
#include "shell.h"
#include "test_support.h"

namespace safesubst {
namespace {

using O = ShellOperand;
using testing::kPlaceholder;

TEST_CASE("sql programs: the field of each placeholder, per client and dialect") {
  testing::CheckMarks({
      // psql: -c, --command=, a bundle, after a runner; a literal doubles `'` (standard_conforming_strings).
      {"psql -h \"$DB_HOST\" -U postgres -c \"CREATE USER app WITH PASSWORD '${V}';\"", O::kProgramDoubled,
       "`psql` (a string literal)", "'"},
      {"psql --command=\"ALTER ROLE app PASSWORD '${V}'\"", O::kProgramDoubled, "`psql` (a string literal)", "'"},
      {"psql -v ON_ERROR_STOP=1 -Atc \"SELECT '${V}'\"", O::kProgramDoubled, "`psql` (a string literal)", "'"},
      {"kubectl exec -i pg-0 -- psql -U postgres -c \"SELECT '${V}'\"", O::kProgramDoubled,
       "`psql` (a string literal)", "'"},
      {"PGPASSWORD=x psql -c \"SELECT 1 LIMIT ${V}\"", O::kProgramCode, "`psql`", ""},
      {"psql -c \"SELECT \\\"${V}\\\"\"", O::kProgramDoubled, "`psql` (a quoted identifier)", "\""},
      {"psql -c \"SELECT E'${V}'\"", O::kProgramText, "`psql` (an E'...' string literal)", "'\\"},
      {"psql -c \"SET standard_conforming_strings = on; SELECT '${V}'\"", O::kProgramDoubled,
       "`psql` (a string literal)", "'\\"},
      {"psql -c \"SELECT 1 -- ${V}\"", O::kProgramText, "`psql` (a comment)", "\n"},
      {"psql -c \"SELECT 1 /* /* ${V} */ */\"", O::kProgramText, "`psql` (a comment)", "*/"},
      // Dollar-quoted bodies are SQL again: `$` stays out of their literals, their code takes integers.
      {"psql -c 'DO $$BEGIN RAISE NOTICE '\"'${V}'\"'; END$$'", O::kProgramDoubled, "`psql` (a string literal)",
       "'$"},
      {"psql -c 'DO $body$BEGIN PERFORM ${V}; END$body$'", O::kProgramCode, "`psql`", ""},
      {"psql -c \"CREATE FUNCTION f() RETURNS int AS 'SELECT ${V}' LANGUAGE sql\"", O::kProgramCode, "`psql`", ""},
      {"psql -c 'CREATE FUNCTION f() RETURNS int AS $$ return \"${V}\" $$ LANGUAGE plpython3u'", O::kProgramCode,
       "`psql`", ""},
      // Strings that reach a shell or run as SQL.
      {"psql -c \"COPY t TO PROGRAM 'gzip > /backup/${V}.gz'\"", O::kProgramShellText,
       "`psql` (a string literal, in SQL that starts commands (COPY ... PROGRAM, edit(), system, pager))", "'"},
      {"psql -c \"SELECT 'CREATE ROLE ${V}' \\gexec\"", O::kProgramCode,
       "`psql` (a string literal, in SQL that runs strings as SQL or loads code (EXECUTE, \\gexec, PREPARE, "
       "load_extension))",
       ""},
      {"psql -c \"GRANT EXECUTE ON FUNCTION f TO app; ALTER ROLE app PASSWORD '${V}'\"", O::kProgramDoubled,
       "`psql` (a string literal)", "'"},
      {"psql -c \"\\\\! echo '${V}'\"", O::kProgramCode, "`psql`", ""},
      // psql's standard input is its program when no -c or -f names another.
      {"psql -U postgres <<EOF\nCREATE USER app PASSWORD '${V}';\nEOF", O::kProgramDoubled,
       "`psql` (a string literal)", "'"},
      {"psql -f - <<'EOF'\nSELECT '${V}';\nEOF", O::kProgramDoubled, "`psql` (a string literal)", "'"},
      // mysql, mariadb: `\` escapes (refused), `"..."` strings, `#` and `-- ` comments, client commands.
      {"mysql -uroot -p\"$ROOT\" -e \"CREATE USER 'app'@'%' IDENTIFIED BY '${V}';\"", O::kProgramDoubled,
       "`mysql` (a string literal)", "'\\"},
      {"docker exec mysql mysql -uroot -e \"SELECT '${V}'\"", O::kProgramDoubled, "`mysql` (a string literal)",
       "'\\"},
      {"kubectl exec deploy/mysql -- mysql -e \"SELECT '${V}'\"", O::kProgramDoubled, "`mysql` (a string literal)",
       "'\\"},
      {"kubectl exec pg-0 -c psql -- psql -c \"SELECT '${V}'\"", O::kProgramDoubled, "`psql` (a string literal)",
       "'"},
      {"mariadb --execute=\"SELECT \\\"${V}\\\"\"", O::kProgramDoubled,
       "`mariadb` (a double-quoted string or identifier)", "\"\\"},
      {"mysql -Ne \"SELECT 1 # ${V}\"", O::kProgramText, "`mysql` (a comment)", "\n"},
      {"mysql -e \"SELECT 1 --${V}\"", O::kProgramCode, "`mysql`", ""},
      {"mysql -e \"/*!40101 SET @x = '${V}' */\"", O::kProgramDoubled, "`mysql` (a string literal)", "'\\"},
      {"mysql -e \"PREPARE s FROM 'SELECT ${V}'\"", O::kProgramCode,
       "`mysql` (a string literal, in SQL that runs strings as SQL or loads code (EXECUTE, \\gexec, PREPARE, "
       "load_extension))",
       ""},
      {"mysql app <<EOF\nINSERT INTO t VALUES ('${V}');\nEOF", O::kProgramDoubled, "`mysql` (a string literal)",
       "'\\"},
      // sqlite3: every operand after the database is SQL; `[...]`; dot-commands; edit().
      {"sqlite3 /data/app.db \"INSERT INTO t VALUES ('${V}');\"", O::kProgramDoubled, "`sqlite3` (a string literal)",
       "'"},
      {"sqlite3 -cmd '.timeout 1000' -header app.db \"SELECT '${V}'\"", O::kProgramDoubled,
       "`sqlite3` (a string literal)", "'"},
      {"sqlite3 -cmd \"SELECT '${V}'\" app.db", O::kProgramDoubled, "`sqlite3` (a string literal)", "'"},
      {"sqlite3 app.db \"SELECT [${V}] FROM t\"", O::kProgramText, "`sqlite3` (a quoted identifier)", "]"},
      {"sqlite3 app.db \".shell echo '${V}'\"", O::kProgramCode, "`sqlite3`", ""},
      {"sqlite3 app.db \"SELECT edit('${V}', 'vi')\"", O::kProgramShellText,
       "`sqlite3` (a string literal, in SQL that starts commands (COPY ... PROGRAM, edit(), system, pager))", "'"},
      {"sqlite3 app.db <<EOF\nINSERT INTO t VALUES ('${V}');\nEOF", O::kProgramDoubled,
       "`sqlite3` (a string literal)", "'"},
      // clickhouse-client, cqlsh, mongosh (node's reading), redis-cli's EVAL (Lua: code).
      {"clickhouse-client --query=\"SELECT '${V}'\"", O::kProgramDoubled, "`clickhouse-client` (a string literal)",
       "'\\"},
      {"cqlsh -e \"INSERT INTO ks.t (a) VALUES ('${V}')\"", O::kProgramDoubled, "`cqlsh` (a string literal)", "'"},
      {"mongosh \"$URI\" --eval \"db.items.find({qty: ${V}})\"", O::kProgramCode, "`mongosh`", ""},
      {"redis-cli -h redis EVAL \"return '${V}'\" 0", O::kProgramCode, "`redis-cli`", ""},
  });
}

TEST_CASE("sql programs: a database, a host, a variable or a redis argument is no SQL") {
  for (std::string_view script :
       {"psql -v pw=\"${V}\" -c 'SELECT 1'", "psql \"${V}\" -c 'SELECT 1'", "psql -d \"${V}\" <<EOF\nSELECT 1;\nEOF",
        "psql -f init.sql <<EOF\n'${V}'\nEOF", "sqlite3 -header \"${V}\" 'SELECT 1'", "mysql -h \"${V}\" -e 'SELECT 1'",
        "mysql -p\"${V}\" -e 'SELECT 1'", "redis-cli SET key \"${V}\"", "redis-cli -a \"${V}\" PING",
        "mongosh \"${V}\" --eval 'db.stats()'", "cqlsh \"${V}\" 9042 -e 'DESCRIBE KEYSPACES'"}) {
    CAPTURE(script);
    CHECK(testing::PlaceOf(script).operand == O::kNone);
  }
  CHECK(MayRunPrograms("PGPASSWORD=x /usr/bin/psql -c 'SELECT 1'"));
  CHECK(MayRunPrograms("sqlite3 db .tables"));
  CHECK_FALSE(MayRunPrograms("mysqldump app > /backup/app.sql"));
}

TEST_CASE("sql programs: exec-form argv (no shell) is read as the client gets it") {
  const std::vector<std::pair<std::vector<std::string>, ShellOperand>> lines = {
      {{"psql", "-h", "db", "-c", "CREATE USER app2 WITH PASSWORD '${V}';"}, O::kProgramDoubled},
      {{"/docker-entrypoint.sh", "psql", "-c", "SELECT ${V}"}, O::kProgramCode},
      {{"sqlite3", "/data/app.db", "INSERT INTO t VALUES ('${V}');"}, O::kProgramDoubled},
      {{"mysql", "-e", "SELECT '${V}'"}, O::kProgramDoubled},
      {{"sqlite3", "${V}", "SELECT 1"}, O::kNone},
  };
  for (const auto& [argv, operand] : lines) {
    CAPTURE(argv.back());
    const std::size_t item = argv[1] == "${V}" ? 1 : argv.size() - 1;
    std::vector<ShellContext> contexts(1);
    AddArgvProgramReadings(argv, {ArgvPlace{item, argv[item].find(kPlaceholder)}}, &contexts);
    CHECK(contexts[0].operand == operand);
  }
}

TEST_CASE("sql programs: a literal's quote is written twice, the other stops refused without the value") {
  ShellContext literal;
  literal.operand = O::kProgramDoubled;
  literal.evaluated_by = "`mysql` (a string literal)";
  literal.program_stops = "'\\";
  std::string out;
  CHECK(AppendProgramEncoded(literal, "it's 'x''", ShellMode::kSafe, &out).empty());
  CHECK(out == "it''s ''x''''");
  out.clear();
  const std::string error = AppendProgramEncoded(literal, "s3cr\\t", ShellMode::kSafe, &out);
  CHECK(error.find("`\\`") != std::string::npos);
  CHECK(error.find("s3cr") == std::string::npos);
  CHECK(out.empty());
  CHECK(AppendProgramEncoded(literal, "a'\\", ShellMode::kRaw, &out).empty());
  CHECK(out == "a'\\");
}

// Each line makes sqlite3 print the value once; t.db has a table t(v).
constexpr std::string_view kSqliteLines[] = {
    "sqlite3 t.db \"INSERT INTO t VALUES ('${V}'); SELECT v FROM t;\"",
    "sqlite3 t.db \"SELECT '${V}';\"",
    "sqlite3 t.db \"CREATE TABLE q(\\\"${V}\\\"); SELECT name FROM pragma_table_info('q');\"",
    "sqlite3 -cmd \"SELECT '${V}';\" t.db 'SELECT 1 WHERE 0;'",
    "sqlite3 t.db \"SELECT 'a' || '${V}' || 'b';\" | sed 's/^a//; s/b$//'",
    "sqlite3 t.db <<EOF\nINSERT INTO t VALUES ('${V}');\nSELECT v FROM t;\nEOF",
    "sqlite3 t.db <<'EOF'\nSELECT '${V}'; -- done\nEOF",
    "sh -c \"sqlite3 t.db \\\"SELECT '${V}';\\\"\"",
};

// Each written as data; the benign ones are B3's passwords and greetings.
constexpr std::string_view kSqlValues[] = {
    "s3cr3t-P@ss_word!", "Hello, world", "O'Brien", "it''s", "a\\b", "x\"y", "https://x/y?a=1&b=2", "$HOME",
    "two\nlines", "`id`", "50%", "[x]",
    // The attacker's: each would run `touch canary` if it left its literal.
    "x'); SELECT edit('x','touch canary;true'); --", "x'); ATTACH 'canary' AS c; CREATE TABLE c.t(a); --",
    "x'); SELECT writefile('canary', 'x'); --",
    "x');\n.shell touch canary\n--", "x' || edit('x','touch canary;true') || '", "\"; .shell touch canary\n",
    "x\\'; ATTACH 'canary' AS c; CREATE TABLE c.t(a); --"};

std::string ExpandAll(std::string_view line, std::string_view encoded) {
  std::string out(line);
  for (std::size_t at = out.find(kPlaceholder); at != std::string::npos;
       at = out.find(kPlaceholder, at + encoded.size())) {
    out.replace(at, kPlaceholder.size(), encoded);
  }
  return out;
}

TEST_CASE("sql programs: under the real sqlite3, every value is stored and printed exactly and none runs") {
  REQUIRE_MESSAGE(testing::HaveProgram("sqlite3"), "sqlite3 is not installed (packaging/debian-test-deps.txt)");
  REQUIRE(testing::HaveProgram("dash"));
  const std::vector<testing::RealShell> shells = {testing::RealShells().front()};  // dash
  std::vector<std::string> scripts, written;
  for (std::string_view line : kSqliteLines) {
    std::vector<std::size_t> offsets;
    for (std::size_t at = line.find(kPlaceholder); at != std::string_view::npos; at = line.find(kPlaceholder, at + 1)) {
      offsets.push_back(at);
    }
    const std::vector<ShellContext> contexts = ShellContextsAt(line, offsets);
    for (std::string_view value : kSqlValues) {
      CAPTURE(line);
      CAPTURE(value);
      std::string encoded;
      CHECK(AppendShellEncoded(contexts.front(), value, ShellMode::kSafe, &encoded).empty());
      for (const ShellContext& other : contexts) {
        std::string same;
        CHECK(AppendShellEncoded(other, value, ShellMode::kSafe, &same).empty());
        CHECK(same == encoded);
      }
      scripts.push_back("rm -f t.db; sqlite3 t.db 'CREATE TABLE t(v)'\n" + ExpandAll(line, encoded) + "\n");
      written.push_back(std::string(value));
    }
  }
  testing::CheckScriptsPrintTheirValues(shells, scripts, written);
}

TEST_CASE("sql programs: written for the shell only, the attacker's values run under sqlite3") {
  // Why the rule exists: the shell's quoting alone leaves each of these free to leave its literal.
  REQUIRE(testing::HaveProgram("sqlite3"));
  const std::vector<testing::RealShell> shells = {testing::RealShells().front()};  // dash
  std::vector<std::string> scripts;
  for (std::string_view value : {"x'); SELECT edit('x','touch canary;true'); --",
                                 "x'); ATTACH 'canary' AS c; CREATE TABLE c.t(a); --",
                                 "x'); SELECT writefile('canary', 'x'); --"}) {
    const std::string_view line = kSqliteLines[0];
    REQUIRE(ShellContextsAt(line, {line.find(kPlaceholder)}).front().operand == O::kProgramDoubled);
    scripts.push_back("rm -f t.db; sqlite3 t.db 'CREATE TABLE t(v)'\n" +
                      ExpandAll(line, testing::ShellOnlyEncoding(line, value)) + "\n");
  }
  testing::TempDir work;
  const std::filesystem::path directory = testing::RunEachScriptUnderShells(work.path(), shells, scripts).front();
  CHECK(testing::ReadFile(directory / "canaries") == "0\n1\n2\n");
}

}  // namespace
}  // namespace safesubst
