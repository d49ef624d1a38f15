/* test_leaderboard.c - mapping files and leaderboard dumps
 * (dataset/maps/README.md is the specification these tests follow). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "../../dataset/ingest.h"

struct fx {
	char db[64];
	char map[64];
	struct store *s;
	struct ingest_ctx ctx;
	struct hr_err e;
	char buf[4096];       /* text() results */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct store_source src = { .name = "dump", .path = "dump",
		.kind = "leaderboard", .sha256 = "h" };
	int existed;

	snprintf(f->db, sizeof(f->db), "/tmp/hr-test-lb-%d.db", getpid());
	snprintf(f->map, sizeof(f->map), "/tmp/hr-test-lb-%d.map.json",
		 getpid());
	unlink(f->db);
	hr_err_clear(&f->e);
	assert_int_equal(store_open(&f->s, f->db, STORE_WRITE, &f->e), 0);
	assert_int_equal(store_add_source(f->s, &src, &f->ctx.source_id,
					  &existed, &f->e), 0);
	f->ctx.store = f->s;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char p[80];

	store_close(f->s);
	unlink(f->db);
	unlink(f->map);
	snprintf(p, sizeof(p), "%s-wal", f->db);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", f->db);
	unlink(p);
	free(f);
	return 0;
}

/* Load a mapping given as text; returns the error code. */
static int load_map(struct fx *f, const char *json, struct lb_map **m)
{
	FILE *fp = fopen(f->map, "w");

	assert_non_null(fp);
	fputs(json, fp);
	fclose(fp);
	hr_err_clear(&f->e);
	return lb_map_load(f->map, m, &f->e);
}

/* Ingest one dump member `name` holding `text` through mapping `json`. */
static int ingest(struct fx *f, const char *json, const char *name,
		  const char *text)
{
	struct afile file = { .path = (char *)name,
		.data = (unsigned char *)text, .len = strlen(text) };
	struct afileset fs = { .input = (char *)name, .files = &file, .n = 1 };
	struct lb_map *m;
	int rc;

	assert_int_equal(load_map(f, json, &m), HR_OK);
	rc = ingest_leaderboard(&fs, m, &f->ctx, &f->e);
	lb_map_free(m);
	return rc;
}

static const char *text(struct fx *f, const char *sql)
{
	sqlite3_stmt *st;

	strcpy(f->buf, "<no row>");
	assert_int_equal(sqlite3_prepare_v2(store_db(f->s), sql, -1, &st,
					    NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(f->buf, sizeof(f->buf), "%s",
			 sqlite3_column_type(st, 0) == SQLITE_NULL ? "NULL" :
			 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return f->buf;
}

#define assert_msg_has(f, s) do {                                          \
	if (!strstr((f)->e.msg, (s)))                                      \
		fail_msg("message '%s' lacks '%s'", (f)->e.msg, (s));      \
} while (0)

/* The smallest mapping: model, level, problem id. */
#define MIN_FIELDS "\"model\": \"m\", \"level\": \"l\", \"problem_id\": \"p\""
#define MAP(extra) "{\"name\": \"t\", \"fields\": {" MIN_FIELDS extra "}}"

/* --- mapping files --- */

static void map_name_is_returned(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(""), &m), HR_OK);
	assert_string_equal(lb_map_name(m), "t");
	lb_map_free(m);
}

static void map_unknown_top_key_names_file_and_key(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, "{\"name\": \"t\", \"colour\": 1, "
				  "\"fields\": {" MIN_FIELDS "}}", &m),
			 HR_INPUT);
	assert_null(m);
	assert_msg_has(f, f->map);
	assert_msg_has(f, "colour: unknown key");
}

static void map_unknown_target_is_rejected(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(", \"flops\": \"x\""), &m),
			 HR_INPUT);
	assert_msg_has(f, "fields.flops: unknown target");
}

