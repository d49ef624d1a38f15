/* figures.h - the data behind each figure, and drawing it with gnuplot.
 *
 * Owns: the list of figures, the data file each one plots (written from
 * the store through readmodel/evalset.h, readmodel/auditset.h,
 * readmodel/replayset.h and readmodel/profileset.h), the integer
 * facts a script branches on (<name>.cfg: rows, blocks, ...), running
 * gnuplot on figures/<name>.gp without a shell, and making its PDFs
 * reproducible.  Must not: write to the store, print (gnuplot's own output
 * goes to DIR/gnuplot.log).
 */
#ifndef HR_FIGURES_H
#define HR_FIGURES_H

#include <cjson/cJSON.h>

#include "../dataset/base/err.h"
#include "../readmodel/auditset.h"
#include "../readmodel/dlrmset.h"
#include "../readmodel/evalset.h"
#include "../readmodel/profileset.h"
#include "../readmodel/replayset.h"

/* Names of the figures, in drawing order; NULL-terminated. */
extern const char *const figure_names[];

/* Files every script loads besides its own <name>.gp. */
extern const char *const figure_support[];

/* Write <name>.dat and <name>.cfg of every figure into dir (which
 * exists), and provenance.cfg: prov's line, wrapped, that style.gp draws
 * as every figure's footer.  Each .dat starts with a "# provenance:"
 * line.  ds is
 * DLRM-Bench's projection, or NULL (the dlrm figure then says why_dlrm). */
int figures_write_data(const char *dir, sqlite3 *db,
		       const struct evalset *es, const struct auditset *as,
		       const struct replayset *rs,
		       const struct profileset *ps, const struct dlrmset *ds,
		       const char *why_dlrm, const cJSON *prov,
		       struct hr_err *e);

/* Copy the scripts (figure_names + figure_support, *.gp) from scripts_dir
 * into dir and run `gnuplot -d NAME.gp` in dir for each figure, its stdout
 * and stderr appended to dir/gnuplot.log.  Then set each PDF's
 * CreationDate/ModDate to date (ISO 8601, e.g. 2026-01-01T00:00:00Z) so
 * the same store gives the same bytes. */
int figures_render(const char *dir, const char *scripts_dir,
		   const char *date, struct hr_err *e);

/* Overwrite the digits of every "/CreationDate (D:" and "/ModDate (D:" in
 * buf[0..len) with the 14 digits of date; byte length (and so the PDF's
 * xref offsets) unchanged.  Returns how many dates were set. */
int figures_pdf_fix_dates(char *buf, size_t len, const char *date);

#endif
