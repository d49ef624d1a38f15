/* table.h - one tabular result, written as md, csv, json or LaTeX.
 *
 * Owns: quoting and escaping rules of each output format, so that every
 * command prints tables the same way.  Cells are strings the caller has
 * already formatted (numbers with the precision it wants); a NULL cell is a
 * missing value (empty in md/csv/tex, null in json).
 */
#ifndef HR_TABLE_H
#define HR_TABLE_H

#include <stdio.h>

#include "cli.h"

enum table_type { COL_TEXT, COL_INT, COL_REAL, COL_BOOL };

struct table_col {
	const char *name;
	enum table_type type;
};

struct table;

/* cols is borrowed and must outlive the table. */
struct table *table_new(const struct table_col *cols, int ncols);
void table_free(struct table *t);

/* Append a row of ncols cells (copied).  Returns 0 or -1 on no memory. */
int table_add_row(struct table *t, const char *const *cells);
int table_rows(const struct table *t);

/* LaTeX only: typeset column col as a paragraph column p{width} (e.g.
 * "5cm") so long text wraps; width is borrowed.  Other formats ignore it.
 * Returns 0, or -1 when col is out of range. */
int table_set_tex_width(struct table *t, int col, const char *width);

/* Write the whole table.  Returns 0, or -1 when f reports a write error. */
int table_write(const struct table *t, enum hr_format fmt, FILE *f);

/* Reading a table back (a page that lays the cells out itself): the
 * number of columns, column c, and the cell at row r, column c (NULL when
 * missing); both borrowed from t. */
int table_ncols(const struct table *t);
const struct table_col *table_col_at(const struct table *t, int c);
const char *table_cell(const struct table *t, int r, int c);

/* Format helpers for cells: fixed-size buffers the caller owns. */
void table_fmt_real(char *buf, size_t n, double v); /* %.6g, or "" for NAN */

#endif