static void map_unknown_option_names_key(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(", \"code\": {\"field\": \"c\", "
					 "\"unit\": \"ms\"}"), &m), HR_INPUT);
	assert_msg_has(f, "fields.code.unit: unknown key");
}

static void map_wrong_type_names_key(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(", \"hardware\": 7"), &m), HR_INPUT);
	assert_msg_has(f, "fields.hardware: expected a field path or an "
		       "object, got a number");
}

static void map_required_must_be_bool(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(", \"code\": {\"field\": \"c\", "
					 "\"required\": \"yes\"}"), &m),
			 HR_INPUT);
	assert_msg_has(f, "fields.code.required: expected true or false");
}

static void map_unknown_unit_names_key(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(", \"runtime\": {\"field\": \"t\", "
					 "\"unit\": \"min\"}"), &m), HR_INPUT);
	assert_msg_has(f, "fields.runtime.unit: unknown unit min");
}

static void map_time_without_unit_is_rejected(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(", \"runtime\": \"t\""), &m),
			 HR_INPUT);
	assert_msg_has(f, "fields.runtime: a time needs a unit");
}

static void map_without_model_is_rejected(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, "{\"name\": \"t\", \"fields\": "
				  "{\"level\": \"l\", \"problem_id\": \"p\"}}",
				  &m), HR_INPUT);
	assert_msg_has(f, "fields.model: missing");
}

static void map_field_and_const_together_are_rejected(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(", \"hardware\": {\"field\": \"h\", "
					 "\"const\": \"H100\"}"), &m),
			 HR_INPUT);
	assert_msg_has(f, "fields.hardware: needs exactly one of");
}

static void map_const_of_wrong_type_names_key(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, "{\"name\": \"t\", \"fields\": {\"model\":"
				  " \"m\", \"level\": {\"const\": \"1\"}, "
				  "\"problem_id\": \"p\"}}", &m), HR_INPUT);
	assert_msg_has(f, "fields.level: const: expected an integer, got a "
		       "string");
}

static void map_speedup_needs_known_baseline(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(", \"speedups\": [{\"field\": \"s\","
					 " \"baseline\": \"numpy\"}]"), &m),
			 HR_INPUT);
	assert_msg_has(f, "fields.speedups[0].baseline: unknown baseline "
		       "kind numpy");
}

static void map_bad_records_layout_is_rejected(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, "{\"name\": \"t\", \"records\": \"csv\","
				  " \"fields\": {" MIN_FIELDS "}}", &m),
			 HR_INPUT);
	assert_msg_has(f, "records: expected");
}

static void map_malformed_json_names_line(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	assert_int_equal(load_map(f, "{\"name\": \"t\",\n\"fields\": {,}}",
				  &m), HR_INPUT);
	assert_msg_has(f, ":2: malformed JSON near byte offset 26");
}

static void map_missing_file_is_input_error(void **state)
{
	struct fx *f = *state;
	struct lb_map *m;

	hr_err_clear(&f->e);
	assert_int_equal(lb_map_load("/nonexistent/x.json", &m, &f->e),
			 HR_INPUT);
	assert_msg_has(f, "/nonexistent/x.json");
}

/* --- records: each field type --- */

static void string_fields_are_stored(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"problem_name\": \"n\", "
				       "\"hardware\": \"h\", \"precision\": "
				       "\"x\""), "d.jsonl",
				"{\"m\": \"gpt\", \"l\": 1, \"p\": 3, \"n\": "
				"\"3_Batched\", \"h\": \"NVIDIA L40S\", "
				"\"x\": \"bf16\"}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT model || '|' || problem_name || "
				 "'|' || hardware || '|' || precision FROM "
				 "evaluation"), "gpt|3_Batched|NVIDIA L40S|bf16");
}

static void code_is_stored_as_kernel(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"code\": \"c\""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1, "
				"\"c\": \"import torch\\n\"}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT k.code FROM evaluation e JOIN "
				 "kernel k ON k.id = e.kernel_id"),
			    "import torch\n");
}

