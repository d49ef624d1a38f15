/* cmd_verify.c - `headroom verify REF.npy CAND.npy`: every check on one pair.
 *
 * Exit status: 0 when the original check and every scale-invariant check
 * pass (and --same-as found identical bits), 1 when one of them failed,
 * 2 usage, 3 a bad or mismatched file.  The degeneracy gates and coverage
 * are reported, never turned into the exit status: they describe the
 * reference or the run, not the candidate's correctness.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "npy.h"
#include "verify.h"

static const char usage[] =
	"usage: headroom verify REF.npy CAND.npy [--dtype D] [--preset NAME]\n"
	"                       [--atol A] [--rtol R] [--equal-nan]"
	" [--torch-device cuda|cpu]\n"
	"                       [--si-rtol X] [--si-alpha X] [--si-row-alpha X]"
	" [--si-tau X]\n"
	"                       [--input FILE]... [--poison[=BITS]]"
	" [--same-as FILE]\n"
	"                       [--format md|json]\n"
	"\n"
	"Compare a reference and a candidate tensor: the original check\n"
	"torch.allclose(ref, cand, atol, rtol) bit for bit, the scale-invariant\n"
	"checks, the degeneracy gates (would zeros, the reference mean, or an\n"
	"--input tensor pass the original check?), coverage and determinism.\n"
	"Exit 0 when the original and scale-invariant checks pass, 1 when one\n"
	"fails, 3 for a bad or mismatched file.  See docs/verification.md.\n"
	"\n"
	"  --dtype D         fp32 fp16 bf16 int32 int64 bool; the files must\n"
	"                    hold D ('<u2' files hold bf16 bit patterns)\n"
	"  --preset NAME     KernelBench tolerances: v0, v0.1 (1e-2), current\n"
	"                    (fp32 1e-4, fp16/bf16 1e-2; the default)\n"
	"  --atol A, --rtol R  override the preset's atol / rtol\n"
	"  --equal-nan       NaN == NaN, as torch.allclose(equal_nan=True)\n"
	"  --torch-device D  cuda (default) or cpu: whose fp16/bf16 rounding of\n"
	"                    atol to follow (they differ; docs/verification.md)\n"
	"  --si-rtol, --si-alpha, --si-row-alpha, --si-tau X\n"
	"                    scale-invariant thresholds (defaults per dtype)\n"
	"  --input FILE      gate: would this tensor pass as the candidate?\n"
	"  --poison[=BITS]   count candidate elements still holding the poison\n"
	"                    payload (default 0x7FA57FA5 cut to the dtype)\n"
	"  --same-as FILE    bitwise-compare CAND with FILE (determinism)\n"
	"  --format F        md (text, the default) or json\n";

enum {
	OPT_DTYPE = 0x2000, OPT_PRESET, OPT_ATOL, OPT_RTOL, OPT_EQUAL_NAN,
	OPT_SI_RTOL, OPT_SI_ALPHA, OPT_SI_ROW_ALPHA, OPT_SI_TAU, OPT_INPUT,
	OPT_POISON, OPT_SAME_AS, OPT_TORCH_DEVICE
};

#define MAX_INPUTS 16

/* ---- output: "section.key: value" lines, or one JSON object ---------- */

struct out {
	int json;
	int depth;            /* JSON nesting */
	int first;            /* no member written yet at this level */
	const char *section;  /* text prefix */
};

static void key(struct out *o, const char *k)
{
	if (o->json) {
		printf("%s\n%*s\"%s\": ", o->first ? "" : ",", 2 * o->depth,
		       "", k);
		o->first = 0;
	} else if (o->section) {
		printf("%s.%s: ", o->section, k);
	} else {
		printf("%s: ", k);
	}
}

static void end_line(struct out *o)
{
	if (!o->json)
		putchar('\n');
}

