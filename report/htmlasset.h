/* htmlasset.h - the style sheet and the script of the audit page
 * (report/html.h), embedded in the page as they are.
 *
 * The script, plain and small: sortable tables (a button in each header
 * cell), the evaluations' filters (model, level, problem, verdict; the
 * claims' links set them), and the drill-down of the evaluation named by
 * the location's #eval-ID, rendered from the page's JSON block on demand.
 * Stored text goes into the page through textContent only, its control
 * characters shown as \xNN.  It also records the page's scroll width in
 * <html data-scroll-width> (the layout test reads it).  Must not: load
 * anything, write cookies or storage.
 */
#ifndef HR_HTMLASSET_H
#define HR_HTMLASSET_H

extern const char html_css[];
extern const char html_js[];

#endif