static void booleans_and_zero_one_are_stored(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"compiled\": \"c\", \"correct\": "
				       "\"k\""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1, \"c\": "
				"true, \"k\": 0}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT compiled || correct FROM "
				 "evaluation"), "10");
}

static void sample_id_and_num_trials_are_stored(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"sample_id\": \"s\", "
				       "\"num_trials\": \"n\""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 2, \"p\": 1, \"s\": 4, "
				"\"n\": 100}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT level || ',' || sample_id || ','"
				 " || num_trials FROM evaluation"), "2,4,100");
}

static void error_text_is_stored_as_reported(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"error\": \"err\""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1, \"err\": "
				"\"nvcc failed\"}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT error_kind || ':' || error_text "
				 "FROM evaluation"), "reported:nvcc failed");
}

static void metadata_is_stored_compact(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"metadata\": \"md\""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1, \"md\": "
				"{\"trials\": \"(5 / 5)\",  \"x\": [1, 2]}}\n"),
			 HR_OK);
	assert_string_equal(text(f, "SELECT metadata_json FROM evaluation"),
			    "{\"trials\":\"(5 / 5)\",\"x\":[1,2]}");
}

static void unmapped_keys_become_metadata(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1, \"id\": "
				"\"sub-7\", \"t\": [1]}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT metadata_json FROM evaluation"),
			    "{\"id\":\"sub-7\",\"t\":[1]}");
}

static void problem_name_loses_py_suffix(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"problem_name\": \"n\""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1, \"n\": "
				"\"1_Square.py\"}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT problem_name FROM evaluation"),
			    "1_Square");
}

static void value_is_a_synonym_of_const(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, "{\"name\": \"t\", \"fields\": {\"model\":"
				" {\"value\": \"acme\"}, \"level\": \"l\", "
				"\"problem_id\": \"p\"}}", "d.jsonl",
				"{\"l\": 1, \"p\": 1}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT model FROM evaluation"), "acme");
}

static void notes_name_mapping_unit_and_id_base(void **state)
{
	struct fx *f = *state;
	cJSON *notes = cJSON_CreateObject();
	char *txt;

	f->ctx.notes = notes;
	assert_int_equal(ingest(f, "{\"name\": \"t\", \"fields\": {\"model\":"
				" \"m\", \"level\": \"l\", \"problem_id\": "
				"{\"field\": \"p\", \"zero_based\": true}, "
				"\"runtime\": {\"field\": \"r\", \"unit\": "
				"\"s\"}}}", "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 0}\n"),
			 HR_OK);
	txt = cJSON_PrintUnformatted(notes);
	assert_string_equal(txt, "{\"mapping\":\"t\",\"runtime_unit\":\"s\","
			    "\"problem_id_base\":0}");
	free(txt);
	cJSON_Delete(notes);
	f->ctx.notes = NULL;
}

static void zero_based_ids_become_one_based(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, "{\"name\": \"t\", \"fields\": {\"model\":"
				" \"m\", \"level\": \"l\", \"problem_id\": "
				"{\"field\": \"p\", \"zero_based\": true}}}",
				"d.jsonl", "{\"m\": \"a\", \"l\": 1, \"p\": 0}\n"),
			 HR_OK);
	assert_string_equal(text(f, "SELECT problem_id || ',' || "
				 "problem_id_base FROM evaluation"), "1,0");
}

static void one_based_ids_are_kept(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 7}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT problem_id || ',' || "
				 "problem_id_base FROM evaluation"), "7,1");
}

static void one_based_id_zero_is_rejected(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 0}\n"),
			 HR_INPUT);
	assert_msg_has(f, "d.jsonl:1: problem_id (field 'p'): expected a "
		       "positive integer");
}

static void problem_id_comes_from_name_when_unmapped(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, "{\"name\": \"t\", \"fields\": {\"model\":"
				" \"m\", \"level\": \"l\", \"problem_name\": "
				"\"n\"}}", "d.jsonl", "{\"m\": \"a\", \"l\": 1,"
				" \"n\": \"19_ReLU\"}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT problem_id FROM evaluation"),
			    "19");
}