static void put_str(struct out *o, const char *k, const char *v)
{
	key(o, k);
	if (o->json) {
		putchar('"');
		for (const char *p = v; *p; p++) {
			if (*p == '"' || *p == '\\')
				printf("\\%c", *p);
			else if ((unsigned char)*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
		putchar('"');
	} else {
		fputs(v, stdout);
	}
	end_line(o);
}

static void put_bool(struct out *o, const char *k, int v)
{
	key(o, k);
	fputs(v ? "true" : "false", stdout);
	end_line(o);
}

static void put_u64(struct out *o, const char *k, uint64_t v)
{
	key(o, k);
	printf("%" PRIu64, v);
	end_line(o);
}

static void put_i64(struct out *o, const char *k, int64_t v)
{
	key(o, k);
	printf("%" PRId64, v);
	end_line(o);
}

/* Doubles: %.17g in JSON (round-trips), %.6g in text; non-finite values
 * are the JSON strings "inf", "-inf", "nan". */
static void put_f64(struct out *o, const char *k, double v)
{
	key(o, k);
	if (isnan(v))
		fputs(o->json ? "\"nan\"" : "nan", stdout);
	else if (isinf(v))
		printf(o->json ? "\"%sinf\"" : "%sinf", v < 0 ? "-" : "");
	else
		printf(o->json ? "%.17g" : "%.6g", v);
	end_line(o);
}

static void open_section(struct out *o, const char *name)
{
	if (o->json) {
		key(o, name);
		putchar('{');
		o->depth++;
		o->first = 1;
	}
	o->section = name;
}

static void close_section(struct out *o)
{
	if (o->json) {
		o->depth--;
		printf("\n%*s}", 2 * o->depth, "");
		o->first = 0;
	}
	o->section = NULL;
}

static void shape_str(const struct hrv_tensor *t, char *buf, size_t cap)
{
	size_t len = (size_t)snprintf(buf, cap, "[");

	for (int i = 0; i < t->ndim && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%lld",
					i ? ", " : "", (long long)t->shape[i]);
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
}

/* ---- the command ------------------------------------------------------ */

struct args {
	const char *ref, *cand, *same_as, *preset;
	const char *inputs[MAX_INPUTS];
	int n_inputs;
	int dtype;                   /* -1: from the files */
	double atol, rtol;           /* NAN: from the preset */
	double si[4];                /* rtol alpha row_alpha tau; NAN: default */
	int equal_nan, poison, torch_cpu;
	uint64_t poison_bits;
	int poison_given;
};

static int parse_double(const char *s, const char *opt, double *v)
{
	if (cli_parse_real(s, v) || !(*v >= 0.0))
		return cli_usage_error("verify", "%s needs a number >= 0, got "
				       "'%s'", opt, s);
	return 0;
}

static int parse_args(int argc, char **argv, struct hr_global *g,
		      struct args *a)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "dtype", required_argument, NULL, OPT_DTYPE },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "atol", required_argument, NULL, OPT_ATOL },
		{ "rtol", required_argument, NULL, OPT_RTOL },
		{ "equal-nan", no_argument, NULL, OPT_EQUAL_NAN },
		{ "si-rtol", required_argument, NULL, OPT_SI_RTOL },
		{ "si-alpha", required_argument, NULL, OPT_SI_ALPHA },
		{ "si-row-alpha", required_argument, NULL, OPT_SI_ROW_ALPHA },
		{ "si-tau", required_argument, NULL, OPT_SI_TAU },
		{ "input", required_argument, NULL, OPT_INPUT },
		{ "poison", optional_argument, NULL, OPT_POISON },
		{ "same-as", required_argument, NULL, OPT_SAME_AS },
		{ "torch-device", required_argument, NULL, OPT_TORCH_DEVICE },
		{ NULL, 0, NULL, 0 }
	};
	int c, r;

	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL))
	       != -1) {
		r = cli_common_option(g, "verify", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r == HR_OK ? -1 : r;
		switch (c) {
		case OPT_DTYPE:
			if ((a->dtype = hrv_dtype_parse(optarg)) < 0)
				return cli_usage_error("verify", "unknown "
					"dtype '%s' (fp32 fp16 bf16 int32 "
					"int64 bool)", optarg);
			break;
		case OPT_PRESET: {
			struct hrv_opts tmp;

			if (hrv_opts_preset(&tmp, optarg, HRV_F32))
				return cli_usage_error("verify", "unknown "
					"preset '%s' (v0, v0.1, current)",
					optarg);
			a->preset = optarg;
			break;
		}
		case OPT_ATOL:
			if (parse_double(optarg, "--atol", &a->atol))
				return HR_USAGE;
			break;
		case OPT_RTOL:
			if (parse_double(optarg, "--rtol", &a->rtol))
				return HR_USAGE;
			break;
		case OPT_EQUAL_NAN:
			a->equal_nan = 1;
			break;
		case OPT_SI_RTOL:
		case OPT_SI_ALPHA:
		case OPT_SI_ROW_ALPHA:
		case OPT_SI_TAU:
			if (parse_double(optarg, argv[optind - 1],
					 &a->si[c - OPT_SI_RTOL]))
				return HR_USAGE;
			break;
		case OPT_INPUT:
			if (a->n_inputs >= MAX_INPUTS)
				return cli_usage_error("verify", "at most %d "
						       "--input files",
						       MAX_INPUTS);
			a->inputs[a->n_inputs++] = optarg;
			break;
		case OPT_POISON:
			a->poison = 1;
			if (optarg) {
				if (cli_parse_u64(optarg, &a->poison_bits))
					return cli_usage_error("verify",
						"bad --poison bits '%s'",
						optarg);
				a->poison_given = 1;
			}
			break;
		case OPT_SAME_AS:
			a->same_as = optarg;
			break;
		case OPT_TORCH_DEVICE:
			if (strcmp(optarg, "cuda") && strcmp(optarg, "cpu"))
				return cli_usage_error("verify", "--torch-device "
						       "is cuda or cpu");
			a->torch_cpu = !strcmp(optarg, "cpu");
			break;
		default:
			return cli_usage_error("verify", "unknown option");
		}
	}
	if ((r = cli_check_format(g, "verify", CLI_FMT(HR_FMT_MD) |
				  CLI_FMT(HR_FMT_JSON))) != CLI_NEXT)
		return r;
	if (argc - optind != 2)
		return cli_usage_error("verify", "needs REF.npy and CAND.npy");
	a->ref = argv[optind];
	a->cand = argv[optind + 1];
	return 0;
}

