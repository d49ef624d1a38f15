/* cli.c - see cli.h. */
#include "cli.h"
#include "runfiles.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdarg.h>
#include <string.h>

static const char *const format_names[] = {
	[HR_FMT_MD] = "md", [HR_FMT_CSV] = "csv", [HR_FMT_JSON] = "json",
	[HR_FMT_TEX] = "tex",
};

int cli_parse_format(const char *s, enum hr_format *f)
{
	for (unsigned i = 0; i < sizeof(format_names) / sizeof(*format_names);
	     i++) {
		if (strcmp(s, format_names[i]) == 0) {
			*f = (enum hr_format)i;
			return 0;
		}
	}
	if (strcmp(s, "latex") == 0) {
		*f = HR_FMT_TEX;
		return 0;
	}
	return -1;
}

const char *cli_format_name(enum hr_format f)
{
	return format_names[f];
}

int cli_check_format(const struct hr_global *g, const char *cmd,
		     unsigned can)
{
	char list[32] = "";
	size_t used = 0;

	if (can & CLI_FMT(g->format) || (!can && !g->format_given))
		return CLI_NEXT;
	if (!can)
		return cli_usage_error(cmd, "prints no table: --format %s does "
				       "not apply", cli_format_name(g->format));
	for (unsigned i = 0; i < sizeof(format_names) / sizeof(*format_names);
	     i++)
		if (can & CLI_FMT(i))
			used += (size_t)snprintf(list + used, sizeof(list) - used,
						 "%s%s", used ? " or " : "",
						 format_names[i]);
	return cli_usage_error(cmd, "--format %s: %s prints %s",
			       cli_format_name(g->format), cmd, list);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "headroom %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'headroom %s --help'.\n", cmd);
	return HR_USAGE;
}

/* The element of argv that getopt_long just refused: a short option
 * (optopt, in the cluster at argv[optind] when getopt stopped inside it, or
 * at argv[optind - 1] when it was the cluster's last) or else the long
 * option at argv[optind - 1].  Writes "-x" or "--name" (without any
 * "=value") to buf. */
static void refused_option(int argc, char *const argv[], char *buf,
			   size_t size)
{
	const char *a;
	size_t n;

	if (optopt > 0 && optopt < 256)
		for (int k = optind; k >= optind - 1; k--)
			if (k >= 1 && k < argc && argv[k][0] == '-' &&
			    argv[k][1] && argv[k][1] != '-' &&
			    strchr(argv[k] + 1, optopt)) {
				snprintf(buf, size, "-%c", optopt);
				return;
			}
	a = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "?";
	n = strcspn(a, "=");
	snprintf(buf, size, "%.*s", (int)(n < 200 ? n : 200), a);
}

int cli_common_option(struct hr_global *g, const char *cmd, const char *usage,
		      int c, int argc, char *const argv[])
{
	const char *arg = optarg;
	char opt[208];

	switch (c) {
	case 'h':
		fputs(usage, stdout);
		return HR_OK;
	case 'q':
		g->quiet = 1;
		return CLI_NEXT;
	case 'v':
		g->verbose++;
		return CLI_NEXT;
	case CLI_OPT_DB:
		g->db_path = arg;
		return CLI_NEXT;
	case CLI_OPT_FORMAT:
		if (cli_parse_format(arg, &g->format))
			return cli_usage_error(cmd, "unknown format '%s' (md, "
					       "csv, json, tex)", arg);
		g->format_given = 1;
		return CLI_NEXT;
	case ':':
		refused_option(argc, argv, opt, sizeof(opt));
		return cli_usage_error(cmd, "option '%s' needs a value", opt);
	case '?':
		refused_option(argc, argv, opt, sizeof(opt));
		if (optopt && !strncmp(opt, "--", 2))
			return cli_usage_error(cmd, "option '%s' takes no value",
					       opt);
		return cli_usage_error(cmd, "unknown option '%s'", opt);
	default:
		return CLI_OTHER;
	}
}

int cli_report(const char *cmd, const struct hr_err *e)
{
	if (e->code == HR_OK)
		return e->code;
	/* Messages echo paths and names from the input: a control
	 * character (an escape sequence in a file name) is shown as \xNN,
	 * never sent to the terminal. */
	fprintf(stderr, "headroom %s: ", cmd);
	for (const unsigned char *c = (const unsigned char *)e->msg; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			fprintf(stderr, "\\x%02x", *c);
		else
			fputc(*c, stderr);
	fputc('\n', stderr);
	return e->code;
}

int cli_finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "headroom: cannot write output: %s\n",
			strerror(errno));
		return HR_SYSTEM;
	}
	return rc;
}

void cli_getopt_reset(void)
{
	optind = 0; /* glibc: 0 also re-initialises its internal state */
	opterr = 0; /* commands print their own usage errors */
}

const char *cli_lib_path(const char *given, const char *name, char **owned)
{
	if (!given)
		return *owned = runfiles_find(RUNFILES_LIBEXEC, name);
	return strcmp(given, "none") ? given : NULL;
}

int cli_check_lib(const char *cmd, const char *opt, const char *path)
{
	if (!path || !strcmp(path, "none") || access(path, R_OK) == 0)
		return CLI_NEXT;
	return cli_usage_error(cmd, "cannot read --%s %s: %s", opt, path,
			       strerror(errno));
}

int cli_parse_int(const char *s, long long min, long long max,
		  long long *out)
{
	const char *d = *s == '-' && min < 0 ? s + 1 : s;
	char *end;
	long long v;

	if (*d < '0' || *d > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end || errno)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int cli_parse_real(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s || isspace((unsigned char)*s) || *s == '+')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}