static void microseconds_are_stored_as_ms(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"runtime\": {\"field\": \"t\", "
				       "\"unit\": \"us\"}, \"runtime_min\": "
				       "{\"field\": \"tm\", \"unit\": \"s\"}"),
				"d.jsonl", "{\"m\": \"a\", \"l\": 1, \"p\": 1, "
				"\"t\": 2500, \"tm\": 0.002}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT runtime_ms || ',' || "
				 "runtime_min_ms || ',' || unit_assumed FROM "
				 "evaluation"), "2.5,2.0,mapping:us");
}

static void negative_runtime_is_unknown(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"runtime\": {\"field\": \"t\", "
				       "\"unit\": \"ms\"}"), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1, \"t\": "
				"-1.0}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT coalesce(runtime_ms, 'NULL') || "
				 "coalesce(unit_assumed, 'NULL') FROM "
				 "evaluation"), "NULLNULL");
}

static void nested_path_reads_nested_field(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, "{\"name\": \"t\", \"fields\": {\"model\":"
				" \"meta.model.id\", \"level\": \"l\", "
				"\"problem_id\": \"runs.1\"}}", "d.jsonl",
				"{\"meta\": {\"model\": {\"id\": \"deep\"}}, "
				"\"l\": 1, \"runs\": [5, 6]}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT model || problem_id FROM "
				 "evaluation"), "deep6");
}

static void const_value_applies_to_every_record(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, "{\"name\": \"t\", \"fields\": {\"model\":"
				" {\"const\": \"acme\"}, \"level\": {\"const\": "
				"1}, \"problem_id\": \"p\"}}", "d.jsonl",
				"{\"p\": 1}\n{\"p\": 2}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT group_concat(model || level) FROM"
				 " evaluation"), "acme1,acme1");
}

static void absent_fields_are_null(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"hardware\": \"h\", \"correct\": "
				       "\"c\", \"code\": \"k\""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1, \"h\": "
				"null}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT coalesce(hardware, 'NULL') || "
				 "coalesce(correct, 'NULL') || "
				 "coalesce(kernel_id, 'NULL') || sample_id "
				 "FROM evaluation"), "NULLNULLNULL0");
}

static void required_absent_field_is_an_error(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"correct\": {\"field\": \"c\", "
				       "\"required\": true}"), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n"),
			 HR_INPUT);
	assert_msg_has(f, "d.jsonl:1: correct (field 'c'): required but "
		       "absent");
}

static void record_without_model_is_an_error(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n"
				"{\"l\": 1, \"p\": 2}\n"), HR_INPUT);
	assert_msg_has(f, "d.jsonl:2: model (field 'm'): absent");
}

static void speedups_are_reported_with_their_baseline(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"speedups\": [{\"field\": \"se\", "
				       "\"baseline\": \"eager\"}, {\"field\": "
				       "\"sc\", \"baseline\": "
				       "\"compile_inductor_default\"}]"),
				"d.jsonl", "{\"m\": \"a\", \"l\": 1, \"p\": 1, "
				"\"se\": 1.5, \"sc\": 0.75}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT group_concat(baseline_kind || '="
				 "' || value || '/' || origin, ' ') FROM "
				 "(SELECT * FROM speedup ORDER BY id)"),
			    "eager=1.5/reported "
			    "compile_inductor_default=0.75/reported");
	assert_int_equal(f->ctx.n_speedups, 2);
}

static void absent_speedup_stores_no_row(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"speedups\": [{\"field\": \"se\", "
				       "\"baseline\": \"eager\"}]"), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT count(*) FROM speedup"), "0");
}

/* --- layouts, references and errors --- */