/* Read a file that must match the reference (or --dtype). */
static int load(const char *path, const struct args *a,
		const struct npy_array *ref, struct npy_array *arr,
		struct hr_err *e)
{
	char s1[160], s2[160];

	if (npy_read(path, arr, e))
		return e->code;
	if (a->dtype >= 0 && arr->t.dtype != a->dtype) {
		hr_errf(e, HR_INPUT, "%s: holds %s, --dtype says %s", path,
			hrv_dtype_name(arr->t.dtype), hrv_dtype_name(a->dtype));
		npy_release(arr);
		return e->code;
	}
	if (!ref)
		return HR_OK;
	if (arr->t.dtype != ref->t.dtype) {
		hr_errf(e, HR_INPUT, "%s: dtype %s does not match the "
			"reference's %s", path, hrv_dtype_name(arr->t.dtype),
			hrv_dtype_name(ref->t.dtype));
		npy_release(arr);
		return e->code;
	}
	if (!hrv_same_shape(&arr->t, &ref->t)) {
		shape_str(&arr->t, s1, sizeof s1);
		shape_str(&ref->t, s2, sizeof s2);
		hr_errf(e, HR_INPUT, "%s: shape %s does not match the "
			"reference's %s", path, s1, s2);
		npy_release(arr);
		return e->code;
	}
	return HR_OK;
}

