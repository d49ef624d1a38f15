/* html.h - the audit as one self-contained HTML page (`headroom report
 * html --out FILE.html`).
 *
 * Owns: the page's layout: the report tables laid out as HTML (the very
 * cells `report ... --format json` prints), the verdict counts, every
 * figure drawn by figures/ (gnuplot's SVG, embedded as data: images), the
 * list of evaluations with filters, and each evaluation's drill-down data
 * as JSON in a <script type="application/json"> block that the page's
 * script renders on demand (report/htmlasset.h holds the style and
 * script).  Every stored string is escaped: text, never markup.  The same
 * store gives the same bytes: the only date is the provenance's.  Must
 * not: write to the store, print, reach the network (the page loads
 * nothing).
 */
#ifndef HR_HTML_H
#define HR_HTML_H

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stddef.h>

#include "../dataset/base/err.h"
#include "../dataset/base/table.h"
#include "../readmodel/auditset.h"
#include "../readmodel/dlrmset.h"
#include "../readmodel/evalset.h"
#include "findings.h"
#include "../readmodel/profileset.h"
#include "../readmodel/replayset.h"

/* One report table as `headroom report NAME` builds it. */
struct html_table {
	const char *name;         /* "claims", "models", ...; borrowed */
	const struct table *t;    /* borrowed */
};

struct html_input {
	sqlite3 *db;
	const struct evalset *es;
	const struct auditset *as;
	const struct replayset *rs;
	const struct finding_list *fl;
	const struct profileset *ps;
	const struct dlrmset *ds;   /* NULL: DLRM-Bench not loaded ... */
	const char *why_dlrm;       /* ... and why */
	const cJSON *prov;          /* provenance_build's object */
	const char *claims_path;    /* the ledger and roles -> configurations,
				       for the claims' links to their
				       evaluations */
	const char *roles_path;
	const struct html_table *tables;
	size_t ntables;
	const char *scripts_dir;    /* the gnuplot scripts; NULL: no
				       figures, no_figures says why */
	const char *no_figures;
};

/* Write the page to path: a temporary file beside it, renamed over path
 * when complete, so that a failure leaves no half-written page. */
int html_write_file(const struct html_input *in, const char *path,
		    struct hr_err *e);

/* Escaping, exposed for tests.  Text for an HTML element or a quoted
 * attribute: & < > " ' as references, C0 controls but tab and newline,
 * and DEL, as visible "\xNN".  JSON text for a <script> block: every '<'
 * as \u003c (so neither "</script" nor "<!--" can appear) and U+2028 and
 * U+2029 as \u2028 and \u2029.  Both return 0, or -1 on a write error. */
int html_put_text(FILE *f, const char *s);
int html_put_script_json(FILE *f, const char *json);

#endif
