/* table.c - see table.h. */
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct table {
	const struct table_col *cols;
	int ncols;
	int nrows, cap;
	char **cells; /* nrows * ncols, row-major; NULL = missing */
	const char **tex_width; /* ncols, borrowed; NULL = l or r */
};

struct table *table_new(const struct table_col *cols, int ncols)
{
	struct table *t = calloc(1, sizeof(*t));

	if (t) {
		t->cols = cols;
		t->ncols = ncols;
	}
	return t;
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (long i = 0; i < (long)t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->tex_width);
	free(t);
}

int table_set_tex_width(struct table *t, int col, const char *width)
{
	if (col < 0 || col >= t->ncols)
		return -1;
	if (!t->tex_width &&
	    !(t->tex_width = calloc((size_t)t->ncols, sizeof(*t->tex_width))))
		return -1;
	t->tex_width[col] = width;
	return 0;
}

int table_rows(const struct table *t)
{
	return t->nrows;
}

int table_ncols(const struct table *t)
{
	return t->ncols;
}

const struct table_col *table_col_at(const struct table *t, int c)
{
	return &t->cols[c];
}

const char *table_cell(const struct table *t, int r, int c)
{
	return t->cells[(size_t)r * t->ncols + c];
}

int table_add_row(struct table *t, const char *const *cells)
{
	if (t->nrows == t->cap) {
		int cap = t->cap ? 2 * t->cap : 64;
		char **p = realloc(t->cells,
				   (size_t)cap * t->ncols * sizeof(*p));

		if (!p)
			return -1;
		t->cells = p;
		t->cap = cap;
	}
	char **row = t->cells + (size_t)t->nrows * t->ncols;
	for (int c = 0; c < t->ncols; c++) {
		row[c] = NULL;
		if (cells[c] && !(row[c] = strdup(cells[c]))) {
			while (c--)
				free(row[c]);
			return -1;
		}
	}
	t->nrows++;
	return 0;
}

void table_fmt_real(char *buf, size_t n, double v)
{
	if (isnan(v))
		buf[0] = '\0';
	else
		snprintf(buf, n, "%.6g", v);
}

static const char *cell(const struct table *t, int r, int c)
{
	return t->cells[(size_t)r * t->ncols + c];
}

static void write_csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_md_field(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static void write_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void write_json_cell(FILE *f, enum table_type type, const char *s)
{
	if (!s || !*s) {
		fputs("null", f);
		return;
	}
	switch (type) {
	case COL_INT:
	case COL_REAL:
		fputs(s, f);
		break;
	case COL_BOOL:
		fputs(strcmp(s, "0") ? "true" : "false", f);
		break;
	default:
		write_json_string(f, s);
	}
}

static void write_tex_field(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': case '%': case '$': case '#': case '_': case '{':
		case '}':
			fprintf(f, "\\%c", *s);
			break;
		case '~':
			fputs("\\textasciitilde{}", f);
			break;
		case '^':
			fputs("\\textasciicircum{}", f);
			break;
		case '\\':
			fputs("\\textbackslash{}", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static int is_numeric(enum table_type type)
{
	return type == COL_INT || type == COL_REAL;
}

int table_write(const struct table *t, enum hr_format fmt, FILE *f)
{
	int c, r;

	switch (fmt) {
	case HR_FMT_CSV:
		for (c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', f);
			write_csv_field(f, t->cols[c].name);
		}
		fputc('\n', f);
		for (r = 0; r < t->nrows; r++) {
			for (c = 0; c < t->ncols; c++) {
				if (c)
					fputc(',', f);
				write_csv_field(f, cell(t, r, c));
			}
			fputc('\n', f);
		}
		break;
	case HR_FMT_JSON:
		fputs("[", f);
		for (r = 0; r < t->nrows; r++) {
			fputs(r ? ",\n {" : "\n {", f);
			for (c = 0; c < t->ncols; c++) {
				if (c)
					fputs(", ", f);
				write_json_string(f, t->cols[c].name);
				fputs(": ", f);
				write_json_cell(f, t->cols[c].type,
						cell(t, r, c));
			}
			fputc('}', f);
		}
		fputs(t->nrows ? "\n]\n" : "]\n", f);
		break;
	case HR_FMT_TEX:
		fputs("\\begin{tabular}{", f);
		for (c = 0; c < t->ncols; c++) {
			if (t->tex_width && t->tex_width[c])
				fprintf(f, "p{%s}", t->tex_width[c]);
			else
				fputc(is_numeric(t->cols[c].type) ? 'r' : 'l',
				      f);
		}
		fputs("}\n\\toprule\n", f);
		for (c = 0; c < t->ncols; c++) {
			fputs(c ? " & " : "", f);
			write_tex_field(f, t->cols[c].name);
		}
		fputs(" \\\\\n\\midrule\n", f);
		for (r = 0; r < t->nrows; r++) {
			for (c = 0; c < t->ncols; c++) {
				fputs(c ? " & " : "", f);
				write_tex_field(f, cell(t, r, c));
			}
			fputs(" \\\\\n", f);
		}
		fputs("\\bottomrule\n\\end{tabular}\n", f);
		break;
	case HR_FMT_MD:
	default:
		fputc('|', f);
		for (c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			write_md_field(f, t->cols[c].name);
			fputs(" |", f);
		}
		fputs("\n|", f);
		for (c = 0; c < t->ncols; c++)
			fputs(is_numeric(t->cols[c].type) ? "---:|" : "---|", f);
		fputc('\n', f);
		for (r = 0; r < t->nrows; r++) {
			fputc('|', f);
			for (c = 0; c < t->ncols; c++) {
				fputc(' ', f);
				write_md_field(f, cell(t, r, c));
				fputs(" |", f);
			}
			fputc('\n', f);
		}
	}
	return ferror(f) ? -1 : 0;
}
