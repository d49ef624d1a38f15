/* rules.h - static rules: regular expressions over a kernel's source, each
 * with an id and a reason, read from an editable, ordered rule file
 * (replay/static-rules.conf; the format is below and in docs/replay.md).
 *
 * Owns: parsing the rule file (POSIX extended regexes, <regex.h>), the
 * scopes a rule may look at (the whole file, ModelNew.forward, module
 * level), and matching one source against the rules.  A match is a
 * *signal* (finding "suspect:<id>"): a place to look, never evidence; the
 * audit verdict (verdict.h) never reads signals.  Must not: read the
 * store, print.
 *
 * File format: blank lines and lines whose first non-blank character is
 * '#' are ignored.  A rule is a header line "[ID]" (ID: lowercase letters,
 * digits and '-') followed by "key = value" lines: regex (required; the
 * rest of the line after "= ", taken verbatim), reason (required), scope
 * (optional: file, the default; forward; module).  Rules are tried in file
 * order.  Matching is line by line: a rule matches a line of its scope.
 *
 * Scopes, found by indentation (good enough for the modules KernelBench
 * stores; no Python parser): "forward" is the body of the first
 * "def forward(" inside "class ModelNew"; "module" is the lines at column
 * 0; "file" every line.  Lines inside a triple-quoted string (the CUDA or
 * C++ source of load_inline) belong to no Python scope (they are matched
 * by file-scope rules only), and Python comment lines (first non-blank
 * '#') are never matched.
 */
#ifndef HR_REPLAY_RULES_H
#define HR_REPLAY_RULES_H

#include <regex.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "../dataset/base/err.h"

enum rule_scope { RULE_FILE, RULE_FORWARD, RULE_MODULE };

struct rule {
	char *id;               /* owned, e.g. "library-op-in-forward" */
	char *pattern;          /* owned, the regex as written */
	char *reason;           /* owned */
	enum rule_scope scope;
	int line;               /* line of its "[ID]" header in the file */
	regex_t re;             /* compiled REG_EXTENDED | REG_NOSUB */
};

struct rules {
	struct rule *v;         /* owned array of n, in file order */
	size_t n;
};

/* Parse rule text (name: the file name used in errors).  A malformed file
 * is HR_INPUT with "NAME:LINE: field F: what" (a bad regex, a missing
 * field, an unknown key or scope, a duplicate id, text outside a rule).
 * Release with rules_release, also after a failure. */
int rules_parse(struct rules *rs, const char *text, const char *name,
		struct hr_err *e);

/* Read and parse the file at path (HR_INPUT when it cannot be read). */
int rules_load(struct rules *rs, const char *path, struct hr_err *e);
void rules_release(struct rules *rs);

/* One rule that matched a source: the first matching line (1-based), its
 * text (trimmed, at most 120 bytes) and how many lines matched. */
struct rule_hit {
	const struct rule *rule; /* borrowed from the rule set */
	int line, count;
	char text[124];
};

/* Match code against every rule.  *hits (malloc'd, free()) gets one entry
 * per matching rule, in rule order; *n their number.  Returns HR_OK or
 * HR_SYSTEM (out of memory, with e set). */
int rules_match(const struct rules *rs, const char *code,
		struct rule_hit **hits, size_t *n, struct hr_err *e);

/* The hits as a JSON array of {"id": "suspect:ID", "reason", "line",
 * "text", "lines"} (the caller owns it); NULL when out of memory. */
cJSON *rules_hits_json(const struct rule_hit *hits, size_t n);

#endif
