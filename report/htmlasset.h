/* htmlasset.h - the style sheet and the script of the audit page
 * (report/html.h), embedded in the page as they are.
 *
 * The script, plain and small: sortable tables (a button in each header
 * cell), the evaluations' filters (model, level, problem, verdict; the
 * claims' links set them), and the drill-down of the evaluation named by
 * the location's #eval-ID, rendered from the page's JSON block on demand.
 * Stored text goes into the page through textContent only, its control
 * characters shown as \xNN.  It also records the page's scroll width in
 * <html data-scroll-width> (the layout test reads it) and, once done,
 * performance.now() in <html data-ready-ms> (tests/bench/html.sh).  The
 * style lets the browser skip laying out tables out of view
 * (content-visibility), which keeps a page of 10,000 evaluations quick.  Must not: load
 * anything, write cookies or storage.
 */
#ifndef HR_HTMLASSET_H
#define HR_HTMLASSET_H

extern const char html_css[];
extern const char html_js[];

#endif
