/* provenance.h - where a report's numbers came from, for every output.
 *
 * Owns: reading the provenance facts from the store (sources and their
 * SHA-256, schema version, the hardware the archive reports, the devices
 * the audit ran on, the replay's GPU, driver, CUDA and torch) and writing
 * them as one JSON object.  The date is SOURCE_DATE_EPOCH when set, else
 * the latest ingest time in the store, never the clock: the same store
 * gives the same bytes.  Must not: write to the store, print.
 *
 * Convention (docs/report.md): JSON outputs embed this object under
 * "provenance"; md starts with one HTML comment line, tex with one %
 * comment line; csv carries none (a leading comment breaks CSV readers):
 * `--out DIR` writes provenance.json beside every csv.
 */
#ifndef HR_PROVENANCE_H
#define HR_PROVENANCE_H

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>

#include "../dataset/base/err.h"
#include "../dataset/base/cli.h"
#include "../readmodel/replayset.h"

/* Build the provenance object; *out is owned by the caller
 * (cJSON_Delete). */
int provenance_build(sqlite3 *db, const struct replayset *rs, cJSON **out,
		     struct hr_err *e);

/* The report date (UTC, ISO 8601) as provenance_build records it. */
int provenance_date(sqlite3 *db, char *buf, size_t n, struct hr_err *e);

/* Write the one-line comment form for md ("<!-- ... -->") or tex ("% ...")
 * and nothing for other formats.  Returns 0, or -1 on a write error. */
int provenance_write_comment(const cJSON *prov, enum hr_format fmt, FILE *f);

/* The same line between lead and tail, e.g. "# provenance:" and "\n" for
 * a gnuplot data file. */
int provenance_write_line(const cJSON *prov, const char *lead,
			  const char *tail, FILE *f);

/* Write DIR/provenance.json (the object, pretty-printed). */
int provenance_write_file(const cJSON *prov, const char *dir,
			  struct hr_err *e);

/* Profiles: the same for profile-based claims. */
int provenance_have_profiles(sqlite3 *db, const char **why);

#endif