static int make_opts(const struct args *a, int dtype, struct hrv_opts *o)
{
	double *si[4] = { &o->si_rtol, &o->si_alpha, &o->si_row_alpha,
			  &o->si_tau };

	if (hrv_opts_preset(o, a->preset ? a->preset : "current", dtype))
		return cli_usage_error("verify", "unknown preset '%s' (v0, "
				       "v0.1, current)", a->preset);
	if (!isnan(a->atol))
		o->atol = a->atol;
	if (!isnan(a->rtol))
		o->rtol = a->rtol;
	for (int i = 0; i < 4; i++)
		if (!isnan(a->si[i]))
			*si[i] = a->si[i];
	o->equal_nan = a->equal_nan;
	o->torch_cpu = a->torch_cpu;
	o->have_poison = a->poison;
	if (a->poison_given)
		o->poison_bits = a->poison_bits;
	return 0;
}

static void report(struct out *o, const struct args *a,
		   const struct hrv_tensor *t, const struct hrv_opts *op,
		   const struct hrv_result *r, const int *input_pass,
		   const struct hrv_bitwise_result *bw, int pass)
{
	char shape[160], bits[32];
	int vacuous = r->vacuous;

	shape_str(t, shape, sizeof shape);
	if (o->json) {
		putchar('{');
		o->depth = 1;
		o->first = 1;
	}
	put_str(o, "ref", a->ref);
	put_str(o, "cand", a->cand);
	put_str(o, "dtype", hrv_dtype_name(t->dtype));
	if (o->json) {
		key(o, "shape");
		fputs(shape, stdout);
	} else {
		put_str(o, "shape", shape);
	}
	put_u64(o, "n", r->n);
	put_bool(o, "pass", pass);

	open_section(o, "original");
	put_str(o, "preset", a->preset ? a->preset : "current");
	put_f64(o, "atol", op->atol);
	put_f64(o, "rtol", op->rtol);
	put_bool(o, "equal_nan", op->equal_nan);
	put_str(o, "torch_device", op->torch_cpu ? "cpu" : "cuda");
	put_bool(o, "pass", r->allclose_pass);
	put_u64(o, "violations", r->n_violations);
	put_i64(o, "first_violation", r->first_violation);
	put_f64(o, "max_abs_err", r->max_abs_err);
	put_f64(o, "max_rel_err", r->max_rel_err);
	close_section(o);

	open_section(o, "nonfinite");
	put_bool(o, "pass", r->nonfinite_pass);
	put_u64(o, "mismatches", r->n_nonfinite_mismatch);
	put_i64(o, "first_mismatch", r->first_nonfinite_mismatch);
	put_u64(o, "nan_ref", r->n_nan_ref);
	put_u64(o, "nan_cand", r->n_nan_cand);
	put_u64(o, "inf_ref", r->n_inf_ref);
	put_u64(o, "inf_cand", r->n_inf_cand);
	close_section(o);

	open_section(o, "scale_invariant");
	put_bool(o, "pass", r->scale_invariant_pass);
	put_f64(o, "rtol", op->si_rtol);
	put_f64(o, "alpha", op->si_alpha);
	put_f64(o, "row_alpha", op->si_row_alpha);
	put_f64(o, "tau", op->si_tau);
	put_f64(o, "ref_rms", r->ref_rms);
	put_f64(o, "normwise_rel_err", r->normwise_rel_err);
	put_bool(o, "normwise_pass", r->normwise_pass);
	put_f64(o, "threshold", r->si_threshold);
	put_f64(o, "max_excess", r->si_max_excess);
	put_bool(o, "elementwise_pass", r->si_pass);
	put_u64(o, "elementwise_violations", r->si_violations);
	put_i64(o, "elementwise_first_violation", r->si_first_violation);
	put_u64(o, "row_len", r->row_len);
	put_u64(o, "rows", r->n_rows);
	put_bool(o, "row_pass", r->row_pass);
	put_u64(o, "rows_failed", r->rows_failed);
	put_u64(o, "row_violations", r->row_violations);
	put_i64(o, "row_first_violation", r->row_first_violation);
	close_section(o);

	open_section(o, "gates");
	put_f64(o, "ref_amax", r->ref_amax);
	put_f64(o, "ref_min", r->ref_min);
	put_f64(o, "ref_max", r->ref_max);
	put_f64(o, "ref_mean", r->ref_mean);
	put_f64(o, "margin", r->margin);
	put_bool(o, "zeros_pass", r->gate_zero_pass);
	put_f64(o, "constant", r->const_value);
	put_bool(o, "constant_pass", r->gate_const_pass);
	for (int i = 0; i < a->n_inputs; i++) {
		char k[32];

		snprintf(k, sizeof k, "input%d_pass", i + 1);
		put_bool(o, k, input_pass[i]);
		vacuous |= input_pass[i];
	}
	put_bool(o, "vacuous", vacuous);
	close_section(o);

	if (a->poison) {
		open_section(o, "coverage");
		snprintf(bits, sizeof bits, "0x%" PRIX64, op->poison_bits);
		put_str(o, "poison_bits", bits);
		put_u64(o, "unwritten", r->n_poison);
		put_f64(o, "unwritten_fraction", r->poison_fraction);
		close_section(o);
	}
	if (bw) {
		open_section(o, "determinism");
		put_str(o, "other", a->same_as);
		put_bool(o, "identical", bw->identical);
		put_u64(o, "differences", bw->n_diff);
		put_i64(o, "first_difference", bw->first_diff);
		close_section(o);
	}
	if (o->json)
		puts("\n}");
}