static void jsonl_records_are_referenced_by_line(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n\n"
				"{\"m\": \"a\", \"l\": 1, \"p\": 2}\n"), HR_OK);
	assert_string_equal(text(f, "SELECT group_concat(record_ref || ' ' || "
				 "run, ';') FROM evaluation"),
			    "d.jsonl:1 d.jsonl;d.jsonl:3 d.jsonl");
}

static void array_records_are_referenced_by_index(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.json",
				"[{\"m\": \"a\", \"l\": 1, \"p\": 1},\n"
				" {\"m\": \"a\", \"l\": 1, \"p\": 2}]\n"), HR_OK);
	assert_string_equal(text(f, "SELECT group_concat(record_ref, ';') "
				 "FROM evaluation"), "d.json[0];d.json[1]");
}

static void declared_layout_overrides_detection(void **state)
{
	struct fx *f = *state;

	/* An array declared as JSON Lines: its one line is not an object. */
	assert_int_equal(ingest(f, "{\"name\": \"t\", \"records\": \"jsonl\", "
				"\"fields\": {" MIN_FIELDS "}}", "d.json",
				"[{\"m\": \"a\", \"l\": 1, \"p\": 1}]\n"),
			 HR_INPUT);
	assert_msg_has(f, "d.json:1: expected a JSON object, got an array");
}

static void malformed_jsonl_names_line_and_offset(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n"
				"{\"m\": \"a\", \"l\": 1 \"p\": 2}\n"), HR_INPUT);
	assert_msg_has(f, "d.jsonl:2: malformed JSON near byte offset 45");
}

static void malformed_array_names_line_and_offset(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.json",
				"[{\"m\": \"a\", \"l\": 1, \"p\": 1},\n"
				" {\"m\": \"a\", \"l\": 1,, \"p\": 2}]\n"),
			 HR_INPUT);
	assert_msg_has(f, "d.json:2: malformed JSON near byte offset 49");
}

static void trailing_text_after_a_record_is_malformed(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1} x\n"),
			 HR_INPUT);
	assert_msg_has(f, "d.jsonl:1: malformed JSON near byte offset 27");
}

static void invalid_utf8_names_file_and_line(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n"
				"{\"m\": \"\xc3\x28\", \"l\": 1, \"p\": 2}\n"),
			 HR_INPUT);
	assert_msg_has(f, "d.jsonl:2: invalid UTF-8");
}

static void overlong_utf8_is_invalid(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"\xc0\xaf\", \"l\": 1, \"p\": 1}\n"),
			 HR_INPUT);
	assert_msg_has(f, "d.jsonl:1: invalid UTF-8");
}

static void string_for_number_names_line_and_field(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": \"1\", \"p\": 1}\n"),
			 HR_INPUT);
	assert_string_equal(f->e.msg, "d.jsonl:1: level (field 'l'): expected"
			    " a positive integer, got a string");
}

static void type_error_in_array_names_index(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(", \"runtime\": {\"field\": \"t\", "
				       "\"unit\": \"ms\"}"), "d.json",
				"[{\"m\": \"a\", \"l\": 1, \"p\": 1},"
				" {\"m\": \"a\", \"l\": 1, \"p\": 2, \"t\": "
				"\"fast\"}]"), HR_INPUT);
	assert_string_equal(f->e.msg, "d.json[1]: runtime (field 't'): "
			    "expected a number, got a string");
}

static void fractional_id_is_a_type_error(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1.5}\n"),
			 HR_INPUT);
	assert_msg_has(f, "problem_id (field 'p'): expected a positive "
		       "integer, got a number");
}

static void non_object_record_is_an_error(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.json", "[{\"m\": \"a\", "
				"\"l\": 1, \"p\": 1}, 3]"), HR_INPUT);
	assert_msg_has(f, "d.json[1]: expected a JSON object, got a number");
}

static void duplicate_record_names_both_records(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n"
				"{\"m\": \"b\", \"l\": 1, \"p\": 1}\n"
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n"), HR_INPUT);
	assert_msg_has(f, "d.jsonl:3: duplicate record");
	assert_msg_has(f, "is also at d.jsonl:1");
}

