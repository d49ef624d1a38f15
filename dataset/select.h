/* select.h - which evaluations a command works on: the selection options
 * that ls, replay and audit problems share (--level, --model, --source,
 * --problem, --eval) and the one SQL condition that applies them.
 *
 * Owns: the rule.  --level N: that level.  --model M: the model's name or
 * the configuration label the reports print (EVALSEL_CONFIG_SQL: two runs
 * of one model are two configurations).  --source NAME: the source's name
 * (ls prints it).  --problem P: a problem id (1-based, as ls prints it)
 * when P is all digits, else a problem name, with or without its "ID_"
 * prefix and ".py".  --eval ID[,ID...]: those evaluation ids (ls's id
 * column); repeated, the ids add up.  Options combine with AND; any other
 * option given twice keeps the last value.  audit problems selects the
 * problems: by level and --problem directly, and with --model, --source
 * or --eval the problems those evaluations name (same level and id).
 * Must not: print, run a statement.
 */
#ifndef HR_DATASET_SELECT_H
#define HR_DATASET_SELECT_H

#include <getopt.h>
#include <stddef.h>

#include <sqlite3.h>

enum {
	EVALSEL_OPT_LEVEL = 0x3000, EVALSEL_OPT_MODEL, EVALSEL_OPT_SOURCE,
	EVALSEL_OPT_PROBLEM, EVALSEL_OPT_EVAL
};

/* Put these in a command's struct option array. */
#define EVALSEL_OPTIONS                                                   \
	{ "level", required_argument, NULL, EVALSEL_OPT_LEVEL },          \
	{ "model", required_argument, NULL, EVALSEL_OPT_MODEL },          \
	{ "source", required_argument, NULL, EVALSEL_OPT_SOURCE },        \
	{ "problem", required_argument, NULL, EVALSEL_OPT_PROBLEM },      \
	{ "eval", required_argument, NULL, EVALSEL_OPT_EVAL }

/* And this in its --help, as written for evaluations. */
#define EVALSEL_USAGE                                                     \
	"  --level N         only level N\n"                              \
	"  --model M         only model M: its name or the configuration\n" \
	"                    label the reports print (a run of it)\n"     \
	"  --source NAME     only evaluations of that source (ls prints it)\n" \
	"  --problem P       only problem P: its id (1-based) or its name,\n" \
	"                    with or without the ID_ prefix and .py\n"    \
	"  --eval ID[,ID...] only these evaluation ids (ls's id column);\n" \
	"                    may be repeated\n"

struct evalsel {
	int level;             /* 0: any */
	const char *model;     /* borrowed (argv); NULL: any */
	const char *source;    /* borrowed; NULL: any */
	const char *problem;   /* borrowed, as given; NULL: any */
	int problem_id;        /* --problem as an id; 0: by name or any */
	char *problem_name;    /* owned; --problem's bare name, or NULL */
	char *ids_json;        /* owned; JSON array of --eval ids, or NULL */
};

/* The configuration label of evaluation e: the run's last path component
 * when it names the model (rtrim strips the name, leaving the directories
 * to remove), else "MODEL [RUN]".  The reports' label too (evalset.c). */
#define EVALSEL_CONFIG_SQL                                                \
	"(CASE WHEN instr(e.run, e.model) > 0"                            \
	" THEN replace(e.run, rtrim(e.run, replace(e.run, '/', '')), '')" \
	" ELSE e.model || ' [' || e.run || ']' END)"

/* The problem name of evaluation e: the archive's, else that of the newest
 * stored problem of its level and id (the one replay matches first). */
#define EVALSEL_PROBLEM_NAME_SQL                                          \
	"COALESCE(e.problem_name, (SELECT p.name FROM problem p"          \
	" WHERE p.level = e.level AND p.problem_id = e.problem_id"        \
	" ORDER BY p.id DESC LIMIT 1))"

/* A name without "ID_" and ".py": 12_Conv2d.py -> Conv2d (x is repeated:
 * give it a column, not a subquery). */
#define EVALSEL_BARE_SQL(x)                                               \
	"(CASE WHEN ltrim(" x ", '0123456789') LIKE '\\_%' ESCAPE '\\'"   \
	"   AND ltrim(" x ", '0123456789') <> " x                         \
	" THEN substr(ltrim(" x ", '0123456789'), 2) ELSE " x " END)"
#define EVALSEL_NOPY_SQL(x)                                               \
	"(CASE WHEN " x " LIKE '%.py' THEN substr(" x ", 1, length(" x ") - 3)" \
	" ELSE " x " END)"

/* The condition over evaluation e joined with its source s; its named
 * parameters are bound by evalsel_bind. */
#define EVALSEL_WHERE                                                     \
	"(:sel_level IS NULL OR e.level = :sel_level)"                    \
	" AND (:sel_model IS NULL OR e.model = :sel_model"                \
	"      OR " EVALSEL_CONFIG_SQL " = :sel_model)"                   \
	" AND (:sel_source IS NULL OR s.name = :sel_source)"              \
	" AND (:sel_problem_id IS NULL OR e.problem_id = :sel_problem_id)" \
	" AND (:sel_problem_name IS NULL OR :sel_problem_name IN"         \
	"      (SELECT " EVALSEL_BARE_SQL(EVALSEL_NOPY_SQL("n.v"))        \
	"       FROM (SELECT " EVALSEL_PROBLEM_NAME_SQL " AS v) n))"      \
	" AND (:sel_ids IS NULL OR e.id IN (SELECT value FROM json_each(:sel_ids)))"

/* The condition over problem p for audit problems. */
#define EVALSEL_PROBLEM_WHERE                                             \
	"(:sel_level IS NULL OR p.level = :sel_level)"                    \
	" AND (:sel_problem_id IS NULL OR p.problem_id = :sel_problem_id)" \
	" AND (:sel_problem_name IS NULL OR :sel_problem_name ="          \
	"      " EVALSEL_BARE_SQL(EVALSEL_NOPY_SQL("p.name")) ")"         \
	" AND ((:sel_model IS NULL AND :sel_source IS NULL"               \
	"       AND :sel_ids IS NULL) OR EXISTS (SELECT 1 FROM evaluation e" \
	"       JOIN source s ON s.id = e.source_id WHERE e.level = p.level" \
	"       AND e.problem_id = p.problem_id AND " EVALSEL_WHERE "))"

/* Take one getopt result c with its argument.  Returns 1 when c was a
 * selection option and was taken, 0 when it is not one, -1 when its value
 * is bad (why says so, for the command's usage error). */
int evalsel_option(struct evalsel *sel, int c, const char *arg, char *why,
		   size_t n);

/* Whether any selection option was given. */
int evalsel_given(const struct evalsel *sel);

/* Bind the selection's parameters that st has; the others stay NULL.
 * Returns an SQLite code. */
int evalsel_bind(const struct evalsel *sel, sqlite3_stmt *st);

/* Free what the selection owns; it selects everything again. */
void evalsel_release(struct evalsel *sel);

#endif