int cmd_verify(int argc, char **argv, struct hr_global *g)
{
	struct args a = { .dtype = -1, .atol = NAN, .rtol = NAN,
			  .si = { NAN, NAN, NAN, NAN } };
	struct npy_array ref = { 0 }, cand = { 0 }, other = { 0 };
	struct hrv_bitwise_result bw;
	struct hrv_result res;
	struct hrv_opts op;
	struct hr_err e;
	struct out o = { 0 };
	int input_pass[MAX_INPUTS] = { 0 };
	int rc, pass;

	hr_err_clear(&e);
	rc = parse_args(argc, argv, g, &a);
	if (rc)
		return rc < 0 ? HR_OK : rc;
	if (load(a.ref, &a, NULL, &ref, &e) ||
	    load(a.cand, &a, &ref, &cand, &e) ||
	    (a.same_as && load(a.same_as, &a, &ref, &other, &e)))
		goto out;
	if ((rc = make_opts(&a, ref.t.dtype, &op)))
		goto out_rc;
	if ((rc = hrv_check(&ref.t, &cand.t, &op, &res))) {
		hr_errf(&e, HR_SYSTEM, "%s", hrv_strerror(rc));
		goto out;
	}
	for (int i = 0; i < a.n_inputs; i++) {
		struct npy_array in;
		struct hrv_result ir;

		if (npy_read(a.inputs[i], &in, &e))
			goto out;
		/* A tensor of another shape or dtype cannot pass (KernelBench
		 * checks the shape; torch.allclose raises on a dtype). */
		input_pass[i] = in.t.dtype == ref.t.dtype &&
			hrv_same_shape(&in.t, &ref.t) &&
			hrv_check(&ref.t, &in.t, &op, &ir) == HRV_OK &&
			ir.allclose_pass;
		npy_release(&in);
	}
	if (a.same_as && (rc = hrv_bitwise(&cand.t, &other.t, &bw))) {
		hr_errf(&e, HR_SYSTEM, "%s", hrv_strerror(rc));
		goto out;
	}
	pass = res.allclose_pass && res.scale_invariant_pass &&
	       (!a.same_as || bw.identical);
	o.json = g->format == HR_FMT_JSON;
	report(&o, &a, &ref.t, &op, &res, input_pass, a.same_as ? &bw : NULL,
	       pass);
	rc = pass ? HR_OK : HR_FAIL;
	goto out_rc;
out:
	rc = cli_report("verify", &e);
out_rc:
	npy_release(&ref);
	npy_release(&cand);
	npy_release(&other);
	return rc;
}