static void same_problem_for_two_models_is_no_duplicate(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "d.jsonl",
				"{\"m\": \"a\", \"l\": 1, \"p\": 1}\n"
				"{\"m\": \"b\", \"l\": 1, \"p\": 1}\n"), HR_OK);
	assert_int_equal(f->ctx.n_evaluations, 2);
}

static void members_other_than_json_are_ignored(void **state)
{
	struct fx *f = *state;
	struct afile files[] = {
		{ .path = "README.md", .data = (unsigned char *)"# hi\n",
		  .len = 5 },
		{ .path = "r/a.jsonl", .data = (unsigned char *)
		  "{\"m\": \"a\", \"l\": 1, \"p\": 1}\n", .len = 27 },
	};
	struct afileset fs = { .input = "in", .files = files, .n = 2 };
	struct lb_map *m;

	assert_int_equal(load_map(f, MAP(""), &m), HR_OK);
	assert_int_equal(ingest_leaderboard(&fs, m, &f->ctx, &f->e), HR_OK);
	lb_map_free(m);
	assert_string_equal(text(f, "SELECT run FROM evaluation"),
			    "r/a.jsonl");
}

static void input_without_dump_is_an_error(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ingest(f, MAP(""), "notes.txt", "hi\n"), HR_INPUT);
	assert_msg_has(f, "no .json or .jsonl file");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(map_name_is_returned),
		T(map_unknown_top_key_names_file_and_key),
		T(map_unknown_target_is_rejected),
		T(map_unknown_option_names_key),
		T(map_wrong_type_names_key),
		T(map_required_must_be_bool),
		T(map_unknown_unit_names_key),
		T(map_time_without_unit_is_rejected),
		T(map_without_model_is_rejected),
		T(map_field_and_const_together_are_rejected),
		T(map_const_of_wrong_type_names_key),
		T(map_speedup_needs_known_baseline),
		T(map_bad_records_layout_is_rejected),
		T(map_malformed_json_names_line),
		T(map_missing_file_is_input_error),
		T(string_fields_are_stored),
		T(code_is_stored_as_kernel),
		T(booleans_and_zero_one_are_stored),
		T(sample_id_and_num_trials_are_stored),
		T(error_text_is_stored_as_reported),
		T(metadata_is_stored_compact),
		T(unmapped_keys_become_metadata),
		T(problem_name_loses_py_suffix),
		T(value_is_a_synonym_of_const),
		T(notes_name_mapping_unit_and_id_base),
		T(zero_based_ids_become_one_based),
		T(one_based_ids_are_kept),
		T(one_based_id_zero_is_rejected),
		T(problem_id_comes_from_name_when_unmapped),
		T(microseconds_are_stored_as_ms),
		T(negative_runtime_is_unknown),
		T(nested_path_reads_nested_field),
		T(const_value_applies_to_every_record),
		T(absent_fields_are_null),
		T(required_absent_field_is_an_error),
		T(record_without_model_is_an_error),
		T(speedups_are_reported_with_their_baseline),
		T(absent_speedup_stores_no_row),
		T(jsonl_records_are_referenced_by_line),
		T(array_records_are_referenced_by_index),
		T(declared_layout_overrides_detection),
		T(malformed_jsonl_names_line_and_offset),
		T(malformed_array_names_line_and_offset),
		T(trailing_text_after_a_record_is_malformed),
		T(invalid_utf8_names_file_and_line),
		T(overlong_utf8_is_invalid),
		T(string_for_number_names_line_and_field),
		T(type_error_in_array_names_index),
		T(fractional_id_is_a_type_error),
		T(non_object_record_is_an_error),
		T(duplicate_record_names_both_records),
		T(same_problem_for_two_models_is_no_duplicate),
		T(members_other_than_json_are_ignored),
		T(input_without_dump_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
